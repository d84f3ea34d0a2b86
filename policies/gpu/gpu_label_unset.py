"""G103: a pod's node selector or required node affinity asks for a GPU node label no component sets (advice).

GPU vendors' labellers name their node labels ``<device resource>.<suffix>``: NVIDIA's gpu-feature-discovery sets
nvidia.com/gpu.product, .count, .replicas, .memory, .family (NVIDIA/k8s-device-plugin v0.20.0 internal/lm/resource.go
L153-177, key() = resource name + "." + suffix), AMD's node labeller amd.com/gpu.family, .vram ...
(ROCm/k8s-device-plugin v1.31.0.10 cmd/k8s-node-labeller/main.go L76-84). The device resource name itself
(``nvidia.com/gpu``, ``amd.com/gpu``) is an extended resource of the node's capacity, not a label: a ``nodeSelector``
on it, or a required node affinity whose every term asks for it (``In`` or ``Exists``), matches no node unless
someone labelled nodes by hand, and the pod stays Pending. Spent set 93 xinhangl44-blip/llm-inference-optimization
@5d87a865 k8s/vllm-server.yaml (``key: nvidia.com/gpu, operator: Exists`` under required node affinity, labelled none,
advisory). The vendors' namespaces and resource names are data: components/device_fit.toml [node_labels].

Advice: nodes may be labelled outside the files. Silent when an object of the files sets the key: a Karpenter NodePool's
template labels or requirements, an eksctl node group's labels, a Node, an NFD NodeFeatureRule (any ``labels`` mapping
or requirement of an object other than the workload), or a container of the files runs ``kubectl label`` with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.device_fit import NODE_LABELS
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, memoized, pod_specs, viewed_resources
from policies.reading.serving import container_argv

_RESOURCE_LABELS = {r: v for v in NODE_LABELS for r in v.resources}
_MAX_NODES = 20_000
# Labels the vendor's own deployments select GPU nodes by (NVIDIA/k8s-device-plugin v0.20.0
# deployments/helm/nvidia-device-plugin/values.yaml L66-85: NFD's PCI vendor label, or nvidia.com/gpu.present).
_EXAMPLES = {
    "nvidia": 'feature.node.kubernetes.io/pci-10de.present: "true" (NFD) or nvidia.com/gpu.present: "true"',
    "amd": "amd.com/gpu.family, amd.com/gpu.device-id",
}


def _asked(podspec: Mapping) -> list[tuple[str, str]]:
    """(key, how it is asked) for each device resource name the pod requires as a node label: a nodeSelector key, or
    a key every required node-affinity term asks for (In or Exists)."""
    found = [(k, f"nodeSelector {k}: {v}") for k, v in as_dict(podspec.get("nodeSelector")).items() if k in _RESOURCE_LABELS]
    terms = [
        as_dict(t)
        for t in as_list(
            get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
        )
    ]
    if terms:
        asked = [
            {
                str(as_dict(e).get("key"))
                for e in as_list(t.get("matchExpressions"))
                if str(as_dict(e).get("key")) in _RESOURCE_LABELS and as_dict(e).get("operator") in ("In", "Exists")
            }
            for t in terms
        ]
        if all(asked):
            for key in sorted(set.intersection(*asked) or asked[0]):
                if key not in {k for k, _ in found}:
                    found.append((key, "its required node affinity"))
    return found


def _walk_sets(value: Any, keys: set[str], found: set[str], budget: list[int], parent: str = "") -> None:
    """Collect into ``found`` the keys of ``keys`` a ``labels`` mapping or a ``requirements`` entry sets."""
    if budget[0] <= 0 or len(found) == len(keys):
        return
    budget[0] -= 1
    if isinstance(value, dict):
        if parent in ("labels", "nodeLabels"):
            found.update(k for k in value if k in keys)
        key = value.get("key")
        if parent == "requirements" and isinstance(key, str) and key in keys and value.get("operator") in ("In", "Exists", None):
            found.add(key)
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                _walk_sets(v, keys, found, budget, str(k))
    elif isinstance(value, list):
        for v in value:
            _walk_sets(v, keys, found, budget, parent)


def _set_by_files(view: Any) -> frozenset[str]:
    """The device resource names an object of the files sets as a node label (labels, requirements, kubectl label)."""
    keys = set(_RESOURCE_LABELS)
    found: set[str] = set()
    budget = [_MAX_NODES]
    for r in view:
        props = r.props if isinstance(r.props, dict) else {}
        specs = pod_specs(r)
        if not specs:
            _walk_sets(props, keys, found, budget)
            continue
        for _, podspec in specs:
            for c in as_list(podspec.get("containers")) + as_list(podspec.get("initContainers")):
                line = " ".join(str(t) for t in container_argv(as_dict(c)))
                if "label" in line:
                    found.update(k for k in keys if k in line)
    return frozenset(found)


def _check(resource: Resource, config: dict) -> list[str]:
    asked = [(path, key, how) for path, podspec in pod_specs(resource) for key, how in _asked(podspec)]
    if not asked:
        return []
    view = viewed_resources()
    labelled = memoized(view, "gpu_labels_set_by_files", _set_by_files) if view else frozenset()
    found: list[str] = []
    for path, key, how in asked:
        if key in labelled:
            continue
        example = _EXAMPLES.get(_RESOURCE_LABELS[key].name, f"{key}.<suffix>")
        found.append(
            unproven(
                f"{path}: {how} asks for a node label {key}, which no component sets: {key} is the device plugin's "
                f"extended resource (node capacity, not a label), the vendor's labellers set only {key}.<suffix> labels "
                f"({key}.product, {key}.count ...), and no object of the files labels nodes with it, so the pod stays "
                f"Pending unless nodes were labelled by hand; select a label they set ({example}) "
                f"and hold the GPU through resources.limits {key}"
            )
        )
    return found


POLICY = Policy(
    name="gpu-node-label-is-set",
    description=(
        "A pod's nodeSelector or required node affinity does not ask for a GPU node label no component sets: the "
        "device resource name (nvidia.com/gpu, amd.com/gpu) is no node label; the labellers set nvidia.com/gpu.present, "
        ".product, .count (advice; silent when the files' NodePools or node groups set it)."
    ),
    catalog="G103",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Select GPU nodes by a label their labellers set (nvidia.com/gpu.present: 'true', nvidia.com/gpu.product, a "
        "Karpenter or cloud GPU label), or label the nodes in the files (a NodePool's template labels), and hold the "
        "GPU through resources.limits nvidia.com/gpu."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "GPU feature discovery labels nodes <resource>.<suffix> (NVIDIA/k8s-device-plugin v0.20.0 internal/lm/"
        "resource.go L153-177; ROCm/k8s-device-plugin v1.31.0.10 cmd/k8s-node-labeller/main.go L76-84): the resource "
        "name alone is node capacity, not a label, so a selector on it matches no node the components label."
    ),
)
