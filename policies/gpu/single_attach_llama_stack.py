"""S30 on a LlamaStackDistribution: the one ReadWriteOnce claim its operator mounts in every replica
(``single-attach-volume-rolls``, policies/gpu/single_attach_rollout.py, calls ``check_llama_stack``)."""

from __future__ import annotations

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_int, get

LLAMA_STACK_TYPE = "kubernetes:llamastack.io/v1alpha1:LlamaStackDistribution"


def check_llama_stack(resource: Resource) -> list[str]:
    """A LlamaStackDistribution with ``spec.server.storage``: its operator creates one ReadWriteOnce claim
    (llamastack/llama-stack-k8s-operator 7735e43c2028bce93afb3a545b41a4c94590bb6b controllers/manifests/base/pvc.yaml:6-7)
    mounted by the one Deployment it renders, with ``spec.replicas`` pods, Recreate since that commit
    (pkg/deploy/kustomizer.go:320-329; RollingUpdate before, aacc292) and an HPA up to
    ``spec.server.autoscaling.maxReplicas``. Several replicas are advice (ReadWriteOnce is per node; review 43 #7), and so are replicas the HPA adds
    (spent set 31 opendatahub-io/llama-stack-k8s-operator config/samples/_v1alpha1_llamastackdistribution.yaml)."""
    spec = as_dict(get(resource.props, "spec"))
    if get(spec, "server", "storage") is None:
        return []
    replicas = spec.get("replicas", 1)
    ceiling = as_int(get(spec, "server", "autoscaling", "maxReplicas"))
    where = "spec.server.storage: the operator's one ReadWriteOnce claim (its pvc.yaml)"
    fix = "keep one replica and no autoscaling, or serve the state from a ReadWriteMany volume or a database"
    if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas > 1:
        return [
            unproven(
                f"{where} is mounted by {replicas} replicas: a replica on another node cannot attach it (Multi-Attach "
                f"error; on one node ReadWriteOnce admits them all); {fix}"
            )
        ]
    if ceiling is not None and ceiling > 1:
        return [
            unproven(
                f"{where} is mounted by every pod, and spec.server.autoscaling adds replicas up to {ceiling}: a replica "
                f"placed on another node waits in ContainerCreating on a Multi-Attach error, so scale-out adds no "
                f"capacity; {fix}"
            )
        ]
    return []
