"""The HPAs serving operators render from their own resources, read as HPAs (scalers.EmbeddedHPA), each with the
workload it scales, so that S6 and S8 judge them as they judge a hand-written HPA.

- A NIMService with spec.scale.enabled: the NIM operator renders an autoscaling/v2 HPA named as the NIMService, on its
  Deployment, with spec.scale.hpa's minReplicas, maxReplicas, metrics and behavior verbatim (NVIDIA/k8s-nim-operator
  v3.1.2 api/apps/v1alpha1/nimservice_types.go:1698-1724, GetHPAParams); its pods carry spec.resources' GPUs.
- A KServe InferenceService annotated for the Standard (RawDeployment) mode, autoscalerClass hpa (the default) or keda,
  whose predictor may scale (maxReplicas above minReplicas, default 1) and is not stopped. KServe v0.20.0 renders its HPA
  with an empty behavior whatever spec.predictor.autoScaling.behavior says (pkg/controller/v1beta1/inferenceservice/
  reconcilers/hpa/hpa_reconciler.go:179), and its ScaledObject with only the behavior's two stabilization windows, else
  the inferenceservice-config's autoscaler windows (keda/keda_reconciler.go:195-226), a cluster setting.
"""

from __future__ import annotations

from typing import Iterable

from policies.autoscaling.scalers import EmbeddedHPA, Workload, _gpus, _pool, namespace_of
from policies.framework import Resource
from policies.kube import (
    GPU_RESOURCE,
    HPA_TYPES,
    ISVC_TYPE,
    KNATIVE_MODES,
    annotations_of,
    as_dict,
    as_int,
    as_quantity,
    get,
    kserve_deployment_mode,
    metadata_name,
    split_type,
)

NIM_SERVICE_KIND = ("apps.nvidia.com", "NIMService")
AUTOSCALER_CLASS = "serving.kserve.io/autoscalerClass"
_HPA_IGNORES = (
    "KServe's own HPA (autoscalerClass {cls}) is rendered with an empty behavior whatever spec.predictor.autoScaling."
    "behavior says (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/hpa/hpa_reconciler.go:179; "
    "autoscalerClass keda copies its stabilization windows, external leaves the HPA to you)"
)
_KEDA_UNSET = (
    "spec.predictor.autoScaling.behavior is not set, so the ScaledObject KServe renders takes the cluster's "
    "inferenceservice-config autoscaler windows if it sets them (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/"
    "reconcilers/keda/keda_reconciler.go:195-226), else"
)


def _hpa(owner: Resource, spec: dict, target: str, **where: object) -> EmbeddedHPA:
    props = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": as_dict(owner.props.get("metadata"))}
    props["spec"] = {**spec, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}}
    return EmbeddedHPA(type=HPA_TYPES[0], name=owner.name, props=props, urn=owner.urn, **where)  # type: ignore[arg-type]


def _nim(r: Resource) -> tuple[EmbeddedHPA, Workload] | None:
    if get(r.props, "spec", "scale", "enabled") is not True:
        return None
    spec, name = as_dict(get(r.props, "spec")), metadata_name(r.props) or r.name
    gpus = as_quantity(get(spec, "resources", "limits", GPU_RESOURCE)) or as_quantity(
        get(spec, "resources", "requests", GPU_RESOURCE)
    )
    hpa = _hpa(r, as_dict(get(spec, "scale", "hpa")), name, field="spec.scale.hpa")
    return hpa, Workload(r, "Deployment", name, namespace_of(r), {}, int(gpus or 0), _pool(spec))


def _kserve(r: Resource) -> tuple[EmbeddedHPA, Workload] | None:
    predictor, name = as_dict(get(r.props, "spec", "predictor")), metadata_name(r.props) or r.name
    annotations = {**annotations_of(r.props), **as_dict(predictor.get("annotations"))}
    mode, annotated = kserve_deployment_mode(r.props, "Serverless")
    cls = annotations.get(AUTOSCALER_CLASS, "hpa")
    floor = as_int(predictor.get("minReplicas"))
    ceiling = as_int(predictor.get("maxReplicas"))
    floor = 1 if floor is None else floor
    if not annotated or mode in KNATIVE_MODES or cls not in ("hpa", "keda") or ceiling is None or ceiling <= floor:
        return None
    if str(annotations.get("serving.kserve.io/stop", "")).lower() == "true":
        return None
    gpus = _gpus(predictor)
    if gpus <= 0:
        return None
    written = as_dict(get(predictor, "autoScaling", "behavior"))
    spec: dict = {"minReplicas": floor, "maxReplicas": ceiling}
    if cls == "keda":
        windows = {
            k: {"stabilizationWindowSeconds": get(written, k, "stabilizationWindowSeconds")} for k in ("scaleDown", "scaleUp")
        }
        spec["behavior"] = {k: v for k, v in windows.items() if v["stabilizationWindowSeconds"] is not None}
        where = {"lead": "" if spec["behavior"] else _KEDA_UNSET, "settled": bool(spec["behavior"])}
    else:
        where = {"lead": _HPA_IGNORES.format(cls=cls), "settled": True}
    hpa = _hpa(r, spec, f"{name}-predictor", field="spec.predictor.autoScaling", replicas_at="spec.predictor", **where)
    labels = {**as_dict(predictor.get("labels")), "serving.kserve.io/inferenceservice": name, "component": "predictor"}
    return hpa, Workload(r, "Deployment", f"{name}-predictor", namespace_of(r), labels, gpus, _pool(predictor))


def embedded_scalers(resources: Iterable[Resource]) -> list[tuple[EmbeddedHPA, Workload]]:
    """The HPAs operators render from the resources (see the module's docstring), each with the workload it scales."""
    found = []
    for r in resources:
        if split_type(r.type) == NIM_SERVICE_KIND:
            entry = _nim(r)
        elif r.type == ISVC_TYPE:
            entry = _kserve(r)
        else:
            continue
        if entry is not None:
            found.append(entry)
    return found
