"""Facts the Karpenter derivation reads about nodes: resource names and labels, an instance type's allocatable and
labels, quantities, the toleration matcher, and the DaemonSets the charts we install render.

Pure; split out of components/derive/karpenter.py (which re-exports what other modules import from it), with the
citations of each fact kept beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..capacity.gpus import GPUS, INSTANCES
from ..quantities import parse_quantity

GPU = "nvidia.com/gpu"


EFA = "vpc.amazonaws.com/efa"


NODEPOOL_LABEL = "karpenter.sh/nodepool"


GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name"


ZONE = "topology.kubernetes.io/zone"


HOSTNAME = "kubernetes.io/hostname"


ISVC_LABEL = "serving.kserve.io/inferenceservice"


VM_MEMORY_OVERHEAD = 0.075  # aws/karpenter-provider-aws v1.14.1 pkg/operator/options/options.go:58 (default)


ASSUMED_MAX_PODS = 110  # for kube-reserved memory (11 MiB a pod + 255 MiB, types.go:524)


EVICTION_MEMORY_MI = 100  # types.go:556


GPU_MANUFACTURER_LABEL = "karpenter.k8s.aws/instance-gpu-manufacturer"


@dataclass(frozen=True)
class ChartDaemonSet:
    """The DaemonSet a chart renders: where its pod settings sit in the release's values, and the chart's defaults."""

    chart: str
    values_path: tuple[str, ...]
    requests: Mapping[str, str]
    node_selector: Mapping[str, str]
    source: str
    # The chart's template requires an instance type from its supportedInstanceLabels list, the EC2 types with EFA:
    # stood in for by the catalogue's EFA types (a test checks them against the chart's list).
    efa_instance_types_only: bool = False


# The charts we install that render a DaemonSet, with their defaults at the pinned version (values.yaml).
CHART_DAEMONSETS = (
    ChartDaemonSet("nvidia-device-plugin", (), {}, {}, "NVIDIA/k8s-device-plugin chart 0.20.0 values.yaml:62 (resources: {})"),
    ChartDaemonSet(
        "aws-efa-k8s-device-plugin",
        (),
        {"cpu": "10m", "memory": "20Mi"},
        {},
        "aws/eks-charts aws-efa-k8s-device-plugin v0.5.30 values.yaml:317-328; node affinity on "
        "supportedInstanceLabels, the EFA instance types (values.yaml:10-314, templates/daemonset.yaml)",
        efa_instance_types_only=True,
    ),
    ChartDaemonSet(
        "kserve-localmodel-resources",
        ("kserve", "localmodelnode", "controller"),
        {"cpu": "100m", "memory": "200Mi"},
        {"kserve/localmodel": "worker"},
        "kserve/kserve v0.20.0 charts/kserve-localmodel-resources values.yaml:116-131 (the node agent)",
    ),
)


def quantity(value: Any) -> float:
    """A Kubernetes quantity in base units (CPU cores, bytes, counts); 0 for what is not one (components/quantities.py
    parses it, for the policy pack too)."""
    try:
        return parse_quantity(value)
    except ValueError:
        return 0.0


def allocatable(instance_type: str) -> dict[str, float]:
    """What a node of this type offers pods, as Karpenter computes it before the node exists."""
    spec = INSTANCES[instance_type]
    millicores = spec.vcpu * 1000
    reserved_m = 0.0
    for start, end, pct in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if millicores >= start:
            reserved_m += (min(millicores, end) - start) * pct
    mem_mi = spec.memory_gib * 1024
    mem_mi -= math.ceil(mem_mi * VM_MEMORY_OVERHEAD)
    mem_mi -= 11 * ASSUMED_MAX_PODS + 255 + EVICTION_MEMORY_MI
    return {
        "cpu": (millicores - reserved_m) / 1000,
        "memory": mem_mi * 2.0**20,
        GPU: float(spec.gpu_count),
        EFA: float(spec.efa_interfaces),
    }


def _instance_labels(instance_type: str) -> dict[str, str]:
    spec = INSTANCES[instance_type]
    gpu = GPUS.get(spec.gpu)
    return {
        "node.kubernetes.io/instance-type": instance_type,
        GPU_NAME_LABEL: (gpu.karpenter_gpu_name or spec.gpu.lower()) if gpu else spec.gpu.lower(),
        "kubernetes.io/arch": spec.arch,
        # Every GPU of the catalogue is NVIDIA's (the AWS provider's label: instancetype/types.go).
        GPU_MANUFACTURER_LABEL: "nvidia",
    }


def tolerates_taint(tolerations: Sequence[Any], taint: Mapping[str, Any]) -> bool:
    """k8s.io/api core/v1 Toleration.ToleratesTaint: empty effect matches all; an empty key with Exists matches
    every taint; Exists matches any value; Equal (or no operator) compares the value; any other operator matches
    nothing.

    The one matcher of the derivations and of the policy pack (S15 reads third-party pods: an item that is no
    mapping tolerates nothing)."""
    for t in tolerations:
        if not isinstance(t, Mapping):
            continue
        if t.get("effect") not in (None, "", taint.get("effect")):
            continue
        key, operator = t.get("key"), t.get("operator") or "Equal"
        if operator == "Exists":
            if key in (None, "") or key == taint.get("key"):
                return True
        elif operator == "Equal" and key == taint.get("key") and str(t.get("value", "")) == str(taint.get("value", "")):
            return True
    return False


def _selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    wanted = (selector or {}).get("matchLabels") or {}
    return all(labels.get(k) == v for k, v in wanted.items())


def _dig(values: Mapping[str, Any], path: Sequence[str]) -> Mapping[str, Any]:
    for key in path:
        values = values.get(key) if isinstance(values, Mapping) else None  # type: ignore[assignment]
    return values if isinstance(values, Mapping) else {}


def _fmt(value: float, resource: str) -> str:
    """A request as a quantity: millicores for cpu, Mi for memory, else the number."""
    if resource == "cpu":
        return f"{round(value * 1000)}m"
    if resource == "memory":
        return f"{round(value / 2**20)}Mi"
    return f"{value:g}"


def _expression_holds(expr: Mapping[str, Any], labels: Mapping[str, str], pool: Any) -> bool:
    key, op, values = str(expr.get("key")), expr.get("operator"), list(expr.get("values") or [])
    if key in labels:
        have = {labels[key]}
    else:
        req = next((r for r in pool.requirements if r.get("key") == key and r.get("operator") == "In"), None)
        have = set(req.get("values") or []) if req else set()
    if op == "In":
        return bool(have & set(values))
    if op == "NotIn":
        return not have or not have <= set(values)
    if op == "Exists":
        return bool(have)
    if op == "DoesNotExist":
        return not have
    return False


def daemon_fits_node(pod: Any, pool: Any, instance_type: str) -> bool:
    """Whether Karpenter counts this DaemonSet pod on a new node of ``pool`` and ``instance_type``
    (scheduler.go:1019-1043): every NodePool taint tolerated, PreferNoSchedule ones taken as tolerated (1022-1023),
    its nodeSelector and one of its required node affinity terms compatible with the node's labels."""
    taints = [t for t in pool.taints if t.get("effect") != "PreferNoSchedule"]
    if any(not tolerates_taint(pod.spec.get("tolerations") or [], t) for t in taints):
        return False
    labels = {**pool.labels, **_instance_labels(instance_type), NODEPOOL_LABEL: pool.name}
    for key, value in (pod.spec.get("nodeSelector") or {}).items():
        if not _expression_holds({"key": key, "operator": "In", "values": [value]}, labels, pool):
            return False
    required = (
        ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    ) or {}
    terms = required.get("nodeSelectorTerms") or []
    if terms and not any(all(_expression_holds(e, labels, pool) for e in t.get("matchExpressions") or []) for t in terms):
        return False
    return True


# Third-party manifests reach the derivations (policies/karpenter/node_choice.py, policies/ray/derived_pods.py), with
# fields of any type; the API server refuses such objects (S26 says so). The derivations read them through these: a
# field of another type than the API's is read as absent, never as given.
def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a map, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def mappings(value: Any) -> list[dict[str, Any]]:
    """The map items of a list field (copied); a malformed item is left out rather than read."""
    return [dict(item) for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def text_labels(value: Any) -> dict[str, str]:
    """A label map or node selector as the API server takes it: text keys and values (others left out)."""
    return {k: v for k, v in mapping(value).items() if isinstance(k, str) and isinstance(v, str)}


def count(value: Any, default: int) -> int:
    """A replica count or skew: an integral number (or its text), else ``default``; never below zero."""
    try:
        number = float(value) if value is not None and not isinstance(value, bool) else float(default)
    except (TypeError, ValueError):
        number = float(default)
    return max(0, int(number)) if number == number and abs(number) < 1e6 else default


def _selector(value: Any) -> dict[str, Any]:
    return {"matchLabels": text_labels(mapping(value).get("matchLabels"))}


def _terms(value: Any) -> list[dict[str, Any]]:
    return [{**t, "labelSelector": _selector(t.get("labelSelector"))} for t in mappings(value)]


def scheduling_fields(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What the scheduler reads of a pod spec, in the API's types, as new objects (relaxing one never changes the
    manifest): tolerations, spread constraints (labelSelector, maxSkew), node selector, and the affinity terms."""
    spreads = [
        {**c, "labelSelector": _selector(c.get("labelSelector")), "maxSkew": count(c.get("maxSkew", 1), 1)}
        for c in mappings(spec.get("topologySpreadConstraints"))
    ]
    out: dict[str, Any] = {
        "tolerations": mappings(spec.get("tolerations")),
        "topologySpreadConstraints": spreads,
        "nodeSelector": text_labels(spec.get("nodeSelector")),
    }
    if "affinity" not in spec:
        return out
    affinity = mapping(spec.get("affinity"))
    node = mapping(affinity.get("nodeAffinity"))
    terms = mappings(mapping(node.get("requiredDuringSchedulingIgnoredDuringExecution")).get("nodeSelectorTerms"))
    out["affinity"] = {
        **{
            kind: {
                **mapping(affinity.get(kind)),
                "requiredDuringSchedulingIgnoredDuringExecution": _terms(
                    mapping(affinity.get(kind)).get("requiredDuringSchedulingIgnoredDuringExecution")
                ),
            }
            for kind in ("podAffinity", "podAntiAffinity")
            if kind in affinity
        },
        **(
            {
                "nodeAffinity": {
                    **node,
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {**e, "values": e["values"] if isinstance(e.get("values"), list) else []}
                                    for e in mappings(t.get("matchExpressions"))
                                ]
                            }
                            for t in terms
                        ]
                    },
                }
            }
            if "nodeAffinity" in affinity
            else {}
        ),
    }
    return out
