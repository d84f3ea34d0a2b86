"""S17 on other engines' revision settings and on a revision that names a branch.

- TensorRT-LLM's ``trtllm-serve --revision`` is an engine-table setting (components/serving_engines.toml
  [engines.tensorrt-llm.settings] revision; NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py@00209af), so a Hub model
  served with no revision is model-source-pinned's advice: spent set 33 all-day-and-night/llm-serve
  k8s/trtllm/deployment.yaml@1873f15 (Qwen/Qwen2.5-7B-Instruct, no revision; labelled S17 advisory).
- A ConfigMap naming a Hub model beside a revision variable that names a branch (config-revision-pinned): spent set 34
  shenoyabhijith/llama-k8s-deployment k8s/configmap.yaml@d710e32 (MODEL_NAME meta-llama/Llama-3.2-3B, MODEL_REVISION
  "main"; labelled S17 advisory); a second public form, a Spanish vLLM-on-Kubernetes guide's vllm-config ConfigMap
  (code index file 56173877779: MODEL_NAME microsoft/DialoGPT-medium, MODEL_REVISION "main").
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S17 = "model-source-pinned"
S17_CONFIG = "config-revision-pinned"
SHA = "a09a35458c702241525e4a3f6d6a4a5d1f5c8f7e"

TRTLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "trtllm", "namespace": "llm-serve"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "trtllm"}},
        "template": {
            "metadata": {"labels": {"app": "trtllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "trtllm",
                        "image": "nvcr.io/nvidia/tensorrt-llm/release:0.20.0",
                        "command": ["trtllm-serve"],
                        "args": ["Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0", "--port", "8000", "--tp_size", "2"],
                        "resources": {"limits": {"nvidia.com/gpu": 2}},
                    }
                ]
            },
        },
    },
}


def _config(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "llm"}, "data": data}


def test_trtllm_serve_without_a_revision_is_unpinned():
    assert found_by([TRTLLM], S17) == [
        (
            "advisory",
            "container trtllm: model Qwen/Qwen2.5-7B-Instruct comes from the Hugging Face Hub with no revision, so each "
            "pod serves whatever the repository holds when it starts; pin --revision to a commit SHA",
        )
    ]


def test_trtllm_serve_with_a_branch_revision_is_unpinned_and_with_a_commit_is_silent():
    branch = copy.deepcopy(TRTLLM)
    branch["spec"]["template"]["spec"]["containers"][0]["args"] += ["--revision", "main"]
    [(level, message)] = found_by([branch], S17)
    assert level == "advisory" and "--revision=main names a branch or tag of Qwen/Qwen2.5-7B-Instruct" in message
    pinned = copy.deepcopy(TRTLLM)
    pinned["spec"]["template"]["spec"]["containers"][0]["args"] += ["--revision", SHA]
    assert found_by([pinned], S17) == []


def test_a_config_map_revision_that_names_a_branch_is_unpinned():
    shenoy = _config("llama-config", MODEL_NAME="meta-llama/Llama-3.2-3B", MODEL_REVISION="main", MAX_TOKENS="512")
    assert found_by([shenoy], S17_CONFIG) == [
        (
            "advisory",
            "data.MODEL_REVISION 'main' names a branch or tag of meta-llama/Llama-3.2-3B, not a commit: the Hub "
            "resolves it to whatever it points at when each pod downloads the model, so replicas started at different "
            "times serve different weights; set MODEL_REVISION to the model's 40-character commit SHA",
        )
    ]
    guide = _config("vllm-config", MODEL_NAME="microsoft/DialoGPT-medium", MODEL_REVISION="main", DTYPE="float16")
    assert [level for level, _ in found_by([guide], S17_CONFIG)] == ["advisory"]


def test_a_config_map_pinned_to_a_commit_or_naming_no_hub_model_is_silent():
    assert found_by([_config("c", MODEL_NAME="meta-llama/Llama-3.2-3B", MODEL_REVISION=SHA)], S17_CONFIG) == []
    assert found_by([_config("c", MODEL_NAME="/models/llama", MODEL_REVISION="main")], S17_CONFIG) == []
    assert found_by([_config("c", APP_REVISION="main", MODEL_REVISION="${REV}", MODEL_ID="Qwen/Qwen3-8B")], S17_CONFIG) == []


def test_trtllm_serve_hf_revision_is_the_same_setting():
    # Review 41 item 12: a later TensorRT-LLM's serve options spell it `--hf_revision` first (`_option("--hf_revision",
    # "--revision", "revision", ...)`, "Prefer --hf_revision over --revision"; code-index copy, file 59679953799).
    pinned = copy.deepcopy(TRTLLM)
    pinned["spec"]["template"]["spec"]["containers"][0]["args"] += ["--hf_revision", SHA]
    assert found_by([pinned], S17) == []
    branch = copy.deepcopy(TRTLLM)
    branch["spec"]["template"]["spec"]["containers"][0]["args"] += ["--hf_revision", "main"]
    assert [level for level, _ in found_by([branch], S17)] == ["advisory"]
