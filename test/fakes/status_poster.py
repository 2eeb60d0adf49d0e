#!/usr/bin/python3 -S
"""A replica that posts to the status server kftrain --local gives it, as a user's program
would with Python's standard library, and prints each answer:
    answer <case> <code> <message>
Cases: wrong-token, malformed, percent-250, flood (N good posts; prints the codes seen),
good (45%, ETA 30 s, loss and grad_norm). Then it waits until the file named by its first
argument exists, so the test can read the job's status while it runs."""
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

URL = os.environ["KUBEFLOW_TRAINER_SERVER_URL"]
CONTEXT = ssl.create_default_context(cafile=os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
with open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]) as f:
    TOKEN = f.read().strip()


def post(body, token=TOKEN):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(URL, data=data, method="POST", headers={
        "Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, context=CONTEXT, timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def status(percent, **extra):
    now = datetime.now(timezone.utc).isoformat()
    return {"trainerStatus": dict(progressPercentage=percent, lastUpdatedTime=now, **extra)}


def report(case, code, body):
    print("answer", case, code, body.get("message", "ok"), flush=True)


release = sys.argv[1]
floods = int(sys.argv[2]) if len(sys.argv) > 2 else 0
report("wrong-token", *post(status(10), token="not-the-token"))
report("malformed", *post(b'{"trainerStatus": {"progressPercentage": "half"'))
report("percent-250", *post(status(250)))
codes = set()
for i in range(floods):
    codes.add(post(status(i % 40))[0])
print("answer flood", " ".join(str(c) for c in sorted(codes)), flush=True)
report("good", *post(status(45, estimatedRemainingSeconds=30, metrics=[
    {"name": "loss", "value": "0.25"}, {"name": "grad_norm", "value": "1.5"}])))
deadline = time.monotonic() + 120
while not os.path.exists(release) and time.monotonic() < deadline:
    time.sleep(0.05)
