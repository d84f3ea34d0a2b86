"""S34: a Deployment's progress deadline covers its pods' way from creation to Ready.

A rolling Deployment that records no progress for ``progressDeadlineSeconds`` (default 600) is marked
``Progressing=False, reason ProgressDeadlineExceeded``. The last progress it records before a new pod becomes
ready is the pod's creation, so the deadline must cover everything after it: on a new node, the node's launch,
the image pull, a node cache's fill the pod waits for, and the model's startup (the derived Deployment's
``coldReady`` summary, capacity/cold_start.py). It applies to a rollout (a changed pod template) and to the first
create, not to an HPA scale-out: once a rollout has completed (reason NewReplicaSetAvailable) and every pod
belongs to the newest ReplicaSet, the deployment controller does not estimate progress at all (kubernetes/kubernetes
pkg/controller/deployment/progress.go:44-51, syncRolloutStatus ``isCompleteDeployment``, read at commit 008b3652).

KServe v0.20.0 sets 600 s on every predictor Deployment and nothing changes it (deployment_reconciler.go:355-358;
derive/kserve.py ``PROGRESS_DEADLINE_SECONDS`` says what was checked), and turns the exceeded deadline into a
not-Ready predictor (pkg/apis/serving/v1beta1/inference_service_status.go:389-399) even while the old pods keep
the Deployment Available; it is Ready again once the new pod is (the deployment completes: progress.go ``
DeploymentComplete``). Advisory: the model serves throughout; what must tolerate it is said in the message and in
docs/controllers.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.probes import startup_budget
from policies.derived.common import rule_of, subject
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    ISVC_TYPE,
    KNATIVE_MODES,
    KSERVE_DEFAULT_DEPLOYMENT_MODE,
    annotations_of,
    as_dict,
    containers,
    get,
    kserve_deployment_mode,
)
from policies.reading.kserve_runtime import predictor_runtime, runtime_container
from policies.reading.route_path import duration_seconds

DEFAULT_DEADLINE = 600  # apps/v1 DeploymentSpec.progressDeadlineSeconds default
# kube-prometheus-stack's default rules (defaultRules.rules.kubernetesApps, on by default) carry kubernetes-mixin's
# KubeDeploymentRolloutStuck: kube_deployment_status_condition{condition="Progressing", status="false"} != 0 for 15m.
ROLLOUT_STUCK_FOR_SECONDS = 900


def _cold_ready(resource: Resource) -> Mapping[str, Any] | None:
    """The derived object's cold path (derive/kserve.py summary ``coldReady``), None when the deriver gave none."""
    origin: Any = resource.origin
    summary = getattr(origin, "summary", None)
    cold = summary.get("coldReady") if isinstance(summary, Mapping) else None
    return cold if isinstance(cold, Mapping) and isinstance(cold.get("seconds"), int) else None


def _parts(cold: Mapping[str, Any]) -> str:
    names = (
        ("nodeLaunchSeconds", "node launch"),
        ("imagePullSeconds", "image pull"),
        ("cacheFillSeconds", "node cache fill"),
        ("startupBudgetSeconds", "startup budget"),
    )
    return " + ".join(f"{label} {cold[key]} s" for key, label in names if cold.get(key))


# Knative's revision progress deadline: 600 s unless the revision's serving.knative.dev/progress-deadline annotation
# (or the cluster's config-deployment progress-deadline) moves it (knative/serving pkg/deployment/config.go
# ProgressDeadlineDefault; dev set 25's labeller read it at v0.50.0 :48). A revision that is not Ready within it is
# failed (ProgressDeadlineExceeded) and its pods scaled away.
KNATIVE_PROGRESS_DEADLINE = "serving.knative.dev/progress-deadline"


def _knative_revision(resource: Resource) -> list[str]:
    """Advice on a Serverless InferenceService whose predictor's startup budget alone (its own startupProbe, else the
    ServingRuntime's it merges) fills Knative's progress deadline: the storage initializer's download, the image pull
    and a node launch come on top, so a cold revision can be failed while it is still loading."""
    mode, _ = kserve_deployment_mode(resource.props, KSERVE_DEFAULT_DEPLOYMENT_MODE)
    model = get(resource.props, "spec", "predictor", "model")
    if mode not in KNATIVE_MODES or not isinstance(model, dict):
        return []
    runtime = predictor_runtime(resource)
    probe_of = model if isinstance(model.get("startupProbe"), dict) else runtime_container(runtime) if runtime else {}
    budget = startup_budget(probe_of)
    annotations = {**annotations_of(resource.props), **as_dict(get(resource.props, "spec", "predictor", "annotations"))}
    raw = annotations.get(KNATIVE_PROGRESS_DEADLINE)
    deadline = duration_seconds(raw) if isinstance(raw, str) else None if raw is not None else 600.0
    if budget is None or deadline is None or budget < deadline:
        return []
    where = "spec.predictor.model" if probe_of is model else f"{runtime.label if runtime else 'the runtime'}'s container"
    set_to = f"{KNATIVE_PROGRESS_DEADLINE} {raw}" if raw is not None else "Knative's default progress deadline 600 s"
    return [
        unproven(
            f"spec.predictor: {where} startupProbe allows {budget} s, which alone fills {set_to}; the storage "
            f"initializer's download, the image pull and a node launch come first, so a cold revision can be marked "
            f"failed (ProgressDeadlineExceeded) while the model is still loading; set the "
            f"{KNATIVE_PROGRESS_DEADLINE} annotation above the whole cold start"
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.type == ISVC_TYPE:
        return _knative_revision(resource)
    if resource.origin is None:
        # A Deployment someone writes can set the field; one a controller writes cannot (KServe v0.20.0), which
        # is the case this policy exists for. Third-party manifests keep the corpus's reviewed findings.
        return []
    podspec = get(resource.props, "spec", "template", "spec")
    if not isinstance(podspec, dict):
        return []
    raw = get(resource.props, "spec", "progressDeadlineSeconds")
    deadline = DEFAULT_DEADLINE if raw is None else raw
    if not isinstance(deadline, (int, float)):
        return []
    budgets = [(c.get("name"), b) for c in containers(podspec) if (b := startup_budget(c)) is not None]
    if not budgets:
        return []
    name, budget = max(budgets, key=lambda x: x[1])
    cold = _cold_ready(resource)
    window = int(cold["seconds"]) if cold is not None else budget
    if deadline >= window:
        return []
    if cold is None:
        message = (
            f"{subject(resource)}: spec.progressDeadlineSeconds {int(deadline)} is shorter than container {name}'s "
            f"startup budget {budget} s (startupProbe): a rollout is reported ProgressDeadlineExceeded before the "
            "model has loaded"
        )
    else:
        warm = "within" if budget <= deadline else "also beyond"
        alert = (
            "stays quiet"
            if window <= deadline + ROLLOUT_STUCK_FOR_SECONDS
            else f"fires ({window} s > {int(deadline)} + {ROLLOUT_STUCK_FOR_SECONDS} s)"
        )
        message = (
            f"{subject(resource)}: spec.progressDeadlineSeconds {int(deadline)} is shorter than a new pod's cold path "
            f"{window} s ({_parts(cold)}). A rollout (a changed pod template, and the first create) whose new pod "
            f"needs a new node passes the deadline before the pod is ready: Progressing=False "
            f"(ProgressDeadlineExceeded), and KServe reports the predictor and the InferenceService not Ready until the pod "
            f"is, while any old pods keep serving (HPA scale-outs are not affected). On a running node with the image and cache the pod needs "
            f"its startup budget {budget} s, {warm} the deadline. KubeDeploymentRolloutStuck (Progressing=false for "
            f"15 min) {alert}"
        )
    rule = rule_of(resource, "spec.progressDeadlineSeconds")
    if rule:
        message += f". {rule}"
    return [message]


POLICY = Policy(
    name="progress-deadline-covers-startup",
    description="A Deployment a controller creates from ours (KServe's predictor) has a progressDeadlineSeconds that covers a new pod's way to Ready: node launch, image pull, cache fill and the startup-probe budget; a Serverless InferenceService's startup budget does not alone fill Knative's progress deadline.",
    catalog="S34",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set spec.progressDeadlineSeconds to at least the pod's cold path. For KServe's predictor Deployment "
        "v0.20.0 offers no field and reverts a value set on the Deployment: shorten the startup (an S3 mirror or a "
        "warmed node cache), keep a warm node in the pool (gpuPools[].buffer), and let the alerts on the predictor's "
        "readiness tolerate a rollout's ProgressDeadlineExceeded (docs/controllers.md)."
    ),
    resource_types=("kubernetes:apps/v1:Deployment", ISVC_TYPE),
    check_resource=_check,
    rationale=(
        "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#progress-deadline-seconds; "
        "kubernetes/kubernetes pkg/controller/deployment/progress.go:44-51 (no deadline on a completed rollout's "
        "scale-out); KServe v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/deployment/"
        "deployment_reconciler.go:355-358 sets 600, 261-272 and 471-499 revert another value, and "
        "inference_service_status.go:389-399 reports the exceeded deadline as the predictor's Ready=False. "
        "Advisory: the pod keeps starting and the model serves once it is ready. Issue 30."
    ),
)
