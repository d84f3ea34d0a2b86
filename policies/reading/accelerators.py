"""Which pods hold an accelerator, of any vendor (G11, G13).

Device-plugin resources of accelerators a model server holds like a GPU: NVIDIA (whole GPUs and MIG slices,
nvidia.com/mig-*), AMD (ROCm k8s-device-plugin amd.com/gpu), Intel (gpu.intel.com/i915, xe), Habana Gaudi
(habana.ai/gaudi), AWS Neuron (aws.amazon.com/neuron, neuroncore, neurondevice), Google TPU (google.com/tpu); and a
Dynamic Resource Allocation claim (pod resourceClaims, a container's resources.claims), whose device the files do not
name.
"""

from __future__ import annotations

from collections.abc import Mapping

from policies.kube import as_dict, as_quantity, containers, get

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


__all__ = ["ACCELERATOR_RESOURCES", "claims_devices", "requests_accelerator"]
