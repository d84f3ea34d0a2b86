"""G31 host-path-read-only: a model read from a hostPath of type DirectoryOrCreate that nothing in the pod writes, with
no node pinning: on any other node the kubelet creates the directory empty and the server finds no model (advice).

Firing form: anasgrt/llm-platform-poc deploy/base/02-qwen3-server.yaml (fresh set 55, labelled G31 advisory):
/vagrant/prebuilt-models (DirectoryOrCreate) read-only at /models, ``--model /models/Qwen3-4B-Q4_K_M.gguf``, a private
llama-cpp-python image no engine row names. A second form: the model named by a variable (MODEL_PATH) in a StatefulSet.
Careful forms: the directory mounted writable (a cache the pod fills), the pod pinned to a node, a path no container
names as its model, a DaemonSet.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G31 = "host-path-read-only"


def _workload(container: dict, kind: str = "Deployment", **spec: object) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": container["name"], "namespace": "ai-platform"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": container["name"]}},
            "template": {
                "metadata": {"labels": {"app": container["name"]}},
                "spec": {
                    "containers": [container],
                    "volumes": [
                        {"name": "models", "hostPath": {"path": "/vagrant/prebuilt-models", "type": "DirectoryOrCreate"}}
                    ],
                    **spec,
                },
            },
        },
    }


QWEN3 = {
    "name": "qwen3",
    "image": "ghcr.io/anasgrt/qwen3-server",
    "args": ["--model", "/models/Qwen3-4B-Q4_K_M.gguf", "--use_mmap", "False", "--n_threads", "4"],
    "ports": [{"containerPort": 8080, "name": "http"}],
    "volumeMounts": [{"name": "models", "mountPath": "/models", "readOnly": True}],
}


def _created_empty(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, G31) if "creates the directory empty" in m]


def test_a_model_on_a_created_hostpath_with_no_pinning_is_advice():
    ((level, message),) = _created_empty([_workload(QWEN3)])
    assert level == "advisory" and "/models/Qwen3-4B-Q4_K_M.gguf" in message and "DirectoryOrCreate" in message
    by_env = dict(QWEN3, name="server", args=[], env=[{"name": "MODEL_PATH", "value": "/models/llama-3-8b"}])
    assert [level for level, _ in _created_empty([_workload(by_env, kind="StatefulSet")])] == ["advisory"]


def test_careful_forms_stay_silent():
    writable = copy.deepcopy(QWEN3)
    writable["volumeMounts"][0]["readOnly"] = False
    assert _created_empty([_workload(writable)]) == []
    assert _created_empty([_workload(QWEN3, nodeName="vagrant-node-1")]) == []
    pinned = {"nodeSelector": {"kubernetes.io/hostname": "vagrant-node-1"}}
    assert _created_empty([_workload(QWEN3, **pinned)]) == []
    no_model = dict(QWEN3, args=["--port", "8080"])
    assert _created_empty([_workload(no_model)]) == []
    daemon = _workload(QWEN3, kind="DaemonSet")
    del daemon["spec"]["replicas"]
    assert _created_empty([daemon]) == []
