"""Which GPU a pod spec pins, read from every node label people select GPUs by.

A pod lands on the GPU its scheduling constraints allow. Manifests name it in several ways:

- ``node.kubernetes.io/instance-type`` (and the legacy ``beta.kubernetes.io/instance-type``):
  an EC2 instance type, whose GPU the catalogue knows (``p4d.24xlarge`` -> A100-40GB);
- ``karpenter.k8s.aws/instance-family`` (``g6e`` -> L40S) and
  ``karpenter.k8s.aws/instance-gpu-name`` (``l40s``), Karpenter's well-known labels;
- ``nvidia.com/gpu.product``, GPU feature discovery's label (``NVIDIA-A100-SXM4-80GB``);
- ``cloud.google.com/gke-accelerator``, GKE's (``nvidia-l4``, ``nvidia-h100-80gb``).

Where none of these is set, a label of the cluster's own naming whose key names a GPU or an accelerator
(``gpu-type: nvidia-2080ti``, ``gpu: a100-80gb``, ``accelerator: nvidia-l4``, CoreWeave-style ``gpu.nvidia.com/class``)
is read too, its value matched against the catalogue's GPU names after a vendor prefix (``nvidia-``, ``tesla-``,
``geforce-``); such a value the catalogue does not know (``gpu: "true"``, ``accelerator: nvidia``) pins nothing.
GPU feature discovery marks time-sliced GPUs by a ``-SHARED`` suffix on the product (NVIDIA GPU Operator docs,
"Time-Slicing GPUs in Kubernetes", https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html,
``renameByDefault`` false, the default: "the label becomes nvidia.com/gpu.product=Tesla-T4-SHARED"), which is the same
device.

Each may be a ``nodeSelector`` entry or a required node-affinity ``In`` expression (several values
allowed). Terms of ``nodeSelectorTerms`` are ORed, so the pod may land on any GPU any term allows;
sizing takes the one with the least memory, where a model that does not fit fails first. A
value the catalogue does not know makes the GPU unknown (the plan is not made), never a guess.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Optional

from components.capacity.gpus import GPUS, INSTANCES, UnknownGpu, find_gpu
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


_VENDOR_PREFIXES = ("nvidia-", "nvidia_", "tesla-", "geforce-", "rtx-")
_SHARED_SUFFIX = "-shared"


# Names two catalogue GPUs answer to (Karpenter's ``a100`` covers the 40 and 80 GB parts): a cluster's own label with
# such a value does not say which, so it pins nothing (Karpenter's label is read as its smaller part, above).
_SHARED_NAMES = frozenset(
    "".join(ch for ch in name.upper() if ch.isalnum())
    for name, count in Counter(g.karpenter_gpu_name for g in GPUS.values() if g.karpenter_gpu_name).items()
    if count > 1
)


def _is_generic_gpu_label(label: str) -> bool:
    """A label of the cluster's own naming whose key names a GPU or accelerator (see the module docstring)."""
    name = label.rsplit("/", 1)[-1].lower()
    return label not in GPU_LABELS and ("gpu" in name or "accelerator" in name or label.lower().startswith("gpu."))


def gpu_of_label(label: str, value: str) -> Optional[Gpu]:
    """The catalogue GPU one label value names, or None when the catalogue does not know it."""
    names: list[str] = []
    if label == PRODUCT_LABEL or label not in GPU_LABELS:
        value = value[: -len(_SHARED_SUFFIX)] if value.lower().endswith(_SHARED_SUFFIX) else value
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
    elif label in (PRODUCT_LABEL, GPU_NAME_LABEL):
        names = [value, value.replace("-", " ")]
    else:
        names = [value]
        lowered = value.lower()
        for prefix in _VENDOR_PREFIXES:
            if lowered.startswith(prefix):
                lowered = lowered[len(prefix) :]
                names.append(lowered)
        if any("".join(ch for ch in n.upper() if ch.isalnum()) in _SHARED_NAMES for n in names):
            return None
    for name in names:
        try:
            return find_gpu(name)
        except UnknownGpu:
            continue
    return None


def _selections(podspec: dict, wanted: Callable[[str], bool] = GPU_LABELS.__contains__) -> list[tuple[str, list[str]]]:
    """(label, allowed values) from the node selector and every required affinity term, for the labels ``wanted``."""
    found = []
    selector = as_dict(podspec.get("nodeSelector"))
    for label, value in selector.items():
        if isinstance(label, str) and wanted(label) and isinstance(value, str):
            found.append((label, [value]))
    terms = get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for term in as_list(terms):
        for expr in as_list(as_dict(term).get("matchExpressions")):
            expr = as_dict(expr)
            key = expr.get("key")
            if isinstance(key, str) and wanted(key) and expr.get("operator") == "In":
                values = [str(v) for v in as_list(expr.get("values")) if isinstance(v, (str, int, float))]
                if values:
                    found.append((key, values))
    return found


def _generic_pin(podspec: dict) -> Optional[GpuPin]:
    """The GPU a label of the cluster's own naming pins, where its values are all catalogue GPUs; None otherwise
    (a value such as ``"true"`` says nothing of the GPU, so it pins nothing rather than an unknown GPU)."""
    for label, values in _selections(podspec, _is_generic_gpu_label):
        gpus = [gpu_of_label(label, value) for value in values]
        if gpus and all(g is not None for g in gpus):
            known = [g for g in gpus if g is not None]
            return GpuPin(min(known, key=lambda g: (g.memory_gib, g.name)), f"{label}={'|'.join(values)}")
    return None


def allowed_gpus(podspec: dict) -> list[Gpu]:
    """Every GPU the pod spec's node selection allows (values of one label are alternatives, and so are
    nodeSelectorTerms), when each is known; [] when nothing names a GPU or one value is unknown. pinned_gpu sizes
    the smallest of them; a rule that proves a start failure must hold for all (review 43 #2)."""
    selections = _selections(podspec) or _selections(podspec, _is_generic_gpu_label)
    if not _closed(podspec, {label for label, _ in selections}):
        return []  # a required term that names no GPU admits any node (the terms are ORed)
    gpus = [gpu_of_label(label, value) for label, values in selections for value in values]
    return [g for g in gpus if g is not None] if gpus and all(g is not None for g in gpus) else []


def _closed(podspec: dict, labels: set[str]) -> bool:
    """True when every node the pod may land on carries one of ``labels``: the node selector names one (it is ANDed
    with everything), or each required nodeSelectorTerm (ORed) has an ``In`` expression on one."""
    if any(isinstance(k, str) and k in labels for k in as_dict(podspec.get("nodeSelector"))):
        return True
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    return bool(terms) and all(any(_names(e, labels) for e in as_list(as_dict(t).get("matchExpressions"))) for t in terms)


def _names(expression: Any, labels: set[str]) -> bool:
    """True when a node selector requirement allows only values of one of ``labels`` (``key In [...]``)."""
    key = as_dict(expression).get("key")
    return isinstance(key, str) and key in labels and as_dict(expression).get("operator") == "In"


def pinned_gpu(podspec: dict) -> Optional[GpuPin]:
    """The GPU a pod spec's node selection pins (see the module docstring); None when nothing names one."""
    selections = _selections(podspec)
    if not selections:
        return _generic_pin(podspec)
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
