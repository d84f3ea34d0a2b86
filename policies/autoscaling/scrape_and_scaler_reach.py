"""G82 scrape-and-scaler-reach: the metric an autoscaler scales a model server on can be read where it is asked for.

(a) A KEDA ``prometheus`` trigger asks ``<serverAddress>/api/v1/query?query=...`` (kedacore/keda v2.20.2
pkg/scalers/prometheus_scaler.go:207) and fails on any status outside 2xx ("prometheus query api returned error",
:246-250) or a body that is not the query API's JSON (:259). A serverAddress whose path ends in ``/metrics`` (a
server's own exposition page: ``/metrics/api/v1/query`` is no page), or that names a Service of the run selecting a
model server's pods rather than Prometheus (vLLM, SGLang and the rest serve no ``/api/v1/query``), never answers: the
scaler errors on every poll, the ScaledObject's HPA gets no value and the server never scales. Mandatory.

(b) A model server's pods isolated for Ingress by NetworkPolicies of the run (policies/reading/network_policies.py)
none of whose ingress rules admits the port Prometheus scrapes (the port of a PodMonitor's podMetricsEndpoints, a
ServiceMonitor's endpoints through the Service's targetPort, or the ``prometheus.io/port`` annotation): every scrape is
dropped, the series disappear. Mandatory when an HPA or ScaledObject targeting the workload scales on a model-server
series (the engine table's families, policies/reading/promql.py): it gets no value and never scales; advice when no
autoscaler reads it (dashboards and alerts go blind) or the scaler's metric is not proven to be this server's, and
when a Cilium or Calico policy in the files may admit the scrape. A rule that admits the port from any peer is
enough to stay silent (whether that peer is Prometheus is not read).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import urlsplit

from components.fill_ins import fill_in
from policies.autoscaling.scalers import (
    SERVICE_MONITOR_GROUP_KIND,
    Workload,
    hpa_metrics,
    monitored_by,
    monitors,
    namespace_selected,
    scale_target,
    scalers,
    triggers,
    workloads,
)
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_int, as_list, containers, get, metadata_name, pod_specs, split_type
from policies.reading.network_policies import (
    applying,
    network_policies,
    other_engine,
    ports_admit,
    rules,
    selects_every_pod,
)
from policies.reading.placeholders import placeholder_in
from policies.reading.promql import server_series
from policies.reading.serving import model_servers, namespace_of, selector_matches

_KEDA = "keda.sh"
_SCRAPE_PORT = "prometheus.io/port"


def _declared(resource: Resource) -> dict[int, Optional[str]]:
    """The container ports of a workload's pods: number -> name."""
    found: dict[int, Optional[str]] = {}
    for _, podspec in pod_specs(resource):
        for c in containers(podspec):
            for p in (as_dict(x) for x in as_list(c.get("ports"))):
                number = as_int(p.get("containerPort"))
                if number is not None:
                    found[number] = p.get("name") if isinstance(p.get("name"), str) else None
    return found


def _pod_port(value: Any, declared: Mapping[int, Optional[str]]) -> Optional[tuple[int, Optional[str]]]:
    """(number, name) of a pod port given by number or by name, or None when a name no container declares."""
    number = as_int(value)
    if number is not None:
        return number, declared.get(number)
    if isinstance(value, str):
        return next(((n, name) for n, name in declared.items() if name == value), None)
    return None


def _services(resources: list[Resource]) -> list[Resource]:
    return [r for r in resources if split_type(r.type) == ("", "Service") and isinstance(r.props, dict)]


def _scraped_ports(workload: Workload, resources: list[Resource]) -> list[tuple[int, Optional[str], str]]:
    """(pod port, its name, what scrapes it) for the workload's pods."""
    declared = _declared(workload.resource)
    found: list[tuple[int, Optional[str], str]] = []
    for monitor in monitored_by(workload, resources):
        where = f"{split_type(monitor.type)[1]} {metadata_name(monitor.props)}"
        if split_type(monitor.type) != SERVICE_MONITOR_GROUP_KIND:
            for ep in (as_dict(e) for e in as_list(get(monitor.props, "spec", "podMetricsEndpoints"))):
                value = ep.get("portNumber") or ep.get("port") or ep.get("targetPort")
                if (port := _pod_port(value, declared)) is not None:
                    found.append((*port, where))
            continue
        selector = get(monitor.props, "spec", "selector")
        for service in _services(resources):
            svc_selector = as_dict(get(service.props, "spec", "selector"))
            if (
                not svc_selector
                or namespace_of(service) not in (None, workload.namespace)
                or not selector_matches({"matchLabels": svc_selector}, workload.pod_labels)
                or not selector_matches(selector, as_dict(get(service.props, "metadata", "labels")))
            ):
                continue
            found += [(*port, where) for port in _through(monitor, service, declared)]
    annotations = as_dict(get(workload.resource.props, "spec", "template", "metadata", "annotations"))
    if str(annotations.get("prometheus.io/scrape", "")).lower() == "true" and _SCRAPE_PORT in annotations:
        if (port := _pod_port(annotations[_SCRAPE_PORT], declared)) is not None:
            found.append((*port, f"the annotation {_SCRAPE_PORT}"))
    return found


def _through(monitor: Resource, service: Resource, declared: Mapping[int, Optional[str]]) -> list[tuple[int, Optional[str]]]:
    """(pod port, its name) each endpoint of a ServiceMonitor scrapes through one Service (its targetPort)."""
    ports = [as_dict(p) for p in as_list(get(service.props, "spec", "ports"))]
    found = []
    for ep in (as_dict(e) for e in as_list(get(monitor.props, "spec", "endpoints"))):
        if ep.get("targetPort") is not None:
            value = ep.get("targetPort")
        else:
            sp = next((p for p in ports if ep.get("port") is not None and p.get("name") == ep.get("port")), None)
            value = None if sp is None else sp.get("targetPort", sp.get("port"))
        if value is not None and (port := _pod_port(value, declared)) is not None:
            found.append(port)
    return found


def meant_scrapes(workload: Workload, resources: list[Resource]) -> list[tuple[int, Optional[str], Resource]]:
    """(pod port, its name, monitor) for a ServiceMonitor that selects no Service of the run by its labels but repeats,
    as its selector, the ``spec.selector`` of a Service in front of the workload's pods: the Service it was written for
    (G42 monitor-selects-targets reports the selector; what it would scrape is read here)."""
    found = []
    services = _services(resources)
    for monitor in monitors(resources):
        if split_type(monitor.type) != SERVICE_MONITOR_GROUP_KIND or not namespace_selected(monitor, workload.namespace):
            continue
        selector = as_dict(get(monitor.props, "spec", "selector"))
        wanted = as_dict(selector.get("matchLabels"))
        if not wanted or any(selector_matches(selector, as_dict(get(s.props, "metadata", "labels"))) for s in services):
            continue
        for service in services:
            svc_selector = as_dict(get(service.props, "spec", "selector"))
            if (
                svc_selector == wanted
                and namespace_of(service) in (None, workload.namespace)
                and selector_matches({"matchLabels": svc_selector}, workload.pod_labels)
            ):
                found += [(*port, monitor) for port in _through(monitor, service, _declared(workload.resource))]
    return found


def scraped_ports(workload: Workload, resources: list[Resource]) -> list[tuple[int, Optional[str], str]]:
    """(pod port, its name, what scrapes it) for the workload's pods: its PodMonitors' and ServiceMonitors' endpoints
    (through the Service's targetPort) and the prometheus.io/port annotation of a pod template that asks a scrape."""
    return _scraped_ports(workload, resources)


def _scaled_on(workload: Workload, resources: list[Resource], every: list[Workload]) -> tuple[Optional[str], bool]:
    """(the autoscaler that scales the workload on a metric Prometheus serves, whether it reads a model-server series)."""
    found: tuple[Optional[str], bool] = (None, False)
    for scaler in scalers(resources):
        if scale_target(scaler, every) is not workload:
            continue
        names = [m.name for m in hpa_metrics(scaler) if m.type in ("Pods", "Object", "External") and m.name]
        for _, trigger in triggers(scaler):
            if trigger.get("type") == "prometheus":
                meta = as_dict(trigger.get("metadata"))
                names += [str(meta.get("query") or meta.get("metricName") or "prometheus")]
        if not names:
            continue
        label = f"{split_type(scaler.type)[1]} {metadata_name(scaler.props)}"
        text = " ".join(names)
        if server_series(text) or "vllm:" in text.lower():
            return label, True
        found = (found[0] or label, False)
    return found


def _ingress_findings(resources: list[Resource]) -> list[tuple[str, str]]:
    policies = network_policies(resources)
    if not policies:
        return []
    every = workloads(resources)
    others = other_engine(resources)
    findings: list[tuple[str, str]] = []
    reported: set[str] = set()
    for workload in every:
        if not model_servers(workload.resource):
            continue
        isolating = applying(policies, workload.namespace or "default", [workload.pod_labels], "Ingress")
        if not isolating:
            continue
        union = rules(isolating, "ingress")
        for number, name, source in _scraped_ports(workload, resources):
            names = (name,) if name else ()
            if any(ports_admit(rule, number, names, "TCP") is not False for _, _, rule in union):
                continue
            blocker = next((p for p in isolating if not as_list(get(p.props, "spec", "ingress"))), isolating[0])
            wide = selects_every_pod(blocker)
            if blocker.name in reported and not wide:
                break
            scaler, proven = _scaled_on(workload, resources, every)
            port = f"{number}" + (f" ({name})" if name else "")
            message = (
                f"selects the pods of {workload.kind}/{workload.name} for Ingress, and no ingress rule of the policies "
                f"selecting them admits port {port}, which {source} scrapes: every scrape is dropped and the server's "
                "series disappear"
            )
            if scaler is None:
                message = unproven(f"{message}, so dashboards and alerts go blind; admit the port from Prometheus's namespace")
            else:
                message = (
                    f"{message}, so {scaler}, which scales it on them, gets no value and never scales; admit port "
                    f"{number} from Prometheus's namespace (kubernetes.io/metadata.name) and pods"
                )
                if not proven:
                    message = unproven(f"{message} (its metric may come from another exporter)")
                elif others:
                    message = unproven(f"{message} (another kind of network policy in the files may admit it)")
            if blocker.name not in reported:
                findings.append((blocker.name, message))
            reported.add(blocker.name)
            if wide:
                # A namespace-wide policy is no one workload's mistake: the pods' missing allowance is said on the
                # workload too (spent set 62 david66l/travelagent3 k8s/vllm-deployment.yaml, labelled G82 there).
                findings.append((workload.resource.name, unproven(f"NetworkPolicy {metadata_name(blocker.props)} {message}")))
            break
    return findings


def _service_of(host: str, namespace: str, services: list[Resource]) -> Optional[Resource]:
    """The Service of the files a host name resolves to in the cluster (name, name.ns, name.ns.svc[.cluster.local])."""
    labels = host.lower().split(".")
    if len(labels) == 1:
        name, ns = labels[0], namespace
    elif len(labels) == 2 or (len(labels) >= 3 and labels[2] == "svc"):
        name, ns = labels[0], labels[1]
    else:
        return None
    return next((s for s in services if metadata_name(s.props) == name and namespace_of(s, "default") == ns), None)


def _server_behind(service: Resource, resources: list[Resource]) -> Optional[str]:
    """The model-server workload a Service selects (not a Prometheus), named, or None."""
    selector = as_dict(get(service.props, "spec", "selector"))
    if not selector:
        return None
    ns = namespace_of(service, "default")
    for workload in workloads(resources):
        if (workload.namespace or "default") != ns or not selector_matches({"matchLabels": selector}, workload.pod_labels):
            continue
        images = " ".join(str(c.get("image") or "") for _, s in pod_specs(workload.resource) for c in containers(s))
        if "prometheus" in images.lower() or "thanos" in images.lower():
            return None
        if model_servers(workload.resource):
            return f"{workload.kind}/{workload.name}"
    return None


def _fill_in_address(trigger: Any, index: int) -> Optional[str]:
    """Advice on a prometheus trigger's serverAddress whose host is a fill-in, as written (policies/reading/placeholders.py:
    ``<prometheus-url>``, ``${PROM_HOST}``, ``YOUR_...``; components/fill_ins.toml: a documentation domain such as
    example.com, or a phrase of fill-in words such as REPLACE_ME_PROMETHEUS_ENDPOINT, spent set 114
    zjinsong/amazon-eks-multi-model-gpu-sharing manifests/keda-scaledobject.yaml). KEDA asks that host for every poll, the
    name does not resolve, the trigger errors and the workload never scales (the same :246-250 path as an unreachable
    server); the file is a template someone fills, so advice."""
    address = as_dict(as_dict(trigger).get("metadata")).get("serverAddress")
    if not isinstance(address, str) or not address.strip():
        return None
    try:
        netloc = urlsplit(address.strip() if "://" in address else f"http://{address.strip()}").netloc
    except ValueError:
        netloc = ""
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0]
    hole = placeholder_in(address.strip(), ("serverAddress",)) or fill_in(host.lower(), "host") or fill_in(host.lower())
    hole = host if hole is not None and hole == host.lower() else hole
    if hole is None:
        return None
    return unproven(
        f"spec.triggers[{index}] (prometheus) serverAddress {address.strip()} holds the fill-in {hole}, not a Prometheus address: "
        f"KEDA's prometheus scaler asks <serverAddress>/api/v1/query on every poll (kedacore/keda v2.20.2 "
        f"pkg/scalers/prometheus_scaler.go:207), the host does not resolve, the trigger errors and the workload never "
        f"scales; write the Prometheus Service's address (http://prometheus-operated.monitoring.svc:9090)"
    )


def _annotated(annotations: Any) -> bool:
    return str(as_dict(annotations).get("prometheus.io/scrape", "")).lower() == "true"


def _chart_prometheus_blind(scaled: Resource, host: str, query: str, resources: list[Resource]) -> Optional[str]:
    """Advice when the trigger asks the prometheus-community chart's server (its Service is ``<release>-server``, or
    ``<release>-prometheus-server``: charts/prometheus templates/_helpers.tpl prometheus.server.fullname, prometheus-29.27.0)
    for a series of the model server it scales, and nothing makes that server scrape the pods: the chart's default jobs
    keep only pods, and Services' endpoints, annotated ``prometheus.io/scrape: "true"`` (charts/prometheus/values.yaml
    L864-873 kubernetes-service-endpoints, L983-991 kubernetes-pods, relabel action keep) and read no ServiceMonitor or
    PodMonitor (spent set 114 Goutham-Annem/eks-llm-inference manifests/keda-scaledobject.yaml: http://prometheus-server.
    monitoring:80, a vLLM Deployment with no annotation). Silent where the run holds a scrape configuration of its own
    (scrape_configs or extraScrapeConfigs in any object), or the target is not in the files."""
    first = host.split(".", 1)[0].lower()
    if not (first == "prometheus-server" or first.endswith("-prometheus-server")) or not server_series(query):
        return None
    target = scale_target(scaled, workloads(resources))
    if target is None or not model_servers(target.resource):
        return None
    if _annotated(get(target.resource.props, "spec", "template", "metadata", "annotations")):
        return None
    for service in _services(resources):
        selector = as_dict(get(service.props, "spec", "selector"))
        if (
            selector
            and selector_matches({"matchLabels": selector}, target.pod_labels)
            and _annotated(get(service.props, "metadata", "annotations"))
        ):
            return None
    if any(
        split_type(r.type)[1] in ("ConfigMap", "Release", "HelmRelease", "Application")
        and "crape" in json.dumps(r.props, default=str)
        for r in resources
    ):
        return None
    return (
        f"asks {host}, the prometheus-community chart's Prometheus server, for {server_series(query)[0][0]}, but neither "
        f"{target.kind}/{target.name}'s pod template nor a Service selecting its pods is annotated prometheus.io/scrape: "
        f'"true", the only targets the chart\'s default scrape jobs keep (charts/prometheus/values.yaml, prometheus-29.27.0, '
        f"kubernetes-pods and kubernetes-service-endpoints), and that server reads no ServiceMonitor or PodMonitor: the "
        f"query returns no series, KEDA reads 0 and the workload never scales on load; annotate the pod template "
        f"(prometheus.io/scrape, prometheus.io/port, prometheus.io/path)"
    )


def _keda_findings(resources: list[Resource]) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    services: Optional[list[Resource]] = None
    for scaled in resources:
        group, kind = split_type(scaled.type)
        if group != _KEDA or kind not in ("ScaledObject", "ScaledJob") or not isinstance(scaled.props, dict):
            continue
        written = as_list(get(scaled.written or scaled.props, "spec", "triggers"))
        for i, trigger in enumerate(as_dict(t) for t in as_list(get(scaled.props, "spec", "triggers"))):
            address = as_dict(trigger.get("metadata")).get("serverAddress")
            if trigger.get("type") == "prometheus" and (hole := _fill_in_address(written[i] if i < len(written) else {}, i)):
                findings.append((scaled.name, hole))
                continue
            if trigger.get("type") != "prometheus" or not isinstance(address, str) or "://" not in address:
                continue
            try:
                parts = urlsplit(address.strip())
                host = parts.hostname or ""
            except ValueError:
                continue
            asked = f"{address.strip().rstrip('/')}/api/v1/query"
            where = f"spec.triggers[{i}] (prometheus) serverAddress {address.strip()}"
            query = as_dict(trigger.get("metadata")).get("query")
            if isinstance(query, str) and (blind := _chart_prometheus_blind(scaled, host, query, resources)):
                findings.append((scaled.name, unproven(f"spec.triggers[{i}] (prometheus) {blind}")))
                continue
            if parts.path.rstrip("/").endswith("/metrics"):
                why = "a metrics exposition page, not Prometheus's query API"
            else:
                services = _services(resources) if services is None else services
                service = _service_of(host, namespace_of(scaled, "default"), services) if host else None
                behind = _server_behind(service, resources) if service is not None else None
                if behind is None:
                    continue
                why = f"Service {metadata_name(service.props) if service else host}, whose pods are the model server {behind}, not Prometheus"
            findings.append(
                (
                    scaled.name,
                    f"{where} is {why}: KEDA's prometheus scaler asks {asked}?query=... and fails on any answer that is "
                    "not the query API's (kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go:207, :246-250), so the "
                    "trigger has no value and the workload never scales; point it at Prometheus's Service (e.g. "
                    "http://prometheus-operated.monitoring.svc:9090), with no /metrics",
                )
            )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    return _keda_findings(resources) + _ingress_findings(resources)


POLICY = Policy(
    name="scrape-and-scaler-reach",
    description="An autoscaler's metric can be read where it is asked for: a KEDA prometheus trigger's serverAddress "
    "is Prometheus (not a model server's Service, a /metrics page or a fill-in host), and the NetworkPolicies isolating a model "
    "server for Ingress admit the port Prometheus scrapes.",
    catalog="G82",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Point serverAddress at Prometheus's Service (its query API), and add an ingress rule admitting "
    "the metrics port from Prometheus's namespace and pods to the model server's NetworkPolicy.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "KEDA's prometheus scaler queries <serverAddress>/api/v1/query (kedacore/keda v2.20.2 "
        "pkg/scalers/prometheus_scaler.go:207); a pod isolated for Ingress admits only what some rule allows "
        "(https://kubernetes.io/docs/concepts/services-networking/network-policies/), Prometheus's scrapes included."
    ),
)
