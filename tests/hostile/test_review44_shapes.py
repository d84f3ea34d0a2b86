"""Shapes the cold review of session 44 found raising (/tmp/review44/fuzz/f6.yaml, f7.yaml; review items 11, 12): a
name that is a list or map in a storage-initializer override's env (G33) and in a pod volume beside an Ollama store
(G6). Checked in-process without the containment of `policies check`, so any exception fails the test."""

from __future__ import annotations

import pytest

from policies.check import load_resources, manifest_files
from policies.registry import evaluate

SHAPES = {
    "storage-initializer-env-name-a-list": """
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: a, namespace: x}
spec:
  model: {uri: "hf://a/b"}
  template:
    initContainers: [{name: storage-initializer, env: [{name: [1], value: x}, {name: {a: 1}}]}]
    containers: [{name: main}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: x}
spec: {podSelector: {}, policyTypes: [Egress], egress: [{to: [{namespaceSelector: {}}], ports: [{port: 443}]}]}
""",
    "ollama-volume-name-a-list": """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ollama-data, namespace: x}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 50Gi}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama, namespace: x}
spec:
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
      - name: ollama
        image: ollama/ollama:0.9.6
        ports: [{containerPort: 11434}]
        readinessProbe: {httpGet: {path: /, port: 11434}}
        volumeMounts: [{name: data, mountPath: /root/.ollama}]
      volumes:
      - {name: [1], emptyDir: {}}
      - {name: data, persistentVolumeClaim: {claimName: ollama-data}}
""",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mistyped_name_never_raises(tmp_path, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SHAPES[name])
    violations = evaluate(load_resources(manifest_files([str(path)])))
    assert violations and all(isinstance(v.message, str) for v in violations)
