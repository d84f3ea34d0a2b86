"""S16: a vLLM server needs a startupProbe long enough for model download, load and compile.

vLLM answers no HTTP endpoint, /health included, until the engine is built (vllm.md §3), and a
cold start takes minutes (cold_start.md §7). A livenessProbe without a startupProbe kills the
pod mid-load (catalogue row 5); without a readinessProbe the pod keeps receiving traffic after
the engine dies (/health then returns 503). Public policy sets only require *a* probe.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_int
from policies.vllm.args import vllm_servers

# Kubernetes probe defaults (core/v1 Probe).
_DEFAULTS = {"initialDelaySeconds": 0, "failureThreshold": 3, "periodSeconds": 10}


def _probe_field(probe: dict, name: str) -> int:
    value = as_int(probe.get(name))
    return _DEFAULTS[name] if value is None else value


def _check(resource: Resource, config: dict) -> list[str]:
    minimum = int(config["minBudgetSeconds"])
    messages = []
    for server in vllm_servers(resource):
        # A ServingRuntime supplies the probes of a predictor `model`; its own resource shows them.
        if server.runtime_merged:
            continue
        container, label = server.container, server.label
        startup = container.get("startupProbe")
        if not isinstance(startup, dict):
            if isinstance(container.get("livenessProbe"), dict):
                messages.append(f"{label}: livenessProbe without a startupProbe restarts the pod while "
                                f"vLLM is still loading the model (catalogue row 5); add a startupProbe "
                                f"with a budget of at least {minimum}s")
            else:
                messages.append(f"{label}: no startupProbe; vLLM serves nothing until the model is "
                                f"downloaded, loaded and compiled (vllm.md §3), so add a startupProbe "
                                f"with a budget of at least {minimum}s")
        else:
            delay, failures, period = (_probe_field(startup, k) for k in
                                       ("initialDelaySeconds", "failureThreshold", "periodSeconds"))
            budget = delay + failures * period
            if budget < minimum:
                messages.append(f"{label}: startupProbe budget is {budget}s (initialDelaySeconds {delay} "
                                f"+ failureThreshold {failures} × periodSeconds {period}), below the "
                                f"minimum {minimum}s for model download, weight load and compile "
                                f"(cold_start.md §7)")
        if not isinstance(container.get("readinessProbe"), dict):
            messages.append(f"{label}: no readinessProbe; without one the pod stays in the Service after "
                            f"the engine dies (GET /health then returns 503, vllm.md §3)")
    return messages


POLICY = Policy(
    name="llm-startup-probe-budget",
    description=(
        "A vLLM server must have a readinessProbe and a startupProbe whose budget covers model "
        "download, load and compile."
    ),
    catalog="S16",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Give the vLLM container a startupProbe on GET /health with initialDelaySeconds + "
        "failureThreshold x periodSeconds >= minBudgetSeconds (e.g. periodSeconds 10, failureThreshold "
        "90 for 15 minutes), and a readinessProbe on GET /health; a livenessProbe, if any, only runs "
        "after the startupProbe succeeds."),
    config_schema={
        "minBudgetSeconds": {
            "type": "integer", "minimum": 0, "default": 600,
            "description": ("Smallest startupProbe budget (initialDelaySeconds + failureThreshold x "
                            "periodSeconds) in seconds; default 600 covers model download, weight load "
                            "and compile on a warm node (cold_start.md §7)."),
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
