"""G42: a ServiceMonitor or PodMonitor selects a Service or pod of its run that has the port it scrapes.

prometheus-operator turns a ServiceMonitor into a Kubernetes service-discovery job that keeps only the endpoints of
Services whose own ``metadata.labels`` satisfy ``spec.selector`` (prometheus-operator v0.93.0
pkg/prometheus/promcfg.go:2043-2084: a ``keep`` on ``__meta_kubernetes_service_label_<key>`` per matchLabels entry,
the matchExpressions mapped to keep/drop) and whose port is named ``endpoints[].port`` (:2086-2097, the Service's
``spec.ports[].name``: pkg/apis/monitoring/v1/types.go:550-555), in the namespaces ``namespaceSelector`` names: its
``matchNames``, every namespace for ``any: true``, else the monitor's own (promcfg.go:2437-2445). A PodMonitor does
the same on the pods' labels and container port names (:1522-1578). The Service's ``spec.selector`` plays no part: a
Service that carries no labels, only a selector, is selected by no monitor. A monitor that selects nothing gives
Prometheus no target, so the engine's metrics never arrive and an autoscaler or alert on them never moves (set 34:
SimpsonRoss/aks-llm-serving-vllm k8s/monitoring/vllm-servicemonitor.yaml@8c9fc04 selects app=vllm in namespace vllm,
where vllm-service has a port named http but no labels).

A ServiceMonitor that selects two Services fronting the same pods on the same port (a Service and its headless twin,
both labelled app=vllm) makes two targets of each pod: every target carries ``service`` and ``job`` set from its
Service's name (promcfg.go:2139-2140, :2177-2181), so the label sets differ and Prometheus keeps both; every series is
scraped twice and a ``sum()`` (a KEDA or adapter query) doubles (set 38 Ting-YuChou/LLM-Infrastructure-mvp
k8s/deployments/vllm-deployment.yaml ServiceMonitor/vllm-metrics over vllm-service and vllm-headless). Advice.

A ServiceMonitor whose every matched Service port it scrapes targets a port nothing listens on in the model-server
pods behind it (S51's reading, policies/reading/service_listeners.py, from the engine table's ``port`` and
``metrics_port``: vLLM serves /metrics on its API port, so a Service port 9400 -> 9400 on vLLM pods is refused) has
every target down: advice (session 48).

Judged only where the run holds the Service (or pod template) the monitor was written for: one in a selected
namespace with a port of the name an endpoint scrapes, or a Service whose own ``spec.selector`` the monitor's selector
repeats and that names no port at all (the pod labels copied into the monitor: spent set 53 szevy/k8s-llm-serving k8s/servicemonitor.yaml selects
app=llm-service on port http, and Service/llm-service selects app=llm-service pods but carries no labels and an unnamed
port). Advice: the cluster may hold another Service that matches. Such a Service that states no namespace (it lands
where it is applied) counts in any namespace the monitor discovers in, when its file is in the monitor's folder or one
holding it (never a sibling: overlays, clusters), and the finding is said on the Service too, where the labels and the
port name go (spent set 118 kubernetes/examples@279e8e4f AI/vllm-deployment; brief crossfile56).
Silent where the run holds no such object (the monitor's target is defined elsewhere: another repository, a chart
installed beside), where an operator's custom resource, a Helm template or a Kustomize patch in those namespaces may
create or label the targets, and for a selector or name the files leave unrendered.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from policies.autoscaling.scalers import POD_MONITOR_GROUP_KIND, SERVICE_MONITOR_GROUP_KIND, selector_matches
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, split_type
from policies.reading.label_selectors import selector_equalities
from policies.reading.operator_pod_labels import SELECTOR_ONLY_KEYS
from policies.reading.run_objects import folder_of, stated_namespace
from policies.reading.run_objects import hides_pods as _hidden
from policies.reading.run_objects import pod_label_sets as _labels
from policies.reading.run_objects import unrendered as _unknown
from policies.reading.service_listeners import command_line_workloads, unserved_ports
from policies.reading.serving import namespace_of

_SERVICE = ("", "Service")


def _judged(monitor: Resource) -> Optional[dict]:
    """The monitor's selector where it can be judged: literal, not empty (an empty one selects everything), in a file
    that is neither a template nor a patch."""
    if monitor.template or monitor.patch or monitor.base:
        return None
    selector = get(monitor.props, "spec", "selector")
    if not isinstance(selector, dict) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return None
    if _unknown(str(selector)):
        return None
    return selector


def _namespaces(monitor: Resource, resources: list[Resource]) -> Optional[set[str]]:
    """The namespaces the monitor discovers in (promcfg.go:2437-2445), or None when it cannot be told."""
    chooser = as_dict(get(monitor.props, "spec", "namespaceSelector"))
    if chooser.get("any") is True:
        return {namespace_of(r, "default") for r in resources}
    names = as_list(chooser.get("matchNames"))
    if names:
        return None if any(not isinstance(n, str) or _unknown(n) for n in names) else set(names)
    return {namespace_of(monitor, "default")}


def _ports(monitor: Resource) -> set[str]:
    """The port names the monitor's endpoints scrape (``port``; a PodMonitor's podMetricsEndpoints)."""
    key = "podMetricsEndpoints" if _meant(monitor) == POD_MONITOR_GROUP_KIND else "endpoints"
    return {p for e in as_list(get(monitor.props, "spec", key)) if isinstance(p := as_dict(e).get("port"), str) and p}


def _service_targets(resources: list[Resource], namespaces: Optional[set[str]]) -> Iterator[tuple[Resource, dict, set[str]]]:
    """(Service, its labels, its port names) of the Services in the namespaces (every Service for None)."""
    for r in resources:
        if split_type(r.type) != _SERVICE or not isinstance(r.props, dict):
            continue
        if namespaces is None or namespace_of(r, "default") in namespaces:
            ports = {str(as_dict(p).get("name")) for p in as_list(get(r.props, "spec", "ports")) if as_dict(p).get("name")}
            yield r, {str(k): str(v) for k, v in as_dict(get(r.props, "metadata", "labels")).items()}, ports


def _pod_targets(resources: list[Resource], namespaces: set[str]) -> Iterator[tuple[Resource, dict, set[str]]]:
    """(workload, its pods' labels, their container port names) of the pod templates in the namespaces."""
    for r in resources:
        if not isinstance(r.props, dict) or namespace_of(r, "default") not in namespaces:
            continue
        spec = as_dict(get(r.props, "spec", "template", "spec")) or as_dict(get(r.props, "spec"))
        ports = {
            str(as_dict(p).get("name"))
            for c in as_list(spec.get("containers"))
            for p in as_list(as_dict(c).get("ports"))
            if as_dict(p).get("name")
        }
        for labels in _labels(r):
            yield r, {str(k): str(v) for k, v in as_dict(labels).items()}, ports


def _shown(labels: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "no labels"


def _message(monitor: Resource, selector: dict, nearest: tuple[Resource, dict, set[str]], namespaces: set[str]) -> str:
    target, labels, _ = nearest
    wanted = ", ".join(
        [f"{k}={v}" for k, v in as_dict(selector.get("matchLabels")).items()]
        + [f"{as_dict(e).get('key')} {as_dict(e).get('operator')}" for e in as_list(selector.get("matchExpressions"))]
    )
    where = ", ".join(sorted(namespaces))
    name = f"{get(target.props, 'kind')}/{get(target.props, 'metadata', 'name')}"
    if _meant(monitor) == SERVICE_MONITOR_GROUP_KIND:
        own = as_dict(get(target.props, "spec", "selector"))
        aside = (
            f" (its spec.selector {_shown(own)} chooses its pods; a ServiceMonitor selects Services by their own metadata.labels)"
            if own and selector_matches(selector, {str(k): str(v) for k, v in own.items()})
            else ""
        )
        return (
            f"spec.selector {wanted} matches no Service of the files read in namespace {where}; {name}, which has the "
            f"port the endpoints scrape, carries {_shown(labels)}{aside}, so Prometheus discovers no target and the "
            f"server's metrics never arrive (an autoscaler or alert on them never moves); label the Service to match, "
            f"or select the labels it carries"
        )
    return (
        f"spec.selector {wanted} matches no pod of the files read in namespace {where}; {name}, whose pods have the port "
        f"the podMetricsEndpoints scrape, labels them {_shown(labels)}, so Prometheus discovers no target and the "
        f"server's metrics never arrive (an autoscaler or alert on them never moves); select the pods' labels"
    )


def _copied_message(selector: dict, target: tuple[Resource, dict, set[str]], ports: set[str], namespaces: set[str]) -> str:
    """The monitor repeats a Service's pod selector, but the Service carries neither those labels nor the port name."""
    service, labels, names = target
    wanted = ", ".join(f"{k}={v}" for k, v in as_dict(selector.get("matchLabels")).items()) or "its expressions"
    return (
        f"spec.selector {wanted} with endpoints on port {', '.join(sorted(ports))} matches no Service of the files read "
        f"in namespace {', '.join(sorted(namespaces))}; Service/{get(service.props, 'metadata', 'name')}, whose "
        f"spec.selector is what the monitor repeats, carries {_shown(labels)} and names "
        f"{', '.join(sorted(names)) if names else 'no port'}: a ServiceMonitor keeps only Services whose own "
        f"metadata.labels match and only their ports of the endpoint's name, so Prometheus discovers no target and the "
        f"server's metrics never arrive; label the Service and name its port"
    )


def _port_message(monitor: Resource, ports: set[str], matched: list[tuple[Resource, dict, set[str]]]) -> str:
    """The selector finds its targets, but none names the port the endpoints scrape (the endpoint's ``port`` is a port
    name: promcfg.go:2086-2097 keeps only the endpoints of that Service port name; :1522-1578 the container port
    name for a PodMonitor)."""
    pods = _meant(monitor) == POD_MONITOR_GROUP_KIND
    named = "; ".join(
        f"{get(t[0].props, 'kind')}/{get(t[0].props, 'metadata', 'name')} names "
        + (", ".join(sorted(t[2])) if t[2] else "no port")
        for t in matched[:3]
    )
    key = "podMetricsEndpoints" if pods else "endpoints"
    return (
        f"spec.{key} scrape port {', '.join(sorted(ports))}, which no {'pod' if pods else 'Service'} the selector "
        f"matches names ({named}): Prometheus keeps only the endpoints on a port of that name, so it discovers no "
        f"target and the server's metrics never arrive; name the {'container' if pods else 'Service'} port, or scrape "
        f"the name it has"
    )


def _target_port(service: Resource, ports: set[str]) -> Optional[str]:
    """The pod port behind the Service port the monitor scrapes (targetPort, else the port number), as text."""
    for port in as_list(get(service.props, "spec", "ports")):
        port = as_dict(port)
        if port.get("name") in ports:
            return str(port.get("targetPort", port.get("port")))
    return None


def _twin_message(ports: set[str], matched: list[tuple[Resource, dict, set[str]]], resources: list[Resource]) -> Optional[str]:
    """Two matched Services whose spec.selector picks the same pods of the files read, on the same pod port."""
    pods = [labels for r in resources for labels in _labels(r) if split_type(r.type) != _SERVICE]
    scraped = [t[0] for t in matched if t[2] & ports]
    for i, first in enumerate(scraped):
        for second in scraped[i + 1 :]:
            own = [as_dict(get(s.props, "spec", "selector")) for s in (first, second)]
            port = _target_port(first, ports)
            if not all(own) or port is None or port != _target_port(second, ports) or _unknown(port):
                continue
            pick = [{str(k): str(v) for k, v in o.items()} for o in own]
            both = [
                p
                for p in pods
                if all(selector_matches({"matchLabels": q}, {str(k): str(v) for k, v in as_dict(p).items()}) for q in pick)
            ]
            if both or pick[0] == pick[1]:
                names = " and ".join(f"Service/{get(s.props, 'metadata', 'name')}" for s in (first, second))
                return (
                    f"spec.selector matches {names}, which front the same pods on the same port ({port}): each pod "
                    f"becomes two targets (their service and job labels differ), so every series is scraped twice and "
                    f"a sum() over it (an autoscaler's or adapter's query) doubles; label only one of them for the "
                    f"monitor, or select by a label the other lacks"
                )
    return None


def _dangling_message(
    ports: set[str], matched: list[tuple[Resource, dict, set[str]]], resources: list[Resource]
) -> Optional[str]:
    """Every matched Service port the endpoints scrape reaches nothing on the model-server pods it selects (S51's reading,
    policies/reading/service_listeners.py: vLLM serves /metrics on its API port, so a Service port 9400 -> 9400 on vLLM
    pods is refused): each target is down. None where one scraped port is served, or nothing is known of its pods."""
    workloads = command_line_workloads(resources)
    scraped = [t[0] for t in matched if t[2] & ports]
    found = []
    for service in scraped:
        names = {str(as_dict(p).get("name")) for p in as_list(get(service.props, "spec", "ports"))} & ports
        unserved = [u for u in unserved_ports(service, workloads) if u.name in names]
        if not unserved or {u.name for u in unserved} != names:
            return None
        found.append((service, unserved[0]))
    if not found:
        return None
    service, first = found[0]
    return (
        f"spec.endpoints scrape port {', '.join(sorted(ports))} of Service/{get(service.props, 'metadata', 'name')}, "
        f"whose {first.message.split('; target ', 1)[0]}: every target is down (connection refused) and the server's "
        f"metrics never arrive (an autoscaler or alert on them never moves); scrape the port the server serves its "
        f"metrics on (vLLM: its API port, /metrics)"
    )


def _related(first: Optional[str], second: Optional[str]) -> bool:
    """True when two files' folders are one, or one holds the other (a monitor in hpa/ beside the app's Service); never
    two sibling folders (kustomize overlays, clusters)."""
    if first is None or second is None:
        return False
    return first == second or first.startswith(second + "/") or second.startswith(first + "/") or not (first and second)


def _unplaced_copies(
    monitor: Resource, selector: dict, resources: list[Resource], namespaces: set[str]
) -> list[tuple[Resource, dict, set[str]]]:
    """Services of the monitor's folder (or a folder holding it) that state no namespace, whose spec.selector the
    monitor repeats and that name no port: applied to the discovered namespace or not, such a Service is selected by
    no label and no port name (spent set 118 kubernetes/examples@279e8e4f AI/vllm-deployment/vllm-service.yaml with
    hpa/vllm-service-monitor.yaml on namespace vllm-example). Namespaced ones are judged by the caller. Empty when an
    unplaced Service the monitor does select is in the files (a labelled metrics Service beside the app's)."""
    folder = folder_of(monitor)
    found = []
    for service, labels, names in _service_targets(resources, None):
        own = {str(k): str(v) for k, v in as_dict(get(service.props, "spec", "selector")).items()}
        if stated_namespace(service) or get(service.props, "metadata", "namespace"):
            continue
        if selector_matches(selector, labels):
            return []  # another unplaced Service (a metrics Service) the monitor selects where both land (review56e)
        if names or not own:
            continue
        if service.kustomize_namespace or service.template or service.patch or not _related(folder, folder_of(service)):
            continue
        if selector_matches(selector, own) and not selector_matches(selector, labels):
            found.append((service, labels, names))
    return found


_SERVICE_MONITORS = (SERVICE_MONITOR_GROUP_KIND, ("azmonitoring.coreos.com", "ServiceMonitor"))


def _meant(resource: Resource) -> tuple[str, str]:
    """A resource's (group, kind), a ServiceMonitor or PodMonitor written in the core group (``apiVersion: v1``) read
    as prometheus-operator's: the API server refuses that (G40 api-group-serves-kind says so), and with the group
    corrected it would select what it selects now, which is what its author meant (spent set 123
    Shivakumar980/QLora-vLLM-EKS-Deployment-NVIDIA-GPUs EKS-MANIFESTS/prometheus-servicemonitor.yaml, both labellers)."""
    group, kind = split_type(resource.type)
    return ("monitoring.coreos.com", kind) if group == "" and kind in ("ServiceMonitor", "PodMonitor") else (group, kind)


def _selector_only_keys(resources: list[Resource]) -> list[tuple[str, str]]:
    """A ServiceMonitor (prometheus-operator's, or Azure Monitor's azmonitoring.coreos.com twin) that selects Services
    by a label key an operator puts only in its Services' spec.selector (operator_pod_labels.SELECTOR_ONLY_KEYS), where
    no Service of the files carries that key among its own labels: it matches none of the operator's Services (set 44:
    ibranibeny/Kaito-Deployment servicemonitor.yaml, kaito.sh/workspace)."""
    carried = {str(k) for r in resources if split_type(r.type) == _SERVICE for k in as_dict(get(r.props, "metadata", "labels"))}
    found: list[tuple[str, str]] = []
    for monitor in (r for r in resources if split_type(r.type) in _SERVICE_MONITORS):
        selector = _judged(monitor)
        keys = selector_equalities(selector) if selector else {}  # matchLabels, and single-value In expressions
        where = "spec.selector.matchLabels" if selector and not get(selector, "matchExpressions") else "spec.selector"
        for key in (k for k in keys if k in SELECTOR_ONLY_KEYS and k not in carried):
            found.append(
                (
                    monitor.name,
                    unproven(
                        f"{where} {key}={keys[key]}: the monitor selects Services by their own "
                        f"labels, and {SELECTOR_ONLY_KEYS[key]}; no Service of the files carries it either, so unless the "
                        "Service is labelled by hand (kubectl label service) the monitor matches no Service and scrapes "
                        "nothing; select a label the Service carries, or scrape the pods with a PodMonitor on that key"
                    ),
                )
            )
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = _selector_only_keys(resources)
    monitors = [r for r in resources if _meant(r) in (SERVICE_MONITOR_GROUP_KIND, POD_MONITOR_GROUP_KIND)]
    if not monitors:
        return findings
    hidden = {namespace_of(r, "default") for r in resources if _hidden(r) and get(r.props, "kind") != "Namespace"}
    reported = {name for name, _ in findings}
    for monitor in (m for m in monitors if m.name not in reported):
        selector, namespaces, ports = _judged(monitor), _namespaces(monitor, resources), _ports(monitor)
        if selector is None or not namespaces or not ports or namespaces & hidden:
            continue
        reader = _service_targets if _meant(monitor) == SERVICE_MONITOR_GROUP_KIND else _pod_targets
        targets = list(reader(resources, namespaces))
        matched = [t for t in targets if selector_matches(selector, t[1])]
        if matched:
            if not any(t[2] & ports for t in matched) and not any(_unknown(n) for t in matched for n in t[2]):
                findings.append((monitor.name, unproven(_port_message(monitor, ports, matched))))
            elif reader is _service_targets and (twin := _twin_message(ports, matched, resources)):
                findings.append((monitor.name, unproven(twin)))
            elif reader is _service_targets and (dangling := _dangling_message(ports, matched, resources)):
                findings.append((monitor.name, unproven(dangling)))
            continue
        written_for = [t for t in targets if t[2] & ports]
        own = lambda t: as_dict(get(t[0].props, "spec", "selector"))  # noqa: E731
        if not written_for and reader is _service_targets:
            # A Service whose pod selector is the monitor's selector, copied: the one it was written for, though it
            # has neither the labels nor the port name (spent set 53 szevy/k8s-llm-serving k8s/servicemonitor.yaml).
            copied = [t for t in targets if own(t) and selector_matches(selector, {str(k): str(v) for k, v in own(t).items()})]
            # Only a Service with no named port: one naming another port may not be the one the monitor was
            # written for (the metrics Service may be elsewhere), while an unnamed port is never selectable by name.
            copied = [t for t in copied if not t[2]] or _unplaced_copies(monitor, selector, resources, namespaces)
            if copied:
                text = unproven(_copied_message(selector, copied[0], ports, namespaces))
                findings.append((monitor.name, text))
                if copied[0][0].name not in reported:
                    # The Service is where the labels and the port name go: said there too (spent set 118
                    # kubernetes/examples vllm-service.yaml, labelled G42 by both labellers; brief crossfile56).
                    reported.add(copied[0][0].name)
                    findings.append((copied[0][0].name, text))
            continue
        if not written_for:
            continue  # the run holds no object with the scraped port: the target is defined elsewhere
        nearest = max(
            written_for,
            key=lambda t: (
                selector_matches(selector, {str(k): str(v) for k, v in own(t).items()}),
                sum(t[1].get(k) == str(v) for k, v in as_dict(selector.get("matchLabels")).items()),
            ),
        )
        findings.append((monitor.name, unproven(_message(monitor, selector, nearest, namespaces))))
    return findings


POLICY = Policy(
    name="monitor-selects-targets",
    description="A ServiceMonitor (PodMonitor) selects, by their own labels, a Service (pod) of the files read that has "
    "the port it scrapes, in the namespaces it discovers in: advice where the run holds such an object and none matches, "
    "or where the objects it matches name no port it scrapes, or where it matches two Services of the same pods and "
    "port (each pod scraped twice), or where every Service port it scrapes reaches nothing on the model-server pods "
    "behind it (vLLM serves /metrics on its API port, so 9400 -> 9400 is refused); "
    "silent where the target is not in the files or an operator, Helm template or patch may supply it.",
    catalog="G42",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Put the labels the monitor's spec.selector names on the Service's metadata.labels (not only in "
    "its spec.selector), or select labels the Service carries; check with kubectl get svc -l <selector> -n <namespace>.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "prometheus-operator keeps only the endpoints of Services whose metadata.labels satisfy the ServiceMonitor's "
        "selector and whose port has the endpoint's name, in the namespaces namespaceSelector names (v0.93.0 "
        "pkg/prometheus/promcfg.go:2043-2097, :2437-2445); a PodMonitor the pods' labels and container ports "
        "(:1522-1578). A monitor that selects nothing scrapes nothing, and autoscaling on its metrics never moves."
    ),
)
