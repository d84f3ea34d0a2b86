"""Session 57 (brief tail57): the long tail of spent-set misses, each fixed as the class of forms people write.

- S17 (`model-source-pinned`): a Hugging Face file URL at a branch anywhere in the start script of a model server's pod
  (policies/models/hub_url_scripts.py), not only as curl's or wget's own argument. Firing form, written out minimally:
  j0sh3rs/home-ops@6a9419ec4e81c8284c6bf51e3f4c88a4020bb9ce kubernetes/apps/ai/llama-swap/app/helmrelease.yaml (spent
  set 126, both labellers): an init container's shell function ``fetch`` runs ``aria2c ... "$url"`` on
  ``.../resolve/main/...gguf?download=true`` URLs for the llama-swap server.
- G42 (`monitor-selects-targets`): a ServiceMonitor written with ``apiVersion: v1`` (the core group, which serves no
  such kind: G40 says the API server refuses it) is judged as the prometheus-operator monitor its author meant.
  Firing form: Shivakumar980/QLora-vLLM-EKS-Deployment-NVIDIA-GPUs EKS-MANIFESTS/prometheus-servicemonitor.yaml and
  vllm-deployment.yaml (spent set 123, both labellers): it selects app=vllm-llama on port http, and Service
  vllm-service carries no labels and an unnamed port.
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import RAISED
from tests.policies.policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str) -> list[tuple[str, str]]:
    return _pack_found_by(objs, policy, RAISED)


_SCRIPT = """set -eu
apk add --no-cache aria2
cd /models
fetch() {
  url="$1"; out="$2"
  aria2c -x 8 -s 8 -c -d /models -o "$out.part" "$url"
  mv "$out.part" "$out"
}
fetch \\
  "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/resolve/main/gpt-oss-20b-Q4_K_M.gguf?download=true" \\
  "gpt-oss-20b-Q4_K_M.gguf"
"""

_POD = {
    "initContainers": [
        {
            "name": "model-fetch",
            "image": "curlimages/curl:8.21.0",
            "command": ["/bin/sh", "-c"],
            "args": [_SCRIPT],
            "volumeMounts": [{"name": "models", "mountPath": "/models"}],
        }
    ],
    "containers": [
        {
            "name": "app",
            "image": "ghcr.io/ggml-org/llama.cpp:server-b8914",
            "args": ["-m", "/models/gpt-oss-20b-Q4_K_M.gguf", "--host", "0.0.0.0", "--port", "8080"],
            "ports": [{"containerPort": 8080, "name": "http"}],
            "volumeMounts": [{"name": "models", "mountPath": "/models"}],
        }
    ],
    "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "llama-models"}}],
}


def _deployment(pod: dict, name: str = "llama-swap") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ai"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": pod}},
    }


def test_hub_url_at_a_branch_passed_through_a_shell_function_is_advice():
    [(level, message)] = found_by([_deployment(copy.deepcopy(_POD))], "model-source-pinned")
    assert level == "advisory"
    assert message == (
        "container model-fetch: its start script downloads gpt-oss-20b-Q4_K_M.gguf from the Hugging Face "
        "repository unsloth/gpt-oss-20b-GGUF at 'main', a branch or tag "
        "(https://huggingface.co/unsloth/gpt-oss-20b-GGUF/resolve/main/...): each start fetches whatever that name "
        "points at then, so pods started at different times serve different files; write the URL at a 40-character "
        "commit SHA (.../resolve/<sha>/gpt-oss-20b-Q4_K_M.gguf)"
    )


def test_hub_url_careful_forms_stay_silent():
    pinned = copy.deepcopy(_POD)
    sha = "3f4c2a1b0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b"
    pinned["initContainers"][0]["args"] = [_SCRIPT.replace("/resolve/main/", f"/resolve/{sha}/")]
    assert found_by([_deployment(pinned)], "model-source-pinned") == []
    # A comment saying where the file came from downloads nothing.
    commented = copy.deepcopy(_POD)
    url = "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/resolve/main/gpt-oss-20b-Q4_K_M.gguf"
    commented["initContainers"][0]["args"] = [f"# from {url}\nls -l /models/gpt-oss-20b-Q4_K_M.gguf"]
    assert found_by([_deployment(commented)], "model-source-pinned") == []
    # A pod that serves no model and requests no GPU (a file server, a backup job's pod) is not judged.
    other = copy.deepcopy(_POD)
    other["containers"] = [{"name": "web", "image": "nginx:1.27.3", "ports": [{"containerPort": 80}]}]
    assert found_by([_deployment(other, "files")], "model-source-pinned") == []
    # A URL curl is given directly is the downloader rows' (one finding, not two).
    direct = copy.deepcopy(_POD)
    url = "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/resolve/main/gpt-oss-20b-Q4_K_M.gguf"
    direct["initContainers"][0]["args"] = [f"curl -L -o /models/gpt-oss-20b-Q4_K_M.gguf {url}"]
    assert len(found_by([_deployment(direct)], "model-source-pinned")) == 1


def _service(labels: dict | None, port_name: str | None) -> dict:
    port: dict = {"protocol": "TCP", "port": 8000, "targetPort": 8000}
    if port_name:
        port["name"] = port_name
    metadata: dict = {"name": "vllm-service", "namespace": "vllm"}
    if labels:
        metadata["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata,
        "spec": {"selector": {"app": "vllm-llama"}, "ports": [port]},
    }


_CORE_MONITOR = {
    "apiVersion": "v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "vllm-metrics", "namespace": "vllm"},
    "spec": {"selector": {"matchLabels": {"app": "vllm-llama"}}, "endpoints": [{"port": "http", "path": "/metrics"}]},
}


def _vllm_pods() -> dict:
    pod = {
        "containers": [
            {
                "name": "vllm",
                "image": "vllm/vllm-openai:v0.11.0",
                "ports": [{"containerPort": 8000, "name": "http"}],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ]
    }
    doc = _deployment(pod, "vllm-llama")
    doc["metadata"]["namespace"] = "vllm"
    return doc


def test_core_group_service_monitor_is_judged_as_meant():
    objs = [copy.deepcopy(_CORE_MONITOR), _service(None, None), _vllm_pods()]
    found = found_by(objs, "monitor-selects-targets")
    assert found and all(level == "advisory" for level, _ in found)
    assert found[0][1].startswith(
        "spec.selector app=vllm-llama with endpoints on port http matches no Service of the files read in namespace vllm; "
        "Service/vllm-service, whose spec.selector is what the monitor repeats, carries no labels and names no port"
    )


def test_core_group_service_monitor_careful_form_stays_silent():
    objs = [copy.deepcopy(_CORE_MONITOR), _service({"app": "vllm-llama"}, "http"), _vllm_pods()]
    assert found_by(objs, "monitor-selects-targets") == []
