"""G63 in-cluster-url-resolves: an in-cluster URL a container is given names a Service its run defines, on a port it
exposes.

Cluster DNS answers ``NAME``, ``NAME.NS``, ``NAME.NS.svc`` and ``NAME.NS.svc.cluster.local`` only for a Service that
exists ("DNS for Services and Pods": https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services;
a bare name resolves in the pod's own namespace through its search list), and a Service forwards only the ports of its
``spec.ports`` (https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service). So a client whose
``API_URL``/``OLLAMA_HOST``/``OPENAI_BASE_URL`` (http, https, ws or grpc) names a Service the run does not define gets a name error on every
request, and one that calls a port the Service does not expose gets no answer (spent set 34, SunilKumar-ugra/
rayserve_assignment_kuberay assignment/streamlit-deployment.yaml@b1de7d4: API_URL http://ray-cluster-head-svc:8000
while KubeRay names the RayCluster's head Service raycluster-head-svc: ray-project/kuberay v1.7.0
ray-operator/controllers/ray/utils/util.go:316-328 GenerateHeadServiceName, ``<name>-head-svc`` unless
``headGroupSpec.headService.metadata.name`` is set, and :349-351 GenerateServeServiceName, ``<name>-serve-svc``).

Read from literal env values and from the ConfigMaps of the same namespace a container reads (envFrom configMapRef,
valueFrom configMapKeyRef). A namespace is judged only where the run clearly holds its Services: it defines at least
one there (KubeRay's head and serve Services counted from the RayCluster or RayService that makes them), and nothing
there may make others the files do not show (another operator's custom resource, a Helm template, a Kustomize patch
or base; policies/reading/run_objects.py, the reading G51, G56 and G60 share). A missing name blocks when it is a typo
of one the namespace has (equal but for '-', '_' and case, or one edit apart); otherwise it is advice (the Service may
come from another repository or chart). A port the Service does not expose blocks (the Service is in the run); silent
for a headless or ExternalName Service (DNS gives the pods or another host, whose ports are not the Service's).
A variable whose name says its URLs are compared or handed out (origins, CORS, public/redirect/callback URLs, trusted
hosts, NO_PROXY) is not read, nor a URL naming a Service that selects the container's own pods (its own address), nor a
host the pod resolves itself (spec.hostAliases, its hostname and subdomain), nor the API server's own Service
``kubernetes`` of namespace default; ``<pod>.<headless Service>`` is a pod's DNS name in the pod's namespace. A
finding blocks only in a variable named as an upstream (*_URL, *_ENDPOINT, *_HOST, *_ADDR, *_SERVER, *API_BASE...).
A namespace holding KServe InferenceServices is judged with the Services KServe names after them (``<name>``,
``<name>-predictor``, ...: run_objects.KSERVE_SERVICE_MAKERS), advice only there (Knative's revision Services are not
named; fresh set 54 questcollector/llmops-manifests gradio.yaml, a URL to an InferenceService of another namespace).
A URL naming ``NAME.NS.svc...`` where the run defines no Service in NS but defines NAME with its namespace left out
(the files applied with ``kubectl -n NS`` or a kustomization's namespace) is judged against that Service's ports, as
advice: where it lands is decided outside the files (session 48: OLLAMA_BASE_URL
http://ollama.ollama.svc.cluster.local:8000 while Service ollama, namespace omitted, offers 11434 only; silent before,
as the Service counted in namespace default). Also advice: a URL naming ``NAME.NS.svc...`` where the files put nothing in
NS (and place every workload and Service they hold), and a URL to a name only a desktop container engine resolves
(``host.docker.internal``), whatever Services the files hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, containers, get, name_of, pod_specs, split_type
from policies.reading.run_objects import (
    KSERVE_SERVICE_MAKERS,
    SERVICE_MAKERS,
    Names,
    by_namespace,
    hidden_namespaces,
    services_by_namespace,
    templated,
)
from policies.reading.serving import namespace_of, selector_matches, template_labels
from policies.reading.urls import COMPARED as _COMPARED
from policies.reading.urls import urls as _urls

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# The schemes a model API or its client speaks; a database or queue URL (postgresql://, redis://) is another story.
_SCHEMES = ("http", "https", "ws", "wss", "grpc", "grpcs")
_NOT_SERVICES = ("localhost",)
# A variable whose name says the process calls the URL: only these block; any other name (a config file held in a
# ConfigMap key, FOO_LIST, ...) is advice.
_UPSTREAM = re.compile(
    r"(?:^|_)(?:URL|URI|URLS|ENDPOINT|ENDPOINTS|HOST|ADDR|ADDRESS|SERVER|SERVERS|API_BASE|BASE|BASE_PATH)$|API_BASE", re.I
)


# The Service the control plane keeps in namespace default of every cluster, the API server's in-cluster address
# ("kubernetes.default.svc", https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/): defined whatever
# the files hold (review 43 #14).
_CLUSTER_SERVICE = ("kubernetes", "default")


def _host(host: str, own: str, namespaces: set[str], headless: set[str]) -> Optional[tuple[str, str, bool]]:
    """(Service name, namespace, whether the name is a pod's hostname.subdomain) of an in-cluster host, or None.
    ``headless``: the headless Services of the pod's namespace, whose ``<pod>.<service>`` names resolve to one pod
    through the search list (a StatefulSet's ``ollama-0.ollama``), read so before ``<service>.<namespace>``."""
    labels = host.split(".")
    target: Optional[tuple[str, str, bool]] = None
    if len(labels) == 1:
        target = (labels[0], own, False) if labels[0] not in _NOT_SERVICES else None
    elif len(labels) >= 4 and labels[3] == "svc":
        target = labels[1], labels[2], True
    elif len(labels) >= 3 and labels[2] == "svc":
        target = labels[0], labels[1], False
    elif len(labels) == 2 and labels[1] in headless:
        target = labels[1], own, True
    elif len(labels) == 2 and labels[1] in namespaces:
        target = labels[0], labels[1], False
    return None if target is None or target[:2] == _CLUSTER_SERVICE else target


def _pod_local_names(podspec: Mapping) -> set[str]:
    """Names the pod resolves without cluster DNS, so they are no Service: the hostnames its ``spec.hostAliases`` write
    into /etc/hosts, its own ``spec.hostname`` and ``hostname.subdomain``
    (https://kubernetes.io/docs/tasks/network/customize-hosts-file-for-pods/, and "Pod's hostname and subdomain
    fields" in dns-pod-service)."""
    names = {
        h.lower() for a in as_list(podspec.get("hostAliases")) for h in as_list(as_dict(a).get("hostnames")) if isinstance(h, str)
    }
    hostname, subdomain = podspec.get("hostname"), podspec.get("subdomain")
    if isinstance(hostname, str) and hostname:
        names.add(hostname.lower())
        if isinstance(subdomain, str) and subdomain:
            names.add(f"{hostname}.{subdomain}".lower())
    return names


def _values(podspec: Mapping, configmaps: Mapping[str, list[Resource]]) -> Iterator[tuple[str, str, str, str]]:
    """(where, variable, value, owner) of every literal env value of the pod's containers, and of the ConfigMap keys
    they read; ``owner`` the resource a finding is reported on when not the workload (a mounted ConfigMap), else ""."""
    for c in containers(podspec, init=True):
        name = c.get("name")
        for e in (as_dict(x) for x in as_list(c.get("env"))):
            variable = e["name"] if isinstance(e.get("name"), str) else ""
            if isinstance(e.get("value"), str):
                yield f"container {name} env {e.get('name')}", variable, e["value"], ""
            ref = as_dict(get(e, "valueFrom", "configMapKeyRef"))
            data = _data(configmaps, ref.get("name"))
            if isinstance(ref.get("key"), str) and isinstance(data.get(ref["key"]), str):
                where = f"container {name} env {e.get('name')} (ConfigMap {ref['name']} key {ref['key']})"
                yield where, variable, data[ref["key"]], ""
        for source in (as_dict(x) for x in as_list(c.get("envFrom"))):
            ref = as_dict(source.get("configMapRef"))
            for key, value in _data(configmaps, ref.get("name")).items():
                if isinstance(value, str):
                    yield f"container {name} envFrom ConfigMap {ref['name']} key {key}", str(key), value, ""
        yield from _mounted(podspec, c, configmaps)


# A line that is a comment in the config languages mounted from ConfigMaps (YAML, TOML, INI, nginx: #; JSON5, Caddy: //).
_COMMENT = re.compile(r"^\s*(?:#|//|;).*$", re.M)
# An nginx upstream block's name (``upstream backend { server vllm:8000; }``): ``proxy_pass http://backend`` names it,
# not a Service (https://nginx.org/en/docs/http/ngx_http_upstream_module.html#upstream).
_UPSTREAM_BLOCK = re.compile(r"\bupstream\s+([A-Za-z0-9_.-]+)\s*\{")


def _mounted(
    podspec: Mapping, container: Mapping, configmaps: Mapping[str, list[Resource]]
) -> Iterator[tuple[str, str, str, str]]:
    """(where, key, text) of each key of a ConfigMap of the namespace the container mounts as files (a LiteLLM
    model_list's ``api_base``, a proxy's upstream: spent set 61 PYTHON01100100/Serving-Large-Language-Models-at-Scale-
    Using-LiteLLM-and-vLLM-on-Alibaba-Cloud-ACK k8s/litellm-config.yaml), its comment lines and nginx upstream-block
    names left out. The key is no variable name, so what it finds is advice (_UPSTREAM), reported on the ConfigMap."""
    volumes = {
        str(v.get("name")): name_of(as_dict(v.get("configMap")))
        for v in map(as_dict, as_list(podspec.get("volumes")))
        if isinstance(v.get("configMap"), Mapping)
    }
    for mount in map(as_dict, as_list(container.get("volumeMounts"))):
        config = volumes.get(str(mount.get("name")))
        for key, value in _data(configmaps, config).items() if config else ():
            if not isinstance(value, str) or "://" not in value:
                continue
            text = _COMMENT.sub("", value)
            for block in set(_UPSTREAM_BLOCK.findall(text)):
                text = re.sub(rf"://{re.escape(block)}(?=[/;\s:]|$)", "://", text)
            owner = configmaps[str(config)][0].name
            yield f"data.{key} (mounted by container {container.get('name')} of {{}})", str(key), text, owner


def _own_services(workload: Resource, path: str, defined: Mapping[str, Optional[Resource]]) -> set[str]:
    """The Services of the workload's namespace that select its pods: a URL naming one is the server's own (public)
    address, which it hands out or compares, not one it calls."""
    labels = template_labels(workload, path)
    return {
        name
        for name, service in defined.items()
        if service is not None and any(selector_matches(get(service.props, "spec", "selector"), ls, plain=True) for ls in labels)
    }


def _data(configmaps: Mapping[str, list[Resource]], name: object) -> dict:
    found = configmaps.get(name) if isinstance(name, str) else None
    return as_dict(found[0].props.get("data")) if found and len(found) == 1 else {}


def _headless(service: Resource) -> bool:
    return get(service.props, "spec", "clusterIP") == "None"


def _port_finding(where: str, url: str, service: Resource, port: int) -> Optional[str]:
    spec = as_dict(get(service.props, "spec"))
    if spec.get("type") == "ExternalName" or _headless(service) or service.template or service.patch:
        return None
    ports = [as_int(as_dict(p).get("port")) for p in as_list(spec.get("ports"))]
    if not ports or None in ports or port in ports:
        return None
    name = get(service.props, "metadata", "name")
    return (
        f"{where} = {url} calls port {port} of Service {name}, which exposes {', '.join(map(str, ports))} only: the "
        f"Service forwards no other port, so every request fails; call one of its ports (or add {port} to spec.ports)"
    )


def _name_finding(where: str, url: str, name: str, namespace: str, names: Names, elsewhere: tuple[str, ...] = ()) -> str:
    typo = names.typo_of(name)
    shown = ", ".join(elsewhere)
    other = f", and {name} only in namespace {shown}, which a name without its namespace does not reach" if elsewhere else ""
    message = (
        f"{where} = {url} names Service {name} in namespace {namespace}, which none of the files read defines (they "
        f"define {names.listed()} there{other}): the name does not resolve and every request fails; "
    )
    if typo is not None:
        return message + f"use {typo}"
    return unproven(message + "unless that Service comes from elsewhere, use the name of the Service in front of the server")


# Names only a desktop container engine resolves (its host's address: Docker Desktop's host.docker.internal and
# gateway.docker.internal, https://docs.docker.com/desktop/features/networking/networking-how-tos/; Podman's
# host.containers.internal), not cluster DNS, which answers Services and pods only (dns-pod-service, cited above).
_DESKTOP_HOSTS = ("host.docker.internal", "gateway.docker.internal", "host.containers.internal")


def _desktop_hosts(resources: list[Resource]) -> list[tuple[str, str]]:
    """Advice for a URL a container is given (env, a ConfigMap it reads) whose host only a desktop container engine
    resolves, where the pod does not map it itself (hostAliases). Advice: Docker Desktop's own Kubernetes resolves the
    name in its pods, so the files do not prove the cluster is another. Spent set 76 cncf/llm-in-action@64ff29db
    kubernetes/deployment.yaml (OLLAMA_BASE_URL http://host.docker.internal:11434 on the Streamlit app keynote;
    labelled G63). A chat UI's resolved backend is S62's (chat_ui_reaches_backend)."""
    findings: list[tuple[str, str]] = []
    configmaps = by_namespace(resources, "", "ConfigMap")
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict) or workload.template:
            continue
        own = namespace_of(workload, "default")
        for _, podspec in pod_specs(workload):
            local = _pod_local_names(podspec)
            for where, variable, value, owner in _values(podspec, configmaps.get(own, {})):
                if "internal" not in value or _COMPARED.search(variable):
                    continue
                for url, scheme, host, _port in _urls(value):
                    if scheme in _SCHEMES and host.lower() in _DESKTOP_HOSTS and host.lower() not in local:
                        findings.append(
                            (
                                owner or workload.name,
                                unproven(
                                    f"{where.replace('{}', _kind_name(workload))} = {url} names {host}, which only a "
                                    f"desktop container engine (Docker Desktop, Podman) resolves: cluster DNS answers "
                                    f"Services and pods only, so on any other cluster the name does not resolve and "
                                    f"every request fails; name the Service in front of the server (or map the name "
                                    f"with spec.hostAliases)"
                                ),
                            )
                        )
                        break
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    desktop = _desktop_hosts(resources)
    return desktop + _in_cluster(resources)


def _in_cluster(resources: list[Resource]) -> list[tuple[str, str]]:
    makers = {**SERVICE_MAKERS, **KSERVE_SERVICE_MAKERS}
    services = services_by_namespace(resources, makers)
    if not services:
        return []
    hidden = hidden_namespaces(resources, spared=tuple(makers))
    kserve = {namespace_of(r, "default") for r in resources if split_type(r.type) in KSERVE_SERVICE_MAKERS}
    namespaces = {namespace_of(r, "default") for r in resources if isinstance(r.props, dict)}
    namespaces |= {str(get(r.props, "metadata", "name")) for r in resources if split_type(r.type) == ("", "Namespace")}
    configmaps = by_namespace(resources, "", "ConfigMap")
    floating = _floating_services(resources, hidden)
    # A workload or Service whose namespace is left out may be applied into any namespace (kubectl -n): then no
    # namespace is shown empty by the files.
    namespace_left_out = any(
        (r.type in WORKLOAD_TYPES or split_type(r.type) == ("", "Service")) and namespace_of(r) is None
        for r in resources
        if isinstance(r.props, dict)
    )
    findings: list[tuple[str, str]] = []
    indexed: dict[str, Names] = {}
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict) or workload.template:
            continue
        own = namespace_of(workload, "default")
        seen: set[str] = set()
        headless = {n for n, svc in services.get(own, {}).items() if svc is not None and _headless(svc)}
        for path, podspec in pod_specs(workload):
            mine = _own_services(workload, path, services.get(own, {}))
            local = _pod_local_names(podspec)
            for where, variable, value, owner in _values(podspec, configmaps.get(own, {})):
                if _COMPARED.search(variable):
                    continue
                where = where.replace("{}", _kind_name(workload))
                reported = owner or workload.name
                for url, scheme, host, port_text in _urls(value):
                    target = _host(host, own, namespaces, headless) if host not in local else None
                    if (
                        scheme in _SCHEMES
                        and target is not None
                        and target[1] not in services
                        and url not in seen
                        and not templated(value)
                        and (unplaced := _unplaced_port(where, url, target, floating, scheme, port_text, workload, path))
                    ):
                        seen.add(url)
                        findings.append((reported, unplaced))
                        continue
                    if (
                        scheme in _SCHEMES
                        and target is not None
                        and url not in seen
                        and not namespace_left_out
                        and (empty := _empty_namespace(where, url, host, variable, value, target, namespaces, hidden, floating))
                    ):
                        seen.add(url)
                        findings.append((reported, empty))
                        continue
                    if (
                        scheme not in _SCHEMES
                        or target is None
                        or url in seen
                        or templated(value)
                        or target[1] in hidden
                        or target[1] not in services
                        or (target[1] == own and target[0] in mine)
                    ):
                        continue
                    seen.add(url)
                    if target[1] not in indexed:
                        indexed[target[1]] = Names(list(services[target[1]]))
                    port = as_int(port_text) or _DEFAULT_PORTS.get(scheme)
                    elsewhere = tuple(sorted(n for n, d in services.items() if n != target[1] and target[0] in d))
                    found = _finding(where, url, target, services[target[1]], indexed[target[1]], port, elsewhere)
                    if found:
                        sure = _UPSTREAM.search(variable) and target[1] not in kserve
                        findings.append((reported, found if sure else unproven(found)))
    return findings


def _empty_namespace(
    where: str,
    url: str,
    host: str,
    variable: str,
    value: str,
    target: tuple[str, str, bool],
    namespaces: set[str],
    hidden: set[str],
    floating: Mapping[str, Resource],
) -> Optional[str]:
    """Advice for an upstream's URL naming ``NAME.NS.svc...`` where the files put nothing at all in NS (no object, no
    Namespace) while they define Services elsewhere, nothing of the files may make objects the files do not show, and
    no workload or Service of the files leaves its namespace out (one applied with ``kubectl -n NS`` would put it there). Spent set 75
    kcjones91/k8s-applications@2eaadd1d apps/open-webui/deployment.yaml (OLLAMA_BASE_URL
    http://ollama.ollama.svc.cluster.local:11434 while the files deploy only vLLM, in namespace vllm; labelled G63).
    Advice: the server may be installed by another repository or chart."""
    name, namespace, pod_dns = target
    if pod_dns or ".svc" not in host or namespace in namespaces or hidden or name in floating:
        return None
    if not _UPSTREAM.search(variable) or templated(value):
        return None
    shown = ", ".join(sorted(namespaces)[:6])
    return unproven(
        f"{where} = {url} names Service {name} in namespace {namespace}, where none of the files read puts anything "
        f"(they hold objects in {shown} only): unless another repository or chart deploys it there, the name does "
        f"not resolve and every request fails; deploy the server with these files, or point the URL at the Service in "
        f"front of the server they deploy"
    )


def _kind_name(resource: Resource) -> str:
    return f"{split_type(resource.type)[1]} {get(resource.props, 'metadata', 'name')}"


def _floating_services(resources: list[Resource], hidden: set[str]) -> dict[str, Resource]:
    """The Services of the files whose namespace is left out (applied with ``kubectl -n``, a kustomization or Helm's
    release namespace), by name, where one name is defined once and no object without a namespace may make others."""
    if "default" in hidden:
        return {}
    named: dict[str, list[Resource]] = {}
    for r in resources:
        if split_type(r.type) == ("", "Service") and isinstance(r.props, dict) and namespace_of(r) is None:
            name = get(r.props, "metadata", "name")
            if isinstance(name, str) and name and not templated(name) and not r.patch and not r.template:
                named.setdefault(name, []).append(r)
    return {name: found[0] for name, found in named.items() if len(found) == 1}


def _unplaced_port(
    where: str,
    url: str,
    target: tuple[str, str, bool],
    floating: Mapping[str, Resource],
    scheme: str,
    port_text: Optional[str],
    workload: Resource,
    path: str,
) -> Optional[str]:
    """Advice for a URL naming ``<service>.<namespace>`` where the files define no Service in that namespace but define
    that Service with its namespace left out (the form sealed sets showed: OLLAMA_BASE_URL
    http://ollama.ollama.svc.cluster.local:8000 while Service ollama, applied into namespace ollama, offers 11434 only):
    the URL's port it does not expose. Advice: which namespace the Service lands in is decided outside the files."""
    name, namespace, pod_dns = target
    service = floating.get(name)
    if service is None or pod_dns:
        return None
    if namespace_of(workload) is None and name in _own_services(workload, path, {name: service}):
        return None  # the pod's own Service: its own address, handed out, not called
    port = as_int(port_text) or _DEFAULT_PORTS.get(scheme)
    found = _port_finding(where, url, service, port) if port is not None else None
    if found is None:
        return None
    return unproven(
        f"{found} (Service {name} of these files leaves its namespace out; the URL expects it in namespace {namespace})"
    )


def _finding(
    where: str,
    url: str,
    target: tuple[str, str, bool],
    defined: Mapping[str, Optional[Resource]],
    names: Names,
    port: Optional[int],
    elsewhere: tuple[str, ...] = (),
) -> Optional[str]:
    name, namespace, pod_dns = target
    if name not in defined:
        return _name_finding(where, url, name, namespace, names, elsewhere)
    service = defined[name]
    if service is not None and port is not None and not pod_dns:
        return _port_finding(where, url, service, port)
    return None


POLICY = Policy(
    name="in-cluster-url-resolves",
    description=(
        "An in-cluster URL a container is given (env, or a ConfigMap it reads) names a Service its run defines in that "
        "namespace, on a port the Service exposes; judged where the run holds the namespace's Services (no operator, "
        "Helm template or patch there may add others); a missing name blocks when it is a typo of one defined there, "
        "advice otherwise."
    ),
    catalog="G63",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Point the URL at the Service in front of the server: http://SERVICE.NAMESPACE.svc.cluster.local:PORT, with "
        "SERVICE a Service the manifests define (KubeRay: <raycluster>-head-svc) and PORT one of its spec.ports."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "Cluster DNS resolves a Service name only for a Service that exists, and a Service forwards only its spec.ports "
        "(https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services)."
    ),
)
