"""G17's VPA pair: a VerticalPodAutoscaler that applies its recommendations beside an HPA scaling the same workload on
CPU or memory (review 32 R14).

The VPA project documents the pair as unsupported: "Vertical Pod Autoscaler should not be used with the Horizontal
Pod Autoscaler (HPA) on CPU or memory at this moment. However, you can use VPA with HPA on custom and external
metrics" (kubernetes/autoscaler vertical-pod-autoscaler/docs/known-limitations.md at
4dcb11de2bd181702d35c44a02510b74456ac30b). The HPA's utilization target is a fraction of the pods' requests, which
the VPA rewrites from the same usage, so each undoes the other. What the objects say (vertical-pod-autoscaler/docs/
api.md at 7b85d0813f600df32373e4b471b1de8c86aa910a): ``spec.updatePolicy.updateMode`` defaults to ``Auto`` (Off,
Initial, Recreate, Auto; ``Auto`` is currently ``Recreate``; newer releases add ``InPlaceOrRecreate``); a container
policy's ``mode: "Off"`` disables it for that container and ``controlledResources`` defaults to ``[cpu, memory]``.

Read here: an HPA's ``Resource`` / ``ContainerResource`` metrics (cpu or memory), an autoscaling/v1 HPA's
``targetCPUUtilizationPercentage`` and an autoscaling/v2 HPA with no metrics (both CPU: the HPA's default is 80% CPU,
autoscaling/v2 HorizontalPodAutoscalerSpec.metrics "If not set, the default metric will be set to 80% average CPU
utilization"), and a KEDA ScaledObject's ``cpu`` / ``memory`` triggers (the HPA KEDA creates scales on them). A VPA in
``Initial`` mode sets requests only when a pod is created, which every scale-out does: advice. ``Off``: nothing.
"""

from __future__ import annotations

from typing import Optional

from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, namespace_of, triggers
from policies.framework import Resource
from policies.kube import as_dict, as_list, get, metadata_name

VPA = ("autoscaling.k8s.io", "VerticalPodAutoscaler")
APPLYING = ("Auto", "Recreate", "InPlaceOrRecreate")
_RESOURCES = ("cpu", "memory")


def vpa_mode(vpa: Resource) -> str:
    """The VPA's update mode (``Auto`` when unset, as the API documents)."""
    mode = get(vpa.props, "spec", "updatePolicy", "updateMode")
    return mode if isinstance(mode, str) and mode else "Auto"


def vpa_controls(vpa: Resource) -> set[str]:
    """The resources (of cpu, memory) the VPA rewrites in at least one container (default: both)."""
    policies = [as_dict(p) for p in as_list(get(vpa.props, "spec", "resourcePolicy", "containerPolicies"))]
    if not policies:
        return set(_RESOURCES)
    controlled: set[str] = set()
    for policy in policies:
        if policy.get("mode") == "Off":
            continue
        listed = policy.get("controlledResources")
        controlled |= set(listed if isinstance(listed, list) else _RESOURCES) & set(_RESOURCES)
    # A wildcard-less list leaves the containers it does not name to the default (both resources).
    if not any(p.get("containerName") == "*" for p in policies):
        controlled |= set(_RESOURCES)
    return controlled


def scaled_on(scaler: Resource) -> set[str]:
    """The resources (of cpu, memory) an HPA or ScaledObject scales on."""
    if is_scaled_object(scaler):
        return {str(t.get("type")) for _, t in triggers(scaler)} & set(_RESOURCES)
    if not is_hpa(scaler):
        return set()
    if scaler.type.split(":")[1:2] == ["autoscaling/v1"]:
        return {"cpu"}
    metrics = hpa_metrics(scaler)
    if not metrics:
        return {"cpu"}
    return {str(m.name) for m in metrics if m.type in ("Resource", "ContainerResource") and m.name in _RESOURCES}


def vpa_target(vpa: Resource) -> tuple[Optional[str], Optional[str]]:
    """(kind, name) of the VPA's targetRef."""
    ref = as_dict(get(vpa.props, "spec", "targetRef"))
    kind, name = ref.get("kind"), ref.get("name")
    return (kind, name) if isinstance(kind, str) and isinstance(name, str) else (None, None)


def vpa_message(vpa: Resource, scaler_how: str, kind: str, name: str, both: set[str]) -> str:
    """The finding for one VPA / HPA pair on the same workload."""
    mode = vpa_mode(vpa)
    namespace = namespace_of(vpa)
    where = f" in namespace {namespace}" if namespace else ""
    return (
        f"VerticalPodAutoscaler {metadata_name(vpa.props) or vpa.name} (updateMode {mode}) and {scaler_how} both act on "
        f"{kind}/{name}{where} through {' and '.join(sorted(both))}: the VPA rewrites the requests the HPA's target is a "
        f"fraction of, so each undoes the other (the VPA project: not to be used with an HPA on CPU or memory); scale "
        f"on a load metric, or set the VPA's updateMode Off or its controlledResources to what the HPA does not read"
    )


__all__ = ["APPLYING", "VPA", "scaled_on", "vpa_controls", "vpa_message", "vpa_mode", "vpa_target"]
