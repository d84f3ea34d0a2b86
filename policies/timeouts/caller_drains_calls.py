"""S10 (callers): an app that calls a model and takes requests itself lets its calls in flight finish on rollout.

An agent, a RAG backend or a custom gateway whose environment addresses a model API (policies/reading/model_callers.py:
the URL or host of a model server's Service, a serving-path app's, or another such caller's; chat UIs left out) and
that has a Service of its own answers its callers only when the model is done, so each request it takes lasts as long
as the generation behind it. Kubernetes sends SIGTERM while Services and load balancers still route to the pod (an ALB
with target-type ip keeps sending until the target is deregistered) and kills the pod terminationGracePeriodSeconds
(default 30 s, core/v1 PodSpec) later: without a preStop sleep new calls fail at once, and a grace period shorter than
the preStop sleep plus the longest call cuts the calls in flight. What the app itself does on SIGTERM is unknown from
the files, and the longest call is the maxRequestSeconds setting's assumption: advisory. Spent sets 73
(efajbro/multi-tenant-llm-gateway gateway-deployment.yaml: a gateway calling Ollama at OLLAMA_BASE_URL, grace 30, no
preStop) and 86 (Trin9/llm-serving-control-plane deploy/k8s/base/gate-service.yaml: a gate calling vLLM at VLLM_URL
behind an ALB with target-type ip) held the form. Model servers and serving-path apps are
termination-drains-streams' (policies/timeouts/termination_drains_streams.py).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_float, container_label, containers, get, pod_specs, split_type
from policies.reading import route_path as path
from policies.reading.model_callers import caller_workloads, calls
from policies.timeouts.termination_drains_streams import GRACE_DEFAULT, pre_stop_sleep


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    longest = float(config["maxRequestSeconds"])
    found = []
    for w, target, what in caller_workloads(resources):
        if split_type(w.type)[1] in ("Job", "CronJob"):
            continue
        for where, spec in pod_specs(w):
            grace = as_float(spec.get("terminationGracePeriodSeconds"))
            grace = float(GRACE_DEFAULT) if grace is None else grace
            for c in containers(spec):
                if not calls(c, target):
                    continue
                pre_stop = get(c, "lifecycle", "preStop")
                sleep = pre_stop_sleep(pre_stop)
                missing = not isinstance(pre_stop, dict) or not pre_stop
                short = grace < sleep + longest
                if not missing and not short:
                    continue
                parts = (
                    ["no preStop hook (it gets SIGTERM while the Service and load balancers still send it requests)"]
                    if missing
                    else []
                )
                if short:
                    state = "" if spec.get("terminationGracePeriodSeconds") is not None else " (unset: Kubernetes' default)"
                    parts.append(
                        f"terminationGracePeriodSeconds {path.fmt(grace)[:-1]}{state} < preStop {path.fmt(sleep)} + the "
                        f"longest model call {path.fmt(longest)} (setting maxRequestSeconds)"
                    )
                found.append(
                    (
                        w.name,
                        f"{split_type(w.type)[1]} {get(w.props, 'metadata', 'name')} {container_label(where, c)}: calls "
                        f"Service {target} ({what}) by the URL its environment gives, so a request it takes lasts as long as the "
                        f"model call behind it, with "
                        f"{' and '.join(parts)}: on rollout or scale-in its calls in flight (long generations) are cut; "
                        f"sleep in preStop until it is deregistered and give it a grace period covering the longest call",
                    )
                )
    return found


POLICY = Policy(
    name="model-caller-drains-calls",
    description=(
        "An app that calls a model API and takes requests itself (an agent, a RAG backend, a custom gateway) has a preStop "
        "hook and a grace period covering the longest model call, so rollouts and scale-in do not cut its calls in flight."
    ),
    catalog="S10",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Add lifecycle.preStop.sleep (endpoint and load-balancer deregistration, ~15 s) to the calling container and set "
        "terminationGracePeriodSeconds >= the preStop sleep + the longest model call + a margin."
    ),
    config_schema={
        "maxRequestSeconds": {
            "type": "number",
            "minimum": 1,
            "default": 300,
            "description": "Longest model call assumed (the files state none); default 300, as termination-drains-streams.",
        },
    },
    check_stack=_check,
    rationale=(
        "Kubernetes kills the pod terminationGracePeriodSeconds (default 30 s) after SIGTERM, and Services and load "
        "balancers keep routing to it until they deregister it; a caller's requests last as long as the model generates."
    ),
)
