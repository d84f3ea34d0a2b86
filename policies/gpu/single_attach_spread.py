"""S30 on pods that run on several nodes by design over one single-attach claim (``single-attach-volume-spread``).

A ReadWriteOnce volume attaches to one node: the attach/detach controller attaches it to a second node only when its
PersistentVolume's access modes hold ReadWriteMany or ReadOnlyMany (kubernetes pkg/volume/util/util.go
IsMultiAttachAllowed), whatever the pod's mount says. Two forms put pods on several nodes with no rollout or second
workload involved, and the pods past the first node wait in ContainerCreating on a Multi-Attach error:

- a KServe InferenceService whose predictor may run more than one pod (``_isvc_scaled``);
- a DaemonSet, one pod on every node it selects (``_check_daemonset``);
- a StatefulSet, LeaderWorkerSet or KubeRay cluster whose pod volumes (not claim templates) put one claim in two or
  more pods (``_group_spread``): a multi-node group is on several nodes by design, replicas wherever GPUs are free.

Both are advice: the cluster may have one node (or one node of the selected class), which the files do not say. The
claim's modes and node-locality are read as ``single-attach-volume-rolls`` reads them (policies.gpu.single_attach_rollout).
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.gpu.single_attach_rollout import (
    _SHARED_NAME,
    SINGLE_ATTACH,
    _claims,
    _node_local,
    _one_node,
    _single_attach_claims,
)
from policies.kube import ISVC_TYPE, WorkloadTypes, as_dict, as_int, as_list, get, known_pod_specs

DAEMONSET_TYPE = "kubernetes:apps/v1:DaemonSet"
GROUP_TYPES = (
    "kubernetes:apps/v1:StatefulSet",
    "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
    "kubernetes:ray.io/v1:RayCluster",
    "kubernetes:ray.io/v1:RayService",
    "kubernetes:ray.io/v1:RayJob",
)


def _isvc_scaled(resource: Resource) -> list[str]:
    """Advice on an InferenceService whose predictor may run several pods (``minReplicas``/``maxReplicas`` above one:
    kserve v0.20.0 pkg/apis/serving/v1beta1/component.go:83-88, the ceiling of the HPA in RawDeployment mode,
    reconcilers/hpa/hpa_reconciler.go:162,177, and of Knative's autoscaler in Serverless mode, reconcilers/knative/
    ksvc_reconciler.go:109) while every pod mounts one single-attach claim of the run, listed in the predictor's own
    volumes (its inline PodSpec, predictor.go:84) or named by a pvc:// storageUri. The replicas the autoscaler adds on
    another node wait on a Multi-Attach error whatever the mount says (IsMultiAttachAllowed reads the volume's modes):
    spent set 88 JakeBx/hardened-llm-deployment deployments/manifests/models/smollm-360m/inference-service.yaml
    (maxReplicas 5 over claim smollm-360m-model-storage, whose pvc.yaml the set left out, labelled S30; kimi-k2.5's
    beside it, maxReplicas 3 over the ReadWriteOnce claim of its pvc.yaml). A claim the files do not hold is advised
    as an unseen claim of a Deployment is (``_unseen_claim``), unless it is named for a shared file system."""
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    ceiling = max(as_int(predictor.get("minReplicas")) or 0, as_int(predictor.get("maxReplicas")) or 0)
    if ceiling <= 1 or _one_node(predictor):
        return []
    claims = _claims(resource)
    mounted = [
        (f"spec.predictor.volumes {as_dict(v).get('name')}", get(v, "persistentVolumeClaim", "claimName"))
        for v in as_list(predictor.get("volumes"))
    ]
    uri = get(predictor, "model", "storageUri")
    if isinstance(uri, str) and uri.startswith("pvc://"):
        mounted.append((f"spec.predictor.model.storageUri {uri}", uri[len("pvc://") :].split("/", 1)[0]))
    for where, name in mounted:
        if not isinstance(name, str) or (name not in claims and _SHARED_NAME.search(name)):
            continue
        if name not in claims:
            return [
                unproven(
                    f"{where}: PersistentVolumeClaim {name} is not in the files read and the predictor may run up to "
                    f"{ceiling} replicas (minReplicas/maxReplicas), each mounting it; if it is ReadWriteOnce (block "
                    f"volumes such as EBS, GCE PD or Azure Disk support no other mode), a replica placed on another "
                    f"node waits in ContainerCreating on a Multi-Attach error; use a ReadWriteMany volume, a model "
                    f"source each pod fetches itself, or keep maxReplicas at 1"
                )
            ]
        modes = [m for m in as_list(get(claims[name], "spec", "accessModes")) if isinstance(m, str)]
        if not modes or any(m not in SINGLE_ATTACH for m in modes) or _node_local(claims[name]):
            continue
        return [
            unproven(
                f"{where}: PersistentVolumeClaim {name} is {'/'.join(modes)} (single-attach) and the predictor may run "
                f"up to {ceiling} replicas (minReplicas/maxReplicas), each mounting it: a replica placed on another node "
                f"waits in ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a ReadWriteMany "
                f"volume, a model source each pod fetches itself, or keep maxReplicas at 1"
            )
        ]
    return []


def _check_daemonset(resource: Resource) -> list[str]:
    """Advice on a DaemonSet whose pods, one per node it selects, mount one writable single-attach claim of the run:
    a ReadWriteOnce volume attaches to one node (IsMultiAttachAllowed, kubernetes pkg/volume/util/util.go), so the pods
    on every other node wait in ContainerCreating on a Multi-Attach error. Silent for a DaemonSet pinned to one node,
    a claim bound to a hostPath or local volume (nothing to attach: G31), and a read-only mount of ReadWriteOnce.
    Spent set 86 cuongtop4598/chatbot-ui k8s/ollama-deployment.yaml (DaemonSet ollama-gpu on ReadWriteOnce claim
    ollama-models-pvc, labelled none)."""
    podspec = as_dict(get(resource.props, "spec", "template", "spec"))
    if _one_node(podspec):
        return []
    messages: list[str] = []
    for name, modes in _single_attach_claims(resource):
        messages.append(
            unproven(
                f"spec.template.spec.volumes: PersistentVolumeClaim {name} is {'/'.join(modes)} (single-attach) and "
                f"this DaemonSet runs one pod on every node it selects, each mounting it: only the pods of one node "
                f"can attach it, the others wait in ContainerCreating on a Multi-Attach error; give each node its own "
                f"volume (a hostPath or local volume), use a ReadWriteMany volume, or run a Deployment"
            )
        )
    return messages


def _pods_at(resource: Resource, path: str) -> int:
    """How many pods a workload runs from the pod spec at ``path`` as the files state it: a StatefulSet's spec.replicas
    (default 1); a LeaderWorkerSet group's leaderWorkerTemplate.size (default 1) less its leader for the worker
    template when a leaderTemplate is given (kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go:
    152-153 leaderTemplate, :158-165 size, "the total number of pods in each group"); a KubeRay worker group's largest
    of replicas, minReplicas and maxReplicas (ray-project/kuberay v1.7.0 ray-operator/apis/ray/v1/raycluster_types.go:
    447-453), and one head."""
    spec = as_dict(get(resource.props, "spec"))
    kind = resource.type.rsplit(":", 1)[-1]
    if kind == "StatefulSet":
        replicas = as_int(spec.get("replicas"))
        return 1 if spec.get("replicas") is None else replicas or 0
    if kind == "LeaderWorkerSet":
        template = as_dict(spec.get("leaderWorkerTemplate"))
        size = as_int(template.get("size")) or 1
        if path.endswith("leaderTemplate.spec"):
            return 1
        return size - 1 if "leaderTemplate" in template else size
    match = _WORKER_GROUP.search(path)
    if match is not None:
        groups = as_list(get(spec, *path[: match.start()].split(".")[1:], "workerGroupSpecs"))
        index = int(match.group(1))
        group = as_dict(groups[index]) if index < len(groups) else {}
        return max(as_int(group.get(k)) or 0 for k in ("replicas", "minReplicas", "maxReplicas"))
    return 1


_WORKER_GROUP = re.compile(r"\.workerGroupSpecs\[(\d+)\]")


def _group_spread(resource: Resource) -> list[str]:
    """Advice on a StatefulSet, LeaderWorkerSet or KubeRay cluster whose pods (two or more, as the files state them)
    mount one single-attach claim of the run through their pod volumes (not a claim template: one per pod): a
    multi-node group or replicas on several nodes, the pods past the first node wait on a Multi-Attach error."""
    claims = _claims(resource)
    users: dict[str, list[tuple[str, int]]] = {}
    for path, podspec in known_pod_specs(resource):
        if _one_node(podspec):
            continue
        count = _pods_at(resource, path)
        for volume in as_list(podspec.get("volumes")):
            name = get(volume, "persistentVolumeClaim", "claimName")
            if isinstance(name, str) and name in claims and count > 0:
                users.setdefault(name, []).append((path, count))
    messages: list[str] = []
    for name, where in users.items():
        total = sum(count for _, count in where)
        modes = [m for m in as_list(get(claims[name], "spec", "accessModes")) if isinstance(m, str)]
        if total < 2 or not modes or any(m not in SINGLE_ATTACH for m in modes) or _node_local(claims[name]):
            continue
        shown = ", ".join(f"{path} ({count} pod{'s' if count > 1 else ''})" for path, count in where)
        messages.append(
            unproven(
                f"{shown}: PersistentVolumeClaim {name} is {'/'.join(modes)} (single-attach) and {total} pods mount it: "
                f"the pods the scheduler places on another node (a multi-node group, replicas spread for GPUs) wait "
                f"in ContainerCreating on a Multi-Attach error; use a ReadWriteMany volume, a claim per pod "
                f"(volumeClaimTemplates), or a model source each pod fetches itself"
            )
        )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.type == DAEMONSET_TYPE:
        return _check_daemonset(resource)
    if resource.type == ISVC_TYPE:
        return _isvc_scaled(resource)
    return _group_spread(resource)


POLICY = Policy(
    name="single-attach-volume-spread",
    description=(
        "Pods that run on several nodes by design do not mount one ReadWriteOnce(Pod) claim: an InferenceService "
        "predictor allowed above one replica (minReplicas/maxReplicas), a DaemonSet (one pod per node), two or more "
        "pods of a StatefulSet, LeaderWorkerSet group or KubeRay cluster; advice."
    ),
    catalog="S30",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Keep the predictor at one replica, or serve the model from a ReadWriteMany volume or a source each pod fetches "
        "itself; give each DaemonSet pod its node's own volume (hostPath or local), or run the server as a Deployment."
    ),
    resource_types=WorkloadTypes((DAEMONSET_TYPE, ISVC_TYPE, *GROUP_TYPES)),
    config_schema={},
    check_resource=_check,
    rationale=(
        "ReadWriteOnce mounts a volume on one node (https://kubernetes.io/docs/concepts/storage/persistent-volumes/"
        "#access-modes); the attach/detach controller attaches a volume to a second node only for ReadWriteMany or "
        "ReadOnlyMany (kubernetes pkg/volume/util/util.go IsMultiAttachAllowed), so pods on other nodes wait on the attach."
    ),
)
