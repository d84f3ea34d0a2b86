"""Which GPU a pod spec pins, read from every node label people select GPUs by.

A pod lands on the GPU its scheduling constraints allow. Manifests name it in several ways:

- ``node.kubernetes.io/instance-type`` (and the legacy ``beta.kubernetes.io/instance-type``):
  an EC2 instance type, whose GPU the catalogue knows (``p4d.24xlarge`` -> A100-40GB);
- ``karpenter.k8s.aws/instance-family`` (``g6e`` -> L40S) and
  ``karpenter.k8s.aws/instance-gpu-name`` (``l40s``), Karpenter's well-known labels;
- ``nvidia.com/gpu.product``, GPU feature discovery's label (``NVIDIA-A100-SXM4-80GB``);
- ``cloud.google.com/gke-accelerator``, GKE's (``nvidia-l4``, ``nvidia-h100-80gb``).

Each may be a ``nodeSelector`` entry or a required node-affinity ``In`` expression (several values
allowed). Terms of ``nodeSelectorTerms`` are ORed, so the pod may land on any GPU any term allows;
sizing takes the one with the least memory, where a model that does not fit fails first. A
value the catalogue does not know makes the GPU unknown (the plan is not made), never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from components.capacity.gpus import INSTANCES, UnknownGpu, find_gpu
from components.capacity.memory import Gpu
from policies.kube import as_dict, as_list, get

INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
FAMILY_LABEL = "karpenter.k8s.aws/instance-family"
GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name"
PRODUCT_LABEL = "nvidia.com/gpu.product"
GKE_ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
GPU_LABELS = (*INSTANCE_TYPE_LABELS, FAMILY_LABEL, GPU_NAME_LABEL, PRODUCT_LABEL, GKE_ACCELERATOR_LABEL)

# An instance family's GPU, where every size of the family in the catalogue has the same one.
_FAMILY_GPU: dict[str, Optional[str]] = {}
for _type, _entry in INSTANCES.items():
    _family = _type.split(".", 1)[0]
    _FAMILY_GPU[_family] = _entry.gpu if _FAMILY_GPU.get(_family, _entry.gpu) == _entry.gpu else None


@dataclass(frozen=True)
class GpuPin:
    """What a pod spec's node selection says of its GPU.

    ``gpu`` is the GPU the plan sizes for (the smallest the pod may land on), None when no label
    pins one or a value is unknown; ``shown`` is how messages name the selection
    (``node.kubernetes.io/instance-type=p4d.24xlarge``); ``unknown`` lists the values the
    catalogue does not know.
    """

    gpu: Optional[Gpu]
    shown: str
    unknown: tuple[str, ...] = ()


def gpu_of_label(label: str, value: str) -> Optional[Gpu]:
    """The catalogue GPU one label value names, or None when the catalogue does not know it."""
    names: list[str] = []
    if label in INSTANCE_TYPE_LABELS:
        entry = INSTANCES.get(value)
        names = [entry.gpu] if entry else []
    elif label == FAMILY_LABEL:
        gpu = _FAMILY_GPU.get(value)
        names = [gpu] if gpu else []
    elif label == GKE_ACCELERATOR_LABEL:
        # nvidia-tesla-a100 is GKE's A100 40GB; other values are nvidia-<gpu>[-<memory>].
        stripped = value.removeprefix("nvidia-").removeprefix("tesla-")
        names = ["A100-40GB"] if value == "nvidia-tesla-a100" else [value, stripped]
    else:
        names = [value, value.replace("-", " ")]
    for name in names:
        try:
            return find_gpu(name)
        except UnknownGpu:
            continue
    return None


def _selections(podspec: dict) -> list[tuple[str, list[str]]]:
    """(label, allowed values) from the node selector and every required affinity term."""
    found = []
    selector = as_dict(podspec.get("nodeSelector"))
    for label in GPU_LABELS:
        if isinstance(selector.get(label), str):
            found.append((label, [selector[label]]))
    terms = get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for term in as_list(terms):
        for expr in as_list(as_dict(term).get("matchExpressions")):
            expr = as_dict(expr)
            if expr.get("key") in GPU_LABELS and expr.get("operator") == "In":
                values = [str(v) for v in as_list(expr.get("values")) if isinstance(v, (str, int, float))]
                if values:
                    found.append((expr["key"], values))
    return found


def pinned_gpu(podspec: dict) -> Optional[GpuPin]:
    """The GPU a pod spec's node selection pins (see the module docstring); None when nothing names one."""
    selections = _selections(podspec)
    if not selections:
        return None
    gpus: list[Gpu] = []
    unknown: list[str] = []
    for label, values in selections:
        for value in values:
            gpu = gpu_of_label(label, value)
            if gpu is None:
                unknown.append(f"{label}={value}")
            else:
                gpus.append(gpu)
    shown = ", ".join(f"{label}={'|'.join(values)}" for label, values in selections)
    if unknown or not gpus:
        return GpuPin(None, shown, tuple(unknown))
    return GpuPin(min(gpus, key=lambda g: (g.memory_gib, g.name)), shown)
