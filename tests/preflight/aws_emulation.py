"""A real AWS API emulation for preflight: moto in server mode, with a small stand-in in front for what moto lacks.

`moto_server` (PyPI moto[server], requirements-dev.txt) runs as its own process on 127.0.0.1 and a free port, once per
test session; the stand-in is an HTTP server on another loopback port that preflight's clients are pointed at
(AWS_ENDPOINT_URL). It answers the calls moto 5.x does not implement and forwards every other request to moto
unchanged. What moto lacks (moto 5.2.6: moto/eks/responses.py has clusters, node groups and Fargate profiles only;
moto/ec2/responses/ has no DescribeCapacityReservations; moto/servicequotas/models.py knows the "vpc" service code
only):

* EKS DescribeAddon (GET /clusters/NAME/addons/ADDON): the add-ons of ``StandIn.addons``;
* EKS ListAccessEntries and ListAssociatedAccessPolicies (GET /clusters/NAME/access-entries[/ARN/access-policies]):
  ``StandIn.access_entries``;
* EKS DescribeCluster is moto's answer, with the fields moto's Cluster does not keep added: ``accessConfig``
  (``StandIn.authentication_mode``) and ``resourcesVpcConfig.vpcId`` (``StandIn.vpc_id``);
* EC2 DescribeCapacityReservations: ``StandIn.reservations``, filtered by id, ``tag:KEY`` and ``owner-id``;
* Service Quotas GetServiceQuota and GetAWSDefaultServiceQuota for service code ec2: ``StandIn.quotas``.

``StandIn.throttle`` names services (by their SigV4 signing name) whose every call the stand-in answers with
ThrottlingException, as AWS does under load.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from xml.sax.saxutils import escape

EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/"


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MotoServer:
    """`python -m moto.server` on 127.0.0.1 and a free port, in its own process, holding account ``account``."""

    def __init__(self, account: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "MOTO_ACCOUNT_ID": account},
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"moto_server exited with {self.proc.returncode}") from None
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("moto_server did not listen within 30 s")

    def reset(self) -> None:
        """Every emulated account back to empty (moto's own reset endpoint)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("POST", "/moto-api/reset")
        conn.getresponse().read()
        conn.close()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _signing_service(headers: Any) -> str:
    """The service a SigV4-signed request is for (the credential scope of its Authorization header)."""
    match = re.search(r"Credential=[^/]+/[^/]+/[^/]+/([^/]+)/", headers.get("Authorization", ""))
    return match.group(1) if match else ""


class StandIn:
    """The stand-in's state (what the calls moto lacks answer), reset per test, and its HTTP server."""

    def __init__(self, moto: MotoServer):
        self.moto = moto
        self.reset()
        handler = type("Handler", (_Handler,), {"standin": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reset(self) -> None:
        """A ready account's answers: no add-on, API_AND_CONFIG_MAP, no access entry, no reservation, big quotas."""
        self.addons: dict[str, dict[str, Any]] = {}
        self.authentication_mode = "API_AND_CONFIG_MAP"
        self.vpc_id: Optional[str] = None
        self.access_entries: dict[str, list[dict[str, Any]]] = {}  # principal ARN -> associated access policies
        self.reservations: list[dict[str, Any]] = []  # each: id, type, zone, state, count, tags, owner
        self.quotas: dict[str, float] = {}
        self.default_quota = 10_000.0
        self.throttle: set[str] = set()
        self.calls: list[str] = []  # "service Operation" of each call the stand-in answered itself

    def stop(self) -> None:
        self.server.shutdown()


class _Handler(BaseHTTPRequestHandler):
    standin: StandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes, content_type: str, extra: Optional[dict[str, str]] = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any, error_type: Optional[str] = None) -> None:
        extra = {"x-amzn-ErrorType": error_type} if error_type else None
        self._send(status, json.dumps(doc).encode(), "application/json", extra)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        body = self._body()
        service = _signing_service(self.headers)
        s = self.standin
        if service in s.throttle:
            s.calls.append(f"{service} throttled")
            if service == "ec2":
                xml = "<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors></Response>"
                return self._send(503, xml.encode(), "text/xml")
            if service in ("sts", "iam", "sqs"):
                xml = "<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>"
                return self._send(400, xml.encode(), "text/xml")
            return self._json(400, {"__type": "ThrottlingException", "message": "Rate exceeded"}, "ThrottlingException")
        path = urllib.parse.urlsplit(self.path).path
        if service == "eks" and method == "GET":
            if self._eks(path):
                return
        if service == "ec2" and method == "POST":
            form = urllib.parse.parse_qs(body.decode(), keep_blank_values=True)
            if form.get("Action") == ["DescribeCapacityReservations"]:
                return self._reservations(form)
        target = self.headers.get("X-Amz-Target", "")
        if target.startswith("ServiceQuotasV20190624."):
            params = json.loads(body or b"{}")
            if params.get("ServiceCode") == "ec2":
                return self._quota(target.split(".", 1)[1], params)
        self._forward(method, body, path)

    # --- EKS -------------------------------------------------------------------------------------

    def _eks(self, path: str) -> bool:
        s = self.standin
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        if len(parts) == 4 and parts[0] == "clusters" and parts[2] == "addons":
            s.calls.append("eks DescribeAddon")
            addon = s.addons.get(parts[3])
            if addon is None:
                self._json(404, {"message": f"No addon: {parts[3]} found in cluster: {parts[1]}"}, "ResourceNotFoundException")
            else:
                self._json(200, {"addon": {"addonName": parts[3], "clusterName": parts[1], **addon}})
            return True
        if len(parts) == 3 and parts[0] == "clusters" and parts[2] == "access-entries":
            s.calls.append("eks ListAccessEntries")
            self._json(200, {"accessEntries": sorted(s.access_entries)})
            return True
        if len(parts) == 5 and parts[2] == "access-entries" and parts[4] == "access-policies":
            s.calls.append("eks ListAssociatedAccessPolicies")
            if parts[3] not in s.access_entries:
                self._json(
                    404, {"message": f"The specified principalArn could not be found: {parts[3]}"}, "ResourceNotFoundException"
                )
            else:
                doc = {"clusterName": parts[1], "principalArn": parts[3], "associatedAccessPolicies": s.access_entries[parts[3]]}
                self._json(200, doc)
            return True
        if len(parts) == 2 and parts[0] == "clusters":
            status, headers, body = self._moto("GET", self.path, b"")
            if status == 200:
                doc = json.loads(body)
                doc["cluster"]["accessConfig"] = {"authenticationMode": s.authentication_mode}
                if s.vpc_id:
                    doc["cluster"].setdefault("resourcesVpcConfig", {})["vpcId"] = s.vpc_id
                body = json.dumps(doc).encode()
            self._send(status, body, headers.get("Content-Type", "application/json"))
            return True
        return False

    # --- EC2 capacity reservations -----------------------------------------------------------

    def _reservations(self, form: dict[str, list[str]]) -> None:
        s = self.standin
        s.calls.append("ec2 DescribeCapacityReservations")
        ids = [v[0] for k, v in sorted(form.items()) if k.startswith("CapacityReservationId.")]
        filters: dict[str, list[str]] = {}
        for key, value in form.items():
            m = re.fullmatch(r"Filter\.(\d+)\.Name", key)
            if m:
                n = m.group(1)
                filters[value[0]] = [v[0] for k, v in sorted(form.items()) if k.startswith(f"Filter.{n}.Value.")]
        unknown = [i for i in ids if i not in {r["id"] for r in s.reservations}]
        if unknown:
            xml = (
                "<Response><Errors><Error><Code>InvalidCapacityReservationId.NotFound</Code><Message>The capacity "
                f"reservation ID '{escape(unknown[0])}' does not exist</Message></Error></Errors></Response>"
            )
            return self._send(400, xml.encode(), "text/xml")
        items = []
        for r in s.reservations:
            if ids and r["id"] not in ids:
                continue
            ok = True
            for name, values in filters.items():
                if name.startswith("tag:"):
                    ok &= r.get("tags", {}).get(name[4:]) in values
                elif name == "tag-key":
                    ok &= any(k in r.get("tags", {}) for k in values)
                elif name == "owner-id":
                    ok &= r.get("owner", "") in values
            if ok:
                tags = "".join(
                    f"<item><key>{escape(k)}</key><value>{escape(v)}</value></item>" for k, v in sorted(r.get("tags", {}).items())
                )
                items.append(
                    f"<item><capacityReservationId>{r['id']}</capacityReservationId><instanceType>{r['type']}</instanceType>"
                    f"<availabilityZone>{r['zone']}</availabilityZone><state>{r['state']}</state>"
                    f"<totalInstanceCount>{r['count']}</totalInstanceCount><tagSet>{tags}</tagSet></item>"
                )
        xml = (
            f'<DescribeCapacityReservationsResponse xmlns="{EC2_NS}"><requestId>standin</requestId>'
            f"<capacityReservationSet>{''.join(items)}</capacityReservationSet></DescribeCapacityReservationsResponse>"
        )
        self._send(200, xml.encode(), "text/xml")

    # --- Service Quotas ------------------------------------------------------------------------

    def _quota(self, operation: str, params: dict[str, Any]) -> None:
        s = self.standin
        s.calls.append(f"service-quotas {operation}")
        code = params.get("QuotaCode", "")
        value = s.quotas.get(code, s.default_quota)
        quota = {"ServiceCode": "ec2", "QuotaCode": code, "Value": value, "Unit": "None", "Adjustable": True}
        self._json(200, {"Quota": quota})

    # --- everything else: moto ------------------------------------------------------------

    def _moto(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.standin.moto.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "content-length")}
        conn.request(method, path, body=body or None, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        out = {k: v for k, v in resp.getheaders() if k.lower() not in ("transfer-encoding", "connection", "content-length")}
        conn.close()
        return resp.status, out, data

    def _forward(self, method: str, body: bytes, path: str) -> None:
        status, headers, data = self._moto(method, self.path, body)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)


class SilentEndpoint:
    """A loopback socket that accepts connections and never answers (a blackholing proxy, a hung endpoint).

    With ``hang_up``, it closes each connection at once instead. ``accepted`` counts the connections (the attempts).
    """

    def __init__(self, hang_up: bool = False) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.hang_up, self.accepted = hang_up, 0
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            if self.hang_up:
                conn.close()
            else:
                self.held.append(conn)  # never read from, never written to

    def close(self) -> None:
        for conn in self.held:
            conn.close()
        self.sock.close()


def aws_env(endpoint: str, home: str) -> dict[str, str]:
    """Environment for a preflight run against ``endpoint``: test keys, no shared files, no metadata waits."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_ENDPOINT_URL=endpoint,
        AWS_CONFIG_FILE=os.path.join(home, "config"),
        AWS_SHARED_CREDENTIALS_FILE=os.path.join(home, "credentials"),
        AWS_METADATA_SERVICE_TIMEOUT="1",
        AWS_METADATA_SERVICE_NUM_ATTEMPTS="1",
        HOME=home,
    )
    return env
