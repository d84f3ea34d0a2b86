"""G4: a model server needs a readinessProbe.

Without one, the pod joins the Service as soon as the container starts, minutes before the
engine has loaded its weights, and it stays there after the engine dies: vLLM's `/health`
returns 503 once the engine is gone, but nothing asks it.

A readinessProbe that GETs a port the server does not listen on never succeeds, so the pod never becomes Ready.
That is proven only where the engine table gives the server's port setting (components/serving_engines.toml
``port``: vLLM and SGLang read ``--port``, defaulting to the row's port), the pod has no other container that could
listen there (probes reach the pod's shared network namespace), and nothing else completes the server's command
line (a KServe predictor ``model`` gets its runtime's args; an operator's custom resource its operator's; a variable
split into options, `$EXTRA_ARGS` or a script's `"$@"`, may carry ``--port``).

A readinessProbe another container of the pod runs on the server's port (a declared containerPort or the engine's
port: httpGet, tcpSocket, or an exec curl of localhost:PORT) counts: the pod is Ready only when every container is, so
it holds the pod out of the Service until the server answers (policies/reading/pod_probes.py; spent set 39
arunudaiyar/openweb-ollama-k8s ollama-deploy.yaml, a curl sidecar probing Ollama's :11434).

Where an operator fills a missing readinessProbe in (policies/operator_defaults.py) with a TCP check of the port
(KServe's kserve-container, Knative's serving container) and the engine listens while it loads its model (the engine
row's ``listens_while_loading``: llama.cpp's llama-server answers 503 on /health meanwhile) with no startupProbe to
hold Ready back, the supplied probe passes before the model is loaded: advice (a fresh-set form of session 47, a KServe
ServingRuntime running llama-server with no readiness or startup probe).

A serving-path app in front of model servers (an LLM proxy or router: components/serving_apps.toml, LiteLLM's proxy
first) with no readinessProbe is advice too: every request goes through it, and it takes requests before it has read
its configuration (LiteLLM: /health/readiness answers once the proxy is ready, its database connection included). So
is one whose readinessProbe GETs a path the app answers as soon as its process runs (the apps table's ``alive_only``:
LiteLLM's /health/liveliness, BerriAI/litellm litellm/proxy/health_endpoints/_health_endpoints.py@1376cc50,
health_liveliness) where its readiness path checks more (``readiness_env``/``readiness_config``: LiteLLM's checks the
database DATABASE_URL or general_settings.database_url configures; with none both answer alike, and the config is
loaded before the server answers any path): Ready while the database is unreachable.

A readinessProbe that succeeds whether or not the server answers (an exec that only imports modules, ``true``,
``echo``: policies/reading/pod_probes.py inert_exec) is advice as a missing one (session 55, spent set 118), and
silent as a missing one where another container's readinessProbe asks the server's port (review55a: set 39's sidecar).

A chat UI run from its publisher's image (components/chat_uis.toml: Open WebUI, GET /health on 8080) with no
readinessProbe is advice too: users reach it through its Service and route before it has started.

A readinessProbe that runs only every few minutes (``periodSeconds`` above maxReadinessPeriodSeconds, default 60)
answers late both ways: the kubelet marks the pod Ready only at a probe run, so a server that finished loading just
after one waits up to a whole period more before the Service sends it anything (every scale-out and restart that
much longer), and an engine that dies is taken out of the Service only after failureThreshold (default 3) x
periodSeconds (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#configure-probes:
periodSeconds "How often (in seconds) to perform the probe", default 10). Spent set 41
AurelioAguirre/multi-model-orchestrator k8s/inference/vllm-deployment.yaml (periodSeconds 300, label filed none) and
amirhnajafiz/file-access-patterns k8s/vllm.yaml (300). Advice: the pod does become Ready.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, is_custom_type, split_type, viewed_resources
from policies.operator_defaults import supplied, tcp_readiness_supplied
from policies.reading.container_env import env_values, unset_port
from policies.reading.gateway_apps import app_containers
from policies.reading.litellm import mounted_configs
from policies.reading.pod_probes import at_port, inert_exec, server_ports, sidecar_probe
from policies.reading.serving import GPU_SERVER, ModelServer, engine_command_line, engine_row, model_servers, takes_requests

# Where a container's whole command line is in the manifest: the core workload kinds and LeaderWorkerSet.
_OWN_COMMAND_LINE = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod", "LeaderWorkerSet"})


def _probe_port(container: Mapping, probe: Mapping) -> Optional[int]:
    """The port an httpGet probe targets, a named port resolved through the container's ports (None if unknown)."""
    port = as_dict(probe.get("httpGet")).get("port")
    if isinstance(port, str) and not port.isdigit():
        named = [p for p in as_list(container.get("ports")) if isinstance(p, dict) and p.get("name") == port]
        port = named[0].get("containerPort") if named else None
    try:
        return int(port) if port is not None and not isinstance(port, bool) else None
    except (TypeError, ValueError):
        return None


def _listening_port(resource: Any, server: ModelServer) -> Optional[tuple[int, str]]:
    """The port the server listens on and how the manifest says so, where the manifest alone proves it."""
    from policies.reading.engines import table_args
    from policies.reading.vllm_args import parse_vllm_args, vllm_command_line

    row = engine_row(server.engine)
    if row is None or "port" not in row.flags or split_type(resource.type)[1] not in _OWN_COMMAND_LINE:
        return None
    if split_type(resource.type)[1] != "LeaderWorkerSet" and is_custom_type(resource.type):
        return None
    if row.name == "vllm":
        line = vllm_command_line(server.container)
        args = parse_vllm_args(line) if line is not None else {}
    else:
        line = engine_command_line(server.container, row)
        args = table_args(server.container, row, line) if line is not None else {}
    if line is None or {"uds", "config", "data-parallel-size", "dp"} & set(args):
        return None  # a socket, a config file or data-parallel ports the flags alone do not show
    if _loose_variable(line, row.model_positional):
        return None  # a variable the shell splits into options (`$EXTRA_ARGS`, `"$@"`) may carry --port
    value = args.get("port")
    if value is None:
        return unset_port(server.container, row) if "port" not in args else None
    try:
        return int(value), f"--{row.flags['port'][0]} {int(value)}"
    except ValueError:
        return None  # an unresolved variable


def _loose_variable(line: list[str], model_positional: bool) -> bool:
    """True when the command line holds a variable that is not an option's value (nor the positional model):
    `vllm serve $MODEL $EXTRA_ARGS`, `$(EXTRA_ARGS)` from an envFrom ConfigMap, the script's `"$@"` (the args after
    `sh -c SCRIPT --`): the shell or the kubelet turns it into options at run time, a `--port` among them."""
    from policies.reading.vllm_args import positional_tokens

    if any("$@" in t or "${@}" in t or "$*" in t for t in line):
        return True
    loose = positional_tokens(line)
    if model_positional and loose and loose[0][0] == 0:
        loose = loose[1:]  # `vllm serve $MODEL`: the first positional token is the model
    return any("$" in token for _, token in loose)


def _wrong_port(resource: Any, server: ModelServer) -> Optional[str]:
    """The message for a readinessProbe on a port the server does not listen on, or None."""
    probe = server.container.get("readinessProbe")
    if not isinstance(probe, dict) or "httpGet" not in probe:
        return None
    others = [
        c
        for key in ("containers", "initContainers")
        for c in as_list(server.podspec.get(key))
        if isinstance(c, dict) and c is not server.container and (key == "containers" or c.get("restartPolicy") == "Always")
    ]
    port, listening = _probe_port(server.container, probe), _listening_port(resource, server)
    if others or port is None or listening is None or port == listening[0]:
        return None
    row = engine_row(server.engine)
    name = row.display if row else server.engine
    return (
        f"{server.label}: readinessProbe GETs port {port}, but {name} listens on {listening[0]} ({listening[1]}) and "
        f"nothing else in the pod does, so the probe never succeeds and the pod never becomes Ready; probe port "
        f"{listening[0]}"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    from policies.reading.lws_groups import presumed_servers, weighed_presumed

    for server in model_servers(resource) + presumed_servers(resource):
        if server.engine == "kserve":
            continue  # the ServingRuntime supplies the probes of a predictor `model`
        if not takes_requests(resource, server.path, server.container):
            continue  # a rank of an engine its group's leader fronts (LeaderWorkerSet worker, vLLM --headless)
        if supplied(resource, server.path, server.podspec, server.container, "readinessProbe"):
            # the operator gives the pod one (KubeRay, Knative: policies/operator_defaults.py); a TCP one passes while a
            # server that listens during its load answers "loading" (llama.cpp under a ServingRuntime)
            if early_tcp := _supplied_tcp_early(resource, server):
                messages.append(early_tcp)
            continue
        if wrong := _wrong_port(resource, server):
            messages.append(wrong)
        elif early := _ready_before_pull(server):
            messages.append(early)
        elif slow := _slow_readiness(server, int(config.get("maxReadinessPeriodSeconds", _MAX_READINESS_PERIOD))):
            messages.append(slow)
        elif (inert := inert_exec(server.container.get("readinessProbe"))) is not None or not isinstance(
            server.container.get("readinessProbe"), dict
        ):
            # A TCP readiness on a server that listens while it loads is readiness-waits-for-model's (G6).
            # The engine's own readiness endpoint and port (components/serving_engines.toml readiness, port).
            row = engine_row(server.engine)
            ports = server_ports(server.container, row.port if row else None)
            if sidecar_probe(server.podspec, server.container, "readinessProbe", ports):
                # another container's readinessProbe on the server's port gates the pod (set 39 trap), whether the
                # server's own probe is missing or cannot fail: the pod is Ready only when every container is
                continue
            probe = f"probe GET {row.readiness}{at_port(row)}" if row else "probe its health endpoint"
            if inert is None:
                messages.append(weighed_presumed(server, _no_readiness(server.label, server.engine, server.container, probe)))
                continue
            messages.append(
                weighed_presumed(
                    server,
                    unproven(
                        f"{server.label}: readinessProbe only runs `{inert}`, which succeeds whether or not the server "
                        f"answers, so the pod is Ready before the model is loaded and stays Ready after the server "
                        f"stops answering; {probe}"
                    ),
                )
            )
    messages.extend(_unready_apps(resource))
    messages.extend(_unready_uis(resource))
    return messages


def _unready_uis(resource: Resource) -> list[str]:
    """Advice on a chat UI run from its publisher's image (components/chat_uis.toml: Open WebUI, GET /health on 8080)
    with no readinessProbe: its Service, and the route or ingress in front, send users to it as soon as the container
    runs, while it still migrates its database and loads its settings, and keep sending them after it fails (session
    48: an Open WebUI Deployment behind a route with no probe)."""
    from policies.kube import container_label, containers, pod_specs
    from policies.reading.chat_ui_backends import ui_app

    found: list[str] = []
    servers = {id(s.container) for s in model_servers(resource)}  # a bundled image's server is judged as one
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            app = ui_app(container)
            if app is None or isinstance(container.get("readinessProbe"), dict) or id(container) in servers:
                continue
            if sidecar_probe(podspec, container, "readinessProbe", server_ports(container, app.port or None)):
                continue
            probe = f"probe GET {app.health} (port {app.port} unless moved)" if app.health else "probe its health endpoint"
            found.append(
                unproven(
                    f"{container_label(path, container)}: no readinessProbe on this {app.display}, so its Service sends "
                    f"users to it before it has started (database migrations, settings) and after it fails; {probe}"
                )
            )
    return found


def _supplied_tcp_early(resource: Any, server: ModelServer) -> Optional[str]:
    """Advice where an operator gives a server with no readinessProbe a TCP one (KServe's kserve-container, Knative's
    serving container) and the server listens while it loads its model (the engine row's listens_while_loading:
    llama.cpp's llama-server answers 503 on /health meanwhile): the pod is Ready, and takes requests, before the model
    is loaded. A fresh-set form: a KServe ServingRuntime running llama-server with no readiness or startup probe.

    A GPU model server no engine row names (GPU_SERVER) may bind before it loads, or not: the advice says what the TCP
    check does and what it cannot tell (spent set 54 explicitworkload/llamacpp-oai llm/llamacpp/servingruntime.yaml, a
    ServingRuntime's in-house llama.cpp image on amd.com/gpu; set 87 brianlechthaler/llama-k8s
    generator/generator-a40-knative-serving.yml, a Knative Service whose gunicorn app fetches and loads its model
    after the bind; both labelled G4)."""
    row = engine_row(server.engine)
    if isinstance(server.container.get("startupProbe"), dict):
        return None  # a startupProbe holds Ready back until it succeeds (its own budget is S16's)
    if server.engine != GPU_SERVER and (row is None or not row.listens_while_loading):
        return None
    operator = tcp_readiness_supplied(resource, server.path, server.podspec, server.container)
    if operator is None:
        return None
    who = operator.split(" (", 1)[0]
    if row is None:
        return unproven(
            f"{server.label}: no readinessProbe on this GPU model server, so {who} gives it a TCP one on its port, "
            f"which passes as soon as the port accepts connections, whether or not the model is loaded: a server "
            f"that binds its port before it has fetched and loaded its model (a web server whose workers load it "
            f"after the bind, one that answers 'loading') is Ready and receives requests during every load; probe "
            f"an HTTP path that answers only once the model is loaded"
        )
    return unproven(
        f"{server.label}: no readinessProbe on this {row.display} container, so {who} gives it a TCP one on its port, "
        f"which passes as soon as the server listens; {row.display} listens while it loads the model and answers "
        f"{row.readiness} with a failure code until it is loaded, so the pod is Ready and receives requests it "
        f"cannot answer during every load; probe GET {row.readiness}{at_port(row)}"
    )


def _unready_apps(resource: Resource) -> list[str]:
    """Advice on a serving-path app (a LiteLLM proxy, a router: components/serving_apps.toml) with no readinessProbe:
    every client request goes through it, and without one the Service sends requests as soon as its container runs,
    before it has read its configuration or reached its database, and keeps sending them after it fails (spent sets 53
    danielpenchev98/vllm-k8s and 54 explicitworkload/llamacpp-oai, LiteLLM proxies with no probe at all)."""
    found: list[str] = []
    for proxy in app_containers(resource):
        probe_spec = proxy.container.get("readinessProbe")
        if isinstance(probe_spec, dict):
            checks_more = readiness_checks_more(proxy.podspec, proxy.container, proxy.app)
            if alive := _alive_only_readiness(proxy.label, proxy.app, probe_spec, checks_more):
                found.append(alive)
            continue
        ports = server_ports(proxy.container, proxy.app.port or None)
        if sidecar_probe(proxy.podspec, proxy.container, "readinessProbe", ports):
            continue
        app = proxy.app
        where = f" (port {app.port} unless moved)" if app.port else ""
        probe = f"probe GET {app.readiness}{where}" if app.readiness else "probe its health endpoint"
        found.append(
            unproven(
                f"{proxy.label}: no readinessProbe on this {app.display}, which every model request goes through, so it "
                f"receives requests before it has loaded its configuration and after it fails; {probe}"
            )
        )
    return found


def readiness_checks_more(podspec: Mapping, container: Mapping, app: Any) -> bool:
    """True when the app's readiness path checks more than its alive_only paths in this container: the row names
    nothing that makes it (``readiness_env``/``readiness_config`` empty), or the container sets one of those variables
    (``env`` by name, whatever its source; an ``envFrom`` ConfigMap or Secret of the files holding it) or mounts a
    config of the files setting one of those keys. LiteLLM with no database: /health/readiness answers as
    /health/liveliness does (components/serving_apps.toml; review 49 item 5)."""
    if not app.readiness_env and not app.readiness_config:
        return True
    wanted = set(app.readiness_env)
    if any(isinstance(e, dict) and isinstance(e.get("name"), str) and e["name"] in wanted for e in as_list(container.get("env"))):
        return True
    if wanted & set(env_values(container)) or wanted & _secret_env_names(container):
        return True
    for _, config in mounted_configs(podspec, container) if app.readiness_config else ():
        for key in app.readiness_config:
            value: Any = config
            for part in key.split("."):
                value = as_dict(value).get(part)
            if value not in (None, ""):
                return True
    return False


def _secret_env_names(container: Mapping) -> set[str]:
    """The variable names an ``envFrom: secretRef`` gives the container from a Secret of the files (with its prefix)."""
    names: set[str] = set()
    refs = [as_dict(as_dict(s).get("secretRef")) for s in as_list(container.get("envFrom"))]
    refs = [r for r in refs if isinstance(r.get("name"), str)]
    if not refs:
        return names
    for r in viewed_resources() or ():
        if split_type(getattr(r, "type", "")) != ("", "Secret") or not isinstance(r.props, dict):
            continue
        keys = {*as_dict(r.props.get("data")), *as_dict(r.props.get("stringData"))}
        for ref in refs:
            if as_dict(r.props.get("metadata")).get("name") == ref["name"]:
                prefix = ref.get("prefix") if isinstance(ref.get("prefix"), str) else ""
                names |= {f"{prefix}{k}" for k in keys if isinstance(k, str)}
    return names


def _alive_only_readiness(label: str, app: Any, probe: Mapping, checks_more: bool = True) -> Optional[str]:
    """Advice on a serving-path app whose readinessProbe GETs a path the app answers as soon as its process runs (the
    row's ``alive_only``: LiteLLM's /health/liveliness and /health/liveness return a constant text with no check, while
    /health/readiness checks the database connection and answers 503 on failure:
    BerriAI/litellm litellm/proxy/health_endpoints/_health_endpoints.py@1376cc50f5a5ad69c2491ec926115a30283fa9d2,
    health_liveliness and health_readiness). The pod is Ready, and takes requests, while the app cannot serve them
    (spent set 63: a LiteLLM Deployment probing /health/liveliness for readiness). LiteLLM's ``/`` is its Swagger docs
    page (litellm 1.55.0 wheel proxy/utils.py:2869-2885 _get_docs_url: DOCS_URL, else "/" unless NO_DOCS=True;
    proxy/proxy_server.py:365 FastAPI(docs_url=...)), served as soon as the process runs (spent set 80
    theepicsaxguy/homelab k8s/applications/ai/litellm/deployment.yaml, readinessProbe path /).

    With nothing configured that the readiness path checks (``checks_more`` false: LiteLLM with no database), the
    readiness path answers as the alive-only one does today (litellm 1.77.7 wheel proxy/health_endpoints/
    _health_endpoints.py:772-787; litellm 1.110.2 wheel :2309-2351, db "Not connected"), so nothing is served
    early; the advice is then that the probe checks nothing and stops meaning readiness once a database is added
    (spent sets 71 yduman/ai-platform-poc litellm-deployment.yaml and 74 nammireddy/litellm-multi-model-gateway
    k8s/litellm-deployment.yaml, both labelled G4 with no database)."""
    if isinstance(probe.get("tcpSocket"), dict) and not isinstance(probe.get("httpGet"), dict):
        return _tcp_readiness(label, app) if checks_more and app.readiness else None
    path = as_dict(probe.get("httpGet")).get("path")
    if not isinstance(path, str) or (path.split("?", 1)[0].rstrip("/") or "/") not in app.alive_only:
        return None
    better = f"; probe GET {app.readiness}" if app.readiness else ""
    what = "its API docs page, which" if path.split("?", 1)[0].rstrip("/") == "" else "a liveness endpoint that"
    if not checks_more:
        where = f"{app.readiness} " if app.readiness else "its readiness path "
        return unproven(
            f"{label}: readinessProbe GETs {path}, {what} {app.display} answers without any check; with no database "
            f"configured {where}answers alike for now, but it is the path that checks the database once one is "
            f"configured, so this probe will keep the pod Ready while a database added later is unreachable{better}"
        )
    return unproven(
        f"{label}: readinessProbe GETs {path}, {what} {app.display} answers without checking the "
        f"database it is configured with, so the pod stays Ready and receives requests while that database is "
        f"unreachable{better}"
    )


def _tcp_readiness(label: str, app: Any) -> str:
    """Advice on a serving-path app whose readinessProbe is a tcpSocket check while its readiness path checks more than
    that the process listens (the row's ``readiness`` with ``readiness_env``/``readiness_config`` set in this
    container): the port accepts connections as soon as the server binds, so the pod is Ready while the database it is
    configured with is unreachable. LiteLLM: /health/readiness answers 503 when the configured database fails (litellm
    1.77.7 wheel proxy/health_endpoints/_health_endpoints.py:772-787 health_readiness). Spent set 93
    lancerzhang/Open-LiteVertex k8s/litellm.yaml (tcpSocket 4000 beside DATABASE_URL from a Secret)."""
    return unproven(
        f"{label}: readinessProbe is a tcpSocket check, which passes as soon as {app.display} listens, before the "
        f"database it is configured with answers, so the pod is Ready and receives requests it cannot serve while that "
        f"database is unreachable; probe GET {app.readiness}"
    )


# Longest readinessProbe period before advice (the setting's default; a caller of the check function alone gets it).
_MAX_READINESS_PERIOD = 60

# Ollama paths that answer 200 as soon as the server listens, whatever models it holds (ollama/ollama v0.32.15
# server/routes.go:1877-1880 "/" and /api/version, :1886-1887 and :1632-1645 /api/tags lists the local models).
_OLLAMA_UP = ("/", "/api/tags", "/api/version")


def _ready_before_pull(server: ModelServer) -> Optional[str]:
    """Advice for an Ollama server that pulls its model beside `ollama serve` and is Ready by a path that answers
    before the pull ends, or by a tcpSocket check (it passes once the server listens): requests for the model fail
    ("model not found") while it downloads (spent set 84 asifkhan03/ollamaverse K8S-Manifests/python/
    ollama-smollm2.yaml and ollama-tinyllama.yaml: `ollama serve &` then `ollama run MODEL`, tcpSocket 11434)."""
    probe = as_dict(server.container.get("readinessProbe"))
    path = as_dict(probe.get("httpGet")).get("path")
    if server.engine != "ollama" or (path not in _OLLAMA_UP and not isinstance(probe.get("tcpSocket"), dict)):
        return None
    from policies.reading.ollama_pulls import pulls_while_serving

    models = pulls_while_serving(server.container, server.podspec)
    if not models:
        return None
    how = f"GET {path} answers 200" if path in _OLLAMA_UP else "tcpSocket passes"
    return unproven(
        f"{server.label}: readinessProbe {how} as soon as ollama serve listens, but the container pulls "
        f"{', '.join(models)} beside it, so the pod is Ready and receives requests that fail with 'model not found' "
        f"until the pull ends; probe with an exec command that checks the model (ollama show MODEL), or pull in an "
        f"init container"
    )


def _slow_readiness(server: ModelServer, maximum: int) -> Optional[str]:
    """Advice for a readinessProbe that runs less often than every ``maximum`` seconds (module docstring)."""
    probe = server.container.get("readinessProbe")
    if not isinstance(probe, dict):
        return None
    period, failures = as_int(probe.get("periodSeconds")), as_int(probe.get("failureThreshold", 3))
    if period is None or period <= maximum or failures is None or failures < 1:
        return None
    delay = as_int(probe.get("initialDelaySeconds", 0)) or 0
    first = f"first at initialDelaySeconds {delay}s, then every {period}s" if delay else f"every {period}s"
    return unproven(
        f"{server.label}: readinessProbe periodSeconds {period} (probed {first}): the pod becomes Ready only at a "
        f"probe run, so a server that has loaded its model waits up to {period}s more before the Service sends it "
        f"requests (each scale-out and restart that much longer), and a failed engine keeps receiving requests for "
        f"failureThreshold {failures} x {period}s = {failures * period}s before it leaves the Service; probe every "
        f"5-10s (a startupProbe is what waits for the load)"
    )


def _no_readiness(label: str, engine: str, container: dict, probe: str) -> str:
    """The finding for a server without a readinessProbe. A startupProbe keeps a container un-Ready until it succeeds
    ("all other probes are disabled if a startup probe is provided, until it succeeds", and Ready follows it:
    https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/), so with one the server
    takes no request before its model is loaded; with a livenessProbe beside it a dead engine is restarted within
    the probe's failure window, so what is left (requests sent to it meanwhile) is advice."""
    started = isinstance(container.get("startupProbe"), dict)
    if started and isinstance(container.get("livenessProbe"), dict):
        return unproven(
            f"{label}: no readinessProbe on this {engine} server: its startupProbe holds traffic until it answers, but "
            f"after the engine fails it keeps receiving requests until the livenessProbe restarts it; {probe}"
        )
    when = "after the engine dies" if started else "before the model is loaded and after the engine dies"
    return f"{label}: no readinessProbe on this {engine} server, so it receives requests {when}; {probe}"


POLICY = Policy(
    name="serving-readiness-probe",
    description="Every model-server container (vLLM, SGLang, TGI, Triton, NIM) must have a readinessProbe (advice for a "
    "serving-path app or a chat UI such as Open WebUI without one).",
    catalog="G4",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        "Add `readinessProbe: {httpGet: {path: /health, port: <server port>}, periodSeconds: 5, failureThreshold: 3}` "
        "to the model-server container (SGLang: /health_generate or /health; TGI: /health; Triton: /v2/health/ready)."
    ),
    config_schema={
        "maxReadinessPeriodSeconds": {
            "type": "integer",
            "minimum": 1,
            "default": _MAX_READINESS_PERIOD,
            "description": (
                "Longest readinessProbe periodSeconds before advice; default 60: a pod becomes Ready only at a probe "
                "run and a failed engine leaves the Service after failureThreshold x periodSeconds."
            ),
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a readiness probe",
    rationale=(
        "Kubernetes sends a pod traffic once it is Ready; with no readinessProbe that is as soon as the container "
        "runs (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/). An LLM server "
        "needs minutes to download and load its weights and answers nothing meanwhile, and after an engine failure "
        "vLLM's /health returns 503 while the process stays up (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html). "
        "Polaris, kube-linter, Checkov and Kyverno all have this check; here it applies to the serving container only."
    ),
)
