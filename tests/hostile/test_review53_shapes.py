"""Shapes the cold review of session 53 (brief review53) found raising: mutating the fixtures of G107, S26, G10 and S45
(tools/fuzz_check.py over them, and huge values by hand). An ollama/ollama tag with a 5,000-digit minor (G10's release
reader: int() refuses more than 4,300 digits) and a pod whose ``volumes`` is a boolean beside an Ollama client's
mounted settings ConfigMap (ollama-client-model-pulled iterated it: TypeError). Checked in-process without the
containment of `policies check`, so any exception fails the test."""

from __future__ import annotations

import pytest

from policies.check import load_resources, manifest_files
from policies.registry import evaluate

SHAPES = {
    "ollama-tag-of-5000-digits": """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama, namespace: ai}
spec:
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
      - name: ollama
        image: "ollama/ollama:0.%s.0"
        lifecycle: {postStart: {exec: {command: [/bin/sh, -c, "ollama pull phi3:mini"]}}}
        resources: {limits: {memory: 2Gi}}
"""
    % ("9" * 5000),
    "volumes-a-boolean-beside-a-mounted-script": """
apiVersion: v1
kind: ConfigMap
metadata: {name: pull}
data: {pull.sh: "#!/bin/sh\\nollama pull mistral\\necho done\\n"}
---
apiVersion: batch/v1
kind: Job
metadata: {name: ollama-pull-mistral, namespace: llm-stack}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: ollama-pull
        command: [/bin/sh, /scripts/pull.sh]
        volumeMounts: [{mountPath: /scripts, name: s}]
      volumes: true
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama, namespace: llm-stack}
spec:
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers: [{name: ollama, image: "ollama/ollama:0.5.7", ports: [{containerPort: 11434}]}]
""",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_review53_shape_never_raises(tmp_path, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SHAPES[name])
    violations = evaluate(load_resources(manifest_files([str(path)])))
    assert all(isinstance(v.message, str) for v in violations)
    assert violations
