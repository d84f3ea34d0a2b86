"""Shapes the mutation fuzzer of session 44 found raising in the pack (real manifests of the corpora and spent sets
13-43 with a scalar replaced by a list, map or number, or a name by non-text; /tmp/r44/fuzz), each reduced by hand to
the fields that matter. A name, type or list of the wrong type is no lookup key and no loop: read through the shared
readers (kube.as_dict, as_list, name_of, metadata_name), never a TypeError. Each is checked in-process without the
containment of `policies check` (so any exception fails the test), and all together through the command line, which
must not exit 3."""

from __future__ import annotations

import pytest

from policies.check import load_resources, main, manifest_files
from policies.registry import evaluate

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
    "hostpath-type-a-map": _DEPLOYMENT
    + """      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "/models/qwen"]
        volumeMounts: [{name: models, mountPath: /models}]
      volumes:
      - {name: models, hostPath: {path: /data/models, type: {a: 1}}}
""",
    "hostpath-volume-name-a-list": _DEPLOYMENT
    + """      securityContext: {runAsUser: 1000}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "facebook/opt-125m"]
        volumeMounts: [{name: cache, mountPath: /cache}]
      volumes:
      - {name: [null], hostPath: {path: /data/hf-cache, type: DirectoryOrCreate}}
""",
    "pdb-spec-a-list": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec: [1]\n",
    "pdb-match-expressions-an-integer": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\n"
    "spec: {maxUnavailable: 0, selector: {matchExpressions: 5}}\n",
    "llmisvc-template-containers-an-integer": """apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: qwen}
spec:
  model: {name: Qwen/Qwen2.5-7B-Instruct, uri: hf://Qwen/Qwen2.5-7B-Instruct}
  router: {gateway: {}, route: {}, scheduler: {}}
  template: {containers: 5}
""",
    "isvc-service-account-a-list": """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llama}
spec:
  predictor:
    serviceAccountName: [1, 2]
    model:
      modelFormat: {name: huggingface}
      storageUri: hf://meta-llama/Llama-2-7b-chat-hf
""",
}
SHAPES.update(
    {
        "isvc-storage-uri-a-map-with-trust-remote-code": """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: qwen}
spec:
  predictor:
    model:
      modelFormat: {name: huggingface}
      args: [--trust-remote-code]
      storageUri: {a: [1]}
""",
        "rayservice-mounted-configmap-name-a-map": """apiVersion: ray.io/v1
kind: RayService
metadata: {name: rs}
spec:
  serveConfigV2: |
    applications:
    - name: app
      import_path: serve_app:app
  rayClusterConfig:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - {name: ray-head, image: 'rayproject/ray-ml:2.9.0', volumeMounts: [{name: code, mountPath: /code}]}
          volumes:
          - {name: code, configMap: {name: serve-code}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {a: {b: [1]}}
data:
  serve_app.py: "app = 1\\n"
""",
        "gcp-backend-policy-target-name-a-list": """apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: gke-l7-global-external-managed
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: vllm, port: 8000}]}]
---
apiVersion: networking.gke.io/v1
kind: GCPBackendPolicy
metadata: {name: iap}
spec:
  targetRef: {group: '', kind: Service, name: [vllm]}
  default: {iap: {enabled: true}}
""",
    }
)
SHAPES.update(
    {
        "secret-key-ref-name-a-list": _DEPLOYMENT
        + """      containers:
      - name: tei
        image: ghcr.io/huggingface/text-embeddings-inference:86-1.5
        args: [--model-id=jinaai/jina-embeddings-v2-base-zh, --hf-api-token=hf-secret]
        env:
        - name: HF_TOKEN
          valueFrom: {secretKeyRef: {name: [1], key: token}}
""",
        "llmaz-open-model-name-a-list": """apiVersion: llmaz.io/v1alpha1
kind: OpenModel
metadata: {name: [qwen]}
spec:
  familyName: qwen2
  source: {modelHub: {modelID: Qwen/Qwen2-0.5B-Instruct}}
---
apiVersion: inference.llmaz.io/v1alpha1
kind: Service
metadata: {name: qwen}
spec:
  modelClaims:
    models: [{name: [qwen]}]
  workloadTemplate:
    leaderWorkerTemplate:
      workerTemplate:
        spec:
          containers:
          - {name: model-runner, image: 'vllm/vllm-openai:v0.10.1', args: [--model, /workspace/models/x]}
""",
    }
)
SHAPES.update(
    {
        "raycluster-requests-a-string": """apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc}
spec:
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.9.0
          resources: {limits: {cpu: 1, memory: 8Gi}, requests: 1e400}
""",
        "gpu-pod-priority-class-a-list": _DEPLOYMENT
        + """      priorityClassName: [1, 2]
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "facebook/opt-125m"]
        resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: placeholder}
value: -10
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  limits: {nvidia.com/gpu: 8}
""",
    }
)
SHAPES.update(
    {
        # Reduced by /tmp/r44/shapes/reduce.py (keys deleted while the same frame still raised).
        "ollama-volume-mount-name-a-map": """apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - image: ollama/ollama:0.5.4
        volumeMounts: [{name: {}}]
""",
        "ollama-volume-mounts-a-boolean": """apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - {image: 'ollama/ollama:0.5.4', volumeMounts: true}
""",
        "container-name-a-map-beside-a-token-env": """apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: {}
        env: [{name: HUGGING_FACE_HUB_TOKEN}]
""",
        "env-name-a-map-filled-in-before-apply": """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      spec:
        containers:
        - env: [{name: {}, value: $HF_TOKEN}]
""",
    }
)
SHAPES["service-target-port-a-list"] = """apiVersion: v1
kind: Service
metadata: {name: ray-vllm-serve}
spec:
  ports: [{port: 8000, targetPort: []}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
spec:
  rules:
  - http:
      paths:
      - backend: {service: {name: ray-vllm-serve, port: {number: 8000}}}
"""
SHAPES["gpu-server-port-name-a-list-beside-a-network-policy"] = """apiVersion: apps/v1
kind: Deployment
metadata: {namespace: inference}
spec:
  template:
    spec:
      containers:
      - ports: [{containerPort: 8000, name: [b]}]
        resources: {requests: {nvidia.com/gpu: 1}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {namespace: inference}
"""
# A float YAML cannot hold is read as a PlainNumber (components/loading.py), a str subclass libyaml's parser refuses.
SHAPES["serve-config-a-number-too-large-for-a-float"] = "apiVersion: ray.io/v1\nkind: RayService\nspec: {serveConfigV2: 1e400}\n"
SHAPES["service-name-a-list-beside-an-sglang-worker"] = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
spec:
  leaderWorkerTemplate:
    workerTemplate:
      spec:
        containers:
        - image: lmsysorg/sglang:latest
---
apiVersion: v1
kind: Service
metadata: {name: []}
"""
SHAPES["empty-token-env-beside-a-mount-name-a-list"] = """apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - env: [{name: HUGGING_FACE_HUB_TOKEN, value: ''}]
        volumeMounts: [{name: []}]
"""
SHAPES["ollama-env-from-config-map-name-a-list"] = """apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - image: ollama/ollama:0.16.1
        envFrom: [{configMapRef: {name: []}}]
"""


def _write(tmp_path, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SHAPES[name])
    return str(path)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mistyped_field_never_raises(tmp_path, name):
    violations = evaluate(load_resources(manifest_files([_write(tmp_path, name)])))
    assert all(isinstance(v.message, str) for v in violations)


def test_the_command_line_reports_no_internal_error(tmp_path, capsys):
    for name in SHAPES:
        _write(tmp_path, name)
    code = main([str(tmp_path), "--format", "json"])
    out = capsys.readouterr()
    assert code in (0, 1) and "internal error" not in out.err and "could not be checked" not in out.out
