"""Ray Serve LLM models of a RayService, and the accelerator types the Ray nodes they may land on advertise.

A model is one ``LLMConfig``: an entry of ``applications[].args.llm_configs`` in serveConfigV2, or an ``LLMConfig(...)``
call in code a mounted ConfigMap holds (policies/reading/serve_python.py).

An ``accelerator_type`` makes every placement bundle of the model's replicas ask for the Ray resource
``accelerator_type:<type>`` (0.001 of it): ray-project/ray python/ray/llm/_internal/serve/deployments/llm/vllm/
vllm_models.py ``VLLMEngineConfig.ray_accelerator_type`` and ``placement_bundles``, the same in every stored version of
the code index across Ray 2.4x-2.5x. A Ray node advertises that resource only for the GPU it detects: Ray reads the
first GPU's NVML name and keeps its second word (python/ray/_private/accelerators/nvidia_gpu.py
``NVIDIA_GPU_NAME_PATTERN = r"\\w+\\s+([A-Z0-9]+)"``, ``get_current_node_accelerator_type``, at 00501e2b of the code
index): ``NVIDIA A10G`` gives ``A10G``, ``NVIDIA L40S`` ``L40S``, ``NVIDIA A100-SXM4-80GB`` ``A100``, ``Tesla T4``
``T4``. The sized names ``A100-40G`` and ``A100-80G`` are never detected: python/ray/util/accelerators/accelerators.py
says "these labels are not auto-added to nodes, you'll have to add them manually". KubeRay adds none for GPUs
(ray-project/kuberay v1.7.0 ray-operator/controllers: only TPU groups get an accelerator label).

Which GPU a group's pods get is read from the pod's node selection (policies/reading/gpu_selection.py: instance type,
Karpenter instance family or GPU name, GPU feature discovery's product, GKE's accelerator) or else from the
requirements of the NodePools of the run it requires by name (``karpenter.sh/nodepool``; Karpenter's instance labels
and EKS Auto Mode's ``eks.amazonaws.com/instance-*`` under the same names); the instance families' GPUs come from the
hardware catalogue (components/hardware.toml, Karpenter's instance-types reference). Anything else is unknown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

from components.capacity.memory import Gpu
from policies.kube import as_dict, as_list, get, metadata_name
from policies.reading.gpu_pools import required_pools
from policies.reading.gpu_selection import GPU_LABELS, allowed_gpus, gpu_of_label
from policies.reading.nodepools import NODEPOOL_TYPES
from policies.reading.ray_cluster import RayGroup
from policies.reading.serve_python import mounted_llm_configs
from policies.reading.serving import serve_config

# The accelerator type Ray detects on a node of each catalogue GPU: the second word of the GPU's NVML name.
RAY_DETECTED = {
    "A10G": "A10G",
    "L4": "L4",
    "L40S": "L40S",
    "A100-40GB": "A100",
    "A100-80GB": "A100",
    "H100": "H100",
    "H200": "H200",
    "B200": "B200",
    "T4": "T4",
}
# Ray's NVIDIA accelerator constants (python/ray/util/accelerators/accelerators.py): the values an LLMConfig's
# accelerator_type is judged for. The sized A100 names are constants no node is given by detection.
RAY_NVIDIA_TYPES = frozenset({"V100", "P100", "T4", "P4", "K80", "A10G", "L4", "L40S", "A100", "H100", "H200", "H20", "B200"})
NEVER_DETECTED = frozenset({"A100-40G", "A100-80G"})
_AUTO_MODE_PREFIX = "eks.amazonaws.com/instance-"


def llm_configs(resource: Any, resources: Iterable[Any]) -> list[tuple[str, dict]]:
    """(label, LLMConfig) of every Ray Serve LLM model of a RayService: serveConfigV2's llm_configs, then the
    ``LLMConfig(...)`` calls of its mounted code."""
    config = serve_config(resource)
    found = []
    for app in (as_dict(a) for a in as_list(get(config, "applications"))):
        for i, llm in enumerate(as_list(get(app, "args", "llm_configs"))):
            if isinstance(llm, dict):
                found.append((f"serveConfigV2 application {app.get('name', '?')} llm_configs[{i}]", llm))
    return found + mounted_llm_configs(resource, resources, config)


@dataclass(frozen=True)
class NodeAccelerators:
    """The accelerator types Ray advertises on the nodes a group's pods may land on, and where that is read."""

    types: frozenset[str]
    shown: str  # "NodePool gpu-nodepool (eks.amazonaws.com/instance-family In g6, g6e)"


def _detected(gpus: Iterable[Gpu]) -> Optional[frozenset[str]]:
    names = [RAY_DETECTED.get(g.name) for g in gpus]
    return frozenset(n for n in names if n) if names and all(names) else None


def pool_accelerators(pool: Any) -> Optional[NodeAccelerators]:
    """What a NodePool's nodes advertise: each ``In`` requirement on a GPU-naming label narrows the GPUs (requirements
    are ANDed); None when no requirement names a GPU, one states a GPU label another way (NotIn, Exists), or a value
    is not in the catalogue."""
    found: Optional[frozenset[str]] = None
    parts = []
    for req in (as_dict(r) for r in as_list(get(pool.props, "spec", "template", "spec", "requirements"))):
        key = str(req.get("key"))
        label = "karpenter.k8s.aws/instance-" + key[len(_AUTO_MODE_PREFIX) :] if key.startswith(_AUTO_MODE_PREFIX) else key
        if label not in GPU_LABELS:
            continue
        values = [str(v) for v in as_list(req.get("values"))]
        if req.get("operator") != "In" or not values:
            return None
        gpus = [gpu_of_label(label, v) for v in values]
        types = _detected(g for g in gpus if g is not None) if all(gpus) else None
        if types is None:
            return None
        found = types if found is None else found & types
        parts.append(f"{key} In {', '.join(values)}")
    if found is None:
        return None
    return NodeAccelerators(found, f"NodePool {metadata_name(pool.props)} ({'; '.join(parts)})")


def group_accelerators(group: RayGroup, pools: dict[str, Any]) -> Optional[NodeAccelerators]:
    """What the nodes of a Ray group's pods advertise: the GPUs its node selection allows, else the NodePools of the
    run it requires by name; None when unknown."""
    pinned = allowed_gpus(group.podspec)
    if pinned:
        types = _detected(pinned)
        return NodeAccelerators(types, f"its node selection ({', '.join(sorted({g.name for g in pinned}))})") if types else None
    names = required_pools(group.podspec)
    if not names or any(n not in pools for n in names):
        return None
    found = [pool_accelerators(pools[n]) for n in sorted(names)]
    if any(f is None for f in found):
        return None
    known = [f for f in found if f is not None]
    return NodeAccelerators(frozenset().union(*(f.types for f in known)), "; ".join(f.shown for f in known))


def run_nodepools(resources: Iterable[Any]) -> dict[str, Any]:
    """Every NodePool of the run by name."""
    return {name: r for r in resources if r.type in NODEPOOL_TYPES and (name := metadata_name(r.props))}


def declares_accelerator(group: RayGroup) -> bool:
    """True when the group gives its nodes an ``accelerator_type:`` resource itself (rayStartParams ``resources``, the
    group's own resources, RAY_OVERRIDE_RESOURCES or a ``ray start --resources`` line in the Ray container)."""
    held = [group.start_params, group.spec.get("resources"), group.ray_container.get("env"), group.ray_container.get("args")]
    held.append(group.ray_container.get("command"))
    return "accelerator_type:" in json.dumps(held, default=str)
