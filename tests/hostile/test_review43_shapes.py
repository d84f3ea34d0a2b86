"""Shapes the cold review of session 43 found crashing the pack (exit 3), each read by every policy in-process: a name,
port, args list or data map of the wrong type is no lookup key, never a TypeError (/work/reviews43/review.md items 12,
13, 20, 21)."""

from __future__ import annotations

import pytest
import yaml

from policies.registry import evaluate
from tests.policies.policy_fixtures import manifest

_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
"""
SHAPES = {
    "kserve-merge-env-name-list": """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: vllm-runtime}
spec:
  supportedModelFormats: [{name: vLLM, autoSelect: true}]
  containers:
  - name: kserve-container
    image: vllm/vllm-openai:v0.10.1
    args: ["--port=8080", "--model=/mnt/models"]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: m}
spec:
  predictor:
    model:
      modelFormat: {name: vLLM}
      runtime: vllm-runtime
      env:
      - name: [HF_TOKEN]
        value: x
""",
    "sidecar-probe-port-list": _DEPLOYMENT
    + """      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "facebook/opt-125m"]
        ports: [{containerPort: [8000]}]
      - name: side
        image: curlimages/curl
        readinessProbe:
          httpGet: {path: /health, port: 8000}
""",
    "args-an-integer": _DEPLOYMENT + "      containers:\n      - {name: c, image: 'nginx:1.27', args: 8080}\n",
    "configmap-data-an-integer": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: 5\n",
    "compute-class-name-list": """apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata:
  name: [spot-gpu]
spec:
  priorities:
  - {spot: true, gpu: {type: nvidia-l4, count: 1}}
""",
    "compute-class-selector-list": _DEPLOYMENT
    + """      nodeSelector:
        cloud.google.com/compute-class: [spot-gpu]
      containers:
      - {name: c, image: 'nginx:1.27'}
""",
    # Item 21's pre-existing paths (the reviewer's fuzzer, /tmp/review43/fuzz): minimal hand-written reductions.
    "secret-type-a-map": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: {name: [1]}\nstringData: {api-key: x}\n",
    "service-name-a-list-beside-vllm": "apiVersion: v1\nkind: Service\nmetadata: {name: [vllm]}\nspec: {ports: [{port: 80}]}\n"
    "---\n"
    + _DEPLOYMENT
    + "      containers:\n      - {name: vllm, image: 'vllm/vllm-openai:v0.10.1', args: [--model, facebook/opt-125m]}\n",
    "env-name-a-list": _DEPLOYMENT
    + "      containers:\n      - {name: c, image: 'vllm/vllm-openai:v0.10.1', env: [{name: [MAX_MODEL_LEN], value: '9000'}]}\n",
    "nodepool-name-a-map": "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {a: [1]}\nspec:\n  template: null\n",
    "parent-ref-name-a-map": """apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  parentRefs: [{name: {a: 1}}]
  rules: [{backendRefs: [{name: vllm, port: 8000}]}]
""",
    "runtime-container-name-a-list": """apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata: {name: kserve-vllm-gpu2}
spec:
  supportedModelFormats: [{name: vLLM, autoSelect: true}]
  containers:
  - name: [[]]
    image: vllm/vllm-openai:v0.6.4
    command: [vllm, serve]
    args: [/mnt/models, --port=8080, --tensor-parallel-size=2]
    resources: {limits: {nvidia.com/gpu: 2}}
""",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mistyped_field_never_crashes(name):
    objects = [manifest(o) for o in yaml.safe_load_all(SHAPES[name]) if isinstance(o, dict)]
    violations = evaluate(objects, None)
    assert all(isinstance(v.message, str) for v in violations)
