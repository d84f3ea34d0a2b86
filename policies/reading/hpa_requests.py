"""Containers a HorizontalPodAutoscaler's utilisation target needs a request from.

An HPA's Resource (or ContainerResource) metric with ``target.type: Utilization`` (autoscaling/v1's
targetCPUUtilizationPercentage) divides each pod's usage by the pod's request for that resource; a container of the
pod with no request for it makes the HPA controller fail the metric ("missing request for cpu in container ...",
kubernetes pkg/controller/podautoscaler/replica_calculator.go GetResourceReplicas -> calculateRequests ->
calculatePodRequestsFromContainers: every container, and every restartable (sidecar) init container, must carry the
request; a pod-level ``spec.resources.requests`` replaces the sum where no container is named; code index file
4233727116), the HPA reports ScalingActive False and never changes the replicas. A LimitRange default of the namespace
fills the request, and a limit stands for an unset request (the API server defaults the request to it). So does a
VerticalPodAutoscaler of the files that applies its recommendations to the target (policies/reading/vpa_requests.py:
its admission controller writes the request into each main container of the pods it admits). An autoscaling/v2 HPA
with no metrics scales on 80% CPU Utilization (the API's default), and an inline patch of a Kustomization of the files
that targets the workload and writes the request is read (the built object is checked in its own scope; this one
holds the base as written).

A KEDA ScaledObject's ``cpu``/``memory`` trigger with ``metricType: Utilization`` (or the deprecated
``metadata.type``) renders the same HPA metric (kedacore/keda pkg/scalers/cpu_memory_scaler.go parseResourceMetadata;
code index file 6987078557); it is read here too, as advice.
"""

from __future__ import annotations

from typing import Any, Iterator

from components.loading import MANIFESTS, LoadError, load_yaml_documents
from policies.framework import unproven
from policies.kube import (
    HPA_TYPES,
    SCALED_OBJECT_TYPE,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    metadata_name,
    pod_specs,
    split_type,
    unmerged_patches,
    viewed_resources,
)
from policies.reading.limit_ranges import namespace_default
from policies.reading.serving import namespace_of
from policies.reading.vpa_requests import vpa_requested

_SCALED = frozenset({"Deployment", "StatefulSet", "ReplicaSet"})


def utilization_targets(hpa: Any) -> list[tuple[str, str]]:
    """(resource, container or "") of each Utilization target of an HPA (autoscaling/v1's CPU percentage included) or
    of a KEDA ScaledObject's cpu/memory triggers of metricType Utilization."""
    found = []
    if hpa.type == SCALED_OBJECT_TYPE:
        for trigger in as_list(get(hpa.props, "spec", "triggers")):
            trigger = as_dict(trigger)
            kind = trigger.get("type")
            metric_type = trigger.get("metricType") or get(trigger, "metadata", "type")
            if kind in ("cpu", "memory") and metric_type == "Utilization":
                found.append((kind, str(get(trigger, "metadata", "containerName") or "")))
        return found
    if get(hpa.props, "spec", "targetCPUUtilizationPercentage") is not None:
        found.append(("cpu", ""))
    metrics = get(hpa.props, "spec", "metrics")
    if metrics is None or metrics == []:
        # autoscaling/v2 defaults empty metrics to 80% average CPU Utilization (kubernetes/api v0.33.0
        # autoscaling/v2/types.go:75; kubernetes pkg/apis/autoscaling/v2/defaults.go SetDefaults_HorizontalPodAutoscaler,
        # code index file 6842668020); v1 has its own default (targetCPUUtilizationPercentage, read above).
        if hpa.type.split(":")[1:2] != ["autoscaling/v1"] and not found:
            found.append(("cpu", ""))
        return found
    for metric in as_list(metrics):
        metric = as_dict(metric)
        kind = metric.get("type")
        body = as_dict(metric.get("resource" if kind == "Resource" else "containerResource"))
        if kind in ("Resource", "ContainerResource") and get(body, "target", "type") == "Utilization":
            name = body.get("name")
            if isinstance(name, str):
                found.append((name, str(body.get("container") or "") if kind == "ContainerResource" else ""))
    return found


def _metric_count(scaler: Any) -> int:
    key = "triggers" if scaler.type == SCALED_OBJECT_TYPE else "metrics"
    return max(len(as_list(get(scaler.props, "spec", key))), 1)


def _outcome(scaler: Any, kind: str) -> str:
    """What the HPA does when that metric fails: with other metrics it still scales up on them but never scales down
    (kubernetes pkg/controller/podautoscaler/horizontal.go computeReplicasForMetrics: an invalid metric blocks only a
    scale-down; ScalingActive is False only when every metric fails). Review 41 item 7."""
    if _metric_count(scaler) > 1:
        return f"scales this {kind} up on its other metrics only and never scales it down"
    return f"reports ScalingActive False and never scales this {kind}"


def _targets(scaler: Any) -> list[Any]:
    """The Deployments/StatefulSets/ReplicaSets of the files the scaler's scaleTargetRef names (same namespace where
    both say one; a ScaledObject's kind defaults to Deployment)."""
    ref = as_dict(get(scaler.props, "spec", "scaleTargetRef"))
    kind = ref.get("kind") or ("Deployment" if scaler.type == SCALED_OBJECT_TYPE else None)
    name, namespace = ref.get("name"), namespace_of(scaler)
    if kind not in _SCALED or not isinstance(name, str):
        return []
    found = []
    for r in viewed_resources() or ():
        if split_type(r.type)[1] != kind or (metadata_name(r.props) or r.name) != name:
            continue
        if namespace is not None and namespace_of(r) is not None and namespace_of(r) != namespace:
            continue
        found.append(r)
    return found


def _lacks(container: dict, wanted: str) -> bool | None:
    """True when the container sets neither a request nor a limit for ``wanted``; None when its resources are not
    readable as written (a template placeholder)."""
    resources = container.get("resources")
    if resources is None:
        return True
    if not isinstance(resources, dict):
        return None
    for section in ("requests", "limits"):
        value = resources.get(section)
        if value is not None and not isinstance(value, dict):
            return None
        if get(resources, section, wanted) is not None:
            return False
    return True


def _unrequested(target: Any, wanted: str, only: str) -> Iterator[tuple[str, bool]]:
    """(container label, readable) of every container of the target the metric needs ``wanted`` from and that sets
    none; nothing when a pod-level request covers it."""
    for path, podspec in pod_specs(target):
        if not only and get(podspec, "resources", "requests", wanted) is not None:
            continue
        if not only and get(podspec, "resources", "limits", wanted) is not None:
            continue
        inits = [c for c in as_list(podspec.get("initContainers")) if isinstance(c, dict)]
        sidecars = [c for c in inits if c.get("restartPolicy") == "Always"]
        mains = containers(podspec)
        for container in [*mains, *sidecars]:
            if only and container.get("name") != only:
                continue
            lacks = _lacks(container, wanted)
            if lacks is False:
                continue
            if lacks and any(container is c for c in mains) and vpa_requested(target, str(container.get("name")), wanted):
                continue  # a VPA of the files writes the request into every pod it admits (reading/vpa_requests.py)
            yield container_label(path, container), lacks is True


def _sets_request(path: list[str], value: Any, wanted: str) -> bool:
    """True when ``value`` written at ``path`` holds a ``requests.<wanted>`` (a JSON-patch path, or nested keys)."""
    if any(a == "requests" and b == wanted for a, b in zip(path, path[1:])):
        return True
    if isinstance(value, dict):
        return any(_sets_request([*path, str(k)], v, wanted) for k, v in value.items())
    if isinstance(value, list):
        return any(_sets_request(path, v, wanted) for v in value)
    return False


def _inline_patch_requests(target: Any, wanted: str) -> bool:
    """True when a Kustomization of the files has an inline patch (``patches[].patch`` / ``patchesJson6902[].patch``)
    whose target names the workload and that writes ``requests.<wanted>``: the overlay's build requests it (the build is
    checked whole in its own scope, policies/overlay_builds.py; this scope holds only the base as written)."""
    kind, name = split_type(target.type)[1], metadata_name(target.props) or target.name
    for r in viewed_resources() or ():
        if split_type(getattr(r, "type", "")) != ("kustomize.config.k8s.io", "Kustomization"):
            continue
        for key in ("patches", "patchesJson6902"):
            for entry in as_list(get(r.props, key)):
                entry = as_dict(entry)
                aim, text = as_dict(entry.get("target")), entry.get("patch")
                if aim.get("kind") != kind or aim.get("name") not in (None, name) or not isinstance(text, str):
                    continue
                if wanted not in text or "requests" not in text:
                    continue  # the cheap test first: most inline patches change something else
                try:
                    docs = [d.data for d in load_yaml_documents("inline patch", MANIFESTS, text=text)]
                except LoadError:
                    continue
                for doc in docs:
                    ops = doc if isinstance(doc, list) else [{"path": "", "value": doc}]
                    for op in ops:
                        op = as_dict(op)
                        where = [w for w in str(op.get("path") or "").split("/") if w]
                        if op.get("op", "add") in ("add", "replace") and _sets_request(where, op.get("value"), wanted):
                            return True
    return False


def _limit_range_anywhere(wanted: str) -> bool:
    """A LimitRange of the files (any namespace) defaults ``wanted``: the run's namespace may be its."""
    for r in viewed_resources() or ():
        if split_type(getattr(r, "type", "")) != ("", "LimitRange"):
            continue
        for item in as_list(get(r.props, "spec", "limits")):
            item = as_dict(item)
            if item.get("type") == "Container" and (
                get(item, "default", wanted) is not None or get(item, "defaultRequest", wanted) is not None
            ):
                return True
    return False


def scaler_unrequested(scaler: Any) -> list[str]:
    """One message per Utilization target of an HPA (or KEDA ScaledObject) whose target workload, among the files
    read, has a container that sets no request (nor limit, nor LimitRange default) for that resource. Blocking only
    for an HPA whose every metric is that one, with the target and its containers read as written and no LimitRange
    of the files defaulting the resource; otherwise advice."""
    if scaler.type not in HPA_TYPES and scaler.type != SCALED_OBJECT_TYPE:
        return []
    wanted_list = utilization_targets(scaler)
    if not wanted_list:
        return []
    targets = _targets(scaler)
    if not targets:
        return []
    messages: list[str] = []
    for wanted, only in wanted_list:
        per_target = [list(_unrequested(t, wanted, only)) for t in targets]
        if any(not lacking for lacking in per_target):
            continue  # one target of that name (another overlay or folder) requests it
        if any(getattr(t, "base", False) for t in targets) and _inline_patch_requests(targets[0], wanted):
            continue
        target, lacking = targets[0], per_target[0]
        if namespace_default(target, "requests", wanted) is not None or namespace_default(target, "limits", wanted):
            continue
        kind = split_type(target.type)[1]
        labels = ", ".join(label for label, _ in lacking)
        message = (
            f"{kind} {metadata_name(target.props) or target.name}: {labels} set{'s' if len(lacking) == 1 else ''} no "
            f"resources.requests.{wanted}, so this {wanted} Utilization target cannot be computed ('missing request "
            f"for {wanted}'); the HPA {_outcome(scaler, kind)}; request {wanted} in every container"
        )
        proven = (
            scaler.type in HPA_TYPES
            and _metric_count(scaler) <= 1
            and len(targets) == 1
            and all(readable for _, readable in lacking)
            and not unmerged_patches(target)
            # A Kustomize base a patch of the run completes, a patch, or a chart's template: the requests may come
            # from what the files do not hold whole (policies/reading/kustomize.py, helm_chart.py).
            and not (getattr(target, "base", False) or getattr(target, "patch", False) or getattr(target, "template", ""))
            and not _limit_range_anywhere(wanted)
        )
        messages.append(message if proven else unproven(message))
    return messages


__all__ = ["scaler_unrequested", "utilization_targets"]
