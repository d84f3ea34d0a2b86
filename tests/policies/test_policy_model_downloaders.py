"""S17 and S19 read a model download done by an init container or sidecar (policies/reading/downloaders.py).

The firing form is the shape of volcano-sh/kthena examples/model-serving/gpu-pd-disaggregation.yaml at commit
3cc057284c34469fcb0ed22a12dac84b1d120719 (a ModelServing role whose init container ghcr.io/volcano-sh/downloader
fetches Qwen/Qwen3-0.6B into an emptyDir, and vLLM serves the local path), written out minimally. The careful
third-party form is kthena's own controller output, volcano-sh/kthena v1.0.0 (2d67015a015f7fddb8b078e6a7e712eb35325246)
pkg/model-booster-controller/convert/testdata/expected/disaggregated-model-serving-mooncake.yaml:170-192: the
downloader fetches from s3:// into a hostPath cache, so no Hub revision applies and nothing lands on the pod's
ephemeral storage. The downloader's flags: kthena v1.0.0 python/kthena/downloader/app.py:59-96 (hf_revision only in
--config's JSON, huggingface.py:24-40).
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import RAISED
from tests.policies.policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


_SERVER = {
    "name": "prefill",
    "image": "ghcr.io/volcano-sh/vllm-openai:v0.10.0-cu128-nixl-v0.4.1-lmcache-0.3.2",
    "command": ["sh", "-c"],
    "args": ["python3 -m vllm.entrypoints.openai.api_server --model /models/Qwen3-0.6B --max-model-len 4096"],
    "volumeMounts": [{"name": "models", "mountPath": "/models", "readOnly": True}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}
_DOWNLOADER = {
    "name": "downloader",
    "image": "ghcr.io/volcano-sh/downloader:latest",
    "args": ["--source", "Qwen/Qwen3-0.6B", "--output-dir", "/models/Qwen3-0.6B/"],
    "volumeMounts": [{"name": "models", "mountPath": "/models"}],
}


def _model_serving(downloader: dict, volume: dict | None = None, server: dict | None = None) -> dict:
    pod = {
        "initContainers": [downloader],
        "containers": [server or _SERVER],
        "volumes": [volume or {"name": "models", "emptyDir": {}}],
    }
    return {
        "apiVersion": "workload.serving.volcano.sh/v1alpha1",
        "kind": "ModelServing",
        "metadata": {"name": "vllm-qwen-06b", "namespace": "llm"},
        "spec": {"template": {"roles": [{"name": "prefill", "replicas": 1, "entryTemplate": {"spec": pod}}]}},
    }


def _found(tmp_path, doc: dict, policy: str) -> list[tuple[str, str]]:
    return found_by([doc], policy)


def test_a_downloader_init_container_is_read_for_s17_and_s19(tmp_path):
    doc = _model_serving(_DOWNLOADER)
    [(level, message)] = _found(tmp_path, doc, "model-source-pinned")
    assert level == "mandatory"
    assert message == (
        "spec.template.roles[0].entryTemplate.spec container downloader: model Qwen/Qwen3-0.6B comes from the Hugging "
        "Face Hub with no revision, so each pod serves whatever the repository holds when it starts; pin the kthena "
        "downloader's hf_revision in --config to a commit SHA"
    )
    [(level, message)] = _found(tmp_path, doc, "gpu-pod-ephemeral-storage")
    # Advisory: a ModelServing is read generically, and its operator may add a request.
    assert level == "advisory"
    assert message.startswith(
        "spec.template.roles[0].entryTemplate.spec container downloader: downloads Qwen/Qwen3-0.6B from the Hugging "
        "Face Hub (kthena downloader) into /models/Qwen3-0.6B/ on the node's ephemeral storage"
    )


def test_careful_downloader_forms_are_quiet(tmp_path):
    pinned = copy.deepcopy(_DOWNLOADER)
    pinned["args"] += ["--config", '{"hf_revision": "c1899de289a04d12100db370d81485cdf75e47ca"}']
    assert _found(tmp_path, _model_serving(pinned), "model-source-pinned") == []
    # A request on the server counts for the pod (the scheduler adds the pod's containers' requests).
    server = copy.deepcopy(_SERVER)
    server["resources"]["requests"] = {"ephemeral-storage": "20Gi"}
    assert _found(tmp_path, _model_serving(_DOWNLOADER, server=server), "gpu-pod-ephemeral-storage") == []
    claim = {"name": "models", "persistentVolumeClaim": {"claimName": "models"}}
    assert _found(tmp_path, _model_serving(_DOWNLOADER, volume=claim), "gpu-pod-ephemeral-storage") == []


def test_kthena_controller_output_is_quiet(tmp_path):
    # kthena v1.0.0 convert testdata (see the module docstring): s3:// into a hostPath.
    downloader = {
        "name": "ds-r1-qwen-7b-pd-model-downloader",
        "image": "kthena/downloader:latest",
        "args": ["--source", "s3://aios_models/deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "--output-dir", "/cache/568a48"],
        "envFrom": [{"secretRef": {"name": "downloader-secrets"}}],
        "volumeMounts": [{"mountPath": "/cache", "name": "weights"}],
    }
    host = {"name": "weights", "hostPath": {"path": "/cache", "type": "DirectoryOrCreate"}}
    doc = _model_serving(downloader, volume=host)
    assert _found(tmp_path, doc, "model-source-pinned") == []
    assert _found(tmp_path, doc, "gpu-pod-ephemeral-storage") == []
    # Mutation: the same s3:// download into an emptyDir lands on the node's disk.
    doc = _model_serving(downloader, volume={"name": "weights", "emptyDir": {}})
    assert [level for level, _ in _found(tmp_path, doc, "gpu-pod-ephemeral-storage")] == ["advisory"]


def test_hf_download_in_a_deployment_init_container(tmp_path):
    # `hf download REPO --local-dir DIR --revision SHA` (huggingface_hub's CLI), in a plain Deployment: proven.
    cli = {
        "name": "fetch",
        "image": "python:3.12-slim",
        "command": ["sh", "-c", "pip install -q huggingface_hub==1.28.0 && hf download Qwen/Qwen3-8B --local-dir /models"],
        "volumeMounts": [{"name": "models", "mountPath": "/models"}],
    }
    pod = {"initContainers": [cli], "containers": [_SERVER], "volumes": [{"name": "models", "emptyDir": {}}]}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "qwen", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "qwen"}},
            "template": {"metadata": {"labels": {"app": "qwen"}}, "spec": pod},
        },
    }
    assert [level for level, _ in _found(tmp_path, deployment, "model-source-pinned")] == ["mandatory"]
    assert [level for level, _ in _found(tmp_path, deployment, "gpu-pod-ephemeral-storage")] == ["mandatory"]
    cli["command"][2] += " --revision c1899de289a04d12100db370d81485cdf75e47ca"
    assert _found(tmp_path, deployment, "model-source-pinned") == []


# llmaz: the shape of InftyAI/llmaz docs/examples/multi-nodes/service.yaml at 3c13ff343e28cdbe842fd3c659e3daf0d1e27e91
# (an OpenModel on the Hub and an inference.llmaz.io Service claiming it), minimal. llmaz v0.1.4 adds the model-loader
# init container and its emptyDir (policies/reading/downloaders.py cites the lines).
_OPEN_MODEL = {
    "apiVersion": "llmaz.io/v1alpha1",
    "kind": "OpenModel",
    "metadata": {"name": "llama3-405b-instruct"},
    "spec": {"familyName": "llama3", "source": {"modelHub": {"modelID": "meta-llama/Llama-3.1-405B"}}},
}
_LLMAZ_SERVICE = {
    "apiVersion": "inference.llmaz.io/v1alpha1",
    "kind": "Service",
    "metadata": {"name": "llama3-405b-instruct"},
    "spec": {
        "modelClaims": {"models": [{"name": "llama3-405b-instruct"}]},
        "replicas": 2,
        "workloadTemplate": {
            "size": 2,
            "workerTemplate": {
                "spec": {
                    "containers": [
                        {
                            "name": "model-runner",
                            "image": "lmsysorg/sglang:v0.4.6",
                            "command": ["python3", "-m", "sglang.launch_server", "--model-path", "/workspace/models/x"],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ]
                }
            },
        },
    },
}


def _llmaz(tmp_path, policy: str, *docs: dict) -> list[tuple[str, str]]:
    return found_by(list(docs), policy)


def test_llmaz_model_loader_is_read(tmp_path):
    [(level, message)] = _llmaz(tmp_path, "gpu-pod-ephemeral-storage", _OPEN_MODEL, _LLMAZ_SERVICE)
    assert level == "advisory"  # an operator's kind, read generically
    assert message.startswith(
        "spec.workloadTemplate.workerTemplate.spec init container model-loader (added by llmaz for OpenModel "
        "llama3-405b-instruct): downloads meta-llama/Llama-3.1-405B from the Hugging Face Hub (llmaz model-loader) "
        "into /workspace/models/models--meta-llama--Llama-3.1-405B on the node's ephemeral storage"
    )
    [(level, message)] = _llmaz(tmp_path, "model-source-pinned", _OPEN_MODEL, _LLMAZ_SERVICE)
    assert level == "mandatory" and "pin the llmaz model-loader's modelHub.revision to a commit SHA" in message


def test_llmaz_careful_forms_are_quiet(tmp_path):
    pinned = copy.deepcopy(_OPEN_MODEL)
    pinned["spec"]["source"]["modelHub"]["revision"] = "c1899de289a04d12100db370d81485cdf75e47ca"
    assert _llmaz(tmp_path, "model-source-pinned", pinned, _LLMAZ_SERVICE) == []
    skipped = copy.deepcopy(_LLMAZ_SERVICE)
    skipped["metadata"]["annotations"] = {"llmaz.io/skip-model-loader": "true"}
    assert _llmaz(tmp_path, "gpu-pod-ephemeral-storage", _OPEN_MODEL, skipped) == []
    # The claimed OpenModel is not among the files: its source is unknown.
    assert _llmaz(tmp_path, "gpu-pod-ephemeral-storage", _LLMAZ_SERVICE) == []


# S40 model-path-downloaded: the server's local path must be the folder its loader writes on a fresh volume.
def test_a_server_reading_another_folder_than_its_loader_writes_blocks(tmp_path):
    # The llmaz multi-node sample's slip (set 3 form above): SGLang reads an 8B folder, the loader writes the 405B.
    service = copy.deepcopy(_LLMAZ_SERVICE)
    runner = service["spec"]["workloadTemplate"]["workerTemplate"]["spec"]["containers"][0]
    runner["command"][-1] = "/workspace/models/models--meta-llama--Meta-Llama-3.1-8B-Instruct"
    [(level, message)] = _llmaz(tmp_path, "model-path-downloaded", _OPEN_MODEL, service)
    assert level == "mandatory"
    assert message == (
        "spec.workloadTemplate.workerTemplate.spec container model-runner: reads the model from "
        "/workspace/models/models--meta-llama--Meta-Llama-3.1-8B-Instruct, but the volume model-volume starts empty and "
        "its loader writes only /workspace/models/models--meta-llama--Llama-3.1-405B (meta-llama/Llama-3.1-405B), so "
        "the server finds no model there and exits at start; point the server at the folder the loader writes, or the "
        "loader at the model the server serves"
    )
    runner["command"][-1] = "/workspace/models/models--meta-llama--Llama-3.1-405B"
    assert _llmaz(tmp_path, "model-path-downloaded", _OPEN_MODEL, service) == []


def test_kthena_output_dir_and_server_path(tmp_path):
    # The kthena sample's server reads /models/Qwen3-0.6B and its downloader writes /models/Qwen3-0.6B/: quiet.
    assert _found(tmp_path, _model_serving(_DOWNLOADER), "model-path-downloaded") == []
    other = copy.deepcopy(_DOWNLOADER)
    other["args"][3] = "/models/Qwen3-8B/"
    assert [level for level, _ in _found(tmp_path, _model_serving(other), "model-path-downloaded")] == ["mandatory"]
    # A claim may hold other models already: not judged.
    claim = {"name": "models", "persistentVolumeClaim": {"claimName": "models"}}
    assert _found(tmp_path, _model_serving(other, volume=claim), "model-path-downloaded") == []
    # A shell script runs the download (another command may move the files): advice.
    script = {**other, "command": ["sh", "-c", "hf download Qwen/Qwen3-8B --local-dir /models/Qwen3-8B && ls /models"]}
    script.pop("args")
    script["image"] = "python:3.12-slim"
    assert [level for level, _ in _found(tmp_path, _model_serving(script), "model-path-downloaded")] == ["advisory"]


def test_a_dataset_or_space_download_is_not_the_served_model(tmp_path):
    """Review 32 R8 (probe /work/review/s25/dl.yaml ds): `hf download REPO --repo-type dataset` fetches a dataset, not a
    model (huggingface_hub v1.28.0 src/huggingface_hub/cli/download.py:48, 122-130; repo types model, dataset, space:
    cli/_cli_utils.py:678-704); an `hf://datasets/...` URI says the same. Not read as the served model."""
    fetch = {
        "name": "fetch-dataset",
        "image": "python:3.12-slim",
        "command": ["hf", "download", "HuggingFaceH4/ultrachat_200k", "--repo-type", "dataset", "--local-dir", "/data/u"],
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        "resources": {"requests": {"ephemeral-storage": "20Gi"}},
    }
    server = {**_SERVER, "volumeMounts": [{"name": "models", "mountPath": "/models"}, {"name": "data", "mountPath": "/data"}]}
    pod = {
        "initContainers": [fetch],
        "containers": [server],
        "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "qwen"}}, {"name": "data", "emptyDir": {}}],
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ds", "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": {"metadata": {"labels": {"app": "ds"}}, "spec": pod}},
    }
    for command in (
        fetch["command"],
        ["hf", "download", "HuggingFaceH4/ultrachat_200k", "--repo-type=space"],
        ["hf", "download", "hf://datasets/HuggingFaceH4/ultrachat_200k", "--local-dir", "/data/u"],
    ):
        fetch["command"] = command
        assert _found(tmp_path, deployment, "model-source-pinned") == [], command
    # A model, said so or by default, is still read.
    for command in (["hf", "download", "Qwen/Qwen3-8B", "--repo-type", "model"], ["hf", "download", "Qwen/Qwen3-8B"]):
        fetch["command"] = command
        assert [level for level, _ in _found(tmp_path, deployment, "model-source-pinned")] == ["mandatory"], command
