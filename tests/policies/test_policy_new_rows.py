"""Catalogue rows added for issue 32 by the "rows" slice: each with a third-party form that fires and a careful
third-party form that stays silent (minimal hand-written shapes of the cited upstream files)."""

from __future__ import annotations

import copy

from policies.framework import Resource
from policies.registry import evaluate


def res(obj: dict) -> Resource:
    group_version = obj["apiVersion"]
    token = f"core/{group_version}" if "/" not in group_version else group_version
    return Resource(type=f"kubernetes:{token}:{obj['kind']}", name=f"{obj['kind']}/{obj['metadata']['name']}", props=obj)


def found(objs: list[dict], policy: str, config=None) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([res(o) for o in objs], config) if v.policy == policy]


def deployment(name: str, container: dict, labels=None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


# S36 debug-switches-off ------------------------------------------------------------------------------------------

# aws-samples/gen-ai-on-eks gen_ai_eks_workshop_files/vllm-deployment.yaml at df6d26c4b7b12c0f544301942b5cd1e1be679bf6
# (held-out set 3, row 8): vLLM by digest on one GPU with CUDA_LAUNCH_BLOCKING=1 beside PYTORCH_CUDA_ALLOC_CONF.
MISTRAL = deployment(
    "mistral",
    {
        "name": "vllm",
        "image": "docker.io/vllm/vllm-openai@sha256:4f4037303e8c7b69439db1077bb849a0823517c0f785b894dc8e96d58ef3a0c2",
        "args": ["--port=8080", "--model=/local-storage/models/mistral-7b-v0-3", "--max-model-len=2048"],
        "env": [
            {"name": "CUDA_LAUNCH_BLOCKING", "value": "1"},
            {"name": "PYTORCH_CUDA_ALLOC_CONF", "value": "max_split_size_mb:512"},
        ],
        "resources": {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 1}},
    },
)


def test_cuda_launch_blocking_in_a_vllm_pod_blocks():
    assert found([MISTRAL], "debug-switches-off") == [
        (
            "mandatory",
            "container vllm: env CUDA_LAUNCH_BLOCKING=1 makes every CUDA kernel launch synchronous (CUDA: for debugging "
            "only), so the GPU idles between kernels; remove it from the serving pod",
        )
    ]


def test_the_other_switches_and_their_off_values():
    for name, value in (("PYTORCH_NO_CUDA_MEMORY_CACHING", "1"), ("VLLM_TRACE_FUNCTION", "1")):
        form = copy.deepcopy(MISTRAL)
        form["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": name, "value": value}]
        ((level, message),) = found([form], "debug-switches-off")
        assert level == "mandatory" and f"env {name}={value} " in message
    for name, value in (("CUDA_LAUNCH_BLOCKING", "0"), ("VLLM_TRACE_FUNCTION", "0")):
        form = copy.deepcopy(MISTRAL)
        form["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": name, "value": value}]
        assert found([form], "debug-switches-off") == []
    assert found([MISTRAL], "debug-switches-off", {"debug-switches-off": {"allowedVariables": ["CUDA_LAUNCH_BLOCKING"]}}) == []


def test_logging_switches_and_aibrix_dev_mode_are_silent():
    # kserve/kserve docs/samples/llmisvc/dp-ep/deepseek-r1-gpu-rdma-roce/llm-inference-service-dp-ep-deepseek-r1-gpu-naive.yaml
    # (corpus manifests-v2: VLLM_LOGGING_LEVEL and NCCL_DEBUG=INFO) and vllm-project/aibrix
    # samples/disaggregation/vllm/1p1d.yaml (manifests-v2: VLLM_SERVER_DEV_MODE=1 on prefill and decode, on purpose).
    form = copy.deepcopy(MISTRAL)
    form["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "VLLM_LOGGING_LEVEL", "value": "DEBUG"},
        {"name": "NCCL_DEBUG", "value": "INFO"},
        {"name": "VLLM_SERVER_DEV_MODE", "value": "1"},
    ]
    assert found([form], "debug-switches-off") == []
