"""G10 serving-memory-limit on a limit the server does not write: one a LimitRange of the files fills in, judged as a
written one; and a CPU Ollama server's model of another namespace, sized by the count its tag names.

Firing forms: spent set 67 Electricpaper77/ai-rag-eval-platform k8s/vllm-gpu-deployment.yaml (a vLLM container with
only nvidia.com/gpu) beside k8s/limitrange.yaml (LimitRange workload-defaults, Container default memory 4Gi): the
LimitRanger admission plugin copies the default into the container (kubernetes/kubernetes@8f672ecf2088fe8504495748577c0ab537999ab7
plugin/pkg/admission/limitranger/admission.go:190-209,221-227). Spent set 69 HealthFlowEgy/hfcx-ai-claims
k8s/ollama.yaml: an Ollama server with no GPU resource (it selects nodes labelled workload=gpu) pulling
alibayram/medgemma:27b under a 7Gi limit (27B at the default 4-bit build, ~14 GiB of weights).
Careful forms: a LimitRange default above the load figure; a CPU server the GPU figure does not apply to; a
LimitRange of another namespace; the Ollama server given a GPU; a namespaced model whose names give no size.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "serving-memory-limit"

VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-gpu-inference"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "ports": [{"name": "http", "containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def _limit_range(memory: str = "4Gi", namespace: str | None = None) -> dict:
    metadata: dict = {"name": "workload-defaults"}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": metadata,
        "spec": {
            "limits": [
                {
                    "type": "Container",
                    "defaultRequest": {"cpu": "500m", "memory": "1Gi"},
                    "default": {"cpu": "2", "memory": memory},
                    "max": {"cpu": "8", "memory": "16Gi"},
                }
            ]
        },
    }


def test_a_limit_range_default_below_a_gpu_servers_load_is_advised():
    ((level, message),) = found_by([VLLM, _limit_range()], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container vllm: no resources.limits.memory of its own, so this vllm server on a GPU gets limits.memory 4Gi "
        "from LimitRange workload-defaults's default (the LimitRanger admission plugin fills it in)"
    )
    assert "OOM-killed at load" in message


def test_careful_limit_range_forms():
    assert found_by([VLLM, _limit_range("32Gi")], POLICY) == []
    # A LimitRange of another namespace fills nothing: the missing limit is reported as before.
    ((_, missing),) = found_by([VLLM, _limit_range(namespace="other")], POLICY)
    assert missing.startswith("container vllm: no resources.limits.memory on this vllm server")
    cpu_only = copy.deepcopy(VLLM)
    cpu_only["spec"]["template"]["spec"]["containers"][0]["resources"] = {}
    cpu_only["spec"]["template"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai-cpu:v0.10.1"
    assert found_by([cpu_only, _limit_range()], POLICY) == []


def _ollama(model: str = "alibayram/medgemma:27b", limit: str | None = "7Gi", gpu: bool = False) -> dict:
    resources: dict = {"requests": {"cpu": "2", "memory": "5Gi"}, "limits": {"cpu": "3500m"}}
    if limit is not None:
        resources["limits"]["memory"] = limit
    if gpu:
        resources["limits"]["nvidia.com/gpu"] = 1
    pull = ["/bin/sh", "-c", f"ollama serve & sleep 5; ollama pull {model} || echo failed"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama-medgemma", "namespace": "hcx-ai"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {
                "metadata": {"labels": {"app": "ollama"}},
                "spec": {
                    "tolerations": [{"key": "workload", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
                    "nodeSelector": {"workload": "gpu"},
                    "initContainers": [{"name": "pull-models", "image": "ollama/ollama:latest", "command": pull}],
                    "containers": [
                        {
                            "name": "ollama",
                            "image": "ollama/ollama:latest",
                            "ports": [{"containerPort": 11434}],
                            "resources": resources,
                        }
                    ],
                },
            },
        },
    }


def _g10(objs: list[dict]) -> list[tuple[str, str]]:
    return [(e, m) for e, m in found_by(objs, "cpu-model-memory-fits") if "holds no GPU" in m]


def test_a_namespaced_ollama_model_sized_by_its_tag_above_the_limit():
    ((level, message),) = _g10([_ollama()])
    assert level == "advisory"
    assert message.startswith(
        "container ollama: this Ollama server holds no GPU of its own (it only selects or tolerates GPU nodes"
    )
    assert "loads alibayram/medgemma:27b, whose weights alone are about 14.1 GiB" in message
    assert "memory limit is 7Gi" in message
    # A limit a LimitRange fills in is judged the same way, and says where it came from.
    ((_, filled),) = _g10([_ollama(limit=None), _limit_range("7Gi", namespace="hcx-ai")])
    assert "memory limit is 7Gi (filled in by LimitRange workload-defaults's default)" in filled
    # A GGUF repository pulled from the Hub through Ollama names its count in the repository's name.
    assert len(_g10([_ollama(model="hf.co/bartowski/Qwen2.5-7B-Instruct-GGUF:Q8_0", limit="6Gi")])) == 1


def test_careful_namespaced_models_are_silent():
    assert _g10([_ollama(gpu=True)]) == []
    assert _g10([_ollama(limit="20Gi")]) == []
    assert _g10([_ollama(model="alibayram/medgemma:4b")]) == []
    assert _g10([_ollama(model="alibayram/medgemma")]) == []  # no size in the names
    assert _g10([_ollama(model="someone/custom:latest")]) == []
