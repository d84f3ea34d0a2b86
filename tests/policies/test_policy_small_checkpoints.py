"""S19 gpu-pod-ephemeral-storage: a parameter count spelled in millions ("opt-125m") is a small checkpoint, advice like
"0.5B"; a 7B download with no ephemeral-storage request still blocks."""

from __future__ import annotations

import copy

from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by

from policies.gpu.ephemeral_storage import SMALL_CHECKPOINT_GIB, checkpoint_estimate_gib


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


# ycx666994/llm-inference-platform k8s/real-vllm/real-vllm-deployment.yaml at f8dcd0f (cut down): vLLM serves
# facebook/opt-125m (about 0.25 GB of weights) on one GPU, no ephemeral-storage request.
OPT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "llm-platform"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "args": ["facebook/opt-125m", "--max-model-len", "1024", "--gpu-memory-utilization", "0.75"],
                        "resources": {
                            "requests": {"cpu": "2", "memory": "4Gi"},
                            "limits": {"cpu": "6", "memory": "7Gi", "nvidia.com/gpu": "1"},
                        },
                    }
                ]
            },
        },
    },
}


def test_a_count_in_millions_is_a_small_checkpoint():
    assert (checkpoint_estimate_gib("facebook/opt-125m") or 99) < 0.3
    assert (checkpoint_estimate_gib("HuggingFaceTB/SmolLM2-135M-Instruct") or 99) < SMALL_CHECKPOINT_GIB
    # A name with no count, or a letter-digit tag that is no count (bge-m3), is not guessed.
    assert checkpoint_estimate_gib("BAAI/bge-m3") is None
    ((level, message),) = found_by([OPT], "gpu-pod-ephemeral-storage")
    assert level == "advisory" and "the checkpoint is about 0.2 GiB" in message


def test_a_seven_billion_download_still_blocks():
    # velrite/project7-ai-inference-platform k8s/vllm-deployment.yaml at 1d0d4e3: Qwen/Qwen2.5-7B-Instruct, same shape.
    qwen = copy.deepcopy(OPT)
    qwen["spec"]["template"]["spec"]["containers"][0]["args"][0] = "Qwen/Qwen2.5-7B-Instruct"
    assert [level for level, _ in found_by([qwen], "gpu-pod-ephemeral-storage")] == ["mandatory"]
