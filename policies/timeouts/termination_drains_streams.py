"""S10: a vLLM pod's termination lets the longest request finish.

On scale-down or rollout the pod gets SIGTERM while load balancers may still send it requests,
and is killed terminationGracePeriodSeconds (default 30 s) later. It needs a preStop sleep
covering endpoint and target deregistration, and a grace period covering that sleep plus the
longest request. vLLM releases with --shutdown-timeout abort in-flight requests on SIGTERM
unless it is above 0 (vllm 0.33.0 config/vllm.py; components/vllm_flags.py lists the release
that added it); earlier releases cancel the server on SIGTERM, so there the preStop sleep itself
must last through the longest request. Many public vLLM Deployments set none of this.

A preStop hook that *drains* is the careful alternative: it polls vLLM's /metrics until the
``vllm:num_requests_running`` and ``vllm:num_requests_waiting`` gauges read 0, so SIGTERM comes
only once nothing is in flight; it then needs only a grace period longer than the longest request
(the kubelet kills the pod when the grace period ends, hook or not).

The same grace-period rule applies to every other engine of the engine table (components/serving_engines.toml:
whatever a server does on SIGTERM, the kubelet kills it when the grace period ends), and where the table says the
engine waits for in-flight requests for a flag's seconds (TGI --graceful-termination-timeout, default 90 s;
Triton --exit-timeout-secs, default 30 s), that wait must cover the longest request too; where it says the engine
stops at once (llama.cpp's server: drain "aborts"), the preStop hook must hold SIGTERM back through the longest
request, and a hook that loops until the row's running and waiting gauges read 0 counts as that drain, and Ray Serve stops a replica ``graceful_shutdown_timeout_s``
(default 20 s) after it starts draining it, on every downscale and upgrade. A GPU model server no row names (engine
"GPU model") is held to the preStop sleep and the grace period alone, advisory: what it does on SIGTERM is unknown.

How sure: the longest request is the manifest's own where it states one (a KServe ``spec.predictor.timeout``, vLLM's
``--shutdown-timeout``); otherwise it is the ``maxRequestSeconds`` setting's assumption, and every finding of that
server (missing preStop included: a pod that states no drain at all) is reported unproven, as advice
(policies/framework.py ``unproven``). Our own stacks state it on every server, so their findings block.
"""

from __future__ import annotations

import re
from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_float, fmt_number, get, split_type
from policies.llmisvc_presets import own_shutdown_timeout
from policies.reading import route_path as path
from policies.reading.engines import EngineServer, env_values, table_server, table_servers
from policies.reading.gateway_apps import AppContainer, app_containers
from policies.reading.kserve_runtime import merged_predictor, predictor_runtime
from policies.reading.litellm import longest_call
from policies.reading.serve_apps import ray_serve_apps
from policies.reading.serving import GPU_SERVER, model_server_engine, model_servers, takes_requests
from policies.reading.vllm_args import vllm_servers

GRACE_DEFAULT = 30  # core/v1 PodSpec terminationGracePeriodSeconds


def _server_drains(image: str, default_release: str = "") -> tuple[bool | None, str]:
    """Whether the image's vLLM release has --shutdown-timeout, and what a message says of the release
    when the tag names none (the setting defaultVllmRelease, else the newest release read)."""
    from components.images import vllm_release
    from components.vllm_flags import NEWEST_READ, UnsupportedRelease, release_of

    assumed = ""
    if vllm_release(image) is None:
        release_text = default_release or NEWEST_READ
        assumed = f" (the image tag names no release: vLLM {release_text} assumed, setting defaultVllmRelease)"
        image = f"vllm/vllm-openai:v{release_text}"
    try:
        release = release_of(image)
    except UnsupportedRelease:
        return False, assumed
    return release.has("--shutdown-timeout"), assumed


_GAUGES = ("num_requests_running", "num_requests_waiting")
_LOOPS = re.compile(r"\b(while|until|for)\b")
# An exec preStop that only sleeps: `sleep 15`, `/bin/sleep 15`, `sh -c "sleep 15"`.
_EXEC_SLEEP = re.compile(r"(?:(?:/usr)?/bin/)?(?:(?:ba)?sh -c )?(?:(?:/usr)?/bin/)?sleep (\d+(?:\.\d+)?)s?")


def drains_in_pre_stop(pre_stop: object, gauges: tuple[str, ...] = _GAUGES) -> bool:
    """True for a preStop exec hook that waits until the engine's running and waiting gauges read 0: a
    loop over /metrics naming both gauges (vLLM's vllm:num_requests_running, vllm:num_requests_waiting by default;
    another engine's from its row of the table, queue_metric and running_metric)."""
    command = get(pre_stop, "exec", "command")
    if not isinstance(command, list) or not gauges:
        return False
    script = " ".join(t for t in command if isinstance(t, str))
    return all(g in script for g in gauges) and bool(_LOOPS.search(script))


def pre_stop_sleep(pre_stop: Any) -> float:
    """Seconds a preStop hook sleeps: the sleep action (``sleep.seconds``), or an exec of ``sleep N`` (``[/bin/sleep,
    "15"]`` as KServe's LLMInferenceService presets write it, or ``sh -c "sleep 15"``); 0 otherwise."""
    seconds = as_float(get(pre_stop, "sleep", "seconds"))
    if seconds is not None:
        return seconds
    command = get(pre_stop, "exec", "command")
    if isinstance(command, list):
        text = " ".join(t for t in command if isinstance(t, str))
        match = _EXEC_SLEEP.fullmatch(text.strip())
        if match:
            return float(match.group(1))
    return 0.0


def _grace(podspec: dict) -> float:
    grace = as_float(podspec.get("terminationGracePeriodSeconds"))
    return float(GRACE_DEFAULT) if grace is None else grace


def _hook(label: str, pre_stop: Any, grace: float, longest: float, engine: str, drains: bool) -> tuple[list[str], bool]:
    """The preStop hook's findings, and whether the hook drains (loops until the engine's running and waiting gauges
    read 0, so SIGTERM comes once nothing is in flight and only the grace period bounds the drain)."""
    if drains:
        if grace <= longest:
            return [
                f"{label}: the preStop hook waits for {engine}'s running and waiting requests to reach 0, but "
                f"terminationGracePeriodSeconds {path.fmt(grace)[:-1]} is not above the longest request "
                f"({path.fmt(longest)}): the kubelet kills the pod mid-drain"
            ], True
        return [], True
    if not isinstance(pre_stop, dict) or not pre_stop:
        return [
            f"{label}: no preStop hook: the pod gets SIGTERM while the Service and load balancers still "
            f"send it requests; sleep in preStop until they have deregistered it"
        ], False
    return [], False


def _table_engine_drain(server: EngineServer, longest: float) -> list[str]:
    """S10 for an engine of the table other than vLLM: what its row says it does on SIGTERM
    (components/serving_engines.toml drain), and the pod's preStop and grace period."""
    row = server.row
    assert row is not None
    label, container = server.label, server.container
    pre_stop = get(container, "lifecycle", "preStop")
    grace = _grace(server.podspec)
    sleep = pre_stop_sleep(pre_stop)
    messages = []
    gauges = tuple(g for g in (row.running_metric, row.queue_metric) if g)
    found, drained = _hook(
        label, pre_stop, grace, longest, row.display, len(gauges) == 2 and drains_in_pre_stop(pre_stop, gauges)
    )
    messages += found
    if drained:
        return messages
    if row.drain == "aborts":
        # Nothing runs after SIGTERM: the preStop hook must outlast the longest request, and the grace period the hook.
        if sleep < longest:
            messages.append(
                f"{label}: on SIGTERM {row.display} stops at once and its in-flight requests fail (engine table drain: "
                f"aborts), so the preStop hook must hold SIGTERM back through the longest request {path.fmt(longest)} "
                f"(setting maxRequestSeconds): sleep that long, or loop until {' and '.join(gauges) or 'its in-flight requests'} "
                f"read 0"
            )
        if grace < max(sleep, longest):
            messages.append(
                f"{label}: terminationGracePeriodSeconds {path.fmt(grace)[:-1]} < the longest request "
                f"{path.fmt(longest)} (setting maxRequestSeconds) the preStop hook must wait out: the kubelet kills "
                f"{row.display}'s streams in flight on scale-down"
            )
        return messages
    if grace < sleep + longest:
        messages.append(
            f"{label}: terminationGracePeriodSeconds {path.fmt(grace)[:-1]} < preStop {path.fmt(sleep)} + "
            f"longest request {path.fmt(longest)} (setting maxRequestSeconds): the kubelet kills "
            f"{row.display}'s streams in flight on scale-down"
        )
    if row.drain == "flag":
        raw = server.args.get(row.drain_flag)
        if raw is None and row.drain_env:
            raw = env_values(container).get(row.drain_env)
        value = as_float(raw)
        drain = row.drain_default if value is None else value
        shown = (
            f"--{row.drain_flag} {fmt_number(drain)}"
            if value is not None
            else f"--{row.drain_flag} unset ({row.display}'s default {fmt_number(drain)} s)"
        )
        if drain < longest:
            messages.append(
                f"{label}: {shown}: on SIGTERM {row.display} waits for in-flight requests only that long, below the "
                f"longest request {path.fmt(longest)} (setting maxRequestSeconds); set --{row.drain_flag} to it"
            )
    return messages


def _unknown_engine_drain(label: str, container: dict, podspec: dict, longest: float) -> list[str]:
    """S10 for a GPU model server no row of the engine table names (GPU_SERVER): what it does on SIGTERM is unknown,
    but the kubelet kills it when the grace period ends and the endpoints still route to it until deregistered, so the
    preStop sleep and the grace period are judged as for any server; unproven (advisory): it may not stream."""
    pre_stop = get(container, "lifecycle", "preStop")
    grace, sleep = _grace(podspec), pre_stop_sleep(pre_stop)
    messages: list[str] = []
    if not isinstance(pre_stop, dict) or not pre_stop:
        messages.append(
            unproven(
                f"{label}: no preStop hook: the pod gets SIGTERM while the Service and load balancers still send it "
                f"requests; sleep in preStop until they have deregistered it (an engine no row of the engine table "
                f"names: advisory)"
            )
        )
    if grace < sleep + longest:
        messages.append(
            unproven(
                f"{label}: terminationGracePeriodSeconds {path.fmt(grace)[:-1]} < preStop {path.fmt(sleep)} + longest "
                f"request {path.fmt(longest)} (setting maxRequestSeconds): if this server streams, the kubelet kills "
                f"its requests in flight on scale-down (an engine no row of the engine table names: advisory)"
            )
        )
    return messages


def _app_drain(app: AppContainer, default_longest: float) -> list[str]:
    """S10 for a serving-path app of components/serving_apps.toml (a LiteLLM proxy, a router, a gateway) that holds a
    model call open for as long as the model generates: on scale-in or rollout the kubelet kills it when the grace
    period ends, whatever the model behind it is still sending, and without a preStop hook it gets SIGTERM while the
    Service and load balancers still route new calls to it. The longest call is the app's own where its configuration
    states one (a LiteLLM config mounted from a ConfigMap: policies/reading/litellm.py longest_call), else the
    maxRequestSeconds setting's assumption. Advisory: how long the app's calls really run is the clients' choice."""
    pre_stop = get(app.container, "lifecycle", "preStop")
    grace, sleep = _grace(app.podspec), pre_stop_sleep(pre_stop)
    stated = longest_call(app.podspec, app.container) if app.app.name == "litellm" else None
    longest = stated[0] if stated is not None else default_longest
    why = f"its configuration {stated[1]}" if stated is not None else "setting maxRequestSeconds"
    what = app.app.display
    messages: list[str] = []
    if not isinstance(pre_stop, dict) or not pre_stop:
        messages.append(
            f"{app.label}: no preStop hook on this {what}: the pod gets SIGTERM while the Service and load balancers "
            f"still send it model calls; sleep in preStop until they have deregistered it"
        )
    if grace < sleep + longest:
        messages.append(
            f"{app.label}: terminationGracePeriodSeconds {path.fmt(grace)[:-1]} < preStop {path.fmt(sleep)} + longest "
            f"model call {path.fmt(longest)} ({why}): the kubelet cuts the {what}'s calls in flight (long generations) "
            f"on scale-in and rollout"
        )
    return [unproven(m) for m in messages]


def _vllm_drain(resource: Resource, server: Any, config: dict, default_longest: float) -> list[str]:
    """S10 for one vLLM server: its preStop hook, grace period and --shutdown-timeout against the longest request.

    The longest request is the manifest's own (a KServe timeout, --shutdown-timeout) or the setting's assumption;
    judged against an assumption, a pod that states no drain at all gets advice, not a block (framework.unproven).
    A --shutdown-timeout counts only where the manifest writes it (an LLMInferenceService preset derives one from the
    grace period) and the image's release reads it: an older vLLM enforces no such figure."""
    found = _vllm_findings(resource, server, config, default_longest)
    if not found or get(resource.props, "spec", "predictor", "timeout") is not None:
        return found
    image = str(server.container.get("image") or "")
    stated = (
        "shutdown-timeout" in server.args
        and own_shutdown_timeout(resource)
        and _server_drains(image, config.get("defaultVllmRelease", ""))[0] is True
    )
    return found if stated else [unproven(m) for m in found]


def _vllm_findings(resource: Resource, server: Any, config: dict, default_longest: float) -> list[str]:
    messages: list[str] = []
    label, container = server.label, server.container
    pre_stop = get(container, "lifecycle", "preStop")
    sleep = pre_stop_sleep(pre_stop)
    grace = _grace(server.podspec)
    drain = as_float(server.args.get("shutdown-timeout")) or 0.0
    longest = as_float(get(resource.props, "spec", "predictor", "timeout")) or (drain or default_longest)
    found, drained = _hook(label, pre_stop, grace, longest, "vLLM", drains_in_pre_stop(pre_stop))
    messages += found
    if drained:
        return messages
    drains, assumed = _server_drains(str(container.get("image") or ""), config.get("defaultVllmRelease", ""))
    # A release without --shutdown-timeout stops serving at SIGTERM: its requests must end within
    # the preStop sleep (checked below), so the grace period need only outlast that sleep.
    after_sigterm = 0.0 if drains is False else longest
    if grace < sleep + after_sigterm or grace < longest:
        messages.append(
            f"{label}: terminationGracePeriodSeconds {path.fmt(grace)[:-1]} < preStop {path.fmt(sleep)} + longest "
            f"request {path.fmt(longest)}: streams in flight are killed on scale-down"
        )
    if drains and drain <= 0 and sleep < longest:
        messages.append(
            f"{label}: --shutdown-timeout is unset (0 = abort): vLLM aborts in-flight requests on SIGTERM"
            f"{assumed}; set --shutdown-timeout to the longest request ({path.fmt(longest)})"
        )
    elif drains is False and sleep < longest and isinstance(pre_stop, dict) and pre_stop:
        hook = f"preStop sleep {path.fmt(sleep)}" if sleep else "preStop hook (no sleep action)"
        messages.append(
            f"{label}: this vLLM release{assumed} cancels requests on SIGTERM (no --shutdown-timeout), so the {hook} "
            f"must last through the longest request ({path.fmt(longest)})"
        )
    return messages


def _merged_runtime_drain(resource: Resource, longest: float) -> list[str]:
    """S10 for a KServe InferenceService whose predictor ``model`` sets the drain itself (a preStop hook, or the
    predictor's terminationGracePeriodSeconds) over a ServingRuntime of the files run by a table engine other than
    vLLM: the pod KServe renders (kserve_runtime.merged_predictor: the model's fields over the runtime's container)
    judged by the engine's row, as the runtime alone is (the form of spent set 56 namphuongtran/llm-serving-stack
    models/ornith-9b/overlays/local/patch-resources.yaml: preStop sleep 15 and grace 120 s over the llama.cpp runtime,
    whose server stops at once on SIGTERM; there the overlay is read in a run of its own, without the runtime, so that
    label stays a miss). Without such a field of its own, the runtime's findings say it all."""
    if split_type(resource.type) != ("serving.kserve.io", "InferenceService"):
        return []
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    if get(predictor, "model", "lifecycle") is None and predictor.get("terminationGracePeriodSeconds") is None:
        return []
    merged = merged_predictor(resource)
    if merged is None:
        return []
    podspec, container, runtime = merged
    engine = model_server_engine(container)
    server = table_server(engine, "spec.predictor.model", podspec, container) if engine else None
    if server is None or server.row is None:
        return []
    note = f" (with {runtime.label} merged in, as KServe does)"
    return [unproven(msg + note) for msg in _table_engine_drain(server, longest)]


def _check(resource: Resource, config: dict) -> list[str]:
    default_longest = float(config["maxRequestSeconds"])
    messages: list[str] = _merged_runtime_drain(resource, default_longest)
    for server in vllm_servers(resource):
        if server.runtime_merged:
            # A KServe predictor model: its ServingRuntime supplies the command line, preStop and grace period. A
            # runtime in the set is checked itself; one outside it may set them or not, so the model's own gaps
            # are advice (framework.unproven).
            if predictor_runtime(resource) is None:
                messages += [
                    unproven(f"{msg} (its ServingRuntime is not in the files read and may set it)")
                    for msg in _vllm_drain(resource, server, config, default_longest)
                ]
            continue
        messages += _vllm_drain(resource, server, config, default_longest)
    for other in table_servers(resource):
        if other.row is None or not takes_requests(resource, other.path, other.container):
            continue  # a rank of an engine its group's leader fronts: the leader takes the requests
        # The table engines' longest request is always the setting's assumption: advice (framework.unproven).
        messages += [unproven(msg) for msg in _table_engine_drain(other, default_longest)]
    for unknown in model_servers(resource):
        if unknown.engine == GPU_SERVER and takes_requests(resource, unknown.path, unknown.container):
            messages += _unknown_engine_drain(unknown.label, unknown.container, unknown.podspec, default_longest)
    for proxy in app_containers(resource):
        messages += _app_drain(proxy, default_longest)
    for app in ray_serve_apps(resource):
        if app.graceful_shutdown < default_longest:
            messages.append(
                unproven(
                    f"{app.label}: {app.graceful_shown} < longest request {path.fmt(default_longest)} (setting "
                    f"maxRequestSeconds): Ray Serve kills a draining replica's streams after it on every downscale "
                    f"and upgrade; set graceful_shutdown_timeout_s above the longest request"
                )
            )
    return messages


POLICY = Policy(
    name="termination-drains-streams",
    description=(
        "A model server's pod (vLLM and every engine of the table) and a serving-path app's pod (a LiteLLM proxy, a router: "
        "advice, with the app's own configured call timeout) have a preStop hook and a terminationGracePeriodSeconds that "
        "let the longest request finish on scale-down."
    ),
    catalog="S10",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add lifecycle.preStop.sleep (endpoint + ALB target deregistration, ~15 s), pass --shutdown-timeout=<longest "
        "request> (vLLM >= 0.18; before it, sleep in preStop through the request), and set terminationGracePeriodSeconds "
        ">= preStop + the longest request + a margin; components/timeouts.py derives all three."
    ),
    config_schema={
        "defaultVllmRelease": {
            "type": "string",
            "pattern": "^$|^[0-9]+[.][0-9]+([.][0-9]+)?$",
            "default": "",
            "description": (
                "The vLLM release assumed when an image tag names none (latest, a digest, a private build), "
                'e.g. "0.33.0". Default "": the newest release whose flags were read (components/vllm_flags.py NEWEST_READ). The message says which release it used.'
            ),
        },
        "maxRequestSeconds": {
            "type": "number",
            "minimum": 1,
            "default": 300,
            "description": (
                "Longest request assumed when the manifest states none (no KServe timeout, no "
                "--shutdown-timeout); default 300, the stack's default slo.maxRequestSeconds."
            ),
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a preStop hook and the grace period",
    rationale=(
        "Kubernetes kills the pod terminationGracePeriodSeconds (default 30 s) after SIGTERM; vLLM's --shutdown-timeout "
        "is 0 (abort) by default (vllm 0.33.0 engine/arg_utils.py), so streams are cut on every scale-down."
    ),
)
