"""The autoscaling policies through `python -m policies check` on plain third-party-style manifests."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: serving}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      nodeSelector: {karpenter.sh/nodepool: gpu}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.33.0
        command: [vllm, serve]
        args: [m, --tensor-parallel-size=2]
        resources: {limits: {nvidia.com/gpu: 2}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: vllm, namespace: serving}
spec:
  scaleTargetRef: {name: vllm}
  minReplicaCount: 1
  maxReplicaCount: 10
  advanced: {horizontalPodAutoscalerConfig: {behavior: {scaleDown: {stabilizationWindowSeconds: 30}}}}
  triggers:
  - type: prometheus
    metadata: {serverAddress: 'http://prometheus:9090', query: 'avg(vllm:kv_cache_usage_perc)', threshold: '80'}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  limits: {nvidia.com/gpu: 8}
  template: {spec: {}}
"""


def test_check_reports_the_autoscaling_policies_on_plain_manifests(tmp_path):
    (tmp_path / "serving.yaml").write_text(MANIFESTS)
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(tmp_path), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    # The list form, or the object form with "violations" (DESIGN.md's contract).
    violations = doc["violations"] if isinstance(doc, dict) else doc
    found = {
        (v["policy"], v["message"].split(":")[0])
        for v in violations
        if v["policy"] in ("llm-hpa-behavior", "gpu-workload-no-resource-metric-hpa")
    }
    assert found == {
        ("gpu-workload-no-resource-metric-hpa", "spec.triggers[0].metadata.threshold = 80 on a query of a 0-1 fraction"),
        (
            "llm-hpa-behavior",
            "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds = 30 is below 300 s",
        ),
        (
            "llm-hpa-behavior",
            'spec.maxReplicaCount = 10 x 2 GPUs per pod of Deployment/vllm = 20 GPUs exceeds NodePool gpu limits["nvidia.com/gpu"] = 8',
        ),
    }
