"""G43: a model server with more than one replica does not roll out by Recreate.

``strategy: Recreate`` deletes every pod of the old ReplicaSet before it creates any new one ("All existing Pods are
killed before new ones are created", https://kubernetes.io/docs/concepts/workloads/controllers/deployment/
#recreate-deployment). With one replica that is often the
deliberate choice (one GPU, a ReadWriteOnce cache: single-attach-volume-rolls recommends it), but a model server that
runs several replicas, or that an autoscaler of the same files scales above one, stops serving at every rollout for a
whole image pull and model load. ``RollingUpdate`` with ``maxSurge: 0`` and ``maxUnavailable: 1`` replaces one pod at a
time with no spare GPU.

Spent set 13 (SecureCloudOps/llm-queue-meltdown k8s/vllm-deployment.yaml, Recreate, with k8s/keda-scaledobject.yaml
scaling it to 3) labelled it G43 advisory. Advice: how long an outage the service tolerates is not in the files.
"""

from __future__ import annotations

from policies.autoscaling.scalers import max_replicas, scale_target, scalers, workloads
from policies.framework import Policy, Resource
from policies.kube import as_int, get, metadata_name, split_type
from policies.reading.serving import model_servers


def _ceilings(resources: list[Resource]) -> dict[int, tuple[str, int]]:
    """id(workload resource) -> (how the highest autoscaler ceiling targeting it is named, that ceiling)."""
    found: dict[int, tuple[str, int]] = {}
    candidates = workloads(resources)
    for scaler in scalers(resources):
        target = scale_target(scaler, candidates)
        field, ceiling = max_replicas(scaler)
        if target is None or ceiling is None:
            continue
        kind = split_type(scaler.type)[1]
        shown = f"{kind} {metadata_name(scaler.props) or scaler.name} ({field} {ceiling})"
        if ceiling > found.get(id(target.resource), ("", 0))[1]:
            found[id(target.resource)] = (shown, ceiling)
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    ceilings: dict[int, tuple[str, int]] | None = None
    for r in resources:
        if split_type(r.type) != ("apps", "Deployment") or get(r.props, "spec", "strategy", "type") != "Recreate":
            continue
        if not model_servers(r):
            continue
        if ceilings is None:
            ceilings = _ceilings(resources)
        replicas = as_int(get(r.props, "spec", "replicas"))
        replicas = 1 if replicas is None else replicas
        scaler, ceiling = ceilings.get(id(r), ("", 0))
        if max(replicas, ceiling) <= 1:
            continue
        why = f"{scaler} scales it up to {ceiling} replicas" if ceiling > replicas else f"it runs {replicas} replicas"
        findings.append(
            (
                r.name,
                f"spec.strategy.type: Recreate, and {why}: every rollout deletes all of them before any new pod "
                f"exists, so the model is unserved for a whole image pull and model load; use RollingUpdate with "
                f"maxSurge 0 and maxUnavailable 1 (one pod at a time, no spare GPU needed)",
            )
        )
    return findings


POLICY = Policy(
    name="serving-rollout-not-recreate",
    description="Advice where a model-server Deployment that runs, or is autoscaled to, more than one replica rolls "
    "out by Recreate (every replica down at once).",
    catalog="G43",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Use strategy RollingUpdate with maxSurge: 0 and maxUnavailable: 1: one replica is replaced at "
    "a time and no spare GPU is needed; keep Recreate for a single replica that must release its volume or GPU first.",
    check_stack=_check,
    rationale=(
        "Recreate kills all existing pods before new ones are created "
        "(https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#recreate-deployment), so a model server "
        "with several replicas stops serving for a cold start at every rollout. Catalogue row 43 (rolling update "
        "strategy), adapted: maxSurge 0 with maxUnavailable 1 avoids both the outage and the spare GPU a surge needs."
    ),
)
