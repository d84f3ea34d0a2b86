"""Two reading gaps set 5 showed (after its final read): a ServingRuntime with KServe's own placeholders, and kthena's
entry/worker roles.

- alexbarbosa1989/ai-playground rhoai-tests/rhoai3-custom-rhaiis/rhaiis-custom-runtime.yaml: a ServingRuntime whose
  args hold `--served-model-name={{.Name}}`, which KServe fills from the InferenceService (kserve v0.20.0
  pkg/controller/v1beta1/inferenceservice/utils/utils.go:324-336 ReplacePlaceholders). It was reported as an
  unrendered Helm template and not checked.
- volcano-sh/kthena examples/model-serving/multi-node.yaml: a ModelServing role with an entryTemplate (8 GPUs) and
  workerReplicas: 1 workers (8 GPUs) serving TP 8 x PP 2 = 16 ranks over the role's 2 pods; S3 blocked it as 16 ranks on
  one 8-GPU pod.
"""

from __future__ import annotations

from policy_fixtures import resource

from policies.manifests import read_manifests
from policies.registry import evaluate
from policies.vllm import tp_matches_gpu_limit

RUNTIME = """apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-cuda-runtime
spec:
  containers:
    - name: kserve-container
      image: registry.example/vllm-cuda-rhel9:3.2.5
      command: [python, -m, vllm.entrypoints.openai.api_server]
      args: ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}"]
  supportedModelFormats:
    - name: vLLM
"""


def test_kserve_placeholders_are_read_and_a_helm_template_is_not(tmp_path):
    path = tmp_path / "runtime.yaml"
    path.write_text(RUNTIME)
    read = read_manifests([str(path)])
    assert len(read.objects) == 1 and read.unreadable == []
    path.write_text(RUNTIME.replace("{{.Name}}", "{{ .Values.name }}"))
    read = read_manifests([str(path)])
    assert read.objects == [] and [u.kind for u in read.unreadable] == ["template"]


def _model_serving(worker_replicas: int) -> dict:
    def pod(name: str) -> dict:
        return {
            "spec": {
                "containers": [
                    {
                        "name": name,
                        "image": "vllm/vllm-openai:v0.33.0",
                        "command": [
                            "sh",
                            "-c",
                            "vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline-parallel-size 2",
                        ],
                        "resources": {"limits": {"nvidia.com/gpu": "8"}},
                    }
                ]
            }
        }

    return {
        "apiVersion": "workload.serving.volcano.sh/v1alpha1",
        "kind": "ModelServing",
        "metadata": {"name": "llama-multinode"},
        "spec": {
            "replicas": 1,
            "template": {
                "roles": [
                    {
                        "name": "leader",
                        "replicas": 2,
                        "entryTemplate": pod("leader"),
                        "workerReplicas": worker_replicas,
                        "workerTemplate": pod("worker"),
                    }
                ]
            },
        },
    }


def test_kthena_roles_spread_ranks_over_entry_and_workers():
    kind = "kubernetes:workload.serving.volcano.sh/v1alpha1:ModelServing"
    assert evaluate([resource(kind, _model_serving(1))], policies=[tp_matches_gpu_limit.POLICY]) == []
    found = evaluate([resource(kind, _model_serving(2))], policies=[tp_matches_gpu_limit.POLICY])
    assert found and all("24" in v.message or "3 pods" in v.message for v in found)
