#!/usr/bin/env python3
"""Stands in for jax.distributed.initialize(), which Debian does not ship.

Reads the environment a JAX process gets, from the Training Operator's JAXJob
(COORDINATOR_ADDRESS, COORDINATOR_PORT, NUM_PROCESSES, PROCESS_ID) or Kubeflow
Trainer's jax-distributed runtime (JAX_COORDINATOR_ADDRESS as host:port,
JAX_NUM_PROCESSES, JAX_PROCESS_ID), checks it as those controllers write it,
then does what the coordinator does: process 0 listens at the coordinator's
port, every other process connects and sends its id, and process 0 answers
once all ids 0..N-1 have arrived. Exits 0 only when that worked; prints
`peers=N` on process 0.
"""
import os
import socket
import sys
import time


def fail(message):
    print(f"jax_peers: {message}", file=sys.stderr, flush=True)
    sys.exit(3)


def environment():
    env = os.environ
    if "JAX_COORDINATOR_ADDRESS" in env:  # Trainer v2: "host:port"
        host, _, port = env["JAX_COORDINATOR_ADDRESS"].rpartition(":")
        count, me = env["JAX_NUM_PROCESSES"], env["JAX_PROCESS_ID"]
    else:  # Training Operator v1: host and port apart, PYTHONUNBUFFERED=1
        host, port = env["COORDINATOR_ADDRESS"], env["COORDINATOR_PORT"]
        count, me = env["NUM_PROCESSES"], env["PROCESS_ID"]
        if env.get("PYTHONUNBUFFERED") != "1":
            fail(f"PYTHONUNBUFFERED is {env.get('PYTHONUNBUFFERED')!r}, not '1'")
    if not (port.isdigit() and count.isdigit() and me.isdigit()):
        fail(f"not numbers: port {port!r}, processes {count!r}, id {me!r}")
    if not host or ":" in host:
        fail(f"the coordinator's host is {host!r}")
    if int(me) >= int(count):
        fail(f"process id {me} of {count}")
    return host, int(port), int(count), int(me)


def serve(port, count):
    seen = {0}
    with socket.create_server(("127.0.0.1", port)) as server:
        server.settimeout(60)
        peers = []
        while len(seen) < count:
            conn, _ = server.accept()
            peer_id = int(conn.recv(16).decode().strip())
            if peer_id in seen:
                fail(f"process id {peer_id} came twice")
            seen.add(peer_id)
            peers.append(conn)
        for conn in peers:
            conn.sendall(b"ok\n")
            conn.close()
    print(f"peers={count}", flush=True)


def join(host, port, me):
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection((host, port), timeout=5) as conn:
                conn.sendall(f"{me}\n".encode())
                if conn.recv(16).strip() != b"ok":
                    fail("the coordinator did not answer ok")
                return
        except OSError:
            if time.monotonic() > deadline:
                fail(f"no coordinator at {host}:{port}")
            time.sleep(0.1)


def main():
    host, port, count, me = environment()
    print(f"process {me} of {count}, coordinator {host}:{port}", flush=True)
    if me == 0:
        serve(port, count)
    else:
        join(host, port, me)


if __name__ == "__main__":
    main()
