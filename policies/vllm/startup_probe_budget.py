"""S16: a model server needs a startupProbe long enough for model download, load and compile.

How sure: a livenessProbe that fails before the minimum budget restarts a loading engine (blocks); a startupProbe
below the minimum, or none where nothing would restart the pod, rests on the assumed load time (advice, unproven).

Every engine of the engine table (components/serving_engines.toml) whose row says it answers no health
request until the weights are loaded (vLLM, SGLang, TGI, Triton, TensorRT-LLM, NIM, llama.cpp) is held to it.

vLLM answers no HTTP endpoint, /health included, until the engine is built, and a cold start
takes minutes (node, image pull, download, load, compile). A livenessProbe without a
startupProbe kills the pod mid-load. Public policy sets only require *a* probe. (The
readinessProbe is serving-readiness-probe's, for every engine.)
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_int
from policies.reading.engines import table_servers
from policies.reading.serving import engine_row, takes_requests
from policies.reading.vllm_args import vllm_servers

# Kubernetes probe defaults (core/v1 Probe).
_DEFAULTS = {"initialDelaySeconds": 0, "failureThreshold": 3, "periodSeconds": 10}


def _probe_field(probe: dict, name: str) -> int:
    value = as_int(probe.get(name))
    return _DEFAULTS[name] if value is None else value


def _budget(probe: dict) -> tuple[int, int, int, int]:
    """(budget, initialDelaySeconds, failureThreshold, periodSeconds) of a probe, Kubernetes' defaults filled in."""
    delay, failures, period = (_probe_field(probe, k) for k in ("initialDelaySeconds", "failureThreshold", "periodSeconds"))
    return delay + failures * period, delay, failures, period


def _probe_findings(container: dict, label: str, engine: str, front: bool, health: str, minimum: int) -> list[str]:
    """S16 for one server. How sure: a livenessProbe that fails before the minimum budget while the engine answers no
    health request restarts the pod mid-load (it blocks); the minimum itself is an assumption about how long this model
    takes to load, so a startupProbe below it, or a pod with no probe that could restart it, gets advice (unproven)."""
    startup = container.get("startupProbe")
    if isinstance(startup, dict):
        budget, delay, failures, period = _budget(startup)
        if budget >= minimum:
            return []
        return [
            unproven(
                f"{label}: startupProbe budget is {budget}s (initialDelaySeconds {delay} "
                f"+ failureThreshold {failures} × periodSeconds {period}), below the "
                f"minimum {minimum}s for model download, weight load and compile"
            )
        ]
    liveness = container.get("livenessProbe")
    if isinstance(liveness, dict):
        budget, delay, failures, period = _budget(liveness)
        if budget >= minimum:
            return []  # the liveness probe's own delay covers the load (a careful form without a startupProbe)
        return [
            f"{label}: livenessProbe without a startupProbe fails after {budget}s (initialDelaySeconds {delay} + "
            f"failureThreshold {failures} × periodSeconds {period}) and restarts the pod while {engine} is still "
            f"loading the model; add a startupProbe on GET {health} with a budget of at least {minimum}s"
        ]
    if not front:
        # A rank its group's leader fronts (takes_requests) with no probe at all is restarted by nothing mid-load,
        # and the leader's startupProbe holds the group back.
        return []
    return [
        unproven(
            f"{label}: no startupProbe; {engine} serves nothing until the model is "
            f"downloaded, loaded and compiled, so add a startupProbe on GET {health} "
            f"with a budget of at least {minimum}s"
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    minimum = int(config["minBudgetSeconds"])
    messages = []
    vllm = engine_row("vllm")
    servers = [
        (s.container, s.label, "vLLM", takes_requests(resource, s.path, s.container), vllm.readiness if vllm else "/health")
        for s in vllm_servers(resource)
        # A ServingRuntime supplies the probes of a predictor `model`; its own resource shows them.
        if not s.runtime_merged
    ]
    # Every engine of the table that answers no health request until the weights are loaded (loads_before_serving,
    # components/serving_engines.toml).
    servers += [
        (s.container, s.label, s.row.display, takes_requests(resource, s.path, s.container), s.row.readiness)
        for s in table_servers(resource)
        if s.row is not None and s.row.loads_before_serving
    ]
    # The probe path each message names is the engine's readiness endpoint (components/serving_engines.toml readiness):
    # it answers only once the model is loaded, which is what a startup budget waits for.
    for container, label, engine, front, health in servers:
        messages += _probe_findings(container, label, engine, front, health, minimum)
    return messages


POLICY = Policy(
    name="llm-startup-probe-budget",
    description=("A vLLM server must have a startupProbe whose budget covers model download, load and compile."),
    catalog="S16",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Give the vLLM container a startupProbe on GET /health with initialDelaySeconds + "
        "failureThreshold x periodSeconds >= minBudgetSeconds (e.g. periodSeconds 10, failureThreshold "
        "90 for 15 minutes); a livenessProbe, if any, only runs "
        "after the startupProbe succeeds."
    ),
    config_schema={
        "minBudgetSeconds": {
            "type": "integer",
            "minimum": 0,
            "default": 600,
            "description": (
                "Smallest startupProbe budget (initialDelaySeconds + failureThreshold x "
                "periodSeconds) in seconds; default 600 covers model download, weight load "
                "and compile on a warm node."
            ),
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a startup probe",
    rationale=(
        "A startupProbe holds off liveness and readiness until it succeeds "
        "(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#startup-probe). vLLM "
        "opens its HTTP server only after the weights are downloaded and loaded and CUDA graphs captured, which takes "
        "minutes for large models; a liveness probe alone restarts the pod mid-load, in a loop. Catalogue row 5 "
        "marks plain liveness ADAPT for exactly this reason."
    ),
)
