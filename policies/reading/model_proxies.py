"""The proxies in front of a model server, read for S9 llm-route-timeout (policies/timeouts/llm_route_timeout.py): the
Services of a serving-path app (an LLM proxy, router or gateway of components/serving_apps.toml), of an nginx whose
mounted configuration sends to a model's Service (policies/reading/nginx_conf.py), and of an app that calls a model by
the URL its environment gives (policies/reading/model_callers.py). An edge in front of one of them serves a model as
much as an edge in front of the model's own Service; an nginx proxy's proxy_read_timeout is how long it waits.
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.framework import Resource
from policies.kube import as_dict, as_list, get, metadata_name, pod_specs, split_type
from policies.reading import edge, litellm
from policies.reading import route_path as path
from policies.reading.gateway_apps import app_containers
from policies.reading.model_callers import model_callers
from policies.reading.nginx_conf import NginxProxy, nginx_proxies
from policies.reading.serving import model_servers


@dataclass(frozen=True)
class ModelProxy:
    """A Service of a proxy in front of model servers: what it is, and how long it waits for the model (an nginx
    proxy_read_timeout its configuration sets; None where nothing in the files says)."""

    what: str
    waits: NginxProxy | None
    model: bool  # whether a model server is known to stand behind it


def model_proxies(resources: list[Resource], selectors: dict, llm: set[str]) -> dict[str, ModelProxy]:
    """Service name -> the proxy behind it, for the Services of a proxy in front of a model: a serving-path app (an LLM
    proxy, router or gateway of components/serving_apps.toml) or an nginx whose mounted configuration sends to a
    model's Service (policies/reading/nginx_conf.py). An edge in front of one serves a model as much as an edge in
    front of the model's own Service. An nginx proxy to no model's Service is not kept, whatever it waits: an edge in
    front of a plain web app is not this LLM rule's concern (review47b item 2)."""
    found: dict[str, ModelProxy] = {}
    # A model's Service the files leave out, under the name it conventionally takes (route_path.named_services): a proxy
    # that sends there sends to the model.
    defined = set(edge.services_by_name(resources))
    unwritten = {
        n
        for w in resources
        if model_servers(w) and not path.workload_services(w, selectors)
        for n in path.named_services(w, defined)
    }
    for w in resources:
        if w.type == litellm.CONFIG_MAP_TYPE or split_type(w.type) == ("", "Service"):
            continue
        apps = app_containers(w)
        proxies_ = nginx_proxies(w) if not apps else []
        if not apps and not proxies_:
            continue
        name = metadata_name(w.props)
        for service in path.workload_services(w, selectors) - llm:
            if apps:
                found[service] = ModelProxy(f"{apps[0].app.display} {name}", None, True)
                continue
            for proxy in proxies_:
                models = sorted(set(proxy.services) & (llm | unwritten))
                if models:
                    found[service] = ModelProxy(f"nginx proxy {name} to an LLM ({', '.join(models)})", proxy, True)
    # A workload that calls a model API by the URL its environment gives (policies/reading/model_callers.py: an agent
    # or gateway app, chat UIs left out) waits on the model for its reply: an edge in front of it cuts that wait as
    # it would the model's (spent set 88 biswa123642/local-k8s-ai-agent k8s/ingress.yaml, an Application Gateway
    # Ingress to ai-api, which calls Ollama at OLLAMA_URL).
    for service, (what, _, caller) in model_callers(resources).items():
        if caller and service not in llm and service not in found:
            found[service] = ModelProxy(what, None, True)
    return found


def inner_wait(service: str, fronts: dict[str, ModelProxy]) -> float | None:
    """The longest wait an nginx proxy behind `service` sets for its backend (proxy_read_timeout), None if none is set."""
    proxy = fronts.get(service)
    return proxy.waits.read_timeout if proxy is not None and proxy.waits is not None and proxy.waits.explicit else None


def holding_config(w: Resource, resources: list[Resource]) -> Resource:
    """The ConfigMap of the files holding a workload's nginx configuration (a proxy_pass in its data, mounted by the
    pod), where the outer proxy's timeout is written or left out; the workload itself when none is among the files."""
    namespace = get(w.props, "metadata", "namespace")
    mounted = {get(v, "configMap", "name") for _, spec in pod_specs(w) for v in as_list(as_dict(spec).get("volumes"))} - {None}
    for r in resources:
        if r.type == litellm.CONFIG_MAP_TYPE and metadata_name(r.props) in mounted:
            if get(r.props, "metadata", "namespace") in (None, namespace) or namespace is None:
                if any(isinstance(t, str) and "proxy_pass" in t for t in as_dict(r.props.get("data")).values()):
                    return r
    return w
