#!/usr/bin/env python3
"""Stands in for a TensorFlow cluster (Debian does not ship TensorFlow).

Reads TF_CONFIG as the Training Operator writes it for every replica of a
TFJob (controller/tensorflow/tensorflow.go: keys cluster, task, environment in
that order; the cluster's roles sorted, each a list of host:port; the task's
type lower-cased and its index), checks it, and listens at its own address.
The chief (or worker 0 when there is no chief) then reaches every other
replica at the address TF_CONFIG gives it and exits 0, printing `peers=N`.
Workers and the evaluator exit once reached; parameter servers, as real ones
do, serve until they are stopped.
"""
import json
import os
import socket
import sys
import time


def fail(message):
    print(f"tf_peers: {message}", file=sys.stderr, flush=True)
    sys.exit(3)


def read_config():
    text = os.environ.get("TF_CONFIG")
    if text is None:
        fail("no TF_CONFIG")
    config = json.loads(text)
    if list(config) != ["cluster", "task", "environment"] or config["environment"] != "cloud":
        fail(f"TF_CONFIG is not shaped as the operator writes it: {text}")
    if json.dumps(config, separators=(",", ":")) != text:
        fail(f"TF_CONFIG is not compact JSON: {text}")
    cluster = config["cluster"]
    if list(cluster) != sorted(cluster):
        fail(f"the cluster's roles are not sorted: {list(cluster)}")
    addresses = [a for role in cluster.values() for a in role]
    if len(set(addresses)) != len(addresses):
        fail(f"two replicas share an address: {addresses}")
    task = config["task"]
    if list(task) != ["type", "index"] or task["type"] not in cluster:
        fail(f"task {task} is not one of the cluster's")
    return cluster, task["type"], task["index"]


def listen(address):
    host, _, port = address.rpartition(":")
    server = socket.create_server((host, int(port)))
    server.settimeout(60)
    return server


def answer(server, forever):
    while True:
        conn, _ = server.accept()
        with conn:
            if conn.recv(16).strip() == b"ping":
                conn.sendall(b"pong\n")
        if not forever:
            return


def reach(address):
    host, _, port = address.rpartition(":")
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=5) as conn:
                conn.sendall(b"ping\n")
                if conn.recv(16).strip() == b"pong":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            fail(f"no answer from {address}")
        time.sleep(0.1)


def main():
    cluster, role, index = read_config()
    me = cluster[role][index]
    print(f"{role} {index} at {me}, roles {','.join(cluster)}", flush=True)
    lead = ("chief", 0) if "chief" in cluster else ("worker", 0)
    server = listen(me)
    if (role, index) != lead:
        answer(server, forever=role == "ps")
        return
    others = [a for r in cluster for i, a in enumerate(cluster[r]) if (r, i) != lead]
    for address in others:
        reach(address)
    print(f"peers={len(others) + 1}", flush=True)


if __name__ == "__main__":
    main()
