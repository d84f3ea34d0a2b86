"""G68 subset-selects-pods: a VirtualService sends traffic to a DestinationRule subset that selects no pod of its run.

Istio's subset is the host Service's pods that also carry the subset's ``labels`` (istio/api 1.29.6
networking/v1alpha3/destination_rule.proto:348-355 Subset: "Labels apply a filter over the endpoints of a service in the
service registry"); a route whose weight goes to a subset no pod carries has no healthy upstream there, and Envoy
answers those requests 503 ("no healthy upstream"). The pods are read as their controllers label them
(policies/reading/controller_pod_labels.py).

Judged only where the run holds the host's pods: those the host's Service of the run selects, or, with no Service of
that name in the files, the workloads of the namespace whose pod labels hold the host's name as a value (``app:
triton-llm`` for host ``triton-llm``). Silent where anything of the namespace may make pods the files do not show
(another operator's resource, a Helm template, a Kustomize patch, an unrendered label), for a route of weight 0, and
for hosts outside the cluster. Advice: a canary's pods are often applied by a later step (spent set 113
rmehta2974/LLM_mlops alternate_learning/manifests/40-istio-canary.yaml: weight 99 to subset v2 ``version: v2`` while
the Deployments of the folder label their pods ``app: triton-llm`` and ``version: v3``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Mapping, Optional

from policies.framework import Policy, Resource
from policies.k8s_generic.pdb_selects_pods import opaque
from policies.kube import as_dict, as_int, as_list, get, split_type
from policies.reading.controller_pod_labels import PodGroup, may_select, pod_groups
from policies.reading.run_objects import unrendered
from policies.reading.serving import namespace_of

_VS = ("networking.istio.io", "VirtualService")
_DR = ("networking.istio.io", "DestinationRule")


def _host(host: Any, namespace: str) -> Optional[tuple[str, str]]:
    """(Service name, namespace) of an in-cluster host: a short name (the object's namespace), NAME.NS or
    NAME.NS.svc[.cluster.local]; None for anything else (an external host, a wildcard, a template)."""
    if not isinstance(host, str) or not host or "*" in host or unrendered(host):
        return None
    parts = host.split(".")
    if len(parts) == 1:
        return parts[0], namespace
    if len(parts) == 2 or (len(parts) >= 3 and parts[2] == "svc"):
        return parts[0], parts[1]
    return None


def _routes(vs: Resource) -> Iterator[tuple[str, Mapping, int]]:
    """(field path, destination, weight) of every weighted destination of a VirtualService's http, tcp and tls
    routes; a lone destination with no weight takes all the traffic."""
    for protocol in ("http", "tcp", "tls"):
        for i, rule in enumerate(as_list(get(vs.props, "spec", protocol))):
            route = as_list(as_dict(rule).get("route"))
            for j, entry in enumerate(route):
                weight = as_int(as_dict(entry).get("weight"))
                if weight is None:
                    weight = 100 if len(route) == 1 else 0
                yield f"spec.{protocol}[{i}].route[{j}].destination", as_dict(as_dict(entry).get("destination")), weight


def _subsets(resources: list[Resource]) -> dict[tuple[str, str], dict[str, tuple[dict, str]]]:
    """(host, namespace) -> subset name -> (its labels, the DestinationRule's name), over the run's DestinationRules."""
    found: dict[tuple[str, str], dict[str, tuple[dict, str]]] = {}
    for dr in resources:
        if split_type(dr.type) != _DR or not isinstance(dr.props, dict) or dr.template or dr.patch:
            continue
        host = _host(get(dr.props, "spec", "host"), namespace_of(dr, "default"))
        if host is None:
            continue
        for subset in as_list(get(dr.props, "spec", "subsets")):
            name, labels = as_dict(subset).get("name"), as_dict(subset).get("labels")
            if isinstance(name, str) and isinstance(labels, dict) and labels:
                found.setdefault(host, {})[name] = ({str(k): v for k, v in labels.items()}, dr.name)
    return found


def _host_pods(name: str, groups: list[PodGroup], services: list[Resource]) -> tuple[list[PodGroup], Optional[dict]]:
    """The pod groups behind a host and the Service's selector (None when the files hold no Service of that name)."""
    service = next((s for s in services if get(s.props, "metadata", "name") == name), None)
    if service is not None:
        selector = get(service.props, "spec", "selector")
        if not isinstance(selector, dict) or not selector or any(unrendered(k) or unrendered(v) for k, v in selector.items()):
            return [], None
        return [g for g in groups if may_select(selector, g, plain=True)], selector
    return [g for g in groups if any(isinstance(v, str) and v == name for v in g.labels.values())], None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    subsets = _subsets(resources)
    if not subsets:
        return []
    findings: list[tuple[str, str]] = []
    done: set[tuple[str, str]] = set()
    for vs in resources:
        if split_type(vs.type) != _VS or not isinstance(vs.props, dict) or vs.template or vs.patch:
            continue
        for where, destination, weight in _routes(vs):
            host = _host(destination.get("host"), namespace_of(vs, "default"))
            subset = destination.get("subset")
            if weight <= 0 or host is None or not isinstance(subset, str) or subset not in subsets.get(host, {}):
                continue
            name, namespace = host
            beside = [r for r in resources if isinstance(r.props, dict) and namespace_of(r, "default") == namespace]
            if any(opaque(r) for r in beside):
                continue
            groups = [g for r in beside for g in pod_groups(r)]
            services = [r for r in beside if split_type(r.type) == ("", "Service")]
            pods, selector = _host_pods(name, groups, services)
            labels, rule = subsets[host][subset]
            wanted = {**(selector or {}), **labels}
            if not pods or any(may_select(wanted, g, plain=True) for g in pods) or (rule, subset) in done:
                continue
            done.add((rule, subset))
            carried = ", ".join(
                dict.fromkeys(f"{k}={g.labels[k]}" for g in pods for k in labels if isinstance(g.labels.get(k), (str, int)))
            )
            shown = ", ".join(dict.fromkeys(g.shown for g in pods))
            # On the DestinationRule, whose subset's labels select nothing (where a reviewer reads them: spent set 113
            # rmehta2974/LLM_mlops triton-llm-dr, labelled there), naming the route that sends it traffic.
            findings.append(
                (
                    rule,
                    f"subset {subset} of host {name} selects "
                    f"{', '.join(f'{k}={v}' for k, v in labels.items())}, which no pod of {shown} carries"
                    + (f" (they carry {carried})" if carried else "")
                    + f", while VirtualService {get(vs.props, 'metadata', 'name')} {where} sends it weight {weight}: Envoy has no healthy upstream "
                    "for that share of the requests and answers them 503 unless pods with those labels are applied from "
                    "elsewhere; label a workload's pods for the subset or route to a subset that selects them",
                )
            )
    return findings


POLICY = Policy(
    name="subset-selects-pods",
    description="A VirtualService route with weight goes to a DestinationRule subset whose labels some pod of the "
    "host carries, where the run holds the host's pods (advice: the subset's pods may be applied elsewhere).",
    catalog="G68",
    severity="high",
    enforcement="advisory",
    remediation_steps="Give the subset's workload the subset's labels (version: v2 on its pod template), or send the "
    "weight to a subset whose labels the running pods carry.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "An Istio subset is the endpoints of the host Service that carry the subset's labels (istio/api "
        "networking/v1alpha3/destination_rule.proto:348-355 Subset.labels); with none, Envoy's cluster for the subset is "
        "empty and the requests routed to it fail with 503 no healthy upstream."
    ),
)
