"""S48: a Ray Serve LLM model's accelerator_type is one the Ray nodes of its cluster advertise.

An LLMConfig's ``accelerator_type`` makes each of its replicas' placement bundles ask for the Ray resource
``accelerator_type:<type>``, which a Ray node holds only for the GPU it detects (policies/reading/serve_llm.py has the
Ray code). When no GPU group of the RayService can land on a node of that GPU, and none declares the resource itself,
the placement group never places: the replicas stay pending and the application never becomes healthy (blocking,
when every GPU group's nodes are known from its own node selection or from NodePools of the run it requires). The
sized names ``A100-40G``/``A100-80G`` are never detected, so they block unless declared.

Advice: a GPU group that may land on the asked GPU may also land on another (a NodePool admitting g6 and g6e for an
``L4`` model): a worker placed on the other GPU holds its GPUs while no replica can use them.

Set 112 (spent): askulkarni2/ray-serve-with-eks-auto@534ddcc app/ray-serve-vllm.yaml (``accelerator_type="A10G"`` in
mounted LLMConfig code, workers on NodePool gpu-nodepool of g6/g6e: blocks) and app/ray-serve-vllm-v0.11.yaml (``L4``
on the same pool: advice).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import as_list, get, split_type
from policies.reading.ray_cluster import groups
from policies.reading.serve_llm import (
    NEVER_DETECTED,
    RAY_NVIDIA_TYPES,
    declares_accelerator,
    group_accelerators,
    llm_configs,
    run_nodepools,
)
from policies.reading.serve_python import conditional

RAY_SERVICE_TYPES = ("kubernetes:ray.io/v1:RayService", "kubernetes:ray.io/v1alpha1:RayService")


def _bundles_ask(llm: dict) -> bool:
    """True when Ray Serve LLM adds ``accelerator_type:<type>`` to the model's GPU bundles: not with ``use_cpu`` (the CPU
    backend's bundles are {CPU: 1}), and with a ``placement_group_config`` only when every bundle it writes holds a GPU
    and names no accelerator of its own (ray-project/ray@0206cc45 python/ray/llm/_internal/serve/engines/vllm/
    vllm_models.py placement_bundles and use_gpu: the type is set with setdefault on the config's bundles; later
    commits add it only where a bundle holds a GPU)."""
    if llm.get("use_cpu") not in (None, False, "false", "False"):
        return False
    config = llm.get("placement_group_config")
    if config is None:
        return True
    per_worker = get(config, "bundle_per_worker")
    bundles = [per_worker] if per_worker else as_list(get(config, "bundles"))
    return bool(bundles) and all(
        isinstance(b, dict)
        and isinstance(b.get("GPU"), (int, float))
        and b["GPU"] > 0
        and not any(str(k).startswith("accelerator_type:") for k in b)
        for b in bundles
    )


def _asked(resources: list[Resource], resource: Resource) -> list[tuple[str, str]]:
    """(label, accelerator type) of each model that asks one of Ray's NVIDIA types (or a never-detected sized A100) on
    its placement bundles."""
    found = []
    for label, llm in llm_configs(resource, resources):
        asked = llm.get("accelerator_type")
        if not _bundles_ask(llm):
            continue
        if isinstance(asked, str) and (asked in RAY_NVIDIA_TYPES or asked in NEVER_DETECTED):
            found.append((label, asked))
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pools = None
    findings = []
    for resource in (r for r in resources if r.type in RAY_SERVICE_TYPES):
        asked = _asked(resources, resource)
        gpu_groups = [g for g in groups(resource) if g.pod_gpus() != 0]
        if not asked or not gpu_groups or any(declares_accelerator(g) for g in gpu_groups):
            continue
        pools = run_nodepools(resources) if pools is None else pools
        nodes = {g.name: group_accelerators(g, pools) for g in gpu_groups}
        name = f"{split_type(resource.type)[1]} {get(resource.props, 'metadata', 'name')}"
        for label, kind in asked:
            if kind in NEVER_DETECTED:
                findings.append((resource.name, _as_proven(label, _never_detected(name, label, kind))))
                continue
            if any(n is None for n in nodes.values()):
                continue  # a GPU group's nodes are unknown: it may offer the type
            offering = {g: n for g, n in nodes.items() if n is not None and kind in n.types}
            if not offering:
                seen = "; ".join(f"{g} on {n.shown}: {', '.join(sorted(n.types))}" for g, n in nodes.items() if n)
                findings.append(
                    (
                        resource.name,
                        _as_proven(
                            label,
                            f"{name}: {label} asks accelerator_type {kind}, so each replica's placement bundles need the Ray "
                            f"resource accelerator_type:{kind}, but no GPU group can land on a node with that GPU ({seen}); "
                            f"Ray advertises only the GPU a node has, so the replicas never place and the application never "
                            f"becomes healthy; set accelerator_type to the pool's GPU, drop it, or give the workers nodes "
                            f"with {kind} GPUs",
                        ),
                    )
                )
                continue
            mixed = {g: n for g, n in offering.items() if n.types != {kind}}
            for group, n in sorted(mixed.items()):
                others = ", ".join(sorted(n.types - {kind}))
                findings.append(
                    (
                        resource.name,
                        unproven(
                            f"{name}: {label} asks accelerator_type {kind}, but worker group {group} may also land on "
                            f"nodes with {others} ({n.shown}); a worker there advertises accelerator_type:{others} "
                            f"and holds its GPUs while no replica of the model can use them; restrict the group's "
                            f"nodes to the {kind} (instance family or GPU name) or drop accelerator_type"
                        ),
                    )
                )
    return findings


def _as_proven(label: str, message: str) -> str:
    """The finding as the config proves it: an LLMConfig(...) call under a condition may be the branch that never runs
    (policies/reading/serve_python.py), so its finding is advice."""
    return unproven(message) if conditional(label) else message


def _never_detected(name: str, label: str, kind: str) -> str:
    return (
        f"{name}: {label} asks accelerator_type {kind}, a sized name Ray never detects on a node (ray python/ray/util/"
        f"accelerators/accelerators.py: 'these labels are not auto-added to nodes'), and no GPU group declares the "
        f"resource accelerator_type:{kind}; the replicas never place; use A100, or add the resource to the workers' "
        f"rayStartParams resources"
    )


POLICY = Policy(
    name="ray-serve-accelerator-offered",
    description=(
        "A Ray Serve LLM model's accelerator_type (serveConfigV2 llm_configs or LLMConfig(...) code in a mounted "
        "ConfigMap) names a GPU the RayService's GPU groups can land on (their node selection, or the NodePools of "
        "the run they require), or one a group declares as a Ray resource; a group that may also land on other GPUs "
        "is advice."
    ),
    catalog="S48",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set accelerator_type to the GPU of the worker nodes (A10G on g5, L4 on g6, L40S on g6e, A100 on p4d/p4de, "
        "H100 on p5), drop it, or pin the GPU worker group to nodes of that GPU (karpenter.k8s.aws/instance-family or "
        "instance-gpu-name); with several GPU families in one NodePool, give each its own worker group."
    ),
    check_stack=_check,
    rationale=(
        "Ray Serve LLM turns accelerator_type into the resource accelerator_type:<type> on every placement bundle "
        "(ray python/ray/llm/_internal/serve vllm_models.py ray_accelerator_type, placement_bundles), and a Ray node "
        "holds that resource only for the GPU it detects from its NVML name (python/ray/_private/accelerators/"
        "nvidia_gpu.py): a type no node has leaves the replicas pending forever."
    ),
)
