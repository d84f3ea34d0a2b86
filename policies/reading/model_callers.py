"""The Services in front of a model API: a model server's or a serving-path app's own, and those of workloads that call
one. A workload whose environment (literal, or from a ConfigMap of the files: policies/reading/container_env.py)
addresses such a Service by URL or host name is a caller, a hop followed three times (an orchestrator in front of an
LLM microservice in front of the model: spent set 76 opea-project/GenAIExamples CodeTrans/kubernetes/intel/cpu/xeon/
manifest/codetrans.yaml). Chat UIs (policies/reading/chat_ui_backends.py) are not followed. Read by G94
(policies/ingress/proxy_streams_replies.py) and S9 (policies/timeouts/llm_route_timeout.py: an edge in front of a caller
waits on the model as the caller does).
"""

from __future__ import annotations

import re

from components.stream_buffering import UNBUFFERED_ENGINES
from policies.framework import Resource
from policies.kube import containers, metadata_name, pod_specs, split_type
from policies.reading import route_path as path
from policies.reading.chat_ui_backends import ui_app
from policies.reading.container_env import env_values
from policies.reading.gateway_apps import app_containers
from policies.reading.serving import model_servers

_HOST_WORD = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_HOPS = 3


def _hosts(value: str) -> set[str]:
    """The Service names a value addresses: a URL's host, a host:port, or a bare host name (first DNS label of each)."""
    value = value.strip().lower()
    rest = value.split("://", 1)[1] if "://" in value else re.sub(r":\d+(?:/.*)?$", "", value)
    host = re.split(r"[:/]", rest, maxsplit=1)[0] if "://" in value else rest
    return {host.split(".", 1)[0]} if _HOST_WORD.fullmatch(host) else set()


def model_facing(resources: list[Resource]) -> dict[str, tuple[str, bool]]:
    """Service name -> (what stands behind it, whether its streams reach the proxy unbuffered: only an engine of
    stream_buffering's unbuffered_engines directly behind it), for the Services of the files in front of a model API."""
    return {name: (what, unbuffered) for name, (what, unbuffered, _) in model_callers(resources).items()}


def model_callers(resources: list[Resource]) -> dict[str, tuple[str, bool, bool]]:
    """model_facing's Services with a third field: whether the workload behind the Service is a caller found by the
    hop (it addresses a model API by its environment), not a model server or serving-path app itself."""
    return _walk(resources)[0]


def caller_workloads(resources: list[Resource]) -> list[tuple[Resource, str, str]]:
    """(workload, the Service of a model API it calls, what stands behind that Service) of every caller the hop finds,
    in document order: a workload with a Service of its own (it takes requests) whose environment addresses one."""
    return _walk(resources)[1]


def _walk(resources: list[Resource]) -> tuple[dict[str, tuple[str, bool, bool]], list[tuple[Resource, str, str]]]:
    callers: list[tuple[Resource, str, str]] = []
    selectors = path.service_selectors(resources)
    defined = {metadata_name(r.props) for r in resources if split_type(r.type) == ("", "Service")}
    found: dict[str, tuple[str, bool, bool]] = {}
    rest = []
    for w in resources:
        if not pod_specs(w) or split_type(w.type) == ("", "Service"):
            continue
        servers, apps = model_servers(w), app_containers(w)
        services = path.workload_services(w, selectors)
        if not services and (servers or apps):
            # The files leave the model's Service out: the names it conventionally takes (route_path.named_services).
            services = path.named_services(w, defined)
        if not services:
            continue
        if servers or apps:
            what = f"{servers[0].engine} server" if servers else apps[0].app.display
            unbuffered = bool(servers) and all(s.engine in UNBUFFERED_ENGINES for s in servers) and not apps
            for s in services:
                found.setdefault(s, (f"{what} {metadata_name(w.props)}", unbuffered, False))
        else:
            rest.append((w, services))
    for _ in range(_HOPS):
        grown = False
        for w, services in rest:
            if all(s in found for s in services):
                continue
            conts = [c for _, spec in pod_specs(w) for c in containers(spec)]
            if any(ui_app(c) is not None for c in conts):
                continue
            targets = sorted({h for c in conts for v in env_values(c).values() for h in _hosts(v)} & set(found) - services)
            if targets:
                callers.append((w, targets[0], found[targets[0]][0]))
                for s in services:
                    found.setdefault(
                        s, (f"{metadata_name(w.props)}, which calls Service {targets[0]} ({found[targets[0]][0]})", False, True)
                    )
                grown = True
        if not grown:
            break
    order = {id(r): i for i, r in enumerate(resources)}
    return found, sorted(callers, key=lambda c: order[id(c[0])])


_ADDRESS = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*://|[a-z0-9][-a-z0-9.]*:\d+(?:/|\s*$))", re.IGNORECASE)


def calls(container: object, service: str) -> bool:
    """Whether a container's environment addresses the Service by a URL or a host:port (a bare word is not taken here:
    POSTGRES_DB=litellm names a database, not the LiteLLM Service)."""
    if not isinstance(container, dict):
        return False
    return any(service in addresses(v) for v in env_values(container).values())


def addresses(value: str) -> set[str]:
    """The Service a URL or a host:port names (its first DNS label); empty for a bare word or anything else."""
    return _hosts(value) if _ADDRESS.match(value) is not None else set()
