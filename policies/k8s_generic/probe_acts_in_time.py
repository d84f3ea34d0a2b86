"""G76: a model server's liveness and readiness probes act within minutes, not hours.

The kubelet runs a liveness or readiness probe every ``periodSeconds`` (default 10) and acts after
``failureThreshold`` failures in a row (default 3); a pod counts as Ready only after a readiness probe succeeds
(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#configure-probes). The
opposite mistake to G49's hair trigger is a probe so lax that it no longer does its job:

* a livenessProbe whose ``failureThreshold x periodSeconds`` is an hour or more: a server that hangs (a stuck
  engine, a dead NCCL peer) keeps its container for that long, so the probe is effectively off (spent set 31
  openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-{simple,pd}.yaml: failureThreshold 1000 x 60 s,
  about 16 h, on an LLMInferenceService's vLLM container);
* a readinessProbe run every five minutes or more: a check while the model is still loading fails, and the next
  one runs ``periodSeconds`` later, so every start (and every scale-up) keeps the pod out of its Service that much
  longer after the model is up (spent set 42 fuhengwu2021/coderepo extra/{vllm,sglang}-llama-4-scout.yaml:
  periodSeconds 3600 after a first check at 120 s, an hour with no endpoint; spent set 41
  AurelioAguirre/multi-model-orchestrator k8s/inference/vllm-deployment.yaml: periodSeconds 300);
* a readinessProbe whose ``failureThreshold x periodSeconds`` is an hour or more: a server that stops answering
  keeps receiving requests for that long (topsail's readiness: failureThreshold 10000 x 30 s).

Every budget counts ``timeoutSeconds`` (default 1): the kubelet runs one worker per probe and container, and the
worker runs each probe to its end before it waits for the next tick of a ``time.Ticker`` of ``periodSeconds``
(kubernetes/kubernetes pkg/kubelet/prober/worker.go at 00421113e1c655426f1954d9865726f491265bcd, the stored copy:
run() :146-188, the ticker :157, ``for w.doProbe(ctx)`` then the wait for a tick :175-186; doProbe :201 calls
prober.probe synchronously, :290; a Go ticker drops the ticks a slow receiver misses), so against a server that accepts the connection and then hangs (a wedged engine) each failed attempt takes
``max(periodSeconds, timeoutSeconds)``. A ``timeoutSeconds`` above ``periodSeconds`` is thus a budget longer than it
reads, and from a quarter of an hour on it is advice too (fresh sets: a vLLM readinessProbe with timeoutSeconds 600
and periodSeconds 10 keeps a wedged server in its Service about 30 min; a LeaderWorkerSet leader's with
timeoutSeconds 720 and periodSeconds 15 about 36 min).

An ``initialDelaySeconds`` of an hour or more switches the probe off for that long after every start: the kubelet's
worker skips the probe until the container has run that many seconds (kubernetes/kubernetes pkg/kubelet/prober/worker.go
at 00421113e1c655426f1954d9865726f491265bcd, doProbe :271-274 "Probe disabled for InitialDelaySeconds"), keeping the
result it starts with: Success for liveness, Failure for readiness (newWorker's initialValue). A liveness delay of hours
never restarts a server that hangs in that time (spent set 89 helixml/llms-on-k8s vllm/llama-deployment.yaml:
initialDelaySeconds 1800000, about 21 days, on vLLM); a readiness delay of hours keeps the pod out of its Service that
long after every start.

Advice: nothing fails at apply time, and how long a model takes to load, or how often a server hangs, is not in the
files. Judged on the containers that run a model server or hold an accelerator; startup probes are S16's (a long
startup budget is what they are for).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_quantity, container_label, containers, get, pod_specs
from policies.reading.accelerators import ACCELERATOR_RESOURCES
from policies.reading.serving import model_servers

# A liveness or readiness budget of an hour or more no longer acts on a hung server in any useful time.
_BUDGET_OFF_SECONDS = 3600
# A readiness check every five minutes or more keeps a loaded pod out of its Service for minutes after each start.
_READINESS_PERIOD_SECONDS = 300
# Kubernetes' probe defaults (core/v1 Probe).
_DEFAULT_PERIOD = 10
_DEFAULT_FAILURES = 3
_DEFAULT_TIMEOUT = 1
# A probe held back an hour or more after each start (initialDelaySeconds) is off for that long.
_DELAY_OFF_SECONDS = 3600
# A budget a timeoutSeconds above periodSeconds stretches (it reads shorter than it is) is advice from a quarter hour on.
_STRETCHED_BUDGET_SECONDS = 900


def _holds_device(container: Mapping) -> bool:
    return any(
        (as_quantity(get(container, "resources", section, name)) or 0) > 0
        for section in ("limits", "requests")
        for name in ACCELERATOR_RESOURCES
    )


def _span(seconds: int) -> str:
    """Seconds in the unit a reader thinks in: days from a week on, hours from two hours on, else minutes."""
    if seconds >= 604800:
        return f"about {round(seconds / 86400)} days"
    if seconds >= 7200:
        return f"about {round(seconds / 3600)} h"
    return f"about {round(seconds / 60)} min"


def _timing(probe: Mapping) -> tuple[int, int, int]:
    """(periodSeconds, failureThreshold, timeoutSeconds) of a probe, Kubernetes' defaults in place of unset ones."""
    return (
        as_int(probe.get("periodSeconds")) or _DEFAULT_PERIOD,
        as_int(probe.get("failureThreshold")) or _DEFAULT_FAILURES,
        as_int(probe.get("timeoutSeconds")) or _DEFAULT_TIMEOUT,
    )


def _lax(period: int, failures: int, timeout: int) -> Optional[tuple[str, int]]:
    """(how the budget reads in a message, its seconds) when a liveness or readiness budget is too long to act on a
    hung server, else None: each failed attempt on a server that hangs takes max(periodSeconds, timeoutSeconds)."""
    budget = failures * max(period, timeout)
    if timeout > period and budget >= _STRETCHED_BUDGET_SECONDS:
        return (
            f"failureThreshold {failures} x timeoutSeconds {timeout} (timeoutSeconds above periodSeconds {period}: the "
            f"kubelet runs one probe at a time, so each check of a server that hangs waits the whole timeout)",
            budget,
        )
    if budget >= _BUDGET_OFF_SECONDS:
        return f"failureThreshold {failures} x periodSeconds {period}", budget
    return None


def _held_back(label: str, field: str, probe: Mapping) -> Optional[str]:
    """Advice for an initialDelaySeconds of an hour or more (module docstring): the probe is off that long."""
    delay = as_int(probe.get("initialDelaySeconds"))
    if delay is None or delay < _DELAY_OFF_SECONDS:
        return None
    if field == "livenessProbe":
        effect = "a server that hangs in that time is not restarted before then"
    else:
        effect = "the pod stays un-Ready, out of its Service, that long after every start, even once the model is loaded"
    return (
        f"{label}: {field} initialDelaySeconds {delay} ({_span(delay)}): the kubelet does not run the probe until the "
        f"container has run that long, so {effect}; cover the model load with a startupProbe and keep initialDelaySeconds "
        f"to seconds or minutes"
    )


def _findings(label: str, container: Mapping) -> list[str]:
    messages: list[str] = []
    for field in ("livenessProbe", "readinessProbe"):
        if held := _held_back(label, field, as_dict(container.get(field))):
            messages.append(held)
    liveness = as_dict(container.get("livenessProbe"))
    if liveness and (lax := _lax(*_timing(liveness))):
        what, budget = lax
        messages.append(
            f"{label}: livenessProbe {what} restarts a server that has stopped answering only after {budget}s "
            f"({_span(budget)}), so the probe is effectively off and a hung model server keeps its GPU and its pod "
            f"that long; keep the liveness budget to minutes (e.g. failureThreshold 3-5 x periodSeconds 10-30, "
            f"timeoutSeconds at most periodSeconds) and leave the long model load to a startupProbe"
        )
    readiness = as_dict(container.get("readinessProbe"))
    if readiness:
        period, failures, timeout = _timing(readiness)
        if period >= _READINESS_PERIOD_SECONDS:
            first = as_int(readiness.get("initialDelaySeconds")) or 0
            messages.append(
                f"{label}: readinessProbe periodSeconds {period}: a check while the model is still loading (the first "
                f"runs {first}s after the start) fails, and the next one runs {period}s ({_span(period)}) later, so "
                f"after every start the pod stays out of its Service that long after the model is up; probe every "
                f"5-10 s (a startupProbe covers the load)"
            )
        elif lax := _lax(period, failures, timeout):
            what, budget = lax
            messages.append(
                f"{label}: readinessProbe {what} takes a server that has stopped answering out of its Service only "
                f"after {budget}s ({_span(budget)}), so requests keep reaching it that long; keep failureThreshold to a "
                f"few periods and timeoutSeconds to seconds (at most periodSeconds)"
            )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    servers = {id(s.container) for s in model_servers(resource)}
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if id(container) in servers or _holds_device(container):
                messages.extend(unproven(m) for m in _findings(container_label(path, container), container))
    return messages


POLICY = Policy(
    name="probe-acts-in-time",
    description=(
        "A model server's livenessProbe restarts a hung server within minutes, not hours, and its readinessProbe "
        "runs often enough (periodSeconds under 300) to mark a loaded server Ready soon after it is; each budget counts "
        "timeoutSeconds, since a check of a hung server waits the whole timeout (advice)."
    ),
    catalog="G76",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Keep a model server's liveness and readiness budgets (failureThreshold x periodSeconds) to minutes and its "
        "readiness periodSeconds to 5-30 s; cover the model load with a startupProbe instead of a lax liveness or "
        "readiness probe."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The kubelet probes every periodSeconds and acts after failureThreshold failures in a row; a pod is Ready only "
        "after a readiness probe succeeds (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-"
        "startup-probes/#configure-probes). A liveness budget of hours never restarts a hung server, and a readiness "
        "check every five minutes or more keeps a loaded server out of its Service until the next check."
    ),
)
