"""The GPU a pod pins through a label of the cluster's own naming (``gpu-type: nvidia-2080ti``) or a time-sliced GPU
feature discovery product (``Tesla-T4-SHARED``): policies.reading.gpu_selection, read by S2 and the start-up rules."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.reading.gpu_selection import pinned_gpu

S2 = "vllm-max-model-len-fits-kv-cache"

# Cut down from TobiasEdman/des-chatbot k8s/vllm-deployment.yaml at 9ffa3e8b6578d6a1b35a8020b099539e0b7bf67a
# (held-out set 14): Mistral-7B (~13.5 GiB of bf16 weights) pinned by the cluster's own label to an 11 GB RTX 2080 Ti.
MISTRAL_2080TI = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-mistral", "namespace": "des-chatbot"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "nodeSelector": {"gpu-type": "nvidia-2080ti"},
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "args": [
                            "--model",
                            "mistralai/Mistral-7B-Instruct-v0.3",
                            "--max-model-len",
                            "8192",
                            "--gpu-memory-utilization",
                            "0.90",
                        ],
                        "resources": {
                            "requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                            "limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                        },
                    }
                ],
            },
        },
    },
}


def _selecting(selector: dict) -> dict:
    changed = copy.deepcopy(MISTRAL_2080TI)
    changed["spec"]["template"]["spec"]["nodeSelector"] = selector
    return changed


def _pin(selector: dict):
    return pinned_gpu({"nodeSelector": selector})


def test_a_cluster_label_naming_a_gpu_pins_it():
    assert _pin({"gpu-type": "nvidia-2080ti"}).gpu.name == "RTX-2080-TI"
    assert _pin({"gpu": "a100-80gb"}).gpu.name == "A100-80GB"
    assert _pin({"example.com/accelerator": "nvidia-l4"}).gpu.name == "L4"
    assert _pin({"nvidia.com/gpu.product": "Tesla-T4-SHARED"}).gpu.name == "T4"  # GFD's time-slicing rename
    assert _pin({"nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-2080-Ti"}).gpu.name == "RTX-2080-TI"


def test_a_cluster_label_that_names_no_gpu_pins_nothing():
    assert _pin({"gpu": "true"}) is None
    assert _pin({"accelerator": "nvidia"}) is None
    assert _pin({"gpu-type": "nvidia-a100"}) is None  # 40 or 80 GB: not a catalogue name
    # A well-known label decides; a cluster label beside it is not read.
    assert _pin({"cloud.google.com/gke-accelerator": "nvidia-l4", "gpu-type": "nvidia-2080ti"}).gpu.name == "L4"


def test_mistral_on_an_rtx_2080_ti_does_not_fit():
    ((level, message),) = found_by([MISTRAL_2080TI], S2)
    assert level == "mandatory"
    assert message.startswith("container vllm: mistralai/Mistral-7B-Instruct-v0.3 on 1x RTX-2080-TI (10.76 GiB)")
    assert "weights need 13.51 GiB per GPU but 0.9 x 10.76 GiB = 9.68 GiB is the budget" in message


def test_careful_forms_are_silent():
    assert found_by([_selecting({"gpu-type": "nvidia-l40s"})], S2) == []  # 44 GiB holds it
    assert found_by([_selecting({"gpu": "true"})], S2) == []  # the GPU is not named: not sized
    # The trap beside it: --dtype auto on a compute-capability-7.5 card falls back to float16 (vLLM 0.9.0 and later;
    # :latest names no release), so the start-up dtype rule stays silent.
    assert found_by([MISTRAL_2080TI], "vllm-dtype-supported-by-gpu") == []
