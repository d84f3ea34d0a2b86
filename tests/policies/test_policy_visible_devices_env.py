"""G53 gpu-visible-devices-left-to-plugin: NVIDIA_VISIBLE_DEVICES set in the env of a container that claims GPUs (advice).
Minimal hand-written shapes of the cited files (only the fields the rule reads)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gpu-visible-devices-left-to-plugin"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _gpu(gpus: int = 1) -> dict:
    return {"limits": {"nvidia.com/gpu": gpus, "memory": "24Gi"}, "requests": {"nvidia.com/gpu": gpus}}


# Set 16: egdcrypto/microk8s-gpu-stack applications/ollama/ollama-gpu.yaml at 645a125a186c5c029d02ef368e1f11bef8000260.
EGD = _deployment(
    "ollama",
    {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "env": [
            {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
            {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "compute,utility"},
        ],
        "resources": _gpu(),
    },
)
# Found by grepping stored public repositories: kkkashan/llm-comparison kubernetes/vllm-deployment.yaml at
# 066a20746bca3af87807e27562856e7f94ec3980 (vllm/vllm-openai, NVIDIA_VISIBLE_DEVICES "all", nvidia.com/gpu 1).
KKKASHAN = _deployment(
    "vllm",
    {
        "name": "vllm",
        "image": "vllm/vllm-openai:latest",
        "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
        "resources": _gpu(),
    },
)


def test_all_beside_a_gpu_claim_is_advice():
    ((level, message),) = found_by([EGD], POLICY)
    assert (level, message) == (
        "advisory",
        "container ollama: env NVIDIA_VISIBLE_DEVICES=all beside an nvidia.com/gpu claim of 1 replaces the device "
        "plugin's own NVIDIA_VISIBLE_DEVICES (its default envvar strategy: the kubelet appends the container's env after "
        "the plugin's), so the container sees every GPU of the node although it claims 1; drop the variable and let the "
        "device plugin set it",
    )
    assert [lv for lv, _ in found_by([KKKASHAN], POLICY)] == ["advisory"]


def test_none_void_and_fixed_lists_are_advice():
    for value, effect in (("void", "gets no GPU"), ("none", "gets no GPU"), ("0,1", "those same GPUs")):
        container = {"name": "c", "image": "x", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": value}], "resources": _gpu(2)}
        ((level, message),) = found_by([_deployment("d", container)], POLICY)
        assert level == "advisory" and effect in message, value


def test_a_container_that_claims_no_gpu_or_reads_the_variable_stays_silent():
    # runtimeClassName sharing with no device-plugin claim: the variable is the only GPU selection there is.
    shared = _deployment(
        "ollama", {"name": "ollama", "image": "ollama/ollama", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]}
    )
    shared["spec"]["template"]["spec"]["runtimeClassName"] = "nvidia"
    assert found_by([shared], POLICY) == []
    # kwkoo/kserve-vllm yaml/base/inferenceservice/serving-runtime.yaml at 2d98251f884f70ff1ab0d7d85eda40e1487fe31a: the
    # start script only reads $NVIDIA_VISIBLE_DEVICES to count the GPUs the plugin gave it.
    reader = {
        "name": "kserve-container",
        "image": "docker.io/vllm/vllm-openai:latest",
        "command": ["/bin/sh", "-c", "GPU_COUNT=\"$(echo -n $NVIDIA_VISIBLE_DEVICES | awk -F, '{ print NF }')\""],
        "resources": _gpu(),
    }
    assert found_by([_deployment("vllm", reader)], POLICY) == []


def _kandakji(value: str, gpus: int = 1, **extra) -> dict:
    # Minimal form of kandakji/sample-aws-eks-auto-mode examples/gpu/vllm-3models-gpu0.yaml@b8611f035f22800aad42b6966a9a8390ee306031
    # (spent set 35): three vLLM Deployments, each claiming nvidia.com/gpu 1 and pinning CUDA_VISIBLE_DEVICES to one MIG
    # slice's UUID.
    container = {
        "name": "vllm-qwen3-8b",
        "image": "vllm/vllm-openai:latest",
        "env": [{"name": "CUDA_VISIBLE_DEVICES", "value": value}],
        "resources": _gpu(gpus),
        **extra,
    }
    return _deployment("vllm-qwen3-8b", container)


def test_a_device_uuid_in_cuda_visible_devices_blocks():
    ((level, message),) = found_by([_kandakji("MIG-1ab04f24-22f2-5086-b687-3fe8ffc65406")], POLICY)
    assert level == "mandatory"
    assert "CUDA_VISIBLE_DEVICES=MIG-1ab04f24" in message and "CUDA finds no GPU" in message
    assert [lv for lv, _ in found_by([_kandakji("GPU-5c1e0e1d-0000-4a7b-9e3a-1f2e3d4c5b6a")], POLICY)] == ["mandatory"]
    # A privileged container sees every device of the node: the UUID may exist there, so advice.
    privileged = _kandakji("MIG-1ab04f24-22f2-5086-b687-3fe8ffc65406", securityContext={"privileged": True})
    assert [lv for lv, _ in found_by([privileged], POLICY)] == ["advisory"]


def test_an_index_past_the_claimed_devices_blocks_and_a_short_list_is_advice():
    ((level, message),) = found_by([_kandakji("1")], POLICY)
    assert level == "mandatory" and "numbered 0..0" in message
    ((level, message),) = found_by([_kandakji("0", gpus=2)], POLICY)
    assert level == "advisory" and "uses 1 of the 2 GPUs" in message


def test_careful_cuda_visible_devices_forms_stay_silent():
    # Index 0 of the one GPU claimed (set 28 Narden91/llm-k8s-test llm-manifest.yml), all the GPUs claimed, a variable:
    # CUDA sees what the plugin gave.
    for value, gpus in (("0", 1), ("0,1", 2), ("$(GPU_IDS)", 1)):
        assert found_by([_kandakji(value, gpus)], POLICY) == [], value
    # A CPU-only "-1" or "" beside a GPU claim hides the GPU claimed: advice since session 48 (pods48), not silence.
    for value in ("-1", ""):
        [(level, message)] = found_by([_kandakji(value, 1)], POLICY)
        assert level == "advisory" and "that value hides every device" in message, value
    # With the pod's own NVIDIA_VISIBLE_DEVICES the container sees other devices: that variable is what is reported.
    both = _kandakji("1")
    both["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"})
    assert [lv for lv, _ in found_by([both], POLICY)] == ["advisory"]
    # A MIG slice claimed under the mixed strategy counts as the device the index names.
    mig = _kandakji("0")
    mig["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/mig-1g.5gb": 1}}
    assert found_by([mig], POLICY) == []
    mig["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = "MIG-12345678-1234-1234-1234-123456789abc"
    assert [lv for lv, _ in found_by([mig], POLICY)] == ["mandatory"]


def test_a_uuid_on_a_pod_pinned_to_one_node_or_beside_env_from_is_advice():
    # Review 43 item 8 (/tmp/review43/g53a): a pod pinned to one node (a homelab's one-GPU host, the UUID copied from
    # its nvidia-smi -L) may be given that very device (k8s-device-plugin v0.20.0 internal/plugin/server.go:480-482
    # passes the allocated device's UUID); an envFrom source outside the files may set NVIDIA_VISIBLE_DEVICES.
    uuid = "GPU-5c2e7a1d-3b4f-9e8a-1c2d-7f6e5d4c3b2a"
    pins = (
        {"nodeSelector": {"kubernetes.io/hostname": "gpu-node-1"}},
        {"nodeName": "gpu-node-1"},
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-node-1"]}]}
                        ]
                    }
                }
            }
        },
    )
    for pin in pins:
        pinned = _kandakji(uuid)
        pinned["spec"]["template"]["spec"].update(pin)
        [(level, message)] = found_by([pinned], POLICY)
        assert level == "advisory" and message.endswith("(the pod is pinned to one node, whose device that UUID may be)")
    env_from = _kandakji(uuid, envFrom=[{"configMapRef": {"name": "gpu-env"}}])
    assert [lv for lv, _ in found_by([env_from], POLICY)] == ["advisory"]
    assert [lv for lv, _ in found_by([_kandakji("1", envFrom=[{"secretRef": {"name": "gpu-env"}}])], POLICY)] == ["advisory"]
    # Still blocking: two hosts allowed, an instance-family selector (set 35's Auto Mode nodes), a prefixed envFrom.
    two = _kandakji(uuid)
    two["spec"]["template"]["spec"]["affinity"] = copy.deepcopy(pins[2]["affinity"])
    two["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]["matchExpressions"][0]["values"] = ["gpu-node-1", "gpu-node-2"]
    family = _kandakji(uuid)
    family["spec"]["template"]["spec"]["nodeSelector"] = {"eks.amazonaws.com/instance-family": "p5"}
    prefixed = _kandakji(uuid, envFrom=[{"prefix": "APP_", "configMapRef": {"name": "app"}}])
    for stack in (two, family, prefixed):
        assert [lv for lv, _ in found_by([stack], POLICY)] == ["mandatory"]
