"""The labels each pod-making object's pods carry as their controllers write them, and whether a selector may select
them: one reading for the rules that resolve a selector against the pods of a run (G18 pdb-selects-pods, G23
affinity-selects-pods, G68 subset-selects-pods).

- A workload's pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Argo Rollout, a bare Pod):
  the template's own labels plus the keys the controllers add with values the files cannot know (pod-template-hash,
  controller-revision-hash, statefulset.kubernetes.io/pod-name, job-name, ...).
- KubeRay (policies/reading/operator_pod_labels.py, ray-project/kuberay v1.7.0 ray-operator/controllers/ray/utils/
  constant.go:19-21 ``ray.io/cluster``, ``ray.io/node-type``, ``ray.io/group``; :351-352 ``headgroup``): the RayCluster
  a RayService or RayJob makes is named by utils.GenerateRayClusterName, ``<name>-<5 random>`` (util.go:369-371 at
  v1.7.0; ``<name>-raycluster-<5 random>`` at v1.0.0 util.go:204-206), so its pods' ``ray.io/cluster`` starts with
  ``<name>-`` and never equals the RayService's name (a ``Generated`` value here). A RayJob with
  ``spec.clusterSelector`` makes no cluster.
- LeaderWorkerSet (policies/reading/serving.py pod_labels, kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/
  leaderworkerset_types.go:37-63): ``leaderworkerset.sigs.k8s.io/name``, ``worker-index`` known; ``group-index``,
  ``group-key``, ``template-revision-hash`` unknown values; its leaders and each group's workers are StatefulSets'
  pods (v0.10.0 pkg/controllers/leaderworkerset_controller.go, pod_controller.go), so they carry the StatefulSet
  controller's keys too.
- KServe InferenceService (kserve/kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/components/predictor.go:
  501-512: the union of the ServingRuntime's labels, the InferenceService's own and the predictor's, then
  ``serving.kserve.io/inferenceservice: <name>`` and ``component: predictor`` last, pkg/constants/constants.go:61,
  :403): an open set (the runtime's labels are not in the file) whose two controller keys are certain.

A label the controller owns (its key prefix: ``ray.io/``, ``leaderworkerset.sigs.k8s.io/``) and does not set is
absent; a key another admission webhook may add (Istio's injector) is unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from policies.kube import as_dict, as_list, get, memoized, split_type
from policies.reading.operator_pod_labels import ANY, is_operator_pod_owner, operator_pod_labels
from policies.reading.ray_cluster import groups as ray_groups
from policies.reading.run_objects import pod_label_sets
from policies.reading.serving import pod_labels

# Keys the built-in controllers add to the pods they create (kubernetes v1.31.0: apps/v1 DefaultDeploymentUniqueLabelKey,
# ControllerRevisionHashLabelKey, StatefulSetPodNameLabel, PodIndexLabel, DaemonSet's pod-template-generation; batch/v1
# JobNameLabel, ControllerUidLabel, JobCompletionIndexAnnotation and the legacy spellings; Argo Rollouts'
# rollouts-pod-template-hash).
CONTROLLER_KEYS = frozenset(
    {
        "pod-template-hash",
        "controller-revision-hash",
        "pod-template-generation",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "batch.kubernetes.io/job-name",
        "batch.kubernetes.io/controller-uid",
        "batch.kubernetes.io/job-completion-index",
        "job-name",
        "controller-uid",
        "rollouts-pod-template-hash",
    }
)
# Prefixes of keys an admission webhook may add to any pod (Istio's sidecar injector: security.istio.io/tlsMode,
# service.istio.io/canonical-name and -revision).
_WEBHOOK_PREFIXES = ("security.istio.io/", "service.istio.io/", "sidecar.istio.io/")
_LWS_ANY = ("group-index", "group-key", "template-revision-hash", "subgroup-index", "subgroup-key")
_LWS = "leaderworkerset.sigs.k8s.io/"


@dataclass(frozen=True)
class Generated:
    """A label value a controller builds from a name and a random suffix: only values starting with ``prefix`` may be
    it."""

    prefix: str

    def __str__(self) -> str:
        return f"{self.prefix}<random>"


@dataclass(frozen=True)
class PodGroup:
    """The pods one template of an object makes, with their labels (values may be ANY or Generated)."""

    owner: Any  # the Resource that makes them
    role: str  # "" for a workload's only template; "head", "worker group NAME", "leader", "worker", "predictor"
    labels: Mapping[str, Any]
    closed: bool = True  # no key outside ``labels`` is on the pods (bar an admission webhook's)
    domain: tuple[str, ...] = field(default=())  # key prefixes only the controller writes

    @property
    def shown(self) -> str:
        """How messages name these pods: Kind/name and the role."""
        kind, name = get(self.owner.props, "kind"), get(self.owner.props, "metadata", "name")
        return f"{kind}/{name}" + (f" ({self.role})" if self.role else "")


def may_carry(group: PodGroup, key: str, value: Any) -> bool:
    """Whether the group's pods may carry ``key=value``."""
    if key in group.labels:
        have = group.labels[key]
        if have is ANY:
            return True
        if isinstance(have, Generated):
            return str(value).startswith(have.prefix)
        return str(have) == str(value)
    if key.startswith(group.domain):
        return False
    return not group.closed or key.startswith(_WEBHOOK_PREFIXES)


def may_have(group: PodGroup, key: str) -> bool:
    """Whether the group's pods may carry ``key`` at all."""
    return key in group.labels or not (key.startswith(group.domain) or (group.closed and not key.startswith(_WEBHOOK_PREFIXES)))


def may_select(selector: Any, group: PodGroup, *, plain: bool = False) -> bool:
    """Whether a selector may select the group's pods: False only when the files prove it does not. ``plain`` is a
    Service's bare map; otherwise a LabelSelector (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist)."""
    if not isinstance(selector, Mapping):
        return True
    pairs = selector if plain else as_dict(selector.get("matchLabels"))
    if any(not may_carry(group, str(k), v) for k, v in pairs.items()):
        return False
    for expr in [] if plain else as_list(selector.get("matchExpressions")):
        key, op = as_dict(expr).get("key"), as_dict(expr).get("operator")
        values = [str(v) for v in as_list(as_dict(expr).get("values"))]
        if not isinstance(key, str):
            continue
        if op == "In" and not any(may_carry(group, key, v) for v in values):
            return False
        if op == "Exists" and not may_have(group, key):
            return False
        have = group.labels.get(key)
        if op == "NotIn" and isinstance(have, (str, int)) and str(have) in values:
            return False
        if op == "DoesNotExist" and key in group.labels:
            return False
    return True


def pod_groups(resource: Any) -> list[PodGroup]:
    """The pod groups an object makes (module docstring); none for an object that makes no pods or whose pods' labels
    this reading does not know (callers treat such objects as hiding pods)."""
    return list(memoized(resource, "controller_pod_groups", _pod_groups))


def makes_known_pods(resource: Any) -> bool:
    """True for a kind whose pods' labels pod_groups reads (a workload, KubeRay, LeaderWorkerSet, InferenceService)."""
    group, kind = split_type(getattr(resource, "type", ""))
    return (
        is_operator_pod_owner(resource)
        or kind in ("LeaderWorkerSet", "InferenceService")
        or any(True for _ in pod_label_sets(resource))
    )


def _pod_groups(resource: Any) -> list[PodGroup]:
    if not isinstance(getattr(resource, "props", None), dict):
        return []
    group, kind = split_type(resource.type)
    name = get(resource.props, "metadata", "name")
    if is_operator_pod_owner(resource):
        if kind == "RayJob" and get(resource.props, "spec", "clusterSelector"):
            return []  # it submits to a RayCluster that exists already
        out = []
        for ray, labels in zip(ray_groups(resource), operator_pod_labels(resource)):
            labels = dict(labels)
            own = as_dict(get(ray.spec, "template", "metadata", "labels"))
            if kind != "RayCluster" and isinstance(name, str) and "ray.io/cluster" not in own:
                labels["ray.io/cluster"] = Generated(f"{name}-")
            role = "head" if ray.is_head else f"worker group {ray.name}"
            out.append(PodGroup(resource, role, labels, True, ("ray.io/",)))
        return out
    if kind == "LeaderWorkerSet" and group == "leaderworkerset.x-k8s.io":
        sets = pod_labels(resource)
        return [
            PodGroup(
                resource,
                "leader" if labels.get(_LWS + "worker-index") == "0" else "worker",
                {**{k: ANY for k in CONTROLLER_KEYS}, **labels, **{_LWS + k: ANY for k in _LWS_ANY}},
                True,
                (_LWS,),
            )
            for labels in sets
        ]
    if kind == "InferenceService" and group == "serving.kserve.io":
        # Any label but the two the controller writes last may be overridden by the runtime's or the component's.
        own = {str(k): ANY for k in as_dict(get(resource.props, "metadata", "labels"))}
        return [
            PodGroup(resource, part, {**own, "serving.kserve.io/inferenceservice": name, "component": part}, False)
            for part in ("predictor", "transformer", "explainer")
            if part == "predictor" or get(resource.props, "spec", part) is not None
        ]
    return [
        PodGroup(resource, "", {**{k: ANY for k in CONTROLLER_KEYS}, **labels}, True, ()) for labels in pod_label_sets(resource)
    ]


__all__ = ["CONTROLLER_KEYS", "Generated", "PodGroup", "makes_known_pods", "may_carry", "may_have", "may_select", "pod_groups"]
