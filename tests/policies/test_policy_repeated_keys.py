"""A document that repeats a mapping key no longer hides everything else: YAML parsers outside strict decoding keep the
key's last value, so its objects are read that way (every finding on them advice), and the file's other documents are
checked as usual. Fresh set 31: aws-samples/scalable-hw-agnostic-inference mistral/mistral-g5-deploy.yaml repeats
`volumes` in one pod spec; its labeller filed S27 blocking and six other problems in the same Deployment, which the
pack could not see while the whole file was refused.

S27 itself is advice there: `kubectl apply -f` decodes YAML without strict checks and applies the last value
(kubernetes/apimachinery v0.33.0 pkg/util/yaml/decoder.go:125-132, sigs.k8s.io/yaml v1.4.0 yaml.go:50-57; kubernetes/
kubernetes#89303, #14791), as set 14's labeller found for Angel-FulFilment-Services/Angel-Intelligence
k8s/vllm-deployment.yaml@04f4b28e (an identical nodeSelector twice: an S27 trap). Set 31's "strict conversion
rejects it" holds for kustomize and strict readers, not for kubectl apply."""

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
    assert proc.returncode == 0, proc.stderr  # nothing blocks: the repeated key is advice, the Deployment read best-effort
    return json.loads(proc.stdout)


def test_the_repeated_key_is_advice_and_the_rest_is_read(tmp_path):
    rows = _check(tmp_path)["violations"]
    readable = [v for v in rows if v["policy"] == "manifest-readable"]
    assert [v["enforcement"] for v in readable] == ["advisory"]
    assert "repeats the key 'volumes': `kubectl apply -f` keeps its last value" in readable[0]["message"]
    on_deployment = [v for v in rows if "Deployment/mistral" in v["resource"] and v["policy"] != "manifest-readable"]
    assert on_deployment and {v["enforcement"] for v in on_deployment} == {"advisory"}
    assert any(v["policy"] == "image-tag-pinned" for v in on_deployment)
    # The file's other document is checked as usual.
    assert any(v["policy"] == "no-load-balancer-service" and "Service/mistral" in v["resource"] for v in rows)


# Angel-FulFilment-Services/Angel-Intelligence k8s/vllm-deployment.yaml at 04f4b28e07e2af6000f0ff5e8c05cce5c5331c30
# (set 14), its shape: the same nodeSelector written twice in one pod spec, identical values.
TWICE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-server}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      runtimeClassName: nvidia
      nodeSelector:
        nvidia.com/gpu.product: "AGX-Thor"
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: [--model, /models/qwen]
      nodeSelector:
        nvidia.com/gpu.product: "AGX-Thor"
"""


def test_an_identical_key_written_twice_blocks_nothing(tmp_path):
    path = tmp_path / "k8s" / "vllm-deployment.yaml"
    path.parent.mkdir()
    path.write_text(TWICE)
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(path), "--format", "json"], cwd=ROOT, capture_output=True, text=True
    )
    rows = json.loads(proc.stdout)["violations"]
    assert [v["enforcement"] for v in rows if v["policy"] == "manifest-readable"] == ["advisory"]
    assert not [v for v in rows if v["enforcement"] == "mandatory"] and proc.returncode == 0
