# Sourced by the benchmarks that start ranks on 127.0.0.1.
# free_port: print a TCP port the kernel gave a socket on 127.0.0.1 a moment ago, for
# MASTER_PORT; a random one can be in use (an earlier run's, or any other program's), and
# the ranks then fail to bind.
free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
