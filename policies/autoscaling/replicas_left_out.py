"""G90: a workload an autoscaler of the files manages leaves spec.replicas out of its own manifest.

Reported on the autoscaler and on the workload whose spec.replicas is the field to remove.

An HPA (and the HPA KEDA renders for a ScaledObject or an HTTPScaledObject, AIBrix's PodAutoscaler, the HPA a
NIMService's spec.scale renders) writes the target's replica count through its scale subresource; a manifest that
states ``spec.replicas`` writes it back on every apply. Kubernetes documents the consequence: "any time a change to
that object is applied, for example via kubectl apply -f deployment.yaml, this will instruct Kubernetes to scale the
current number of Pods to the value of the spec.replicas key" (https://kubernetes.io/docs/tasks/run-application/
horizontal-pod-autoscale/#migrating-deployments-and-statefulsets-to-horizontal-autoscaling), and Argo CD's best
practices say not to track replicas in Git for a Deployment an HPA manages (argoproj/argo-cd v3.5.1
docs/user-guide/best_practices.md:34-46). For a GPU model server the reset drops replicas the autoscaler added, and
the autoscaler then pays their cold start again. Form: spent set 78 thecoinmaniac/llm-kubernetes-exercise
phase4/hardening.yaml (HPA ml-demo-inference, min 1 max 3) on phase3/inference-stack.yaml's Deployment, which sets
``replicas: 1`` (label filed NONE).

Advice, never blocking: serving goes on at the stated count; the autoscaler restores its own within a sync period.
Silent for a workload with no spec.replicas, replicas 0 (an HPA leaves a zero-replica target alone: kubernetes
pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler, "scaling is disabled since the replica count of the
target is zero"), a templated value, and a target of another namespace or not in the files.
"""

from __future__ import annotations

from typing import Optional

from policies.autoscaling.one_autoscaler import written_claims
from policies.autoscaling.scalers import namespace_of
from policies.framework import Policy, Resource, unproven
from policies.kube import as_int, get, metadata_name, split_type

_WORKLOADS = {
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "ReplicaSet"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
}


def _stated_replicas(r: Resource) -> Optional[int]:
    spec = get(r.props, "spec")
    if not isinstance(spec, dict) or "replicas" not in spec or isinstance(spec["replicas"], bool):
        return None
    count = as_int(spec["replicas"])
    return count if count is not None and count > 0 else None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    workloads: dict[tuple[str, str], list[tuple[Resource, int]]] = {}
    for r in resources:
        group_kind = split_type(r.type)
        if group_kind in _WORKLOADS and (count := _stated_replicas(r)) is not None:
            workloads.setdefault((group_kind[1], metadata_name(r.props) or ""), []).append((r, count))
    if not workloads:
        return []
    findings: list[tuple[str, str]] = []
    for claim in written_claims(resources):
        for workload, count in workloads.get((claim.kind, claim.name), []):
            ns = namespace_of(workload)
            if claim.namespace is not None and ns is not None and claim.namespace != ns:
                continue
            # No file in the message: a Kustomize build puts base and autoscaler in one built file, and the base's
            # finding and the build's must read alike to be reported once, at the base (policies/kustomize_build.py).
            message = unproven(
                f"{claim.how} manages {claim.kind}/{claim.name}, whose manifest states spec.replicas "
                f"{count}: every apply of it (kubectl apply, a GitOps sync) sets the replica count back to "
                f"{count}, undoing what the autoscaler chose (replicas it added are stopped, then started again "
                f"through their cold start); leave spec.replicas out of the {claim.kind} and let the "
                f"autoscaler's minimum set the floor"
            )
            # On both objects: the field to change is the workload's, the autoscaler is what makes it wrong (a
            # reviewer of either file is told; spent set 90 eliferdals/medrag-k8s k8s/rag-api.yaml was labelled on
            # the Deployment, set 78's form on the HPA).
            findings.extend([(claim.resource.name, message), (workload.name, message)])
    return findings


POLICY = Policy(
    name="replicas-left-to-autoscaler",
    description=(
        "A Deployment, StatefulSet, ReplicaSet or LeaderWorkerSet that an HPA, KEDA ScaledObject or HTTPScaledObject, "
        "AIBrix PodAutoscaler or NIMService spec.scale of the files manages states no spec.replicas (each apply "
        "resets the count): advice."
    ),
    catalog="G90",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Remove spec.replicas from the workload's manifest (kubectl apply then leaves the autoscaler's count alone); "
        "the autoscaler's minReplicas / minReplicaCount sets the floor. When migrating a live Deployment, follow "
        "https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#migrating-deployments-and-"
        "statefulsets-to-horizontal-autoscaling."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "Kubernetes scales a workload to the spec.replicas of each applied manifest, overriding the HPA until its next "
        "sync (kubernetes.io HPA docs, migrating Deployments and StatefulSets to horizontal autoscaling); Argo CD's "
        "best practices leave replicas out of Git for HPA-managed Deployments (argo-cd v3.5.1 "
        "docs/user-guide/best_practices.md:34-46)."
    ),
)
