"""G106 backend-url-literal-ip: a URL a container is given names its backend by a literal IP address (a LAN host, a
node's public address, a public host) instead of the cluster Service in front of the server.

A literal IPv4 address in a client's URL ties the run to one host: it is no cluster DNS name, so it does not follow the
server when the pod or node moves, and on any other cluster it reaches nothing or somebody else's host. Two forms the
files prove (advice: the host may be a fixed appliance outside the cluster on purpose):

* the URL's port is a port a Service of the files offers (``port``, ``targetPort`` or ``nodePort``): the server the
  address means runs in this run, behind that Service, and the client bypasses it (the Service's DNS name is what
  follows the pods, https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services). Spent set 86
  alexmachulsky/devops-chatbot@3763600178d5f2925fdb1c7be5f93832b7a8ce5a k8s/deployment.yaml: ``OLLAMA_URL
  http://192.168.18.241:11434`` while k8s/ollama-deployment.yaml defines Service ollama on 11434; spent set 66
  agud97/k8s-vllm@783a7904867002eaae1136790946b97e4e121b8e gitops/apps/litellm/configmap.yaml: LiteLLM ``api_base
  http://89.108.125.7:32090/v1`` (a node's public address and the NodePort 32090 of Service qwen35-122b-public)
  instead of the predictor Service. Both labelled none.
* the URL is plain ``http``/``ws`` to a globally routable address (not private, loopback, link-local, shared or
  reserved: Python's ``ipaddress`` ``is_global``, IANA special-purpose registries): requests, prompts and any key in
  headers leave the cluster in clear text to an outside host. Spent set 89 sfugarino/manifests
  open-webui/deployment.yaml ``OTEL_EXPORTER_OTLP_ENDPOINT http://198.168.1.101:4317`` (a public address, the comment
  says the local collector; labelled none).

Read from the values G63 reads (literal env values, the ConfigMap keys a container reads through env, envFrom or a
mounted ConfigMap: a LiteLLM config's ``api_base``), in every pod template the pack reads. Silent: loopback,
0.0.0.0, link-local (the cloud metadata address 169.254.169.254), a private address on a port no Service of the files
offers, https to a public address, variables whose URLs are compared or handed out (origins, NO_PROXY, public URLs),
a URL naming the pod's own Services' ports through localhost, database/queue schemes.
"""

from __future__ import annotations

import ipaddress
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.in_cluster_url_resolves import _SCHEMES, _kind_name, _values
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, get, pod_specs, split_type
from policies.reading.run_objects import by_namespace
from policies.reading.serving import namespace_of
from policies.reading.urls import COMPARED as _COMPARED
from policies.reading.urls import urls as _urls

_PLAIN = ("http", "ws", "grpc")


def _address(host: str) -> Optional[ipaddress.IPv4Address]:
    """The host as an IPv4 address worth judging (not loopback, unspecified, link-local or multicast), else None."""
    if not host[:1].isdigit():
        return None
    try:
        address = ipaddress.IPv4Address(host)
    except ValueError:
        return None
    if address.is_loopback or address.is_unspecified or address.is_link_local or address.is_multicast:
        return None
    return address


def _service_ports(resources: list[Resource]) -> dict[int, str]:
    """Each port a Service of the files offers (port, numeric targetPort, nodePort) -> the Service's name."""
    ports: dict[int, str] = {}
    for r in resources:
        if split_type(r.type) != ("", "Service") or not isinstance(r.props, dict) or r.template:
            continue
        spec = as_dict(get(r.props, "spec"))
        if spec.get("type") == "ExternalName" or spec.get("selector") is None:
            continue
        name = str(get(r.props, "metadata", "name"))
        for p in map(as_dict, as_list(spec.get("ports"))):
            for field in ("port", "targetPort", "nodePort"):
                number = as_int(p.get(field))
                if number is not None:
                    ports.setdefault(number, name)
    return ports


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if not any(r.type in WORKLOAD_TYPES for r in resources):
        return []
    findings: list[tuple[str, str]] = []
    ports: Optional[dict[int, str]] = None
    configmaps: Optional[dict] = None
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict) or workload.template:
            continue
        if configmaps is None:
            configmaps = by_namespace(resources, "", "ConfigMap")
        seen: set[str] = set()
        for _, podspec in pod_specs(workload):
            for where, variable, value, owner in _values(podspec, configmaps.get(namespace_of(workload, "default"), {})):
                if "://" not in value or _COMPARED.search(variable):
                    continue
                for url, scheme, host, port_text in _urls(value):
                    scheme = scheme.lower()
                    address = _address(host)
                    if address is None or scheme not in _SCHEMES or url in seen:
                        continue
                    if ports is None:
                        ports = _service_ports(resources)
                    port = as_int(port_text)
                    text = f"{where.replace('{}', _kind_name(workload))} = {url}"
                    service = ports.get(port) if port is not None else None
                    if service is not None:
                        message = (
                            f"{text} names its backend by the literal address {host}, while Service {service} of the "
                            f"files offers port {port}: the client bypasses the Service in front of the server and "
                            f"reaches one host only (it breaks when the pod or node moves, and on any other cluster); "
                            f"use the Service's DNS name (http://{service}.NAMESPACE.svc.cluster.local:PORT)"
                        )
                    elif scheme in _PLAIN and address.is_global:
                        message = (
                            f"{text} sends plain {scheme} to the public address {host}, a host outside the cluster: "
                            f"requests and any key they carry travel in clear text, and no Service of the files offers "
                            f"port {port_text or 80}; use the in-cluster Service's DNS name, or https to a named host"
                        )
                    else:
                        continue
                    seen.add(url)
                    findings.append((owner or workload.name, unproven(message)))
    return findings


POLICY = Policy(
    name="backend-url-literal-ip",
    description=(
        "A URL a container is given (env, or a ConfigMap it reads) names its backend by a literal IP address: on a "
        "port a Service of the files offers (the client bypasses the Service), or plain http to a public address."
    ),
    catalog="G106",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Point the URL at the Service in front of the server by its DNS name "
        "(http://SERVICE.NAMESPACE.svc.cluster.local:PORT); for a host outside the cluster use a DNS name over https, "
        "or a selector-less Service with an ExternalName."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "A Service's DNS name follows its pods (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/"
        "#services); a literal address is one host, and plain http to a public address leaves the cluster in clear."
    ),
)
