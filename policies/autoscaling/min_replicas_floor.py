"""G15: an autoscaler of a model server keeps a floor of at least two replicas.

An HPA's minReplicas (default 1: "minReplicas is the lower limit for the number of replicas to which the autoscaler can
scale down. It defaults to 1 pod", kubernetes/api autoscaling/v2 types.go HorizontalPodAutoscalerSpec) or a KEDA
ScaledObject's minReplicaCount of 1 lets the autoscaler hold a model server at one pod: when that pod restarts, is
evicted or its node is drained or consolidated (Karpenter), nothing serves until a new pod has pulled its image and
loaded the model, minutes for an LLM. Which model servers: those llm-hpa-behavior (S8) reads as such
(hpa_behavior.serving_scalers: a GPU target of the files, vLLM series in the metrics, a target elsewhere whose names
say so, or a target whose names say so while the readers see no engine in it). Form: spent set 79 yashbhangale/
Karpenter-GPU-Autoscaling@cb9bd7ce eks_manifest/hpa.yaml (minReplicas 1 on Deployment demo-model-a, label G15 missed).

Advice, never blocking: one replica serves; a floor of two costs a second GPU, a choice per environment (the
catalogue's "config per env": setting minReplicasFloor). A floor of 0 is S5's (no-scale-to-zero). Also read: a target
whose pods run an engine the readers know on CPU (llm-hpa-behavior leaves its windows alone, but it still loads a model
before it serves: spent set 114 SecureCloudOps/llm-rag-infra-platform k8s/vllm/hpa.yaml, vllm/vllm-openai on CPU with
minReplicas 1), and the HPA an operator renders from its own block (autoscaling.embedded: NIMService spec.scale.hpa,
a KServe predictor) where that block states the floor (spent set 113 redhat-na-ssa/nvaie-guide, a NIMService with
scale.hpa.minReplicas 1); an operator's unstated default is left alone.
"""

from __future__ import annotations

from policies.autoscaling.hpa_behavior import serving_scalers
from policies.autoscaling.scalers import EmbeddedHPA, Workload, is_hpa, is_scaled_object
from policies.framework import Policy, Resource, unproven
from policies.kube import as_int, get
from policies.reading.serving import model_servers


def _floor(scaler: Resource, target: Workload | None) -> tuple[str, int | None, bool]:
    """(field, value, stated) of the autoscaler's floor: an HPA's minReplicas (default 1), a ScaledObject's
    minReplicaCount (default 0); for an operator's HPA (EmbeddedHPA), the floor its block states (None when unstated:
    an operator's default floor is its own choice, not the files')."""
    if isinstance(scaler, EmbeddedHPA):
        block = scaler.replicas_at or scaler.field
        owner = target.resource.props if target is not None else {}
        value = get(owner, *block.split("."), "minReplicas")
        return f"{block}.minReplicas", None if value is None else as_int(value), value is not None
    field = "spec.minReplicaCount" if is_scaled_object(scaler) else "spec.minReplicas"
    value = get(scaler.props, *field.split("."))
    if value is None:
        return field, 0 if is_scaled_object(scaler) else 1, False
    return field, as_int(value), True


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    floor = int(config["minReplicasFloor"])
    findings: list[tuple[str, str]] = []
    for scaler, target, relevance in serving_scalers(resources):
        if relevance is None and target is not None and model_servers(target.resource):
            relevance = ""  # an engine on CPU (S8 leaves its windows alone) still loads a model for minutes
        if relevance is None or not (is_hpa(scaler) or is_scaled_object(scaler)):
            continue
        field, value, stated = _floor(scaler, target)
        if value is None or value < 1 or value >= floor:
            continue
        shown = f"{field} = {value}" if stated else f"{field} is not set (the HPA's default, 1)"
        message = (
            f"{shown}: the autoscaler may hold this model server at {value} replica(s), so when a pod restarts, is "
            f"evicted or its node is drained or consolidated nothing serves until a new one has loaded the model; "
            f"keep at least {floor} (setting minReplicasFloor)"
        )
        findings.append((scaler.name, unproven(message if relevance == "" else f"{message} ({relevance})")))
    return findings


POLICY = Policy(
    name="hpa-min-replicas-floor",
    description=(
        "An HPA or KEDA ScaledObject of a model server (as llm-hpa-behavior reads it) keeps minReplicas / "
        "minReplicaCount at the floor (default 2), so one restart or drain does not leave nothing serving: advice."
    ),
    catalog="G15",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set the HPA's minReplicas (a ScaledObject's minReplicaCount) to at least the floor, with a PodDisruptionBudget "
        "that keeps one available; where one GPU replica is a deliberate cost choice, set minReplicasFloor to 1."
    ),
    config_schema={
        "minReplicasFloor": {
            "type": "integer",
            "minimum": 1,
            "default": 2,
            "description": "Least minReplicas an autoscaler of a model server may keep (default 2; 1 turns the advice off).",
        },
    },
    check_stack=_check,
    rationale=(
        "With one replica a restart, eviction or node drain stops serving until a new pod loads the model; Polaris "
        "hpaMinAvailability and kube-linter hpa-minimum-three-replicas check the same floor (catalogue G15)."
    ),
)
