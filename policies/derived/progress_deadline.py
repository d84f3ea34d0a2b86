"""S34: a Deployment's progress deadline covers its pods' startup budget.

A Deployment that makes no progress for ``progressDeadlineSeconds`` (default 600) is marked
``Progressing=False, reason ProgressDeadlineExceeded``; a model that takes longer than that to load
trips it on every rollout and scale-out. KServe v0.20.0 sets 600 s on every predictor Deployment
(deployment_reconciler.go:341-359, no field or annotation changes it) and turns that condition into a
not-Ready predictor (pkg/apis/serving/v1beta1/inference_service_status.go:389-400) until the pod is ready.
"""

from __future__ import annotations

from policies.derived.common import rule_of, subject
from policies.framework import Policy, Resource
from policies.kube import as_dict, containers, get

DEFAULT_DEADLINE = 600  # apps/v1 DeploymentSpec.progressDeadlineSeconds default


def startup_budget(container: dict) -> int | None:
    """The startup probe's initialDelaySeconds + periodSeconds x failureThreshold (None without one)."""
    probe = as_dict(container.get("startupProbe"))
    if not probe:
        return None
    try:
        return int(probe.get("initialDelaySeconds", 0)) + int(probe.get("periodSeconds", 10)) * int(
            probe.get("failureThreshold", 3)
        )
    except (TypeError, ValueError):
        return None


def _check(resource: Resource, config: dict) -> list[str]:
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
    if deadline >= budget:
        return []
    message = (
        f"{subject(resource)}: spec.progressDeadlineSeconds {int(deadline)} is shorter than container {name}'s startup "
        f"budget {budget} s (startupProbe); every rollout and scale-out is reported ProgressDeadlineExceeded before the "
        f"model has loaded"
    )
    rule = rule_of(resource, "spec.progressDeadlineSeconds")
    if rule:
        message += f", and the InferenceService shows not Ready with that reason until the pod is ready. {rule}"
    return [message]


POLICY = Policy(
    name="progress-deadline-covers-startup",
    description="A Deployment a controller creates from ours (KServe's predictor) has a progressDeadlineSeconds at least its containers' startup-probe budget.",
    catalog="S34",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set spec.progressDeadlineSeconds to at least the startup probe's budget. For KServe's predictor Deployment "
        "v0.20.0 offers no field: shorten the startup (a warmed node cache, a faster source) or treat "
        "ProgressDeadlineExceeded as expected during the model's load (docs/controllers.md)."
    ),
    resource_types=("kubernetes:apps/v1:Deployment",),
    check_resource=_check,
    rationale=(
        "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#progress-deadline-seconds; KServe "
        "v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/deployment/deployment_reconciler.go:355-358 sets "
        "600 and inference_service_status.go:389-400 reports the exceeded deadline as the predictor's Ready=False. "
        "Advisory: the pod keeps starting and the model serves once it is ready. Issue 30."
    ),
)
