"""S19 covers every model server (res48 item 4): a CPU model server's download into its own layer or an unbounded
emptyDir, and its model-store-named emptyDir without a sizeLimit or request, are advice as for a GPU pod: the folder
sits on the node's disk while the scheduler places the pod by requests alone
(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage). A CPU pod's
bounded emptyDir stays silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gpu-pod-ephemeral-storage"


def _deployment(name: str, container: dict, volumes: list[dict]) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], "volumes": volumes}},
        },
    }


# The common tutorial form: ollama/ollama on CPU, a postStart pull, /root/.ollama on an emptyDir, no request.
OLLAMA = _deployment(
    "ollama",
    {
        "name": "ollama",
        "image": "ollama/ollama:0.5.4",
        "ports": [{"containerPort": 11434}],
        "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "4", "memory": "12Gi"}},
        "lifecycle": {"postStart": {"exec": {"command": ["/bin/sh", "-c", "sleep 5; ollama pull mistral:7b"]}}},
        "volumeMounts": [{"name": "ollama-data", "mountPath": "/root/.ollama"}],
    },
    [{"name": "ollama-data", "emptyDir": {}}],
)

# llama.cpp's server on CPU reading a model folder on an emptyDir with no sizeLimit (what fills it is not in the files).
LLAMA = _deployment(
    "llama",
    {
        "name": "llama",
        "image": "ghcr.io/ggml-org/llama.cpp:server-b4500",
        "args": ["-m", "/models/qwen2.5-1.5b-instruct-q4_k_m.gguf", "--host", "0.0.0.0"],
        "volumeMounts": [{"name": "models", "mountPath": "/models"}],
    },
    [{"name": "models", "emptyDir": {}}],
)


def test_a_cpu_server_on_an_unbounded_model_emptydir_is_advised():
    found = found_by([OLLAMA], POLICY)
    assert [lvl for lvl, _ in found] == ["advisory"]
    assert "into /root/.ollama/models on the node's ephemeral storage but requests no ephemeral-storage" in found[0][1]
    found = found_by([LLAMA], POLICY)
    assert [lvl for lvl, _ in found] == ["advisory"]
    assert found[0][1].startswith("container llama: mounts the emptyDir models at /models as a model store")


def test_careful_forms_stay_silent():
    bounded = copy.deepcopy(OLLAMA)
    bounded["spec"]["template"]["spec"]["volumes"][0]["emptyDir"] = {"sizeLimit": "10Gi"}
    assert found_by([bounded], POLICY) == []  # a CPU pod's bounded folder: no GPU node at stake
    requested = copy.deepcopy(OLLAMA)
    requested["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "12Gi"
    assert found_by([requested], POLICY) == []
    limited = copy.deepcopy(LLAMA)
    limited["spec"]["template"]["spec"]["volumes"][0]["emptyDir"] = {"sizeLimit": "4Gi"}
    assert found_by([limited], POLICY) == []
    sized = copy.deepcopy(LLAMA)
    sized["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"ephemeral-storage": "4Gi"}}
    assert found_by([sized], POLICY) == []
    # Not a model server: an app's emptyDir named models holds no checkpoint the files show.
    app = copy.deepcopy(LLAMA)
    app["spec"]["template"]["spec"]["containers"][0].update(image="python:3.12-slim", args=["python", "app.py"])
    assert found_by([app], POLICY) == []
