"""G6: a model server's readiness probe asks the endpoint that waits for its models, not the liveness one.

Where an engine's liveness endpoint answers while its models are not ready (components/serving_engines.toml
``live_before_ready``, ``health`` and ``readiness``: Triton's /v2/health/live and /v2/health/ready, src/http_server.cc
v2.51.0 L1366-1382), a model still loading or one that failed to load does not stop it. A readinessProbe on it makes the pod Ready, and the Service sends it
requests, while the models are still loading: those requests fail. The same holds when the readiness endpoint is
told not to wait (the row's ``lenient_readiness``: Triton's --strict-readiness=false, "/v2/health/ready endpoint
indicates ready if server is responsive even if some/all models are unavailable", triton-inference-server/server
v2.51.0 src/command_line_parser.cc L414-418). vLLM's one /health endpoint answers only once the engine is built,
so identical probes there are expected and never reported.

Two more forms of a readiness that passes with no model, both read from the engine table:

- a server that starts with no model loaded (the row's ``lazy_start`` without its ``start_models`` flag: Triton's
  --model-control-mode=explicit without --load-model, "only models specified with --load-model will be loaded at
  startup", triton-inference-server/server v2.51.0 src/command_line_parser.cc L420-432) is Ready with no model: its
  readiness endpoint counts only the models it has loaded, so every start and every restart comes back Ready and
  takes requests that fail until something calls the load API (spent set 33 all-day-and-night/llm-serve
  k8s/triton/deployment.yaml@1873f15, labelled G6);
- a tcpSocket readinessProbe on a server that listens while it loads its model (the row's ``listens_while_loading``:
  llama.cpp's server answers 503 "Loading model" meanwhile, ggml-org/llama.cpp tools/server/README.md GET /health):
  the connection opens during the load (spent set 33 jansees/llm-test-harness k8s/llamacpp.yaml@9f93e52, labelled G6).

- a server that loads models on request (Ollama) whose store is a claim the files create empty and that nothing in
  the pod or its run fills, probed for readiness on the endpoint that answers as soon as it listens: Ready with no
  model (spent set 42 igfurlan/k3s-llmd-lab manifests/40-ollama.yaml@443808b, labelled G6; policies/reading/
  fresh_store.py).

A serving-path app in front of model servers (components/serving_apps.toml, LiteLLM's proxy) gets two more, read
from the apps table:

- a livenessProbe on the app's readiness path where that path checks a dependency this container configures
  (``readiness``, ``readiness_env``/``readiness_config``: LiteLLM's /health/readiness checks the database DATABASE_URL
  or general_settings.database_url gives, policies/k8s_generic/serving_readiness_probe.py ``readiness_checks_more``):
  a database outage fails liveness on every replica at once and the kubelet restarts them all, where readiness alone
  would take them out of the Service (spent set 84 brianmlasky/serverless-agentic-platform
  k8s/litellm-gateway-deployment.yaml and k8s/litellm/deployment.yaml, labelled G6);
- a liveness or readiness probe on a path that calls every configured model before it answers (the row's
  ``calls_models``: LiteLLM's /health runs a real completion against each model of its model_list, and answers a
  request without the master key with 401 where one is set; PyPI wheel litellm 1.77.7
  proxy/health_endpoints/_health_endpoints.py:412-512, proxy/_types.py:455-469): the probe waits on the providers
  (the kubelet's timeoutSeconds defaults to 1 s), each run spends provider calls, and a provider outage or a key the
  probe does not send fails it (spent set 85 Yusful33/sa-call-analyzer infra/k8s/litellm-deployment.yaml@fbc9abfe).
  Advice: the files do not show how long the providers take, nor whether the key comes from a Secret.

Advice: a request that arrives during the load fails, but the server does start and serve.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.serving_readiness_probe import readiness_checks_more
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, pod_specs
from policies.reading.engine_switches import lenient_readiness, loads_no_model_at_start
from policies.reading.engines import EngineServer, table_servers
from policies.reading.fresh_store import fresh_claim_store
from policies.reading.gateway_apps import app_containers
from policies.reading.pod_probes import at_port
from policies.reading.serving import engine_row, model_servers, takes_requests
from policies.reading.swallowed_fetch import swallowed_fetches

# The path of an http(s) URL in a probe's exec command (curl/wget http://localhost:8000/v2/health/live).
_URL_PATH = re.compile(r"https?://[^/\s\"']+(/[^\s\"'?#]*)")


def probe_path(probe: Mapping) -> Optional[str]:
    """The HTTP path a probe asks: its httpGet path, else the path of the one URL its exec command names."""
    path = as_dict(probe.get("httpGet")).get("path")
    if isinstance(path, str) and path:
        return path
    command = " ".join(str(w) for w in as_list(as_dict(probe.get("exec")).get("command")))
    paths = {m.group(1).rstrip("/") or "/" for m in _URL_PATH.finditer(command)}
    return paths.pop() if len(paths) == 1 else None


def _ready_with_no_model(server: EngineServer) -> Optional[str]:
    """Advice for a server told to load no model at start (the row's ``lazy_start`` without ``start_models``) whose pod
    has a readinessProbe: the readiness endpoint counts only loaded models, so it is Ready with none."""
    lazy, row = loads_no_model_at_start(server), server.row
    if lazy is None or row is None or not isinstance(server.container.get("readinessProbe"), dict):
        return None
    return unproven(
        f"{server.label}: {lazy} with no --{row.start_models} starts {row.display} with no model loaded, and "
        f"{row.readiness} counts only the models it has loaded, so the pod is Ready with no model: every start and "
        f"every restart takes requests that fail until something calls the load API; name the models with "
        f"--{row.start_models}=MODEL (or leave the default mode, which loads the repository at start)"
    )


def _ready_on_empty_claim(resource: Resource, server: EngineServer) -> Optional[str]:
    """Advice for a server that loads models on request (Ollama) whose store is a claim the run creates empty, that
    nothing in the pod or the run fills, and whose readinessProbe asks the endpoint that answers as soon as it listens:
    Ready with no model (policies/reading/fresh_store.py; spent set 42 igfurlan/k3s-llmd-lab manifests/40-ollama.yaml)."""
    row, probe = server.row, as_dict(server.container.get("readinessProbe"))
    path = probe_path(probe) if probe else None
    if row is None or path is None or path.rstrip("/") != row.readiness.rstrip("/"):
        return None
    store = fresh_claim_store(resource, server)
    if store is None:
        return None
    return unproven(
        f"{server.label}: {row.display} keeps its models in {store[0]} on claim {store[1]}, which these files create "
        f"empty (no dataSource), and nothing in the pod or its run pulls one, while the readinessProbe asks {path}, "
        f"which answers as soon as the server listens: the pod is Ready with no model, and every request fails "
        f"(model not found) until someone pulls it by hand; pull the model in the pod (an init container or a "
        f"postStart hook running `ollama pull MODEL` on the same volume), or probe readiness with a request that "
        f"needs the model"
    )


def _tcp_while_loading(resource: Resource) -> list[str]:
    """Advice for a tcpSocket readinessProbe on a server that listens while it loads its model (the engine table's
    ``listens_while_loading``): the connection opens, and the pod is Ready, before the server can answer."""
    found: list[str] = []
    for server in model_servers(resource):
        probe, row = as_dict(server.container.get("readinessProbe")), engine_row(server.engine)
        if row is None or not row.listens_while_loading or not probe.get("tcpSocket"):
            continue
        if probe.get("httpGet") or probe.get("exec"):
            continue
        found.append(
            unproven(
                f"{server.label}: readinessProbe only opens a TCP connection, but {row.display} listens while it loads "
                f"the model and answers it with a failure meanwhile, so the pod is Ready and gets requests that fail "
                f"during the load; probe GET {row.readiness}{at_port(row)}"
            )
        )
    return found


_PROBE_KINDS = ("livenessProbe", "readinessProbe")


def _tcp_blind(resource: Resource) -> list[str]:
    """Advice for tcpSocket liveness or readiness probes on a server whose health endpoint the API server answers after
    asking its engine (the engine table's ``health_sees_engine``: vLLM's GET /health, 503 once the engine is dead): the
    kubelet's tcpSocket check passes once the kernel completes the handshake on the listening port
    (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/ "If it can establish a
    connection, the container is considered healthy"), which it does while the server's event loop is stuck, so such a
    hang restarts nothing and keeps the pod in its Service (spent set 108 xprilion/gemma3-vllm-tpu-gke-autoscaling
    k8s/vllm-deployment.yaml@90aeeae6, labelled G6). Silent for an engine no such row names (where a TCP check may be
    the documented one), a startupProbe (vLLM's port opens only once its HTTP server starts, after the load), and a
    rank with no API server."""
    found: list[str] = []
    does = {"livenessProbe": "restarts nothing", "readinessProbe": "keeps the pod in its Service"}
    for server in model_servers(resource):
        row = engine_row(server.engine)
        if row is None or not row.health_sees_engine or not takes_requests(resource, server.path, server.container):
            continue
        blind = [
            kind
            for kind in _PROBE_KINDS
            if (probe := as_dict(server.container.get(kind))).get("tcpSocket") and not (probe.get("httpGet") or probe.get("exec"))
        ]
        if not blind:
            continue
        found.append(
            unproven(
                f"{server.label}: {' and '.join(blind)} only open{'s' if len(blind) == 1 else ''} a TCP connection, "
                f"which the kernel completes on {row.display}'s listening port whether or not the server answers: a "
                f"stuck API server passes it (GET {row.health} would time out, and answers 503 once the engine is "
                f"dead), so the check {' and '.join(does[k] for k in blind)}; probe GET {row.health}"
                f"{at_port(row)}"
            )
        )
    return found


def _swallowed(resource: Resource) -> list[str]:
    """A model fetch whose failure the pod's script swallows (policies/reading/swallowed_fetch.py): Ready with none."""
    return [
        unproven(
            f"{path}: `{line}` swallows the failure of the model fetch: when the pull fails or times out the script "
            f"goes on (an init container exits 0), so the pod starts and becomes Ready with no model and requests fail "
            f"with model not found; let the failure fail the container (drop the `|| ...`, or end it with exit 1)"
        )
        for path, podspec in pod_specs(resource)
        for line in swallowed_fetches(podspec)
    ]


def _app_probes(resource: Resource) -> list[str]:
    """Advice on a serving-path app's probes (components/serving_apps.toml): a livenessProbe on the readiness path
    that checks the app's database, and a liveness or readiness probe on a path that calls every model (``calls_models``)."""
    found: list[str] = []
    for proxy in app_containers(resource):
        app, container = proxy.app, proxy.container
        paths = {kind: probe_path(as_dict(container.get(kind))) for kind in ("livenessProbe", "readinessProbe", "startupProbe")}
        calling = [k for k, p in paths.items() if p is not None and (p.split("?", 1)[0].rstrip("/") or "/") in app.calls_models]
        if calling:
            path = paths[calling[0]]
            fine = " and ".join(p for p in (app.alive_only[:1] + ((app.readiness,) if app.readiness else ())) if p)
            found.append(
                unproven(
                    f"{proxy.label}: {' and '.join(calling)} GET{'' if len(calling) > 1 else 's'} {path}, which "
                    f"{app.display} answers only after calling every model it is configured with (a real request to "
                    f"each provider), and refuses with 401 without the master key where one is set: each probe spends "
                    f"provider calls and waits on them (timeoutSeconds defaults to 1 s), so a slow or failing provider, "
                    f"or the key, fails the probe and "
                    + ("restarts the proxy" if "livenessProbe" in calling else "takes the proxy out of the Service")
                    + (f"; probe {fine} instead" if fine else "")
                )
            )
        live = paths["livenessProbe"]
        if (
            live is not None
            and app.readiness
            and live.rstrip("/") == app.readiness.rstrip("/")
            and (app.readiness_env or app.readiness_config)
            and readiness_checks_more(proxy.podspec, container, app)
        ):
            alive = f"; probe liveness on {app.alive_only[0]}" if app.alive_only else ""
            found.append(
                unproven(
                    f"{proxy.label}: livenessProbe GETs {live}, {app.display}'s readiness path, which checks the "
                    f"database it is configured with: a database (or database proxy) outage fails liveness on every "
                    f"replica at once and the kubelet restarts them all, where a readinessProbe would only take them "
                    f"out of the Service until it is back{alive}"
                )
            )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = _tcp_while_loading(resource) + _tcp_blind(resource) + _swallowed(resource) + _app_probes(resource)
    for s in table_servers(resource):
        row = s.row
        if (empty := _ready_with_no_model(s) or _ready_on_empty_claim(resource, s)) is not None:
            messages.append(empty)
            continue
        if row is None or row.readiness == row.health:
            continue
        readiness = as_dict(s.container.get("readinessProbe"))
        path = probe_path(readiness) if readiness else None
        if path is None:
            continue  # no readiness probe (G4's finding), or one whose path is not in the manifest
        if path.rstrip("/") == row.health.rstrip("/") and row.live_before_ready:
            same = " (the livenessProbe's too)" if probe_path(as_dict(s.container.get("livenessProbe"))) == path else ""
            messages.append(
                unproven(
                    f"{s.label}: readinessProbe asks {path}{same}, {row.display}'s liveness endpoint, which answers "
                    f"while its models are not ready (still loading, or failed): the pod is Ready and gets requests that "
                    f"fail; "
                    f"probe readiness on {row.readiness}" + (f" and drop {lenient}" if (lenient := lenient_readiness(s)) else "")
                )
            )
        elif path.rstrip("/") == row.readiness.rstrip("/") and (lenient := lenient_readiness(s)):
            messages.append(
                unproven(
                    f"{s.label}: {lenient} makes {row.readiness} answer ready before the models are loaded, so the "
                    f"readinessProbe lets requests in that fail while they load; drop {lenient}"
                )
            )
    return messages


POLICY = Policy(
    name="readiness-waits-for-model",
    description=(
        "A model server whose engine has separate liveness and readiness endpoints (Triton) probes readiness on the one "
        "that waits for its models, and does not tell it not to wait (--strict-readiness=false); a server told to load "
        "no model at start (Triton's --model-control-mode=explicit without --load-model) is Ready with none; a "
        "tcpSocket readiness on a server that listens while it loads (llama.cpp) is Ready before it can answer; a model "
        "fetch whose failure the pod's script swallows (ollama pull MODEL || echo) leaves the pod Ready with no model; a "
        "serving-path app (LiteLLM) probes liveness on a path that does not check its database, and no probe on a path "
        "that calls every model (LiteLLM's /health)."
    ),
    catalog="G6",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Point the readinessProbe at the engine's readiness endpoint (Triton: GET /v2/health/ready) and keep the "
        "liveness probe on the liveness endpoint (/v2/health/live); leave --strict-readiness at its default (true)."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Triton's /v2/health/live answers once the server responds, /v2/health/ready once its models are ready "
        "(triton-inference-server/server src/http_server.cc; --strict-readiness, src/command_line_parser.cc L414-418 at "
        "v2.51.0, default true, command_line_parser.h L114). Kubernetes sends Service traffic to a pod once its "
        "readiness probe passes (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/)."
    ),
)
