"""What stands behind an edge: which Services front the set's model servers, which front other workloads, and
whether a model server asks its callers for a key (read by the G32 edge policies through policies/reading/exposure.py).

A model server's own API key: ``--api-key``/``--api-keys`` on its command line, or ``VLLM_API_KEY`` (vLLM),
``API_KEY`` (TGI: huggingface/text-generation-inference v3.3.7 ``launcher/src/main.rs:848-849``, passed to the router
as ``--api-key`` at ``:1947-1949``), ``LOCALAI_API_KEY`` / ``API_KEY`` (mudler/LocalAI v4.9.0 ``core/cli/run.go:77``),
``LLAMA_API_KEY`` (llama.cpp server).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policies.helm_charts import release_services
from policies.kube import as_list, get, name_of, pod_specs, split_type
from policies.reading import route_path as path
from policies.reading.serving import container_argv, model_servers

# Backends that are well-known non-model apps: an edge in front of one is not this row's concern.
_NOT_A_MODEL = re.compile(
    r"(^|[-_.])(grafana|prometheus|alertmanager|kibana|dashboard|argocd|jupyter|webui|open-webui|ui|frontend|docs)([-_.]|$)"
)

SERVER_KEY_ENV = ("VLLM_API_KEY", "API_KEY", "LOCALAI_API_KEY", "LLAMA_API_KEY")


def not_a_model_name(service: str) -> bool:
    """A backend whose name says it is a well-known non-model app (Grafana, a UI)."""
    return bool(_NOT_A_MODEL.search(service.lower()))


def server_has_key(container: Mapping) -> bool:
    """Whether a model server asks callers for an API key (a key flag, or a key variable it reads)."""
    argv = container_argv(container)
    # Both patterns hold "--api-key": the test first spares two regex calls a word (~1,500 words a corpus run).
    if any("--api-key" in t and (re.match(r"--api-keys?(=|$)", t) or re.search(r"\s--api-keys?[= ]", t)) for t in argv):
        return True
    for item in as_list(container.get("env")):
        if (type(item) is dict or isinstance(item, Mapping)) and name_of(item) in SERVER_KEY_ENV:
            if get(item, "valueFrom") or (isinstance(item.get("value"), str) and item["value"].strip()):
                return True
    return False


def env_from_secrets(container: Mapping) -> list[str]:
    """Secrets a container takes every key of as variables (``envFrom: secretRef``): any of them may set the
    server's key variable (VLLM_API_KEY), which these files cannot show (the same reason S37 accepts an envFrom
    Secret as a possible token)."""
    return [
        str(get(item, "secretRef", "name"))
        for item in as_list(container.get("envFrom"))
        if isinstance(item, Mapping) and isinstance(item.get("secretRef"), Mapping)
    ]


def key_states(resources: list) -> dict[str, bool | None]:
    """Service name -> True when every model server behind it asks for an API key, None when some may (an envFrom
    Secret) and none is proven without, False otherwise."""
    selectors = path.service_selectors(resources)
    defined = {
        n for r in resources if split_type(r.type) == ("", "Service") and isinstance(n := get(r.props, "metadata", "name"), str)
    }
    out: dict[str, bool | None] = {}

    def merge(service: str, states: list[bool | None]) -> None:
        keyed = False if False in states else (None if None in states else True)
        before = out.get(service, True)
        out[service] = False if False in (before, keyed) else (None if None in (before, keyed) else True)

    for w in resources:
        servers = model_servers(w)
        if not servers:
            continue
        states = {id(s): _key_state(s) for s in servers}
        for service in path.workload_services(w, selectors):
            merge(service, list(states.values()))
        # A chart release's own Services, which the files hold only as values (an HTTPRoute of the files to Service
        # ollama beside the HelmRelease ollama: spent set 107 zebernst/homelab kubernetes/apps/ai/ollama/app/).
        rendered = release_services(w.props) if isinstance(w.props, dict) else {}
        for service, pod in rendered.items():
            here = [states[id(s)] for s in servers if s.path == pod]
            if here and service not in defined:
                merge(service, here)
    return out


def _key_state(server: Any) -> bool | None:
    """True when a model server asks for a key, None when an envFrom Secret may hold it, False when it asks none (Ollama
    reads no key at all, whatever its Secrets hold)."""
    if server_has_key(server.container):
        return True
    return None if env_from_secrets(server.container) and server.engine != "ollama" else False


def selected_services(resources: list) -> dict[str, list[str]]:
    """Service name -> the workloads of the set it selects ("Deployment grafana"); a Service that selects nothing
    here fronts pods of another file, so what it serves is unknown."""
    selectors = path.service_selectors(resources)
    out: dict[str, list[str]] = {}
    for w in resources:
        if pod_specs(w):
            for service in path.workload_services(w, selectors):
                out.setdefault(service, []).append(f"{split_type(w.type)[1]} {get(w.props, 'metadata', 'name')}")
    return out


def router_kind(container: Mapping) -> str | None:
    """Which LLM router a container runs, or None: the serving-path apps of components/serving_apps.toml (LiteLLM's
    proxy, vLLM's production-stack router and semantic-router, AIBrix's gateway plugins), which take the OpenAI API
    and forward it to model servers, so an edge in front of one publishes the models behind it (G32)."""
    from policies.reading.gateway_apps import app_of

    app = app_of(container)
    return app.display if app is not None else None


# An image repository named as an LLM router or gateway of its owner's making (``your-registry/llm-router``, spent set
# 118 bartek-boniecki/llm-router k8s/router-deployment.yaml, labelled G32 advisory behind an Ingress with no tls): the
# whole last path segment, so ``llm-router-ui`` or ``envoyproxy/ai-gateway-controller`` are not one.
_ROUTER_NAME = re.compile(r"(llm|llms|ai|model|models|inference)[-_]?(router|gateway|proxy)")


def named_routers(resources: list) -> dict[str, str]:
    """Service name -> what it selects, for the Services of the set in front of a workload whose image repository is
    named as an LLM router or gateway (_ROUTER_NAME) and that runs no model server or known router: an app that takes
    model calls and forwards them, with provider keys or model servers behind it, which the files do not show."""
    from components.images import image_repository
    from policies.kube import container_label
    from policies.reading.placeholders import written_images

    selectors = path.service_selectors(resources)
    out: dict[str, str] = {}
    for w in resources:
        written: dict[str, str] | None = None
        for at, podspec in pod_specs(w):
            for container in as_list(podspec.get("containers")):
                if not isinstance(container, Mapping):
                    continue
                image = container.get("image")
                if not isinstance(image, str):
                    # A fill-in registry (your-registry/llm-router) makes the image unknown to rules; its repository's
                    # own name, as written, still says what the app is.
                    written = written_images(w) if written is None else written
                    image = written.get(container_label(at, container))
                if not isinstance(image, str) or router_kind(container) is not None:
                    continue
                repository = image_repository(image).lower()
                if _ROUTER_NAME.fullmatch(repository.rsplit("/", 1)[-1]) and not model_servers(w):
                    what = (
                        f"{split_type(w.type)[1]} {get(w.props, 'metadata', 'name')}, image {repository}, named as an LLM router"
                    )
                    for service in path.workload_services(w, selectors):
                        out.setdefault(service, what)
    return out


ROUTER_KEY_ENV = ("LITELLM_MASTER_KEY",)  # LiteLLM's proxy asks every caller for a key once its master key is set


def router_keyed(container: Mapping) -> bool:
    """Whether a router container sets its own key (LiteLLM's LITELLM_MASTER_KEY, or an --api-key flag)."""
    argv = container_argv(container)
    if any(re.match(r"--api-keys?(=|$)", t) for t in argv):
        return True
    return any(
        isinstance(item, Mapping) and name_of(item) in ROUTER_KEY_ENV and (item.get("value") or item.get("valueFrom"))
        for item in as_list(container.get("env"))
    )


def router_services(resources: list) -> dict[str, tuple[str, bool]]:
    """Service name -> (the LLM router behind it, whether it sets its own key), for Services of the set that select
    a router workload."""
    selectors = path.service_selectors(resources)
    out: dict[str, tuple[str, bool]] = {}
    for w in resources:
        for _, podspec in pod_specs(w):
            for container in as_list(podspec.get("containers")):
                if isinstance(container, Mapping) and (kind := router_kind(container)):
                    for service in path.workload_services(w, selectors):
                        out.setdefault(service, (kind, router_keyed(container)))
    return out


def model_services(resources: list) -> set[str]:
    """Names of the Services in front of the set's model servers (KubeRay's head and serve Services included)."""
    found = set(key_states(resources))
    for r in resources:
        if split_type(r.type)[0] == "ray.io" and model_servers(r):
            found |= {f"{get(r.props, 'metadata', 'name')}-head-svc", f"{get(r.props, 'metadata', 'name')}-serve-svc"}
    return found
