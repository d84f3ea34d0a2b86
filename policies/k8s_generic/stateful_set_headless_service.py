"""G86 stateful-set-headless-service: a StatefulSet's serviceName names a headless Service, so its pods' DNS names exist.

A StatefulSet's ``spec.serviceName`` names "the service that governs this StatefulSet ... responsible for the network
identity of the set. Pods get DNS/hostnames that follow the pattern: pod-specific-string.serviceName.default.svc.
cluster.local" (kubernetes/api v0.33.0 apps/v1/types.go L218-224; the same text at v0.31.0 L217-223). The cluster DNS
publishes such a per-pod record only for a *headless* Service of that name (``clusterIP: None``): "If there exists a
headless Service in the same namespace as the Pod, with the same name as the subdomain, the cluster's DNS Server also
returns A and/or AAAA records for the Pod's fully qualified hostname"
(https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-s-hostname-and-subdomain-fields), and the
StatefulSet page lists "StatefulSets currently require a Headless Service to be responsible for the network identity of
the Pods" among its limitations (https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#limitations).

Two forms are reported, both advice (the set still runs; what breaks is whatever addresses one replica by name):

- ``serviceName`` names a Service of the files, in the StatefulSet's namespace, that is not headless (a ClusterIP,
  NodePort or LoadBalancer Service): ``NAME-0.SERVICE`` never resolves. Spent set 64: AdityaKhari1001/borgos
  k8s/ollama-deployment.yaml@ef24cf9e (an Ollama StatefulSet governed by its ClusterIP ``ollama-service``).
- no Service of the files has that name while a string of the files addresses a pod by it (``NAME-0.SERVICE``, a
  leader address given to the workers, a peer list).
- no Service of the files has that name while a Service of the same folder and namespace selects the set's pods under
  another name (session 56, brief crossfile56): the Service written for the set is misnamed, so ``NAME-0.SERVICE``
  resolves nowhere. Spent set 121 MichaelCade/UpTheStack-ArgoCD@6b984aa6 apps/ollama/ollama-statefulset.yaml
  (``serviceName: ollama`` beside the ClusterIP ``ollama-service``); silent where no Service of the folder selects the
  pods (the governing Service may live in another repository) or the Service is in another folder (an overlay's).

Silent: a headless Service of that name (the careful form, often beside a ClusterIP Service under another name), a
StatefulSet with no serviceName, a Helm template or Kustomize patch (their Services may be rendered elsewhere; a Pulumi
program's objects are read, every finding advice: spent set 123 pulumi/example-ai.cluster infra/app-llms/index.ts), a name
or clusterIP left unrendered, and a missing Service nobody addresses pods through (it may be created elsewhere).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, get, metadata_name, split_type
from policies.reading.run_objects import folder_of, unrendered
from policies.reading.serving import namespace_of

_MAX_NODES = 20_000  # strings read a resource when looking for a per-pod DNS name


def _named(resource: Resource, kind: str) -> Optional[str]:
    """The object's name when it is a rendered object of ``kind`` (group "" or apps) the files state themselves."""
    # A Pulumi program's objects are the program's own (policies/reading/pulumi_program.py: both names as it states them).
    best_effort = resource.template and not resource.template.startswith("Pulumi ")
    if split_type(resource.type)[1] != kind or not isinstance(resource.props, dict) or best_effort or resource.patch:
        return None
    name = metadata_name(resource.props)
    return name if isinstance(name, str) and name else None


def _same_namespace(a: Resource, b: Resource) -> bool:
    """True when two objects may share a namespace (one that states none lands where the other is applied)."""
    first, second = namespace_of(a), namespace_of(b)
    return first is None or second is None or first == second


def _headless(service: Resource) -> Optional[bool]:
    """True for ``clusterIP: None`` (also in clusterIPs), False for any other cluster IP or none written (the API
    server allocates one), None when the value is unrendered."""
    spec = as_dict(get(service.props, "spec"))
    ips = [spec.get("clusterIP"), *as_list(spec.get("clusterIPs"))[:1]]
    if any(unrendered(ip) or (ip is not None and not isinstance(ip, str)) for ip in ips):
        return None  # unrendered (framework.UNKNOWN) or a value of another type
    return any(isinstance(ip, str) and ip.strip() == "None" for ip in ips)


def _strings(value: Any) -> Iterator[str]:
    """Every string in a value, depth-first and bounded."""
    stack, seen = [value], 0
    while stack and seen < _MAX_NODES:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _pod_address(text: str, set_name: str, service: str) -> Optional[str]:
    """The first ``SET-N.SERVICE`` in a text (a per-pod DNS name of the StatefulSet), or None."""
    head, start = f"{set_name}-", 0
    while (at := text.find(head, start)) >= 0:
        start = at + 1
        if at and (text[at - 1].isalnum() or text[at - 1] in "-_."):
            continue
        end = at + len(head)
        digits = end
        while digits < len(text) and text[digits].isdigit():
            digits += 1
        after = text[digits + 1 + len(service) : digits + 2 + len(service)]
        if digits > end and text.startswith(f".{service}", digits) and not (after and (after.isalnum() or after in "-_")):
            return text[at : digits + 1 + len(service)]
    return None


def _addressed(resources: list[Resource], set_name: str, service: str) -> Optional[tuple[str, str]]:
    """(object, address) of the first object of the run whose strings hold a per-pod DNS name of the set."""
    needle = f"{set_name}-"
    for r in resources:
        if not isinstance(r.props, dict):
            continue
        for text in _strings(r.props):
            if needle in text and f".{service}" in text and (address := _pod_address(text, set_name, service)):
                return r.name, address
    return None


def _selects_pods(service: Resource, stateful_set: Resource) -> bool:
    """True when a Service's literal spec.selector picks the StatefulSet's pod template labels."""
    chooser = as_dict(get(service.props, "spec", "selector"))
    labels = as_dict(get(stateful_set.props, "spec", "template", "metadata", "labels"))
    if not chooser or not labels or any(unrendered(v) for v in chooser.values()):
        return False
    return all(labels.get(k) == v for k, v in chooser.items())


def _beside(resources: list[Resource], stateful_set: Resource) -> Optional[Resource]:
    """The first Service of the set's folder and namespace that selects its pods (the one written for the set)."""
    folder = folder_of(stateful_set)
    if folder is None:
        return None
    for r in resources:
        if _named(r, "Service") and split_type(r.type)[0] in ("", "core") and folder_of(r) == folder:
            if _same_namespace(r, stateful_set) and _selects_pods(r, stateful_set):
                return r
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    sets = [(r, n) for r in resources if (n := _named(r, "StatefulSet")) and split_type(r.type)[0] == "apps"]
    if not sets:
        return []
    services: dict[str, list[Resource]] = {}
    for r in resources:
        if (name := _named(r, "Service")) and split_type(r.type)[0] in ("", "core"):
            services.setdefault(name, []).append(r)
    findings: list[tuple[str, str]] = []
    for stateful_set, set_name in sets:
        governing = get(stateful_set.props, "spec", "serviceName")
        if not isinstance(governing, str) or not governing.strip() or unrendered(governing):
            continue
        governing = governing.strip()
        candidates = [s for s in services.get(governing, []) if _same_namespace(s, stateful_set)]
        if candidates:
            answers = [_headless(s) for s in candidates]
            if any(answer is not False for answer in answers):
                continue  # headless, or unknown
            kind = get(candidates[0].props, "spec", "type") or "ClusterIP"
            findings.append(
                (
                    stateful_set.name,
                    f"spec.serviceName names Service {governing}, a {kind} Service with a cluster IP, not a headless "
                    f"one (clusterIP: None): the cluster DNS publishes the per-pod names {set_name}-0.{governing} ... "
                    f"only for a headless Service of that name, so no replica can be reached by its stable name; add a "
                    f"headless Service {governing} (clusterIP: None, same selector) and give the load-balanced "
                    f"Service another name",
                )
            )
            continue
        if (found := _addressed(resources, set_name, governing)) is not None:
            where, address = found
            findings.append(
                (
                    stateful_set.name,
                    f"spec.serviceName names Service {governing}, which the files do not define, while {where} "
                    f"addresses a pod as {address}: that per-pod name resolves only through a headless Service "
                    f"{governing} (clusterIP: None) in this namespace; define it beside the StatefulSet",
                )
            )
        elif (other := _beside(resources, stateful_set)) is not None:
            name = metadata_name(other.props)
            findings.append(
                (
                    stateful_set.name,
                    f"spec.serviceName names Service {governing}, which the files do not define, while Service {name} "
                    f"of the same folder selects this set's pods: the per-pod names {set_name}-0.{governing} ... "
                    f"resolve only through a headless Service (clusterIP: None) named {governing}, so no replica can "
                    f"be reached by its stable name; name the headless governing Service {governing}, or set "
                    f"serviceName to a headless Service of the files (advice: the Service may be defined elsewhere)",
                )
            )
    return findings


POLICY = Policy(
    name="stateful-set-headless-service",
    description=(
        "A StatefulSet's serviceName names a headless Service (clusterIP: None) of its namespace, so its pods' DNS "
        "names (NAME-0.SERVICE) resolve: advice on a non-headless Service of that name, or on none where the files "
        "address a pod by such a name or a Service of the same folder selects the set's pods under another name."
    ),
    rationale=(
        "The governing Service is responsible for the set's network identity (kubernetes/api v0.33.0 apps/v1/types.go "
        "L218-224), and the cluster DNS publishes per-pod records only for a headless Service of that name "
        "(https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/)."
    ),
    catalog="G86",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Define a Service named as spec.serviceName with `clusterIP: None` and the StatefulSet's pod selector; keep "
        "a ClusterIP Service for load-balanced clients under another name."
    ),
    config_schema={},
    check_stack=_check,
)
