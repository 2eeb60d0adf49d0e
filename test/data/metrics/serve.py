# A program of the user's own that serves Prometheus metrics at the port kftrain gives it
# (KFTRAIN_METRICS_PORT) and the path the job file names, labelled with its RANK.
import http.server
import os

PORT = int(os.environ["KFTRAIN_METRICS_PORT"])
RANK = os.environ.get("RANK", "0")


class Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        found = self.path == "/stats"
        body = f'my_program_up{{rank="{RANK}"}} 1\n'.encode() if found else b"not here\n"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", PORT), Metrics).serve_forever()
