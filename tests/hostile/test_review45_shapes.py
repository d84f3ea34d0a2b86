"""Shapes the cold review of session 45 found raising (/tmp/review45/fz/w1.yaml, w3.yaml; review item 7): a ConfigMap
name that is a list or map in ``envFrom.configMapRef`` / ``configMapKeyRef`` (the memoized vLLM command-line reader
hashed it: 77 checks 'could not be checked'), and a ConfigMap whose ``metadata.name`` is a map (S27's fill-in reader
keyed a dict by it). Checked in-process without the containment of `policies check`, so any exception fails the test."""

from __future__ import annotations

import pytest

from policies.check import load_resources, manifest_files
from policies.registry import evaluate

SHAPES = {
    "config-map-ref-name-a-list": """
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {A: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.9.2
        args: ["--model", "$(A)", "--port", "$(B)"]
        envFrom: [{configMapRef: {name: [1]}}]
        env: [{name: B, valueFrom: {configMapKeyRef: {name: {x: 1}, key: A}}}]
        resources: {limits: {nvidia.com/gpu: 1}}
""",
    "config-map-name-a-map": r"""
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  replicas: 0
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      volumes: [{name: m, emptyDir: null}, {name: e, ephemeral: null}, "x", {name: 5}]
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.6
        args: ["--model", "/m/x", "--lora-modules", "{\"name\": 1, \"path\": [1]}", "a=b", "{bad", "--swap-space", "abc", "--tensor-parallel-size", "1e400", "--reasoning-parser", ""]
        env: [{name: TMPDIR, value: 5}, {name: VLLM_USE_V1, value: "0"}, {name: HOME, valueFrom: {configMapKeyRef: [1]}}, {name: X, valueFrom: {configMapKeyRef: {name: [1], key: {a: 1}}}}]
        envFrom: [{configMapRef: {name: {x: 1}}}, null, "s", {configMapRef: [1], prefix: 5}]
        securityContext: {readOnlyRootFilesystem: true}
        workingDir: 7
        volumeMounts: [{name: m, mountPath: /m}, {name: e, mountPath: 5}, null, {mountPath: "/tmp", readOnly: "yes"}]
        resources: {limits: {nvidia.com/gpu: "x", memory: "-1"}}
        livenessProbe: {periodSeconds: 1e999, failureThreshold: -5, httpGet: {path: 5, port: "x"}}
        readinessProbe: {periodSeconds: "abc", timeoutSeconds: [1]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: {a: 1}}
data: [1, 2]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {TMPDIR: [1], A: null}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h}
spec:
  scaleTargetRef: {kind: Deployment, name: vllm}
  minReplicas: "abc"
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: [1]}
spec:
  headGroupSpec: {template: {metadata: {labels: [1, 2]}, spec: {containers: [{name: h, image: rayproject/ray:2.9.0}]}}}
  workerGroupSpecs: [null, {groupName: 5, template: {metadata: {labels: {a: {b: 1}}}}}, "x"]
---
apiVersion: v1
kind: Service
metadata: {name: s}
spec: {selector: {ray.io/cluster: x, ray.io/group: [1]}}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: i, annotations: [1]}
spec:
  predictor:
    model: {modelFormat: {name: huggingface}, storageUri: 5, runtime: rt}
    containers: [{name: kserve-container, volumeMounts: [{mountPath: /mnt/models, name: [1]}]}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: rt}
spec:
  supportedModelFormats: [{name: huggingface}]
  containers: [{name: kserve-container, image: kserve/huggingfaceserver:v0.11.1, volumeMounts: [{mountPath: /mnt/models/, name: x}, 5]}]
""",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mistyped_config_map_name_never_raises(tmp_path, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SHAPES[name])
    violations = evaluate(load_resources(manifest_files([str(path)])))
    assert violations and all(isinstance(v.message, str) for v in violations)
