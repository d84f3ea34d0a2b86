"""G94 proxy-streams-model-replies: a reverse proxy in front of a model API passes a streamed reply on as it comes.

A model API streams a generation (``stream: true``: server-sent events, one per token or chunk). A reverse proxy that
buffers the backend's reply holds those events and passes them on in bursts or at the end, so a chat client sees no
token for seconds and then a block; the components/stream_buffering.toml rows say which proxies buffer by default:

* nginx buffers unless ``proxy_buffering off`` is set in the location or the server/http block around it (nginx/nginx
  release-1.31.4 src/http/modules/ngx_http_proxy_module.c:3704-3705); a backend's ``X-Accel-Buffering: no`` response
  header switches it off for that reply (src/http/ngx_http_upstream.c:322-323), which Text Generation Inference sends
  on its streams (huggingface/text-generation-inference v3.3.7 router/src/server.rs:530), so an nginx location
  straight in front of TGI is left alone. The configuration is read from the ConfigMaps an nginx/OpenResty container
  mounts (policies/reading/nginx_conf.py proxy_locations).
* ingress-nginx does not buffer by default (kubernetes/ingress-nginx controller-v1.15.1
  internal/ingress/controller/config/config.go:882); an Ingress annotated ``nginx.ingress.kubernetes.io/proxy-buffering:
  "on"`` turns it on for its paths.

A location or Ingress backend counts as a model API when its Service selects a model server of the engine table or a
serving-path app (components/serving_apps.toml), or a workload whose environment (literal, or from a ConfigMap of the
files: policies/reading/container_env.py) addresses such a Service by URL or host name, a hop the rule follows three
times (an orchestrator in front of an LLM microservice in front of the model: spent set 76
opea-project/GenAIExamples CodeTrans/kubernetes/intel/cpu/xeon/manifest/codetrans.yaml, nginx ``location /v1/codetrans``
to the codetrans megaservice, to llm-uservice, to TGI; label filed NONE). Chat UIs are not followed (what they stream
is their own protocol). A location that proxies to the pod's loopback (``127.0.0.1``, ``localhost``, ``[::1]``) on the
port a model server container of the same pod declares is in front of that server (an nginx sidecar keeping an API
key in front of Ollama: spent set 88 20206205Tech/gitops-argocd@76f37441cd8b6401482830c90056398c93ba6d4a
k8s/temp/ollama.yaml). Advice: a client that never asks for a stream is not delayed, and a backend may send
X-Accel-Buffering: no itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from components.stream_buffering import PROXIES, UNBUFFERED_ENGINES
from policies.framework import Policy, Resource
from policies.ingress.internet_facing_alb_guarded import INGRESS_TYPES
from policies.kube import (
    annotations_of,
    as_int,
    as_list,
    container_label,
    containers,
    get,
    metadata_name,
    pod_specs,
    split_type,
)
from policies.reading import route_path as path
from policies.reading.model_callers import model_facing
from policies.reading.mounted_scripts import mounted_config_files
from policies.reading.nginx_conf import holding_config_map, is_nginx, proxy_locations
from policies.reading.serving import model_servers

_INGRESS_BUFFERING = "nginx.ingress.kubernetes.io/proxy-buffering"


def _pod_servers(w: Resource, where: str, ports: tuple[int, ...]) -> list[str]:
    """How a message names each model server of the nginx container's own pod listening on one of the loopback ports
    a location proxies to (a server that declares no port is taken at its word of none: not matched), where its
    engine buffers nothing itself (stream_buffering's unbuffered_engines send X-Accel-Buffering: no)."""
    if not ports:
        return []
    found = []
    for server in model_servers(w):
        if server.path != where or server.engine in UNBUFFERED_ENGINES:
            continue
        declared = {as_int(get(p, "containerPort")) for p in as_list(server.container.get("ports"))}
        port = next((p for p in ports if p in declared), None)
        if port is not None:
            found.append(f"the {server.engine} server {server.label} of the same pod (127.0.0.1:{port})")
    return found


def _nginx(resources: list[Resource], fronts: dict[str, tuple[str, bool]]) -> list[tuple[str, str]]:
    findings = []
    nginx = PROXIES["nginx"]
    for w in resources:
        for where, spec in pod_specs(w):
            for c in containers(spec):
                if not is_nginx(c):
                    continue
                files = [t for t in mounted_config_files(spec, c).values() if "proxy_pass" in t and "location" in t]
                read = [(t, *proxy_locations(t)) for t in files]
                around = {b for _, _, b in read if b}
                for text, locations, _ in read:
                    for loc in locations:
                        buffering = loc.buffering or ("off" if "off" in around else "on" if around else "")
                        if buffering == "off" or not nginx.buffers and buffering != "on":
                            continue
                        hits = [(s, fronts[s]) for s in loc.services if s in fronts and not fronts[s][1]]
                        beside = _pod_servers(w, where, loc.local_ports)
                        if not hits and not beside:
                            continue
                        if hits:
                            service, (what, _) = hits[0]
                            to = f"Service {service} ({what})"
                        else:
                            to = beside[0]
                        how = "proxy_buffering on" if buffering else "proxy_buffering unset (nginx's default: on)"
                        findings.append(
                            (
                                holding_config_map(w, text, resources),
                                f"{split_type(w.type)[1]} {metadata_name(w.props)} {container_label(where, c)}: location "
                                f"{loc.path} proxies to {to} with {how}: nginx holds a streamed "
                                f"reply (stream: true, server-sent events) in its buffers and passes the tokens on in "
                                f"bursts or at the end, unless the backend answers with X-Accel-Buffering: no; set "
                                f"proxy_buffering off (with proxy_http_version 1.1) in that location",
                            )
                        )
    return findings


def _ingresses(resources: list[Resource], fronts: dict[str, tuple[str, bool]]) -> list[tuple[str, str]]:
    findings = []
    for ing in resources:
        if ing.type not in INGRESS_TYPES or str(annotations_of(ing.props).get(_INGRESS_BUFFERING, "")).strip() != "on":
            continue
        services = sorted({s for s in path.ingress_backends(ing) if s in fronts and not fronts[s][1]})
        if services:
            findings.append(
                (
                    ing.name,
                    f'{_INGRESS_BUFFERING}: "on" makes ingress-nginx buffer the replies of Service {services[0]} '
                    f"({fronts[services[0]][0]}), a model API: a streamed reply (stream: true) reaches the client in "
                    f"bursts or at the end instead of token by token, unless the backend answers with "
                    f"X-Accel-Buffering: no; drop the annotation (ingress-nginx's default is off)",
                )
            )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    del config
    proxies = any(is_nginx(c) for w in resources for _, spec in pod_specs(w) for c in containers(spec) if isinstance(c, Mapping))
    annotated = any(r.type in INGRESS_TYPES and _INGRESS_BUFFERING in annotations_of(r.props) for r in resources)
    if not proxies and not annotated:
        return []
    fronts = model_facing(resources)
    if not fronts and not proxies:
        return []
    return (_nginx(resources, fronts) if proxies else []) + (_ingresses(resources, fronts) if annotated else [])


POLICY = Policy(
    name="proxy-streams-model-replies",
    description="A reverse proxy in front of a model API passes streamed replies on unbuffered: nginx locations set "
    "proxy_buffering off, and no ingress-nginx Ingress turns proxy-buffering on.",
    catalog="G94",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "In each nginx location that proxies a model API, set `proxy_buffering off;` and `proxy_http_version 1.1;` "
        "(or have the backend answer with X-Accel-Buffering: no); on an ingress-nginx Ingress, drop "
        'nginx.ingress.kubernetes.io/proxy-buffering: "on".'
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "nginx buffers a proxied reply unless proxy_buffering is off (nginx release-1.31.4 ngx_http_proxy_module.c:3704-3705) "
        "or the backend sends X-Accel-Buffering: no (ngx_http_upstream.c:322-323), so a model's token stream reaches the "
        "client in bursts; ingress-nginx turns buffering off by default (controller-v1.15.1 config.go:882) and its "
        "proxy-buffering annotation turns it on. TGI sends the header on its streams (v3.3.7 router/src/server.rs:530)."
    ),
)
