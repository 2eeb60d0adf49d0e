"""A minimal Kubernetes REST client for the operator stand-ins (stdlib only, plus PyYAML).

Reads a kubeconfig (current context; embedded or file CA / client certificate / key, or a
bearer token), writes embedded credentials to a private temporary directory (mode 0700,
removed at exit), and talks to the API server over https with http.client.

Every call returns the decoded JSON object, or None where the server answered 404 (get,
delete) or 409 (create: already exists; update: conflict). Other errors raise ApiError.
"""
import atexit
import base64
import calendar
import http.client
import json
import logging
import os
import shutil
import ssl
import tempfile
import threading
import time
import urllib.parse

import yaml


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body


def _named(items, name):
    for item in items or []:
        if item.get("name") == name:
            return item
    return {}


class Client:
    def __init__(self, kubeconfig, timeout=30):
        with open(kubeconfig, encoding="utf-8") as f:
            config = yaml.safe_load(f)
        context = _named(config.get("contexts"), config.get("current-context")).get("context", {})
        cluster = _named(config.get("clusters"), context.get("cluster")).get("cluster", {})
        user = _named(config.get("users"), context.get("user")).get("user", {})
        base = os.path.dirname(os.path.abspath(kubeconfig))
        self._dir = tempfile.mkdtemp(prefix="kftrain-standin-")  # mkdtemp makes it 0700
        atexit.register(shutil.rmtree, self._dir, True)

        def material(key):
            if cluster.get(key + "-data") or user.get(key + "-data"):
                data = cluster.get(key + "-data") or user.get(key + "-data")
                path = os.path.join(self._dir, key)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as out:
                    out.write(base64.b64decode(data))
                return path
            value = cluster.get(key) or user.get(key)
            return os.path.join(base, value) if value else None

        url = urllib.parse.urlparse(cluster["server"])
        self._host, self._port = url.hostname, url.port or 443
        self._prefix = url.path.rstrip("/")
        ctx = ssl.create_default_context(cafile=material("certificate-authority"))
        if cluster.get("insecure-skip-tls-verify"):
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        cert, key = material("client-certificate"), material("client-key")
        if cert:
            ctx.load_cert_chain(cert, key)
        self._ssl = ctx
        self._token = user.get("token")
        self._timeout = timeout
        self._local = threading.local()  # one connection per thread

    # ---- transport ----
    def _conn(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection(self._host, self._port, context=self._ssl,
                                               timeout=self._timeout)
            self._local.conn = conn
        return conn

    def request(self, method, path, body=None, content_type="application/json", query=None):
        if query:
            path += "?" + urllib.parse.urlencode(query)
        headers = {"Accept": "application/json"}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        for attempt in (1, 2):  # a kept-alive connection the server closed: retry once
            conn = self._conn()
            try:
                conn.request(method, self._prefix + path, body=data, headers=headers)
                resp = conn.getresponse()
                text = resp.read().decode("utf-8", "replace")
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
        if resp.status in (404, 409):
            return None
        if resp.status >= 300:
            raise ApiError(resp.status, text)
        return json.loads(text) if text else {}

    # ---- paths ----
    @staticmethod
    def path(group_version, plural, namespace=None, name=None, sub=None):
        root = "/api/" + group_version if "/" not in group_version else "/apis/" + group_version
        p = root + (f"/namespaces/{namespace}" if namespace else "") + "/" + plural
        if name:
            p += "/" + name
        if sub:
            p += "/" + sub
        return p

    # ---- verbs ----
    def list(self, group_version, plural, namespace=None, label_selector=None):
        query = {"labelSelector": label_selector} if label_selector else None
        result = self.request("GET", self.path(group_version, plural, namespace), query=query)
        return (result or {}).get("items", [])

    def get(self, group_version, plural, namespace, name):
        return self.request("GET", self.path(group_version, plural, namespace, name))

    def create(self, group_version, plural, namespace, obj):
        return self.request("POST", self.path(group_version, plural, namespace), obj)

    def delete(self, group_version, plural, namespace, name, propagation="Background"):
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": propagation}
        return self.request("DELETE", self.path(group_version, plural, namespace, name), body)

    def patch_merge(self, group_version, plural, namespace, name, patch, sub=None):
        return self.request("PATCH", self.path(group_version, plural, namespace, name, sub), patch,
                            content_type="application/merge-patch+json")

    def update_status(self, group_version, plural, obj):
        """PUT the whole object to its status subresource (as controller-runtime's
        Status().Update does); the object's resourceVersion guards it: None on a conflict."""
        meta = obj["metadata"]
        return self.request("PUT", self.path(group_version, plural, meta["namespace"],
                                             meta["name"], "status"), obj)


def now():
    """metav1.Now() as the API serializes it (RFC 3339, seconds, UTC)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def parse_time(text):
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def warn_once(seen, key, message):
    """Log a reconcile error once per object and message (the controllers requeue with backoff)."""
    if seen.get(key) != message:
        seen[key] = message
        logging.getLogger("standin").warning("%s", message)


def record_event(client, obj, event_type, reason, message, component):
    """A core/v1 Event about obj, as client-go's EventRecorder writes one (no aggregation)."""
    meta = obj.get("metadata", {})
    stamp = now()
    event = {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": f"{meta.get('name')}.{time.time_ns():x}",
                     "namespace": meta.get("namespace")},
        "involvedObject": {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
                           "name": meta.get("name"), "namespace": meta.get("namespace"),
                           "uid": meta.get("uid"), "resourceVersion": meta.get("resourceVersion")},
        "reason": reason, "message": message, "type": event_type,
        "source": {"component": component},
        "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1,
    }
    try:
        client.create("v1", "events", meta.get("namespace"), event)
    except Exception:  # an event is best effort, as in client-go
        pass
