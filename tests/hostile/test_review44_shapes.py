"""Shapes the cold review of session 44 found raising (/tmp/review44/fuzz/f6.yaml, f7.yaml; review items 11, 12): a
name that is a list or map in a storage-initializer override's env (G33) and in a pod volume beside an Ollama store
(G6), and an env that is a number beside a stray vLLM positional (S38, tools/fuzz_check.py seed 31337;
review item 17). Checked in-process without the containment of `policies check`, so any exception fails the test."""

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
    "llmisvc-env-a-number-beside-stray-args": """
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: qwen2-3b-pattern1
  namespace: llm-d-inference-scheduling
spec:
  model:
    name: Qwen/Qwen2.5-3B-Instruct
    uri: hf://Qwen/Qwen2.5-3B-Instruct
  replicas: 1
  router:
    gateway: {}
    route: {}
    scheduler: {}
  template:
    containers:
    - args:
      - "python3 -m vllm.entrypoints.openai.api_server \\\n  --model=/mnt/models \\\
        \n  --dtype=half \\\n  --max-model-len=2048 \\\n  --tensor-parallel-size=4\
        \\ \\\n  --disable-log-requests\n"
      env: 1000000000000000000000000000000
      image: registry.redhat.io/rhaiis/vllm-tpu-rhel9:3.2.5
      livenessProbe:
        failureThreshold: 5
        httpGet:
          path: /health
          port: 8000
          scheme: HTTP
        initialDelaySeconds: 240
        periodSeconds: 30
        timeoutSeconds: 30
      name: main
      readinessProbe:
        httpGet:
          path: /v1/models
          scheme: HTTP
        initialDelaySeconds: 240
        periodSeconds: 10
        timeoutSeconds: 10
      resources:
        limits:
          google.com/tpu: 1e400
        requests:
          google.com/tpu: '4'
    imagePullSecrets:
    - name: 11009103-jhull-svc-pull-secret
    nodeSelector:
      cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice
      cloud.google.com/gke-tpu-topology: 2x2
    tolerations:
    - 1000000000000000000000000000000
""",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mistyped_name_never_raises(tmp_path, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SHAPES[name])
    violations = evaluate(load_resources(manifest_files([str(path)])))
    assert violations and all(isinstance(v.message, str) for v in violations)
