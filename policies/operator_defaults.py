"""What operators add to the pods they render, as data: one row per operator, each default cited at its release.

A pod rule reads the pod the cluster will run, not the template a manifest shows. Where an operator's defaults are a
pod of their own, its reader merges them in (KServe's LLMInferenceService presets: policies/llmisvc_presets.py;
Dynamo's component defaults: policies/dynamo_defaults.py; a ServingRuntime into its InferenceService:
policies/reading/kserve_runtime.py). Where an operator only fills in what a container leaves out, the row below says
what, and rules ask ``supplied`` before they report a field missing: a new operator is a row.

Fields an operator may supply (``Supplied.fields``): ``readinessProbe``, ``livenessProbe``, ``startupProbe``, and
``shm`` (a memory-backed emptyDir at /dev/shm).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import SHM_PATH, as_dict, as_list, get, split_type


@dataclass(frozen=True)
class Supplied:
    """One operator's defaults for the containers of the pods it renders."""

    operator: str
    kinds: frozenset[tuple[str, str]]  # (API group, kind); kind "*" is every kind of the group
    fields: frozenset[str]
    container: str  # which container gets them: "first" (index 0), "serving" (the only one, or one with ports), or
    # "named" (a container of one of ``names``; a KServe predictor ``model`` counts as the name KServe gives it)
    source: str
    names: frozenset[str] = frozenset()
    # true when the readinessProbe it supplies is a TCP check of the container's port (KServe, Knative): it passes as
    # soon as the server listens, so a server that listens while it loads its model is Ready before it can answer
    tcp_readiness: bool = False


ROWS: tuple[Supplied, ...] = (
    Supplied(
        "KubeRay",
        frozenset({("ray.io", "*"), ("orchestration.aibrix.ai", "RayClusterFleet")}),
        frozenset({"readinessProbe", "livenessProbe", "shm"}),
        "first",
        "ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go: readiness and liveness probes on the Ray "
        "container (index 0) unless ENABLE_PROBES_INJECTION=false (:918-930, initLivenessAndReadinessProbe :732, "
        "getEnableProbesInjection :587-592); a memory emptyDir at /dev/shm sized to the container's memory when it mounts "
        "nothing there and rayStartParams sets no plasma-directory (:854-860, addEmptyDir :1548-1567)",
    ),
    Supplied(
        "Knative Serving",
        frozenset({("serving.knative.dev", "Service"), ("serving.knative.dev", "Configuration")}),
        frozenset({"readinessProbe"}),
        "serving",
        "knative/serving pkg/apis/serving/v1/revision_defaults.go at 0217cb33 applyProbes: the serving container (the "
        "only one, or the one declaring ports) gets a TCP readinessProbe when it has none",
        tcp_readiness=True,
    ),
    Supplied(
        "KServe",
        frozenset(
            {
                ("serving.kserve.io", "InferenceService"),
                ("serving.kserve.io", "ServingRuntime"),
                ("serving.kserve.io", "ClusterServingRuntime"),
            }
        ),
        frozenset({"readinessProbe"}),
        "named",
        "kserve/kserve at v0.20.0 (and opendatahub-io/kserve at 0239d488, RHOAI) pkg/controller/v1beta1/inferenceservice/"
        "reconcilers/deployment/deployment_reconciler.go:"
        "304-336 setDefaultPodSpec: in RawDeployment (Standard) mode the kserve-container and transformer-container get a "
        "TCP readinessProbe on their first containerPort (else 8080) when they have none, on the predictor and worker "
        "Deployments alike (:147, :185); the same default stands at v0.13.0 (:65, :119-177) and v0.16.0 (:275-334) and in "
        "RHOAI's opendatahub-io/kserve v3.5.0+rhaiv.0 (:313, :440, :740-800), so Standard mode gives a model server "
        "with no probe of its own a TCP one at every release the sets name; in Serverless mode Knative's applyProbes gives the serving container one (row "
        "above). The predictor's model, and a custom predictor's only or unnamed first container, are named "
        "kserve-container (components/predictor.go:432 MergeServingRuntimeAndInferenceServiceSpecs; "
        "pkg/apis/serving/v1beta1/predictor_custom.go:69-71)",
        frozenset({"kserve-container", "transformer-container"}),
        tcp_readiness=True,
    ),
)

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _owner(props: Any, path: str) -> Any:
    """The object holding the pod template at ``path`` (``spec.workerGroupSpecs[0].template.spec`` -> the group)."""
    node: Any = props
    steps = _STEP.findall(path.removesuffix(".template.spec"))
    for name, index in steps:
        node = get(node, name) if name else get(node, int(index))
    return node


def _row(resource: Any) -> Optional[Supplied]:
    group, kind = split_type(getattr(resource, "type", ""))
    return next((r for r in ROWS if (group, kind) in r.kinds or (group, "*") in r.kinds), None)


def _name_given(resource: Any, path: str, listed: list, container: Mapping) -> Any:
    """The name the operator knows this container by: an InferenceService predictor's ``model`` (path ``*.model``)
    and the only or unnamed first container of its predictor are kserve-container (see the KServe row); any other
    container keeps its own name."""
    if split_type(getattr(resource, "type", ""))[1] == "InferenceService" and path.startswith("spec.predictor"):
        if path.endswith(".model"):
            return "kserve-container"
        if listed and listed[0] is container and (len(listed) == 1 or not container.get("name")):
            return "kserve-container"
    return container.get("name")


def supplied(resource: Any, path: str, podspec: Mapping, container: Mapping, field: str) -> Optional[str]:
    """Where an operator supplies ``field`` for this container of the pod spec at ``path``: the row's source, or None
    when nothing fills it in (the container's own value, if any, is the rule's to read)."""
    row = _row(resource)
    if row is None or field not in row.fields:
        return None
    listed = [c for c in as_list(podspec.get("containers")) if isinstance(c, dict)]
    if row.container == "first":
        if not listed or listed[0] is not container:
            return None
    elif row.container == "named":
        given = _name_given(resource, path, listed, container)
        if not isinstance(given, str) or given not in row.names:
            return None
    elif not (len(listed) == 1 and listed[0] is container) and not as_list(container.get("ports")):
        return None
    if field == "shm":
        if row.operator == "KubeRay" and "plasma-directory" in as_dict(get(_owner(resource.props, path), "rayStartParams")):
            return None
        mounts = [as_dict(m).get("mountPath") for m in as_list(container.get("volumeMounts"))]
        if any(isinstance(m, str) and m.rstrip("/") == SHM_PATH for m in mounts):
            return None  # the container mounts its own: that one is read
    return f"{row.operator} ({row.source})"


def tcp_readiness_supplied(resource: Any, path: str, podspec: Mapping, container: Mapping) -> Optional[str]:
    """The operator (with its source) that gives this container a TCP readinessProbe because it has none, or None."""
    row = _row(resource)
    if row is None or not row.tcp_readiness or isinstance(container.get("readinessProbe"), dict):
        return None
    return supplied(resource, path, podspec, container, "readinessProbe")


__all__ = ["ROWS", "Supplied", "supplied", "tcp_readiness_supplied"]
