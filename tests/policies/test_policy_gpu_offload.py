"""G13 reads GPU offload from the engine table's gpu-layers setting (llama.cpp -ngl/--gpu-layers/--n-gpu-layers, env
LLAMA_ARG_N_GPU_LAYERS), -1/auto/all included, and leaves alone a pod that mounts device nodes from the host.

Firing form: Lichthagel/infra apps/llamacpp/deployment.yaml at ef3a9c1842e883afad26ffd5f1a7bebfa8cb7d8c (spent set 43,
labelled G13 advisory): ghcr.io/ggml-org/llama.cpp:server-cuda with ``--n-gpu-layers -1`` under runtimeClassName
nvidia and no nvidia.com/gpu. Careful forms: kcirtapfromspace/gemma4 apps/llama-server/deployment.yaml and
apps/ollama/deployment.yaml at 938e1b558169874898eab5021388ce2ed8b63f88 (set 43, trap G13 on the Ollama one): a Jetson's
integrated GPU reached through /dev/nv* hostPath device nodes; ole-klokkhammer/cloud k3s/apis/llama/deployment.yaml at
b7c39e41 (set 43): ``-ngl 0``, a CPU server.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G13_REQUEST, G13_ENGINE = "gpu-request-equals-limit", "gpu-engine-has-gpu-limit"


def _deployment(container: dict, **spec: object) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": container["name"], "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": container["name"]}},
            "template": {"metadata": {"labels": {"app": container["name"]}}, "spec": {"containers": [container], **spec}},
        },
    }


LLAMACPP = {
    "name": "llamacpp",
    "image": "ghcr.io/ggml-org/llama.cpp:server-cuda",
    "args": ["-m", "/models/Qwen3.6-35B-A3B-UD-Q4_K_M.gguf", "--port", "8080", "--host", "0.0.0.0", "-c", "262144"]
    + ["--n-gpu-layers", "-1", "--jinja", "--no-mmap"],
    "volumeMounts": [{"name": "models", "mountPath": "/models"}],
}
MODELS = {"name": "models", "hostPath": {"path": "/mnt/data/models", "type": "DirectoryOrCreate"}}
# The Jetson's device nodes (two of the eight kcirtapfromspace/gemma4 mounts).
DEVICES = [
    {"name": "dev-nvgpu", "hostPath": {"path": "/dev/nvgpu"}},
    {"name": "dev-nvmap", "hostPath": {"path": "/dev/nvmap"}},
]
DEVICE_MOUNTS = [{"name": "dev-nvgpu", "mountPath": "/dev/nvgpu"}, {"name": "dev-nvmap", "mountPath": "/dev/nvmap"}]


def test_offload_with_minus_one_and_no_gpu_request_is_advice():
    found = found_by([_deployment(LLAMACPP, runtimeClassName="nvidia", volumes=[MODELS])], G13_REQUEST)
    assert found == [
        (
            "advisory",
            "container llamacpp: offloads its layers to the GPU (--n-gpu-layers -1) but the pod requests no GPU: the "
            "scheduler counts none, so it either reaches the node's GPUs unaccounted through the default runtime "
            "(several such pods share one GPU and can run out of VRAM at load) or sees none and serves from the CPU; "
            "request nvidia.com/gpu: 1",
        )
    ]
    by_env = copy.deepcopy(LLAMACPP)
    by_env["args"] = by_env["args"][:8]
    by_env["env"] = [{"name": "LLAMA_ARG_N_GPU_LAYERS", "value": "all"}]
    [(level, message)] = found_by([_deployment(by_env, volumes=[MODELS])], G13_REQUEST)
    assert level == "advisory" and "offloads every layer to the GPU (--n-gpu-layers all)" in message


def test_careful_forms_stay_silent():
    cpu = copy.deepcopy(LLAMACPP)
    cpu["args"][cpu["args"].index("-1")] = "0"
    assert found_by([_deployment(cpu, volumes=[MODELS])], G13_REQUEST) == []
    jetson = copy.deepcopy(LLAMACPP)
    jetson["volumeMounts"] += DEVICE_MOUNTS
    jetson["securityContext"] = {"privileged": True}
    assert found_by([_deployment(jetson, volumes=[MODELS, *DEVICES])], G13_REQUEST) == []
    held = copy.deepcopy(LLAMACPP)
    held["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    assert found_by([_deployment(held, volumes=[MODELS])], G13_REQUEST) == []


def test_ollama_on_host_device_nodes_is_silent():
    ollama = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "volumeMounts": DEVICE_MOUNTS,
        "securityContext": {"privileged": True},
    }
    selected = {"nodeSelector": {"node.kubernetes.io/instance-type": "jetson-orin-nano"}, "volumes": DEVICES}
    assert found_by([_deployment(ollama, **selected)], G13_ENGINE) == []
    tolerated = copy.deepcopy(ollama)
    del tolerated["volumeMounts"]
    found = found_by([_deployment(tolerated, tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}])], G13_ENGINE)
    assert [level for level, _ in found] == ["advisory"]


def test_the_hosts_whole_dev_is_no_device_source():
    """Almarch/pokedex k8s/ollama/deployment.yaml at 1825fb0b145e12703516516663e840cadbb08112 (spent set 37, labelled
    G13 advisory): the host's whole /dev mounted beside runtimeClassName nvidia and NVIDIA_VISIBLE_DEVICES=all, with no
    nvidia.com/gpu: the GPU comes from NVIDIA's runtime, unaccounted, not from chosen device nodes."""
    ollama = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
        "volumeMounts": [{"name": "nvidia-dev", "mountPath": "/dev"}],
        "securityContext": {"privileged": True},
    }
    whole = {"runtimeClassName": "nvidia", "volumes": [{"name": "nvidia-dev", "hostPath": {"path": "/dev"}}]}
    found = found_by([_deployment(ollama, **whole)], G13_ENGINE)
    assert [level for level, _ in found] == ["advisory"]
