"""Services that send to a model server outside the cluster (a LAN box), for the G32 edges in front of them.

A Service with no selector gets its endpoints from an Endpoints object of its name or EndpointSlices labelled
``kubernetes.io/service-name`` with it (https://kubernetes.io/docs/concepts/services-networking/service/#services-without-selectors);
an ExternalName Service is a DNS alias to ``spec.externalName``. Where the port it sends to is the default port of one
engine of the engine table (components/serving_engines.toml ``port``) that no other engine shares and that is not a
common web port, the Service is read as fronting that engine on another machine: Ollama's 11434 (spent set 92
progist1/home-k3s infra/proxy/ollama.home/: a selector-less Service ``ollama-home-proxy`` and Endpoints 10.0.0.105:11434
behind a Traefik Ingress, labelled G32). Ports 8000 (vLLM, Triton, TensorRT-LLM, NIM) say nothing alone.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from policies.kube import as_dict, as_list, get, split_type

# Ports many web apps listen on: a LAN Service on one of them names no engine.
_WEB_PORTS = frozenset({80, 443, 3000, 5000, 8000, 8080, 8443, 8888})


@lru_cache(maxsize=1)
def _engine_ports() -> dict[int, str]:
    """Port -> the display name of the one engine whose default it is."""
    from components.serving_engines import ENGINES

    counts = Counter(e.port for e in ENGINES)
    return {e.port: e.display for e in ENGINES if counts[e.port] == 1 and e.port not in _WEB_PORTS}


def _ports(items: Any) -> set[int]:
    out: set[int] = set()
    for p in as_list(items):
        for key in ("port", "targetPort"):
            value = as_dict(p).get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                out.add(value)
    return out


def outside_servers(resources: list) -> dict[str, str]:
    """Service name -> what it sends to ("Endpoints 10.0.0.105:11434, Ollama's default port"), for the set's Services
    with no selector (or of type ExternalName) whose endpoints' port is one engine's own default port."""
    engines = _engine_ports()
    services = [r for r in resources if split_type(r.type) == ("", "Service") and isinstance(r.props, dict)]
    bare = [s for s in services if not get(s.props, "spec", "selector") or get(s.props, "spec", "type") == "ExternalName"]
    if not bare:
        return {}
    found: dict[str, str] = {}
    for svc in bare:
        name = get(svc.props, "metadata", "name")
        if not isinstance(name, str):
            continue
        ports = _ports(get(svc.props, "spec", "ports"))
        where = str(get(svc.props, "spec", "externalName") or "")
        for r in resources:
            group, kind = split_type(r.type)
            if (group, kind) == ("", "Endpoints") and get(r.props, "metadata", "name") == name:
                for subset in as_list(get(r.props, "subsets")):
                    ports |= _ports(get(subset, "ports"))
                    ips = [str(get(a, "ip")) for a in as_list(get(subset, "addresses")) if get(a, "ip")]
                    where = where or ", ".join(ips)
            elif (group, kind) == ("discovery.k8s.io", "EndpointSlice") and (
                get(r.props, "metadata", "labels", "kubernetes.io/service-name") == name
            ):
                ports |= _ports(get(r.props, "ports"))
                ips = [str(a) for e in as_list(get(r.props, "endpoints")) for a in as_list(get(e, "addresses"))]
                where = where or ", ".join(ips)
        hits = sorted(p for p in ports if p in engines)
        if hits:
            port = hits[0]
            at = f"{where}:{port}" if where else f"port {port}"
            found[name] = f"no selector: it sends to {at}, {engines[port]}'s default port, outside the cluster"
    return found
