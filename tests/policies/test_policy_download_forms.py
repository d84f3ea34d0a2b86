"""S17 and S19 read model downloads by their form, whatever container runs them (policies/reading/downloaders.py
CALL_ROWS, the engine table's ``downloads.hub`` spellings).

Firing forms, written out minimally from real manifests:
- husseinalamutu/sovereign-k8s-llm k8s/03-deployment-fixed.yaml at 35ac4f435da6de5191468a9b46dd4f07bcb0b20b (spent set
  21): llama.cpp's server with ``--hf-repo $(HF_REPO) --hf-file $(HF_FILE)``, the values from a ConfigMap that is not
  among the files, no volume, no GPU, no ephemeral-storage request;
- husseinalamutu/sovereign-k8s-llm k8s/05-initcontainer-download.yaml at 594e96377385b19a1b4b7aeffa0ce7a167fa5fa1: an
  init container runs ``python3 -c "from huggingface_hub import hf_hub_download; hf_hub_download(repo_id=...,
  filename=..., local_dir='/models')"`` into an emptyDir without a sizeLimit, for a CPU llama.cpp server;
- rrumana/k8s-homelab-2 cluster/apps/ai/llama-backend/llama-static-a-deployment.yaml at
  5561310a49312957bc0a54e3efb55e72afe63163: a ``python3 - <<'PY'`` heredoc whose ``hf_hub_download(repo_id=repo, ...,
  cache_dir="/models/hf-cache")`` takes no revision, into a PersistentVolumeClaim (S17 advises; S19 stays silent:
  the claim is not the node's disk).

llama.cpp's ``-hf``/``-hfr``/``--hf-repo`` (env LLAMA_ARG_HF_REPO) always names a Hub repository and downloads it at
start (ggml-org/llama.cpp common/arg.cpp, the engine table's llama-cpp row cites it); huggingface_hub's
``hf_hub_download``/``snapshot_download`` default ``revision`` to "main" (v1.28.0 file_download.py:962-963,
_snapshot_download.py:229-230, constants.py:60).
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import RAISED
from tests.policies.policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str) -> list[tuple[str, str]]:
    return _pack_found_by(objs, policy, RAISED)


def _deployment(name: str, pod: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "sovereign-ai"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": pod}},
    }


_HF_REPO_SERVER = {
    "name": "llama-server",
    "image": "ghcr.io/ggml-org/llama.cpp:server",
    "args": ["--hf-repo", "$(HF_REPO)", "--hf-file", "$(HF_FILE)", "-c", "$(CTX_SIZE)", "--host", "0.0.0.0"],
    "envFrom": [{"configMapRef": {"name": "llama-server-config"}}],
    "resources": {"requests": {"cpu": "1000m", "memory": "2500Mi"}, "limits": {"memory": "4500Mi"}},
}


def test_hf_repo_behind_a_config_map_outside_the_files_is_a_hub_download():
    doc = _deployment("sovereign-llm", {"containers": [copy.deepcopy(_HF_REPO_SERVER)]})
    [(level, message)] = found_by([doc], "model-source-pinned")
    assert level == "advisory"
    assert message.startswith(
        "container llama-server: model $(HF_REPO) (the repository --hf-repo names) comes from the "
        "Hugging Face Hub and llama.cpp server takes no revision for it"
    )
    [(level, message)] = found_by([doc], "gpu-pod-ephemeral-storage")
    assert level == "advisory"
    assert message.startswith(
        "container llama-server: downloads $(HF_REPO) (a Hub repository, --hf-repo) from the Hugging "
        "Face Hub or its URL into /root/.cache/huggingface/hub or /root/.cache/llama.cpp on the node's ephemeral storage"
    )
    assert "ConfigMap llama-server-config, not among the files read, may set a cache variable" in message


def test_hf_repo_careful_forms_stay_silent():
    local = copy.deepcopy(_HF_REPO_SERVER)
    local["args"] = ["-m", "/models/tiny-aya-earth-yoruba-Q4_K_M.gguf", "-c", "2048", "--host", "0.0.0.0"]
    local["volumeMounts"] = [{"name": "model-volume", "mountPath": "/models", "readOnly": True}]
    doc = _deployment(
        "local", {"containers": [local], "volumes": [{"name": "model-volume", "persistentVolumeClaim": {"claimName": "m"}}]}
    )
    assert found_by([doc], "model-source-pinned") == []
    assert found_by([doc], "gpu-pod-ephemeral-storage") == []
    # The cache on a claim: the download is still unpinned (llama.cpp has no revision setting), but not on the node.
    cached = copy.deepcopy(_HF_REPO_SERVER)
    cached["env"] = [{"name": "LLAMA_CACHE", "value": "/cache"}]
    cached["volumeMounts"] = [{"name": "cache", "mountPath": "/cache"}]
    doc = _deployment(
        "cached", {"containers": [cached], "volumes": [{"name": "cache", "persistentVolumeClaim": {"claimName": "c"}}]}
    )
    assert found_by([doc], "gpu-pod-ephemeral-storage") == []


_FETCHER = {
    "name": "model-fetcher",
    "image": "python:3.11-slim",
    "command": ["/bin/sh", "-c"],
    "args": [
        "set -e\npip install -q huggingface_hub==0.36.0\n"
        "python3 -c \"from huggingface_hub import hf_hub_download; hf_hub_download(repo_id='husseinalamutu/tiny-aya-earth-"
        "yoruba-gguf', filename='tiny-aya-earth-yoruba-Q4_K_M.gguf', local_dir='/models')\"\nls -lh /models\n"
    ],
    "volumeMounts": [{"name": "model-volume", "mountPath": "/models"}],
}
_CPU_SERVER = {
    "name": "llama-server",
    "image": "ghcr.io/ggerganov/llama.cpp:server",
    "args": ["-m", "/models/tiny-aya-earth-yoruba-Q4_K_M.gguf", "-c", "2048", "--host", "0.0.0.0"],
    "volumeMounts": [{"name": "model-volume", "mountPath": "/models", "readOnly": True}],
}


def _fetching_pod(fetcher: dict, volume: dict) -> dict:
    return _deployment(
        "sovereign-llm-initcontainer",
        {"initContainers": [fetcher], "containers": [copy.deepcopy(_CPU_SERVER)], "volumes": [volume]},
    )


def test_python_hub_download_in_an_init_container_of_a_cpu_server():
    doc = _fetching_pod(copy.deepcopy(_FETCHER), {"name": "model-volume", "emptyDir": {}})
    [(level, message)] = found_by([doc], "model-source-pinned")
    assert level == "advisory"
    assert message == (
        "container model-fetcher: calls huggingface_hub hf_hub_download(husseinalamutu/tiny-aya-earth-"
        "yoruba-gguf) with no revision, so every start downloads whatever the repository's main branch holds then; "
        "pass revision=<commit SHA>"
    )
    [(level, message)] = found_by([doc], "gpu-pod-ephemeral-storage")
    assert level == "advisory"
    assert message.startswith(
        "container model-fetcher: downloads husseinalamutu/tiny-aya-earth-yoruba-gguf from the "
        "Hugging Face Hub (huggingface_hub hf_hub_download) into /models on the node's ephemeral storage"
    )
    assert message.endswith("(the pod requests no GPU in these files)")


def test_python_hub_download_careful_forms_stay_silent():
    pinned = copy.deepcopy(_FETCHER)
    pinned["args"][0] = pinned["args"][0].replace("local_dir='/models'", "local_dir='/models', revision='" + "a" * 40 + "'")
    sized = {"name": "model-volume", "emptyDir": {"sizeLimit": "5Gi"}}
    assert found_by([_fetching_pod(pinned, sized)], "model-source-pinned") == []
    assert found_by([_fetching_pod(pinned, sized)], "gpu-pod-ephemeral-storage") == []
    # A download call with no model server and no GPU in the pod (a data job) is not this rule's.
    job = _deployment(
        "data-prep", {"containers": [copy.deepcopy(_FETCHER)], "volumes": [{"name": "model-volume", "emptyDir": {}}]}
    )
    assert found_by([job], "model-source-pinned") == []
    # local_files_only=True reads the cache only.
    offline = copy.deepcopy(_FETCHER)
    offline["args"][0] = offline["args"][0].replace("local_dir='/models'", "local_dir='/models', local_files_only=True")
    assert found_by([_fetching_pod(offline, {"name": "model-volume", "emptyDir": {}})], "model-source-pinned") == []


_HEREDOC_FETCHER = {
    "name": "fetch-gguf",
    "image": "python:3.12-slim",
    "command": ["/bin/sh", "-ec"],
    "args": [
        "python3 -m pip install --no-cache-dir huggingface_hub\npython3 - <<'PY'\nimport os\n"
        'from huggingface_hub import hf_hub_download\nrepo = os.environ["MODEL_REPO"]\n'
        'source = hf_hub_download(\n    repo_id=repo,\n    filename=os.environ["MODEL_FILENAME"],\n'
        '    token=os.getenv("HF_TOKEN"),\n    cache_dir="/models/hf-cache",\n)\nPY\n'
    ],
    "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
}


def test_heredoc_download_into_a_claim_is_unpinned_but_not_on_the_node():
    server = {
        "name": "llama-server",
        "image": "rocm/llama.cpp:llama.cpp-b6652.amd0_rocm7.0.0_ubuntu24.04_server",
        "command": ["llama-server"],
        "args": ["--model", "$(MODEL_PATH)", "--host", "0.0.0.0"],
        "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
        "resources": {"limits": {"amd.com/gpu": "1"}},
    }
    pod = {
        "initContainers": [copy.deepcopy(_HEREDOC_FETCHER)],
        "containers": [server],
        "volumes": [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "llama-models-cache"}}],
    }
    doc = _deployment("llama-static-a", pod)
    [(level, message)] = found_by([doc], "model-source-pinned")
    assert level == "advisory"
    assert message.startswith("container fetch-gguf: calls huggingface_hub hf_hub_download(...) with no revision")
    assert found_by([doc], "gpu-pod-ephemeral-storage") == []


# nerc-project/llm-on-nerc llm-servers/llama.cpp/standalone/02-llama-cpp-deployment.yaml at
# 5982e31a14bc33929653e34afe5caeaa6b163c18 (held-out set 8): an init container curls a GGUF from the Hub's resolve/main
# URL onto a claim, for a llama.cpp server on one GPU. The URL names the revision (main, a branch that moves).
_GGUF = "https://huggingface.co/SanctumAI/Mistral-7B-Instruct-v0.3-GGUF/resolve/main/mistral-7b-instruct-v0.3.Q4_K_M.gguf"


def _curl_pod(url: str, volume: dict) -> dict:
    fetcher = {
        "name": "fetch-model-data",
        "image": "ubi8",
        "command": ["sh", "-c", f"if [ ! -f /models/m.gguf ] ; then\n  curl -fL {url} --output /models/m.gguf\nfi\n"],
        "volumeMounts": [{"name": "models", "mountPath": "/models"}],
    }
    server = {
        "name": "llama-cpp",
        "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b4719",
        "args": ["-m", "/models/m.gguf", "-c", "4096"],
        "volumeMounts": [{"name": "models", "mountPath": "/models"}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    return _deployment("llama-cpp", {"initContainers": [fetcher], "containers": [server], "volumes": [volume]})


def test_a_hub_file_url_at_a_branch_is_unpinned():
    doc = _curl_pod(_GGUF, {"name": "models", "persistentVolumeClaim": {"claimName": "llama-cpp-pvc"}})
    assert found_by([doc], "model-source-pinned") == [
        (
            "mandatory",
            "container fetch-model-data: the curl's URL revision=main names a branch or tag of "
            "SanctumAI/Mistral-7B-Instruct-v0.3-GGUF, which can move; pin the 40-character commit SHA",
        )
    ]
    assert found_by([doc], "gpu-pod-ephemeral-storage") == []  # on a claim, not the node's disk
    doc = _curl_pod(_GGUF, {"name": "models", "emptyDir": {}})
    [(_, message)] = found_by([doc], "gpu-pod-ephemeral-storage")
    assert message.startswith(
        "container fetch-model-data: downloads SanctumAI/Mistral-7B-Instruct-v0.3-GGUF from the Hugging Face Hub (curl) "
        "into /models on the node's ephemeral storage"
    )


def test_hub_file_url_careful_forms_stay_silent():
    pinned = _GGUF.replace("/resolve/main/", "/resolve/" + "0" * 39 + "1/")
    assert found_by([_curl_pod(pinned, {"name": "models", "emptyDir": {"sizeLimit": "20Gi"}})], "model-source-pinned") == []
    requested = _curl_pod(pinned, {"name": "models", "emptyDir": {"sizeLimit": "20Gi"}})
    requested["spec"]["template"]["spec"]["initContainers"][0]["resources"] = {"requests": {"ephemeral-storage": "20Gi"}}
    assert found_by([requested], "gpu-pod-ephemeral-storage") == []
    # Not a Hub file URL (a release asset): no repository, no revision to read.
    other = "https://github.com/org/repo/releases/download/v1/model.gguf"
    assert (
        found_by([_curl_pod(other, {"name": "models", "persistentVolumeClaim": {"claimName": "c"}})], "model-source-pinned") == []
    )
