"""S2 vllm-max-model-len-fits-kv-cache reaches KubeAI Models: the server KubeAI renders (policies/reading/kubeai_models.py).

Fixtures: fresh set 47 cbtham/kubeai-huaweicloud optimized-models/qwencoder2.5-vllm.yaml at
2619eb92dd492c745f6602a36a5b31835d8fd527 (Qwen2.5-Coder-7B fp16 on resourceProfile nvidia-gpu-t4:1, labelled S2
blocking; its fine-tune id is in no catalogue, so it is not sized: the same Model on the catalogue's Qwen2.5-7B is);
KubeAI's own catalogue, substratusai/kubeai v0.21.0 manifests/models/qwen2.5-7b-instruct-l4.yaml (6babe2c9), which
must not block.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "vllm-max-model-len-fits-kv-cache"

T4 = {
    "apiVersion": "kubeai.org/v1",
    "kind": "Model",
    "metadata": {"name": "qcoder2.5-7b-instruct-vllm-t4"},
    "spec": {
        "features": ["TextGeneration"],
        "url": "hf://Qwen/Qwen2.5-7B-Instruct",
        "engine": "VLLM",
        "args": ["--max-model-len=32768", "--max-num-batched-token=32768", "--gpu-memory-utilization=0.9", "--dtype=half"],
        "resourceProfile": "nvidia-gpu-t4:1",
    },
}
L4 = {
    "apiVersion": "kubeai.org/v1",
    "kind": "Model",
    "metadata": {"name": "qwen2.5-7b-instruct-l4"},
    "spec": {
        "features": ["TextGeneration"],
        "url": "hf://Qwen/Qwen2.5-7B-Instruct",
        "engine": "VLLM",
        "args": [
            "--max-model-len=8192",
            "--max-num-batched-token=8192",
            "--max-num-seqs=256",
            "--gpu-memory-utilization=0.95",
            "--kv-cache-dtype=fp8",
            "--enable-prefix-caching",
        ],
        "env": {"VLLM_ATTENTION_BACKEND": "FLASHINFER"},
        "minReplicas": 0,
        "resourceProfile": "nvidia-gpu-l4:1",
    },
}


def test_a_7b_fp16_model_on_a_t4_profile_blocks():
    ((enforcement, message),) = found_by([T4], POLICY)
    assert enforcement == "mandatory"
    assert message.startswith("spec (KubeAI resourceProfile nvidia-gpu-t4:1) container server: Qwen/Qwen2.5-7B-Instruct on 1x T4")
    assert "weights need 14.19 GiB per GPU" in message


def test_kubeai_catalogue_model_does_not_block():
    assert "mandatory" not in [e for e, _ in found_by([L4], POLICY)]


def test_what_the_files_do_not_size_is_silent():
    unknown = copy.deepcopy(T4)
    unknown["spec"]["url"] = "hf://unsloth/qwen2.5-coder-7b"  # set 47's id: in no catalogue
    custom = copy.deepcopy(T4)
    custom["spec"]["resourceProfile"] = "doks-nvidia:1"  # a cluster's own profile: its GPU is not in the files
    ollama = copy.deepcopy(T4)
    ollama["spec"].update({"engine": "OLlama", "url": "ollama://qwen2.5-coder:7b"})
    fits = copy.deepcopy(T4)
    fits["spec"]["resourceProfile"] = "nvidia-gpu-a100-80gb:1"
    for model in (unknown, custom, ollama, fits):
        assert found_by([model], POLICY) == [], model["spec"]


# S25 on the same rendered server: fresh set 47 cbtham/kubeai-huaweicloud optimized-models/llama3.2-vllm.yaml (no
# --dtype on nvidia-gpu-t4:1, KubeAI's vLLM v0.8.3 keeps a bfloat16 checkpoint; labelled S25 advisory; its fine-tune id
# is in no catalogue), here on the catalogue's Llama 3.2 3B; its sibling qwencoder2.5-vllm.yaml's --dtype=half is the
# careful form.
S25 = "vllm-dtype-supported-by-gpu"
BF16 = {
    "apiVersion": "kubeai.org/v1",
    "kind": "Model",
    "metadata": {"name": "llama3.2-3b-vllm"},
    "spec": {
        "features": ["TextGeneration"],
        "url": "hf://meta-llama/Llama-3.2-3B-Instruct",
        "engine": "VLLM",
        "args": ["--max-model-len=4096", "--gpu-memory-utilization=0.9", "--disable-log-requests"],
        "resourceProfile": "nvidia-gpu-t4:1",
    },
}


def test_a_bfloat16_checkpoint_on_a_t4_profile_is_advice_on_the_charts_image_and_blocks_on_its_own():
    ((enforcement, message),) = found_by([BF16], S25)
    assert enforcement == "advisory" and "KubeAI v0.21.0's chart" in message
    pinned = copy.deepcopy(BF16)
    pinned["spec"]["image"] = "vllm/vllm-openai:v0.8.3"
    assert [e for e, _ in found_by([pinned], S25)] == ["mandatory"]


def test_half_precision_or_an_ampere_profile_is_silent():
    half = copy.deepcopy(BF16)
    half["spec"]["args"].append("--dtype=half")
    l4 = copy.deepcopy(BF16)
    l4["spec"]["resourceProfile"] = "nvidia-gpu-l4:1"
    assert found_by([half], S25) == [] and found_by([l4], S25) == []
