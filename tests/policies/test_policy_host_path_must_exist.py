"""G31 host-path-read-only: a model-server or GPU pod mounting a hostPath of type Directory or File (which must exist on
the node: kubernetes/api v0.33.0 core/v1/types.go:923-929) while its pod spec says nothing of where it goes.

Firing form: spent set 62 geon-2/AnomalyDetector k8s/vllm-deployment.yaml (a vLLM Deployment mounting a LoRA folder
from hostPath /Users/gunlee/Development/MSA/AnomalyDetector/models/llm/llama3-ecs-schema-generator, type Directory,
read-only at /lora, no nodeSelector; labelled G31 on Deployment/vllm-service). Careful forms: a pod with a nodeName,
a nodeSelector or a required node affinity; a folder every node has (/etc/localtime, /dev/dri); DirectoryOrCreate (its
own reading); a DaemonSet; a pod that runs no model server and asks for no GPU.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G31 = "host-path-read-only"
LORA = "/Users/gunlee/Development/MSA/AnomalyDetector/models/llm/llama3-ecs-schema-generator"


def _workload(path: str = LORA, kind: str = "Deployment", host_type: str = "Directory", image: str = "", **spec):
    container = {
        "name": "vllm-service",
        "image": image or "vllm/vllm-openai:latest",
        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Meta-Llama-3-8B-Instruct"],
        "volumeMounts": [{"name": "lora-adapter", "mountPath": "/lora", "readOnly": True}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "vllm-service", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "vllm-service"}},
            "template": {
                "metadata": {"labels": {"app": "vllm-service"}},
                "spec": {
                    "containers": [container],
                    "volumes": [{"name": "lora-adapter", "hostPath": {"path": path, "type": host_type}}],
                    **spec,
                },
            },
        },
    }


def _must_exist(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, G31) if "which must already exist on the node" in m]


def test_a_required_host_folder_of_an_unplaced_model_server_is_advice():
    ((level, message),) = _must_exist([_workload()])
    assert level == "advisory"
    assert f"mounts hostPath {LORA} (volume lora-adapter, type Directory)" in message
    assert "a folder in a user's home" in message and "stays in ContainerCreating" in message
    ((_, message),) = _must_exist([_workload("/data/models/adapter.bin", kind="StatefulSet", host_type="File")])
    assert "type File" in message and "user's home" not in message


def test_careful_forms_stay_silent():
    assert _must_exist([_workload(nodeName="gpu-1")]) == []
    assert _must_exist([_workload(nodeSelector={"nvidia.com/gpu.product": "NVIDIA-L4"})]) == []
    term = {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    assert _must_exist([_workload(affinity=affinity)]) == []
    assert _must_exist([_workload("/etc/localtime", host_type="File")]) == []
    assert _must_exist([_workload("/dev/dri")]) == []
    assert _must_exist([_workload(host_type="DirectoryOrCreate")]) == []
    daemon = _workload(kind="DaemonSet")
    del daemon["spec"]["replicas"]
    assert _must_exist([daemon]) == []
    web = copy.deepcopy(_workload(image="nginx:1.27"))
    web["spec"]["template"]["spec"]["containers"][0].pop("command")
    assert _must_exist([web]) == []
