"""S35: a GPU NodePool's cpu and memory limits admit the instance types it allows.

Karpenter charges a node's whole capacity against its NodePool's ``spec.limits`` before it launches it, and drops
every instance type whose capacity exceeds what the limits leave (kubernetes-sigs/karpenter v1.14.1
pkg/controllers/provisioning/scheduling/scheduler.go:707-725 and filterByRemainingResources :1067-1085: "all available
instance types exceed limits for nodepool"). A ``cpu: 100`` limit on a pool that allows p5.48xlarge (192 vCPU) can
never launch one, however idle the pool is: the 8-GPU pod that needs it stays Pending.

Which types a NodePool allows is read from its requirements on the well-known instance labels
(node.kubernetes.io/instance-type, karpenter.k8s.aws/instance-{family,category,generation,size,gpu-name,gpu-count,
gpu-manufacturer,cpu,memory}, kubernetes.io/arch) against the GPU instance catalogue (components/hardware.py, from
aws/karpenter-provider-aws' instance-types reference); a capacity is the type's vCPUs, its GPUs and its memory less
Karpenter's VM overhead (aws/karpenter-provider-aws v1.14.1 options.go:58, 7.5 %). A pool with a requirement on another
karpenter.k8s.aws/ or node.kubernetes.io/ label (one this reading cannot evaluate) is not judged, nor a static pool
(spec.replicas: only limits.nodes is allowed there).

Only the cpu and memory limits are read (the GPU limit is the pool's deliberate cap: S13 and the plan's pool sizing).
Two findings: the limits admit none of the types the pool allows (mandatory, only when the pool enumerates its types or
families, all of them known: otherwise a type outside the catalogue might fit); the limits shut out the largest
multi-GPU type it allows (advisory: smaller types still launch, but a pod that needs that many GPUs on one node never
gets one).
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Optional

from components.derive.karpenter import VM_MEMORY_OVERHEAD
from components.hardware import GPUS, INSTANCES, InstanceSpec
from policies.framework import Policy, Resource
from policies.kube import GPU_RESOURCE, as_dict, as_float, as_list, as_quantity, get
from policies.reading.nodepools import NODEPOOL_TYPES, is_gpu_nodepool, is_static

_FAMILY = re.compile(r"^(?P<category>[a-z]+)(?P<generation>[0-9]+)")


def _labels(spec: InstanceSpec) -> dict[str, str]:
    """The well-known labels Karpenter gives a node of this type (karpenter-provider-aws instance-types reference)."""
    family, _, size = spec.name.partition(".")
    match = _FAMILY.match(family)
    gpu = GPUS.get(spec.gpu)
    return {
        "node.kubernetes.io/instance-type": spec.name,
        "karpenter.k8s.aws/instance-family": family,
        "karpenter.k8s.aws/instance-category": match["category"] if match else "",
        "karpenter.k8s.aws/instance-generation": match["generation"] if match else "",
        "karpenter.k8s.aws/instance-size": size,
        "karpenter.k8s.aws/instance-gpu-name": (gpu.karpenter_gpu_name or spec.gpu.lower()) if gpu else spec.gpu.lower(),
        "karpenter.k8s.aws/instance-gpu-count": str(spec.gpu_count),
        "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia",
        "karpenter.k8s.aws/instance-cpu": str(spec.vcpu),
        "karpenter.k8s.aws/instance-memory": str(int(spec.memory_gib * 1024)),
        "kubernetes.io/arch": spec.arch,
    }


# Labels that choose where or how a node is bought, not which shape: they narrow no instance type.
_OFFERING_KEYS = frozenset(
    {"karpenter.sh/capacity-type", "topology.kubernetes.io/zone", "topology.kubernetes.io/region", "kubernetes.io/os"}
)
_TYPE_KEY_PREFIXES = ("karpenter.k8s.aws/", "node.kubernetes.io/", "kubernetes.io/", "eks.amazonaws.com/")
# EKS Auto Mode's NodePools name the same instance labels under its own prefix (eks.amazonaws.com/instance-category,
# -family, -generation, -size, -cpu, -memory, -gpu-name, -gpu-count, -gpu-manufacturer: the EKS user guide's
# "Auto Mode supported labels", which maps each to Karpenter's karpenter.k8s.aws/ label).
_AUTO_MODE_PREFIX = "eks.amazonaws.com/instance-"


def _matches(op: Any, values: list[str], value: Optional[str]) -> bool:
    """A NodeSelectorRequirement against one label value (core/v1 NodeSelectorOperator)."""
    if op == "In":
        return value is not None and value in values
    if op == "NotIn":
        return value is None or value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt") and values:
        number, bound = as_float(value), as_float(values[0])
        if number is None or bound is None:
            return False
        return number > bound if op == "Gt" else number < bound
    return False


def _requirement(key: str, op: Any, values: list[str]) -> Callable[[dict[str, str]], bool]:
    return lambda labels: _matches(op, values, labels.get(key))


def allowed_types(props: dict) -> Optional[tuple[list[InstanceSpec], bool]]:
    """The catalogue's instance types the NodePool's requirements allow, and whether the pool enumerates its types
    (an In on instance-type or instance-family whose values the catalogue all knows); None when a requirement on a
    shape label cannot be evaluated here."""
    requirements = [as_dict(r) for r in as_list(get(props, "spec", "template", "spec", "requirements"))]
    known = set(_labels(next(iter(INSTANCES.values()))))
    families = {name.partition(".")[0] for name in INSTANCES}
    enumerated = False
    checks: list[Callable[[dict[str, str]], bool]] = []
    for req in requirements:
        key, op, values = req.get("key"), req.get("operator"), [str(v) for v in as_list(req.get("values"))]
        if isinstance(key, str) and key.startswith(_AUTO_MODE_PREFIX):
            key = "karpenter.k8s.aws/instance-" + key[len(_AUTO_MODE_PREFIX) :]
        if not isinstance(key, str) or key in _OFFERING_KEYS:
            continue
        if key not in known:
            if key.startswith(_TYPE_KEY_PREFIXES):
                return None
            continue  # a label of the pool's own: it narrows no instance type
        if op == "In" and key == "node.kubernetes.io/instance-type" and values and all(v in INSTANCES for v in values):
            enumerated = True
        if op == "In" and key == "karpenter.k8s.aws/instance-family" and values and all(v in families for v in values):
            enumerated = True
        checks.append(_requirement(key, op, values))
    found = [spec for spec in INSTANCES.values() if all(check(_labels(spec)) for check in checks)]
    return sorted(found, key=lambda s: s.name), enumerated


def capacity(spec: InstanceSpec) -> dict[str, float]:
    """What Karpenter charges against the NodePool's limits for one node of this type: its vCPUs, GPUs and memory
    less the VM overhead (the same figures components/derive/karpenter.py allocatable starts from)."""
    mem_mi = spec.memory_gib * 1024
    return {
        "cpu": float(spec.vcpu),
        "memory": (mem_mi - math.ceil(mem_mi * VM_MEMORY_OVERHEAD)) * 2.0**20,
        GPU_RESOURCE: float(spec.gpu_count),
    }


def _exceeded(spec: InstanceSpec, limits: dict[str, float]) -> list[str]:
    """The limits one node of this type exceeds on its own."""
    cap = capacity(spec)
    return [name for name, limit in limits.items() if cap.get(name, 0.0) > limit]


def _limits(props: dict) -> tuple[dict[str, float], dict[str, Any]]:
    """The pool's cpu and memory limits. Its GPU limit is the pool's deliberate cap, read by S13 and the plan's
    pool sizing (components/capacity/pools.py), not here."""
    raw = as_dict(get(props, "spec", "limits"))
    parsed = {name: as_quantity(raw.get(name)) for name in ("cpu", "memory")}
    return {k: v for k, v in parsed.items() if v is not None}, raw


def _shown(spec: InstanceSpec) -> str:
    return f"{spec.name} ({spec.vcpu} vCPU, {spec.memory_gib:,.0f} GiB, {spec.gpu_count} GPUs)"


def _pool(resource: Resource) -> Optional[tuple[list[InstanceSpec], bool, dict[str, float], dict[str, Any]]]:
    props = resource.props
    if not is_gpu_nodepool(props) or is_static(props):
        return None
    limits, raw = _limits(props)
    if not limits:
        return None
    allowed = allowed_types(props)
    if allowed is None or not allowed[0]:
        return None
    return allowed[0], allowed[1], limits, raw


def _none_fit(resource: Resource, config: dict) -> list[str]:
    pool = _pool(resource)
    if pool is None:
        return []
    types, enumerated, limits, raw = pool
    if not enumerated or any(not _exceeded(t, limits) for t in types):
        return []
    smallest = min(types, key=lambda t: (t.vcpu, t.memory_gib))
    over = ", ".join(f"{name} {raw.get(name)}" for name in _exceeded(smallest, limits))
    return [
        f"spec.limits: {over} is below one node of every instance type the NodePool allows (the smallest, "
        f"{_shown(smallest)}): Karpenter charges a node's capacity against the limits before it launches it, so this "
        f"pool launches nothing; raise the limits above one node of each type it should launch"
    ]


def _biggest_shut_out(resource: Resource, config: dict) -> list[str]:
    pool = _pool(resource)
    if pool is None:
        return []
    types, _, limits, raw = pool
    if all(_exceeded(t, limits) for t in types):
        return []  # nothing launches at all: the mandatory finding's case when the pool enumerates its types
    biggest = max(types, key=lambda t: (t.gpu_count, t.vcpu, t.memory_gib))
    over = _exceeded(biggest, limits)
    if biggest.gpu_count < 2 or not over:
        return []
    shown = ", ".join(f"{name} {raw.get(name)}" for name in over)
    return [
        f"spec.limits: {shown} is below one node of {_shown(biggest)}, the largest GPU type the NodePool allows: "
        f"Karpenter never launches it, so a pod that needs {biggest.gpu_count} GPUs on one node stays Pending; raise "
        f"the limit above one node of it, or drop the type from the requirements"
    ]


_RATIONALE = (
    "Karpenter filters a NodePool's instance types by what its limits leave before it launches a node "
    "(kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/scheduler.go:707-725, "
    "filterByRemainingResources :1067-1085), charging the type's whole capacity (vCPUs, GPUs, memory less the VM "
    "overhead); a cpu or memory limit below one node of a type means that type is never bought "
    "(https://karpenter.sh/docs/concepts/nodepools/#speclimits)."
)

POLICY = Policy(
    name="karpenter-limits-admit-instance-types",
    description="A GPU NodePool's cpu and memory limits admit at least one node of the instance types it enumerates.",
    rationale=_RATIONALE,
    catalog="S35",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Raise spec.limits.cpu / memory above one node of each instance type the pool allows (a p5.48xlarge "
    'is 192 vCPU and 2 TiB), or bound the pool by limits["nvidia.com/gpu"] alone.',
    config_schema={},
    resource_types=NODEPOOL_TYPES,
    check_resource=_none_fit,
)

BIGGEST = Policy(
    name="karpenter-limits-admit-largest-gpu-type",
    description="A GPU NodePool's cpu and memory limits admit one node of the largest multi-GPU instance type it allows.",
    rationale=_RATIONALE,
    catalog="S35",
    severity="medium",
    # The pool still launches smaller types; whether a pod needs the largest is a question of the pods it serves.
    enforcement="advisory",
    remediation_steps="Raise spec.limits.cpu / memory above one node of the largest GPU type the pool allows, or remove "
    "that type from its requirements.",
    config_schema={},
    resource_types=NODEPOOL_TYPES,
    check_resource=_biggest_shut_out,
)
