"""A document that repeats a mapping key is refused by kubectl's strict decoding (S27 stays mandatory), but it no
longer hides everything else: YAML parsers keep the key's last value, so its objects are read that way (every finding
on them advice), and the file's other documents are checked as usual. Fresh set 31: aws-samples/scalable-hw-agnostic-
inference mistral/mistral-g5-deploy.yaml repeats `volumes` in one pod spec; its labeller filed S27 blocking and six
other problems in the same Deployment, which the pack could not see while the whole file was refused."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

TEXT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: mistral, namespace: ml}
spec:
  selector: {matchLabels: {app: mistral}}
  template:
    metadata: {labels: {app: mistral}}
    spec:
      volumes:
      - name: dshm
        emptyDir: {medium: Memory}
      containers:
      - name: app
        image: vllm/vllm-openai:latest
        args: [--model, mistralai/Mistral-7B-Instruct-v0.3]
        resources: {limits: {nvidia.com/gpu: 1}}
      volumes:
      - name: dshm
        emptyDir: {medium: Memory}
---
apiVersion: v1
kind: Service
metadata: {name: mistral, namespace: ml}
spec:
  type: LoadBalancer
  selector: {app: mistral}
  ports: [{port: 80, targetPort: 8000}]
"""


def _check(tmp_path) -> dict:
    path = tmp_path / "deploy.yaml"
    path.write_text(TEXT)
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(path), "--format", "json"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stderr  # S27's mandatory finding
    return json.loads(proc.stdout)


def test_the_repeated_key_blocks_and_the_rest_is_read(tmp_path):
    rows = _check(tmp_path)["violations"]
    readable = [v for v in rows if v["policy"] == "manifest-readable"]
    assert [v["enforcement"] for v in readable] == ["mandatory"]
    assert "repeats the key 'volumes'" in readable[0]["message"]
    on_deployment = [v for v in rows if "Deployment/mistral" in v["resource"] and v["policy"] != "manifest-readable"]
    assert on_deployment and {v["enforcement"] for v in on_deployment} == {"advisory"}
    assert any(v["policy"] == "image-tag-pinned" for v in on_deployment)
    # The file's other document is checked as usual.
    assert any(v["policy"] == "no-load-balancer-service" and "Service/mistral" in v["resource"] for v in rows)
