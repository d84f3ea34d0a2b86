"""S37 gated-model-has-token, and the gated-repository data it reads (components/hub_gated.toml).

The firing form is the shape of JanetVictorious/vllm-k8s-deployment manifests/vllm-deployment.yaml at commit
03c77c67e330662672a274f8b4e1c45b50b594b1 (a vLLM Deployment serving meta-llama/Meta-Llama-3-70B-Instruct with no
token, no volume at the cache), written out minimally. The careful third-party form is GoogleCloudPlatform/
kubernetes-engine-samples ai-ml/llm-multiple-gpus/llama3-70b/text-generation-inference.yaml (corpus manifests-v2:
TGI with HUGGING_FACE_HUB_TOKEN from a secretKeyRef).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from components.hub_access import GATED, _load, gated
from tests.conftest import shared_path
from tests.policies.policy_fixtures import found_by

RECORDINGS = Path(__file__).parents[1] / "models" / "data" / "hub_recordings.json"

_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-deployment"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm-container",
                        "image": "vllm/vllm-openai:v0.5.0.post1",
                        "env": [{"name": "VERBOSE", "value": "1"}],
                        "args": ["--model", "meta-llama/Meta-Llama-3-70B-Instruct", "--tensor-parallel-size", "4"],
                        "resources": {"limits": {"nvidia.com/gpu": "4"}},
                    }
                ]
            },
        },
    },
}


def _s37(tmp_path, *docs: dict, path: Path | None = None) -> list[tuple[str, str]]:
    if path is not None:
        docs = tuple(d for d in yaml.safe_load_all(path.read_text()) if d)
    return found_by(list(docs), "gated-model-has-token")


def _pod(deployment: dict) -> dict:
    return deployment["spec"]["template"]["spec"]


def test_a_gated_model_with_no_token_blocks(tmp_path):
    [(level, message)] = _s37(tmp_path, _DEPLOYMENT)
    assert level == "mandatory"
    assert message.startswith(
        "container vllm-container: downloads meta-llama/Meta-Llama-3-70B-Instruct, a gated Hugging Face repository "
        "(meta-llama/* asks each user to accept its licence on the Hub), and the pod gives the Hub client no token"
    )


def test_careful_forms_are_quiet(tmp_path):
    from_secret = copy.deepcopy(_DEPLOYMENT)
    _pod(from_secret)["containers"][0]["env"].append(
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}}
    )
    env_from = copy.deepcopy(_DEPLOYMENT)
    _pod(env_from)["containers"][0]["envFrom"] = [{"secretRef": {"name": "hf-credentials"}}]
    local = copy.deepcopy(_DEPLOYMENT)
    _pod(local)["containers"][0]["args"][1] = "/models/Meta-Llama-3-70B-Instruct"
    offline = copy.deepcopy(_DEPLOYMENT)
    _pod(offline)["containers"][0]["env"].append({"name": "HF_HUB_OFFLINE", "value": "1"})
    public = copy.deepcopy(_DEPLOYMENT)
    _pod(public)["containers"][0]["args"][1] = "Qwen/Qwen2.5-72B-Instruct"
    for doc in (from_secret, env_from, local, offline, public):
        assert _s37(tmp_path, doc) == []


def test_what_outside_the_files_may_hold_a_token_makes_it_advice(tmp_path):
    config_map = copy.deepcopy(_DEPLOYMENT)
    _pod(config_map)["containers"][0]["envFrom"] = [{"configMapRef": {"name": "vllm-env"}}]
    [(level, message)] = _s37(tmp_path, config_map)
    assert (level, message.endswith("(envFrom takes ConfigMap vllm-env, not among the files read)")) == ("advisory", True)
    # The same ConfigMap among the files, holding no token: proven again.
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "vllm-env"}, "data": {"VLLM_PORT": "8000"}}
    assert [level for level, _ in _s37(tmp_path, config_map, cm)] == ["mandatory"]
    cache = copy.deepcopy(_DEPLOYMENT)
    _pod(cache)["containers"][0]["volumeMounts"] = [{"name": "hf", "mountPath": "/root/.cache/huggingface"}]
    _pod(cache)["volumes"] = [{"name": "hf", "persistentVolumeClaim": {"claimName": "hf-cache"}}]
    [(level, message)] = _s37(tmp_path, cache)
    assert level == "advisory" and "a volume at the model cache may hold the model already" in message


def test_an_operator_kind_is_advice(tmp_path):
    # A custom resource read generically: its operator may inject a token into the pods it renders.
    generic = {
        "apiVersion": "example.com/v1",
        "kind": "ModelDeployment",
        "metadata": {"name": "llama"},
        "spec": {"template": copy.deepcopy(_DEPLOYMENT["spec"]["template"])},
    }
    assert [level for level, _ in _s37(tmp_path, generic)] == ["advisory"]


def test_the_third_party_careful_form_is_quiet(tmp_path):
    path = shared_path(
        "corpus",
        "manifests-v2",
        "GoogleCloudPlatform__kubernetes-engine-samples",
        "ai-ml__llm-multiple-gpus__llama3-70b__text-generation-inference.yaml",
    )
    assert _s37(tmp_path, path=path) == []
    # Mutation: without its secretKeyRef token the same file blocks.
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    for doc in docs:
        for container in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            container["env"] = [e for e in container.get("env", []) if "TOKEN" not in e["name"] or "value" in e]
    assert [level for level, _ in _s37(tmp_path, *docs)] == ["mandatory"]


def test_the_data_agrees_with_the_recorded_hub_answers():
    """Every repository the recordings show answering 401 GatedRepo without a token is gated in the data; every one
    answering 200 without a token is not."""
    interactions = json.loads(RECORDINGS.read_text())["interactions"]
    seen = {}
    for item in interactions:
        request, response = item["request"], item["response"]
        if request.get("token"):
            continue
        url = request["url"].split("huggingface.co/", 1)[1].removeprefix("api/models/")
        repository = "/".join(url.split("/")[:2])
        seen[repository] = response["status"] == 401 and response["headers"].get("x-error-code") == "GatedRepo"
    assert seen == {"microsoft/phi-4": False, "google/gemma-2-9b-it": True, "meta-llama/Llama-3.2-1B": True}
    assert {repo: gated(repo) is not None for repo in seen} == seen


def test_a_bad_row_fails_the_load_naming_it(tmp_path):
    assert [row.prefix for row in GATED][:3] == ["meta-llama/", "google/gemma-2-", "google/gemma-3-"]
    assert "mistralai/Mistral-7B-Instruct-v0.2" in [row.prefix for row in GATED]  # spent set 18, repository by repository
    bad = tmp_path / "gated.toml"
    bad.write_text('[[gated]]\nprefix = "meta-llama"\nscope = "organisation"\nsource = "x"\n')
    with pytest.raises(ValueError, match=r"gated.toml \[\[gated\]\] row 1: an organisation's prefix ends with '/'"):
        _load(bad)
    bad.write_text('[[gated]]\nprefix = "x/"\nscope = "org"\nsource = "x"\n')
    with pytest.raises(ValueError, match="scope 'org' is not one of organisation, family"):
        _load(bad)


def test_a_downloader_init_container_of_a_gated_model_is_read(tmp_path):
    # `hf download` in an init container fetches for the server (policies/reading/downloaders.py): no token, a plain
    # Deployment, an emptyDir: proven.
    fetching = copy.deepcopy(_DEPLOYMENT)
    pod = _pod(fetching)
    pod["containers"][0]["args"][1] = "/models/llama"
    pod["initContainers"] = [
        {
            "name": "fetch",
            "image": "python:3.12-slim",
            "command": [
                "sh",
                "-c",
                "pip install huggingface_hub==1.28.0 && hf download meta-llama/Llama-3.1-8B-Instruct --local-dir /models/llama",
            ],
            "volumeMounts": [{"name": "models", "mountPath": "/models"}],
        }
    ]
    pod["volumes"] = [{"name": "models", "emptyDir": {}}]
    [(level, message)] = _s37(tmp_path, fetching)
    assert level == "mandatory" and message.startswith("container fetch: downloads meta-llama/Llama-3.1-8B")
    pod["initContainers"][0]["command"][2] += " --token $(HF_TOKEN)"
    assert _s37(tmp_path, fetching) == []


def test_another_endpoint_or_modelscope_is_advice(tmp_path):
    """Review 32 R4 (probe /work/review/s25/s37.yaml mirror, modelscope): HF_ENDPOINT to a mirror or proxy (huggingface_hub
    v1.28.0 constants.py:69 sends every call there; its access rule is not in the files), or VLLM_USE_MODELSCOPE
    (the model comes from ModelScope): the 401 is not proven."""
    artifactory = "https://artifactory.corp.example/artifactory/api/huggingfaceml/huggingface-remote"
    for env in (
        {"name": "HF_ENDPOINT", "value": artifactory},
        {"name": "HF_ENDPOINT", "valueFrom": {"configMapKeyRef": {"name": "hub", "key": "endpoint"}}},
        {"name": "VLLM_USE_MODELSCOPE", "value": "True"},
    ):
        doc = copy.deepcopy(_DEPLOYMENT)
        _pod(doc)["containers"][0]["env"].append(env)
        [(level, message)] = _s37(tmp_path, doc)
        assert level == "advisory", env
    # The Hub's own endpoint, or ModelScope switched off, is still the Hub: blocks.
    for env in ({"name": "HF_ENDPOINT", "value": "https://huggingface.co/"}, {"name": "VLLM_USE_MODELSCOPE", "value": "False"}):
        doc = copy.deepcopy(_DEPLOYMENT)
        _pod(doc)["containers"][0]["env"].append(env)
        assert [level for level, _ in _s37(tmp_path, doc)] == ["mandatory"], env


def test_a_custom_image_may_carry_the_model_in_its_cache(tmp_path):
    """Review 32 R5 (probe /work/review/s25/s37.yaml baked): a custom image may have the model baked into its Hugging
    Face cache, and huggingface_hub v1.28.0 _snapshot_download.py:282-331 serves the cached snapshot when the Hub
    answers 401 (it re-raises only when nothing is cached, :365-369): advice. The engine's official image starts with
    an empty cache: still blocks."""
    baked = copy.deepcopy(_DEPLOYMENT)
    _pod(baked)["containers"][0]["image"] = "registry.example.com/llama31-8b-vllm:2024-09-01"
    _pod(baked)["containers"][0]["command"] = ["vllm", "serve"]
    [(level, message)] = _s37(tmp_path, baked)
    assert level == "advisory" and "is not the engine's own image, and its cache may hold the model" in message
    # The official image (a mirror keeps its repository name) with the same command: the layer is empty.
    for image in ("vllm/vllm-openai:v0.10.1", "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm/vllm-openai:v0.10.1"):
        official = copy.deepcopy(baked)
        _pod(official)["containers"][0]["image"] = image
        assert [level for level, _ in _s37(tmp_path, official)] == ["mandatory"], image
    # A custom image with an emptyDir at the cache: the cache starts empty whatever the image holds elsewhere.
    emptied = copy.deepcopy(baked)
    _pod(emptied)["containers"][0]["volumeMounts"] = [{"name": "hf", "mountPath": "/root/.cache/huggingface"}]
    _pod(emptied)["volumes"] = [{"name": "hf", "emptyDir": {}}]
    assert [level for level, _ in _s37(tmp_path, emptied)] == ["mandatory"]


# Maxi580/AgentOrchestration manifests/vllm-deployment.yaml at 31510fda6c98f7db2ea93bd4da1a9f6f648fb01a (dev set 24,
# labelled S37 blocking), cut down: vLLM serves mistralai/Mistral-7B-Instruct-v0.3 with HF_HOME on an emptyDir and no
# token anywhere. The repository is gated (components/hub_gated.toml cites the 401 mozilla-ai/lumigator records).
_MAXI = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "maxi-agent-orchestration"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "args": ["--model", "mistralai/Mistral-7B-Instruct-v0.3", "--port", "8000"],
                        "env": [{"name": "HF_HOME", "value": "/tmp/huggingface"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "volumeMounts": [{"name": "cache", "mountPath": "/tmp"}],
                    }
                ],
                "volumes": [{"name": "cache", "emptyDir": {}}],
            },
        },
    },
}


def test_mistral_7b_instruct_v03_is_gated():
    assert gated("mistralai/Mistral-7B-Instruct-v0.3") is not None
    [(level, message)] = found_by([_MAXI], "gated-model-has-token")
    assert level == "mandatory"
    assert message.startswith("container vllm: downloads mistralai/Mistral-7B-Instruct-v0.3, a gated Hugging Face repository")
    with_token = copy.deepcopy(_MAXI)
    with_token["spec"]["template"]["spec"]["containers"][0]["env"].append(
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}
    )
    assert found_by([with_token], "gated-model-has-token") == []
    # The v0.3 row names that repository only (a fine-tune under another organisation is not the gated one).
    assert gated("someorg/Mistral-7B-Instruct-v0.3-finetune") is None
