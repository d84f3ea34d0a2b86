"""The labels an operator puts on the pods it creates from a custom resource, as data: for a Service's selector read
against them (G56).

KubeRay (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go:1167-1191 labelPod; the same at
v1.4.0 :602-626): every head and worker pod of a RayCluster, and of the RayCluster a RayService or RayJob creates,
carries ``ray.io/is-ray-node: yes``, ``ray.io/cluster`` (the cluster's name: the RayCluster's own, or one the
RayService/RayJob controller generates), ``ray.io/node-type`` (head or worker), ``ray.io/group`` (headgroup or the
worker group's name), ``ray.io/identifier``, ``app.kubernetes.io/name: kuberay`` and ``app.kubernetes.io/created-by:
kuberay-operator``, plus the group template's own ``metadata.labels`` and, from v1.5.0, the group's ``labels`` (which win, except for ray.io/cluster,
ray.io/node-type and ray.io/group from v1.3.0 on; before it they win there too, so a template value of those three
that differs is ANY: review 45 #11); a RayService's pods also get ``ray.io/serve`` (pod.go:840-842), multi-host workers
their replica keys (:676-680). A value the files cannot know is ANY.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from policies.kube import as_dict, get, split_type
from policies.reading.ray_cluster import groups

ANY = object()  # a label the operator sets to a value the files do not show
_KUBERAY_KINDS = frozenset({"RayCluster", "RayService", "RayJob"})
_KUBERAY_ANY = (
    "ray.io/identifier",
    "ray.io/serve",
    "ray.io/worker-group-replica-index",
    "ray.io/worker-group-replica-name",
    "ray.io/replica-host-index",
)
_FIXED = ("ray.io/cluster", "ray.io/node-type", "ray.io/group")


def is_operator_pod_owner(resource: Any) -> bool:
    """True for a custom resource whose pods' labels operator_pod_labels knows (KubeRay's kinds)."""
    group, kind = split_type(resource.type)
    return group == "ray.io" and kind in _KUBERAY_KINDS


def operator_pod_labels(resource: Any) -> Iterator[Mapping[str, Any]]:
    """The label set of each pod group the operator creates from ``resource`` (nothing for other kinds)."""
    if not is_operator_pod_owner(resource):
        return
    kind = split_type(resource.type)[1]
    name = get(resource.props, "metadata", "name")
    cluster = name if kind == "RayCluster" and isinstance(name, str) else ANY
    for group in groups(resource):
        own = {str(k): v for k, v in as_dict(get(group.spec, "template", "metadata", "labels")).items()}
        # From kuberay v1.5.0 the group's own ``labels`` (Ray node labels) are put on its pods too, over the template's
        # (v1.5.0 and v1.7.0 common/pod.go mergeLabels(template labels, group labels) before labelPod; v1.4.0 reads the
        # template's only): with no release named, a key both set differently may carry either value.
        for key, value in as_dict(get(group.spec, "labels")).items():
            key = str(key)
            own[key] = value if key not in own or str(own[key]) == str(value) else ANY
        labels: dict[str, Any] = {
            "ray.io/is-ray-node": "yes",
            "app.kubernetes.io/name": "kuberay",
            "app.kubernetes.io/created-by": "kuberay-operator",
            **{k: ANY for k in _KUBERAY_ANY},
            **{k: v for k, v in own.items() if k not in _FIXED},
        }
        labels["ray.io/cluster"] = cluster
        labels["ray.io/node-type"] = "head" if group.is_head else "worker"
        labels["ray.io/group"] = "headgroup" if group.is_head else group.name
        for key in _FIXED:
            if key in own and own[key] != labels[key]:
                # Up to kuberay v1.2.x the template's own value wins for these keys too (common/pod.go labelPod:
                # `if _, ok := labels[k]; !ok`); the files name no operator release, so either may be the pod's.
                labels[key] = ANY
        yield labels


# Label keys an operator puts on the pods it creates and in the spec.selector of the Services it creates, but not on
# those Services' own metadata.labels: a ServiceMonitor selecting Services by such a key matches none of them. KAITO
# (kaito-project/kaito v0.12.0 pkg/workspace/manifests/manifests.go:43-63 GenerateHeadlessServiceManifest and :66-133
# GenerateServiceManifest: ObjectMeta holds name, namespace and owner reference only; kaito.sh/workspace,
# api/v1beta1/labels.go:38, is in Spec.Selector alone; the same at v0.6.0 to v0.8.0).
SELECTOR_ONLY_KEYS: dict[str, str] = {
    "kaito.sh/workspace": "KAITO's Workspace Services (kaito-project/kaito v0.12.0 pkg/workspace/manifests/"
    "manifests.go:43-63, :66-133) carry no labels: kaito.sh/workspace is only in their spec.selector and on the pods",
}
