"""S16: a model server needs a startupProbe long enough for model download, load and compile.

Every engine of the engine table (components/serving_engines.toml) whose row says it answers no health
request until the weights are loaded (vLLM, SGLang, TGI, Triton, TensorRT-LLM, NIM, llama.cpp) is held to it, and an
engine that listens with no model loaded (LocalAI) where a setting of its row's ``start_loads`` makes it fetch models
before it listens (mudler/LocalAI v4.9.0 core/cli/run.go L756 application.New(), L810 appHTTP.Start; New() applies
LOCALAI_PRELOAD_MODELS at core/application/startup.go L464-468): a livenessProbe whose window no fetch fits then
restarts it before it ever listens. Ollama listens at once and pulls on demand: never held to it. A GPU
model server no row names (engine "GPU model": TensorRT-LLM behind a custom server.py) is held to it only where it
has a livenessProbe (which kills a long load) or a short startupProbe, and advisory: how it loads is unknown.

vLLM answers no HTTP endpoint, /health included, until the engine is built, and a cold start
takes minutes (node, image pull, download, load, compile). A livenessProbe without a
startupProbe kills the pod mid-load. Public policy sets only require *a* probe. (The
readinessProbe is serving-readiness-probe's, for every engine.)

The other way round, a livenessProbe stretched to wait for the load (a long initialDelaySeconds, or a huge
failureThreshold x periodSeconds) leaves a wedged server running, holding its GPUs and its Service endpoint, for
hours: every model server of every pod template (any engine, an LLMInferenceServiceConfig's workload included) whose
liveness window passes maxLivenessWindowSeconds gets advice to wait with a startupProbe instead (spent set 28
natifridman/kserve-demo llm-config-v1alpha2/llmisvc-config.yaml initialDelaySeconds 4800; set 31
openshift-psap/topsail llmisvc-simple.yaml and llmisvc-pd.yaml failureThreshold 1000 x periodSeconds 60).

A budget above minBudgetSeconds can still be shorter than the first start of a large checkpoint the server downloads
from the Hub at start (its row's ``downloads``, not HF_HUB_OFFLINE): at ``assumedDownloadGiBps`` (default the
planner's own figure, components/capacity/layout.py HUB_DOWNLOAD_GIB_PER_SECOND = 0.5 GiB/s, no public measurement
behind it) the download plus the load outlasts the budget, and the container is restarted mid-download on every node
whose cache is empty (brief crossfile56). Spent set 120 shawnawshk/llm-on-eks@7c70018e k8s-manifest/lws/lws.yaml
(DeepSeek-R1, ~641 GiB, under 180 + 60 x 30 s) is labelled so at a slower rate; at 0.5 GiB/s it fits (about 24 min)
and stays silent by default, as the stack's own plans, sized at the same figure, do. Advice: the cache may already hold
the weights and the link may be faster; silent for a model of unknown size, a local path, and a budget that covers it.
"""

from __future__ import annotations

from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.gpu.ephemeral_storage import checkpoint_estimate_gib
from policies.kube import (
    LLMISVC_CONFIG_TYPES,
    WORKLOAD_TYPES,
    as_dict,
    as_int,
    as_list,
    container_label,
    containers,
    get,
    pod_specs,
    split_type,
)
from policies.reading.engine_switches import loads_at_start, loads_no_model_at_start
from policies.reading.engines import fetches, hub_offline, table_servers
from policies.reading.kserve_runtime import RUNTIME_KINDS, loads_first
from policies.reading.pod_probes import server_ports, sidecar_probe
from policies.reading.serving import GPU_SERVER, engine_row, model_servers, takes_requests
from policies.reading.vllm_args import served_model, vllm_servers

# A liveness window shorter than this kills any model server's start (weights load, then CUDA graph capture or
# compile: tens of seconds even for a 1B model on a local disk); between it and minBudgetSeconds the kill depends on the
# model and is advice.
LOAD_FLOOR_SECONDS = 60
# The fastest weight load measured (marin-community/marin issue #7136: 124.96 GiB in 14.29 s with a distributed
# Run:ai streamer, about 8.7 GiB/s; local NVMe about 4 GB/s, anyscale/ai-infra-cookbook PR #57): a start cannot load a checkpoint faster.
FASTEST_LOAD_GIB_PER_S = 8.0
# The Hub download rate the stack's planner sizes startup budgets by (components/capacity/layout.py
# HUB_DOWNLOAD_GIB_PER_SECOND, an assumption: no public measurement). Written here, not imported: that module pulls the
# stack's configuration models into every check (+0.18 s); tests/policies/test_policy_startup_download_budget.py holds
# the two equal.
HUB_DOWNLOAD_GIB_PER_SECOND = 0.5


def _load_floor(model: object, base: float = LOAD_FLOOR_SECONDS) -> float:
    """The shortest start any server makes of ``model``: ``base`` (LOAD_FLOOR_SECONDS, or the engine row's
    load_floor_seconds) plus its checkpoint at the fastest load."""
    size = checkpoint_estimate_gib(model) if isinstance(model, str) and model else None
    return base + (size or 0.0) / FASTEST_LOAD_GIB_PER_S


# Kubernetes probe defaults (core/v1 Probe).
_DEFAULTS = {"initialDelaySeconds": 0, "failureThreshold": 3, "periodSeconds": 10}


def _probe_field(probe: dict, name: str) -> int:
    value = as_int(probe.get(name))
    return _DEFAULTS[name] if value is None else value


def _unknown_field(probe: dict) -> bool:
    """True when a field of the budget is set but not a number here (an unrendered placeholder, now framework.UNKNOWN;
    a Pulumi output): the budget is not known, so no finding rests on the default in its place."""
    return any(probe.get(k) is not None and as_int(probe.get(k)) is None for k in _DEFAULTS)


def _health(container: dict) -> str:
    """The path a server's own probes GET (its livenessProbe's, else its readinessProbe's), for an engine the table
    does not name."""
    for probe in ("livenessProbe", "readinessProbe"):
        path = get(container, probe, "httpGet", "path")
        if isinstance(path, str) and path:
            return path
    return "its health endpoint"


def _budget(probe: dict) -> int:
    """Seconds before a probe's failures kill the container: initialDelaySeconds + failureThreshold x periodSeconds."""
    delay, failures, period = (_probe_field(probe, k) for k in ("initialDelaySeconds", "failureThreshold", "periodSeconds"))
    return delay + failures * period


def _restart_at(probe: dict) -> int:
    """When a failing livenessProbe restarts the container, seconds after its start: the kubelet's worker probes at
    once and then on every tick of periodSeconds (kubernetes/kubernetes pkg/kubelet/prober/worker.go at
    00421113e1c655426f1954d9865726f491265bcd run() :175 ``for w.doProbe(ctx)`` before the first wait, doProbe :272
    skipping the initial delay), and acts on the failureThreshold-th failure in a row, so the restart comes at
    initialDelaySeconds + (failureThreshold - 1) x periodSeconds, one period before the budget the fields add up to
    (a fresh-set form: initialDelaySeconds 300 + 10 x 30 s restarts at 570 s, under the 600 s minimum)."""
    delay, failures, period = (_probe_field(probe, k) for k in ("initialDelaySeconds", "failureThreshold", "periodSeconds"))
    return delay + max(failures - 1, 0) * period


_Server = tuple[dict, str, str, bool, str, Optional[str]]


def _servers(resource: Resource) -> tuple[list[_Server], list[_Server]]:
    """(container, label, engine, takes requests, health path, model) of the servers whose start the rule judges: the
    engines it knows, then GPU model servers no row names."""
    vllm = engine_row("vllm")
    servers: list[_Server] = [
        (
            s.container,
            s.label,
            "vLLM",
            takes_requests(resource, s.path, s.container),
            vllm.readiness if vllm else "/health",
            served_model(s),
        )
        for s in vllm_servers(resource)
        # A ServingRuntime supplies the probes of a predictor `model`; its own resource shows them.
        if not s.runtime_merged
    ]
    # Every engine of the table that answers no health request until the weights are loaded (loads_before_serving,
    # components/serving_engines.toml).
    for s in table_servers(resource):
        if s.row is None:
            continue
        if s.row.loads_before_serving:
            # Not one that starts with no model loaded (Triton's --model-control-mode=explicit without --load-model):
            # its models load later through its API, after the probes pass.
            if loads_no_model_at_start(s) is not None:
                continue
            engine = s.row.display
        elif preload := loads_at_start(s):
            # An engine that listens with no model loaded unless told to fetch some first (the row's start_loads:
            # LocalAI's LOCALAI_PRELOAD_MODELS, mudler/LocalAI v4.9.0 core/cli/run.go L756-810: the server listens only
            # after application.New() has applied the preloads).
            engine = f"{s.row.display} (with {preload} it fetches models before it listens)"
        else:
            continue  # it listens at once and loads on demand (Ollama, LocalAI with nothing to preload)
        servers.append((s.container, s.label, engine, takes_requests(resource, s.path, s.container), s.row.readiness, s.model))
    # A GPU model server no engine row names (GPU_SERVER: a custom server.py, an in-house server): how it loads is
    # unknown, so what is said of it rests on the assumption that it loads a model before serving (unproven: advisory).
    unknown: list[_Server] = [
        (s.container, s.label, "the model server", takes_requests(resource, s.path, s.container), _health(s.container), None)
        for s in model_servers(resource)
        if s.engine == GPU_SERVER
    ]
    # A KServe runtime's container running one of KServe's own servers that loads the model before it listens
    # (components/kserve_runtimes.toml [[loads_first]]): advice, since an InferenceService may override its probes
    # (spent set 109 sgleser/rhoai-model-serving kserve-huggingfaceserver/huggingface-backend/servingruntime.yaml).
    if split_type(resource.type)[1] in RUNTIME_KINDS:
        judged = {id(u[0]) for u in unknown}
        for path, podspec in pod_specs(resource):
            for c in containers(podspec):
                if id(c) not in judged and (why := loads_first(c)) is not None:
                    unknown.append((c, container_label(path, c), f"the server ({why})", True, _health(c), None))
    return servers, unknown


# Where an LLMInferenceServiceConfig holds pod templates, and the container KServe runs the model in (kserve v0.16.0
# pkg/controller/v1alpha1/llmisvc/workload_storage.go:99 and :133 mount the model into the container named "main").
_LLMISVC_PODS = ("template", "worker", "prefill.template", "prefill.worker")


def _liveness_holders(resource: Resource) -> list[tuple[str, dict]]:
    """(label, container) of every model server whose livenessProbe the window check judges: each model server of
    the resource's pod templates (any engine), and for an LLMInferenceServiceConfig (a partial spec no pod rule reads
    alone) the main or GPU container of each pod template it states, which every service built on it inherits."""
    if resource.type not in LLMISVC_CONFIG_TYPES:
        return [(s.label, s.container) for s in model_servers(resource) if not getattr(s, "runtime_merged", False)]
    found = []
    for path in _LLMISVC_PODS:
        pod: object = get(resource.props, "spec")
        for step in path.split("."):
            pod = as_dict(pod).get(step)
        for container in as_list(as_dict(pod).get("containers")):
            gpu = get(container, "resources", "limits", "nvidia.com/gpu")
            if isinstance(container, dict) and (container.get("name") == "main" or gpu):
                found.append((container_label(f"spec.{path}.spec", container), container))
    return found


def _liveness_window(label: str, container: dict, maximum: int, budget: int) -> Optional[str]:
    """Advice when the container's livenessProbe restarts a wedged server only after more than ``maximum`` seconds."""
    liveness = container.get("livenessProbe")
    if not isinstance(liveness, dict) or _unknown_field(liveness):
        return None
    window = _budget(liveness)
    if window <= maximum:
        return None
    delay, failures, period = (_probe_field(liveness, k) for k in ("initialDelaySeconds", "failureThreshold", "periodSeconds"))
    wait = (
        "its startupProbe already waits for the load, so keep the liveness window to minutes"
        if isinstance(container.get("startupProbe"), dict)
        else f"wait for the load with a startupProbe (a budget of at least {budget}s) and keep the liveness window to minutes"
    )
    return unproven(
        f"{label}: livenessProbe restarts a wedged server only after {window}s (initialDelaySeconds {delay} + "
        f"failureThreshold {failures} × periodSeconds {period}, about {window / 3600:.1f} h): a hung engine keeps its "
        f"GPUs and its Service endpoint that long, so the probe is effectively off; {wait}"
    )


def _sidecar_startup(resource: Resource, container: dict) -> bool:
    """True when another container of the server's pod runs a startupProbe on the server's port (a declared
    containerPort or its engine's): the pod's start is then gated on the server answering (spent set 39 trap,
    arunudaiyar/openweb-ollama-k8s ollama-deploy.yaml: a curl sidecar probing Ollama's :11434)."""
    servers = {id(s.container): s for s in model_servers(resource)}
    row = engine_row(servers[id(container)].engine) if id(container) in servers else None
    ports = server_ports(container, row.port if row else None)
    return any(
        any(c is container for c in as_list(podspec.get("containers")))
        and sidecar_probe(podspec, container, "startupProbe", ports) is not None
        for _, podspec in pod_specs(resource)
    )


def _floors(resource: Resource) -> dict[int, float]:
    """The shortest start of each table engine's container whose row states its own (load_floor_seconds: TEI loads an
    embedding model with no compile or graph capture, so no fixed minimum holds)."""
    return {
        id(s.container): float(s.row.load_floor_seconds)
        for s in table_servers(resource)
        if s.row and s.row.load_floor_seconds >= 0
    }


def _download_floors(resource: Resource, gib_per_s: float) -> dict[int, tuple[str, float, float]]:
    """(model, GiB, seconds) of each server's start that downloads a checkpoint of known size from the Hub: the
    download at ``gib_per_s`` plus LOAD_FLOOR_SECONDS and the load at FASTEST_LOAD_GIB_PER_S."""
    if gib_per_s <= 0:
        return {}
    found: dict[int, tuple[str, float, float]] = {}
    vllm = engine_row("vllm")
    pairs = [(s.container, vllm, served_model(s)) for s in vllm_servers(resource)]
    pairs += [(s.container, s.row, s.model) for s in table_servers(resource) if s.row is not None]
    for container, row, model in pairs:
        if row is None or not isinstance(model, str) or fetches(row, model) != model or hub_offline(row, container):
            continue
        size = checkpoint_estimate_gib(model)
        if size:
            found[id(container)] = (model, size, size / gib_per_s + _load_floor(model))
    return found


def _download_message(label: str, what: str, budget: int, download: tuple[str, float, float], rate: float) -> str:
    model, size, seconds = download
    return unproven(
        f"{label}: {what} is {budget}s, while the server downloads {model} (about {size:.0f} GiB) from the Hub at "
        f"start: at {rate:g} GiB/s the download and load alone take about {seconds / 60:.0f} min, so on a node whose "
        f"cache is empty the container is restarted mid-download, again and again; give the startupProbe a budget of "
        f"at least {int(seconds)}s, or pre-stage the weights (an init container, a volume that holds them)"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    minimum = int(config["minBudgetSeconds"])
    floors = _floors(resource)
    rate = float(config.get("assumedDownloadGiBps", HUB_DOWNLOAD_GIB_PER_SECOND))
    downloads = _download_floors(resource, rate)
    maximum = int(config["maxLivenessWindowSeconds"])
    stretched = {}
    for label, container in _liveness_holders(resource):
        if (message := _liveness_window(label, container, maximum, minimum)) is not None:
            stretched[id(container)] = message
    messages = list(stretched.values())
    servers, unknown = _servers(resource)
    known = len(servers)
    # The probe path each message names is the engine's readiness endpoint (components/serving_engines.toml readiness):
    # it answers only once the model is loaded, which is what a startup budget waits for.
    for i, (container, label, engine, front, health, model) in enumerate(servers + unknown):
        said = str if i < known else unproven
        startup = container.get("startupProbe")
        if not isinstance(startup, dict):
            liveness = container.get("livenessProbe")
            if id(container) in stretched:
                continue  # a liveness window of hours kills no load; what it does say is above
            if isinstance(liveness, dict):
                message = (
                    f"{label}: livenessProbe without a startupProbe restarts the pod while "
                    f"{engine} is still loading the model; add a startupProbe on GET {health} "
                    f"with a budget of at least {minimum}s"
                    + (" (an engine no row of the engine table names: advisory)" if engine == "the model server" else "")
                )
                # A liveness probe whose own first failure comes after the budget (initialDelaySeconds + failureThreshold
                # x periodSeconds) does not kill the load: silent (a startupProbe would be the neater form, not a fix).
                # Below minBudgetSeconds the restart rests on the assumed load time (how long this model takes is not in
                # the manifest: session 24 review F6, an 8B model from a local volume under a 330 s window); only a
                # window no model server's load and compile fits (LOAD_FLOOR_SECONDS, Kubernetes' default 30 s among
                # them) proves it.
                window = _budget(liveness)
                if _restart_at(liveness) >= minimum and not _unknown_field(liveness):
                    download = downloads.get(id(container))
                    if download is not None and _restart_at(liveness) < download[2]:
                        what = f"no startupProbe, and the livenessProbe's first restart comes at {_restart_at(liveness)}s"
                        messages.append(_download_message(label, what, _restart_at(liveness), download, rate))
                    continue  # its restart comes after the whole budget: nothing is killed mid-load (set 39 trap)
                messages.append(
                    said(message)
                    if window < floors.get(id(container), LOAD_FLOOR_SECONDS) and not _unknown_field(liveness)
                    else unproven(message)
                )
            elif said is unproven:
                continue  # an unknown engine may serve at once: no probe at all is not proven wrong
            elif front and not _sidecar_startup(resource, container):
                # Only a pod that takes requests needs one: a rank its group's leader fronts (takes_requests) with no
                # probe at all is restarted by nothing mid-load, and the leader's startupProbe holds the group back.
                # With no livenessProbe nothing restarts the pod mid-load either (the readiness probe keeps traffic off
                # it, serving-readiness-probe's check): a startupProbe guards a liveness probe added later. Advice.
                messages.append(
                    unproven(
                        f"{label}: no startupProbe; {engine} serves nothing until the model is "
                        f"downloaded, loaded and compiled, so add a startupProbe on GET {health} "
                        f"with a budget of at least {minimum}s"
                    )
                )
        elif not _unknown_field(startup):
            delay, failures, period = (
                _probe_field(startup, k) for k in ("initialDelaySeconds", "failureThreshold", "periodSeconds")
            )
            budget = delay + failures * period
            if budget < minimum:
                message = (
                    f"{label}: startupProbe budget is {budget}s (initialDelaySeconds {delay} "
                    f"+ failureThreshold {failures} × periodSeconds {period}), below the "
                    f"minimum {minimum}s for model download, weight load and compile"
                )
                floor = _load_floor(model, floors.get(id(container), LOAD_FLOOR_SECONDS))
                # Between the fastest load any server makes of this model and minBudgetSeconds, whether the start fits
                # depends on storage and network the manifest does not show: advice, as for a liveness window.
                messages.append(said(message) if budget < floor else unproven(f"{message} (a start this fast is possible)"))
            elif (download := downloads.get(id(container))) is not None and budget < download[2]:
                what = f"startupProbe budget (initialDelaySeconds {delay} + failureThreshold {failures} x periodSeconds {period})"
                messages.append(_download_message(label, what, budget, download, rate))
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
        "assumedDownloadGiBps": {
            "type": "number",
            "minimum": 0,
            "default": HUB_DOWNLOAD_GIB_PER_SECOND,
            "description": (
                "Download rate from the Hugging Face Hub, in GiB/s, assumed when a server downloads a checkpoint of "
                "known size at start; default 0.5, the planner's own figure (components/capacity/layout.py "
                "HUB_DOWNLOAD_GIB_PER_SECOND). A startup budget shorter than that download plus the load is advice; 0 "
                "turns the check off."
            ),
        },
        "maxLivenessWindowSeconds": {
            "type": "integer",
            "minimum": 0,
            "default": 3600,
            "description": (
                "Longest livenessProbe window (initialDelaySeconds + failureThreshold x periodSeconds) in seconds before "
                "a wedged server is restarted; default 3600 (an hour). A longer one is advice: the probe is effectively "
                "off, and a startupProbe is the way to wait for the load."
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
