"""S17 where the model id is written apart from its server: a Kustomize patch that carries only the model flag, and a
ConfigMap whose model key a server of the files reads (model-source-pinned, config-revision-pinned).

- Patch: spent set 56 krmayankk/gpu-inference@f458291175968aaa898c1dc915b834e4ca4df8c1
  platform/serving/gpus/l4/args.yaml (``--model=Qwen/Qwen2.5-Coder-7B-Instruct``, no image: overlays/vllm/patch.yaml
  brings vllm/vllm-openai; labelled S17 advisory).
- ConfigMap read by a script: spent set 63 imrajdas/llm-deployment k8s/configmap.yaml (MODEL_ID) and k8s/vllm.yaml
  (``set -- serve "$MODEL_ID"`` ... ``exec vllm "$@"``, no --revision; labelled S17 advisory on the ConfigMap).
- ConfigMap beside the Hub client's cache: spent set 58 avi-2002/llm-serving-platform kubernetes/configmap.yaml
  (LLM_MODEL_ID Qwen/Qwen2.5-0.5B-Instruct beside HF_HOME, read through envFrom by an in-house CPU image; labelled S17
  advisory). huggingface_hub v1.28.0 constants.py:60 DEFAULT_REVISION "main": no revision downloads the main branch.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, messages

from policies.framework import Resource
from policies.models.model_source_pinned import POLICY

SHA = "a09a35458c702241525e4a3f6d6a4a5d1f5c8f7e"
S17_CONFIG = "config-revision-pinned"

L4_PATCH = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "inference"},
    "spec": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "server",
                        "args": [
                            "--model=Qwen/Qwen2.5-Coder-7B-Instruct",
                            "--served-model-name=gpu-inference",
                            "--quantization=fp8",
                            "--port=8000",
                        ],
                    }
                ]
            }
        }
    },
}


def _patch(obj: dict) -> Resource:
    return Resource(type=f"kubernetes:apps/v1:{obj['kind']}", name=obj["metadata"]["name"], props=obj, patch=True)


def test_a_patch_that_names_only_the_model_is_advised():
    assert [str(m) for m in messages(POLICY, _patch(L4_PATCH))] == [
        "container server: --model names the Hugging Face model Qwen/Qwen2.5-Coder-7B-Instruct with no revision beside "
        "it; the server this patch is merged onto downloads it at each start where no volume holds it, so pods started "
        "at different times serve whatever the repository's main branch holds then; pin a revision (--revision) to a commit SHA, "
        "or bake or mount the weights"
    ]


def test_a_patch_with_a_revision_a_job_or_its_own_image_stays_silent():
    pinned = copy.deepcopy(L4_PATCH)
    pinned["spec"]["template"]["spec"]["containers"][0]["args"].append(f"--revision={SHA}")
    assert messages(POLICY, _patch(pinned)) == []
    job = copy.deepcopy(L4_PATCH)
    job["kind"] = "Job"
    assert messages(POLICY, _patch(job)) == []
    client = copy.deepcopy(L4_PATCH)
    client["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/example/bench:1.0"
    assert messages(POLICY, _patch(client)) == []
    # Not a patch: a CPU container naming a model (a client, a benchmark) is not read as a server here.
    assert messages(POLICY, Resource(type="kubernetes:apps/v1:Deployment", name="inference", props=L4_PATCH)) == []


def _config(name: str, namespace: str = "llm", **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, "data": data}


def _deployment(name: str, container: dict, namespace: str = "llm") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


SCRIPT = (
    'set -eu\nset -- serve "$MODEL_ID" --host 0.0.0.0 --port 8000 --dtype "$VLLM_DTYPE"\n'
    'if [ -n "${VLLM_EXTRA_ARGS:-}" ]; then set -- "$@" $VLLM_EXTRA_ARGS; fi\nexec vllm "$@"\n'
)
VLLM = _deployment(
    "vllm",
    {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.9.2",
        "command": ["/bin/bash", "-lc"],
        "args": [SCRIPT],
        "envFrom": [{"configMapRef": {"name": "llm-config"}}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    },
)
API = _deployment(
    "llm-serving",
    {
        "name": "ray-llm-api",
        "image": "ghcr.io/avi-2002/llm-serving-platform:1.0",
        "command": ["ray-llm-api"],
        "envFrom": [{"configMapRef": {"name": "llm-serving-config"}}],
    },
)


def test_a_config_map_model_a_script_passes_to_vllm_is_advised():
    found = found_by([_config("llm-config", MODEL_ID="Qwen/Qwen2.5-7B-Instruct", VLLM_DTYPE="bfloat16"), VLLM], S17_CONFIG)
    assert found == [
        (
            "advisory",
            "data.MODEL_ID names the Hugging Face model Qwen/Qwen2.5-7B-Instruct with no revision beside it, and "
            "Deployment vllm (container vllm) reads it as MODEL_ID and passes it to its vllm server, with no revision "
            "in its env or command line: each pod downloads whatever the repository's main branch holds when it "
            "starts, so replicas started at different times serve different weights; add the revision its server "
            "takes (MODEL_REVISION, --revision) at a 40-character commit SHA, or bake or mount the weights",
        )
    ]


def test_a_config_map_model_beside_the_hub_cache_is_advised():
    config = _config("llm-serving-config", LLM_MODEL_ID="Qwen/Qwen2.5-0.5B-Instruct", HF_HOME="/data/huggingface")
    (found,) = found_by([config, API], S17_CONFIG)
    assert found[0] == "advisory"
    assert "reads it as LLM_MODEL_ID beside HF_HOME, the Hub client's setting" in found[1]


def test_careful_config_map_forms_stay_silent():
    pinned = _config("llm-config", MODEL_ID="Qwen/Qwen2.5-7B-Instruct", MODEL_REVISION=SHA)
    assert found_by([pinned, VLLM], S17_CONFIG) == []
    offline = copy.deepcopy(API)
    offline["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "HF_HUB_OFFLINE", "value": "1"}]
    config = _config("llm-serving-config", LLM_MODEL_ID="Qwen/Qwen2.5-0.5B-Instruct", HF_HOME="/data/huggingface")
    assert found_by([config, offline], S17_CONFIG) == []
    # A UI that reads the model name to send it in requests (no Hub client setting, no server).
    ui = _deployment(
        "ui",
        {
            "name": "ui",
            "image": "llm-ui:1.0",
            "env": [{"name": "MODEL_ID", "valueFrom": {"configMapKeyRef": {"name": "llm-config", "key": "MODEL_ID"}}}],
        },
    )
    assert found_by([_config("llm-config", MODEL_ID="Qwen/Qwen2.5-7B-Instruct"), ui], S17_CONFIG) == []
    # A reader in another namespace cannot read it.
    elsewhere = _config("llm-config", "other", MODEL_ID="Qwen/Qwen2.5-7B-Instruct")
    assert found_by([elsewhere, VLLM], S17_CONFIG) == []
    # A revision flag on the server's command line.
    flagged = copy.deepcopy(VLLM)
    flagged["spec"]["template"]["spec"]["containers"][0]["args"] = [SCRIPT.replace("--port 8000", f"--revision {SHA}")]
    assert found_by([_config("llm-config", MODEL_ID="Qwen/Qwen2.5-7B-Instruct"), flagged], S17_CONFIG) == []
