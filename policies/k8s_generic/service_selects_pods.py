"""G56: a Service's selector matches the pods of a workload of its run.

The endpoints controller adds to a Service's EndpointSlices the pods whose labels carry every key/value pair of the
Service's ``spec.selector`` (https://kubernetes.io/docs/concepts/services-networking/service/#services-with-selectors;
kubernetes v1.31.0 pkg/controller/endpointslice/endpointslice_controller.go syncService: ``podLister.Pods(namespace)
.List(labels.Set(service.Spec.Selector).AsSelectorPreValidated())``). A selector no pod carries leaves the Service with
no endpoints: every connection to it is refused (kube-proxy rejects traffic to a Service without endpoints), so the
model API behind it answers nothing. Set 29: KaveeshKhattar/inference-router k8s/vllm-service.yaml@3fb97cd selects
``app: vllm-sim`` while the simulator's pods (k8s/vllm-deployment.yaml) are labelled ``app: vllm``.

Read across files, but only within what one directory defines: a Service is judged only where a workload of the same
directory runs in its namespace (a Service written for pods another repository or chart defines stays quiet), and only
when no pod template of the whole run, in that namespace, matches. Blocking when a workload of the same directory and
namespace carries every key of the selector with another value a typo explains (one value a prefix of the other, on a
key that names no variant: the pods it was written for, misspelled); advice otherwise (a blue/green colour, a canary
track or another app's name: those pods may come from another pipeline step; cold review 29, finding 9; or another
Service of the same file selects pods no file of the run defines, so the run holds only part of what the file fronts:
``_siblings_elsewhere``), and advice
where no workload there carries the selector's keys (the intended pods may be defined elsewhere). Silent where
something the files do not show may add the labels: an operator's custom resource in the namespace (its controller labels the pods it creates), a Helm template
or Kustomize patch or base, an unrendered value, or a selector on a label a controller adds itself (pod-template-hash,
statefulset.kubernetes.io/pod-name, job-name, ...). A Service that names no namespace while the workload of its directory
whose pods it selects names one is advice (``_namespace_apart``: applied without -n it lands in default, away from
its pods), unless a kustomization beside it may set one namespace for both; a Service and that workload stating
different namespaces blocks (``_namespace_apart``), one stating none is advice.
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Mapping, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, split_type
from policies.reading.controller_pod_labels import CONTROLLER_KEYS
from policies.reading.kustomize import KUSTOMIZATION_FILES
from policies.reading.operator_pod_labels import ANY, is_operator_pod_owner, operator_pod_labels
from policies.reading.run_objects import hides_pods, pod_label_sets
from policies.reading.run_objects import unrendered as _unknown
from policies.reading.serving import namespace_of

_SERVICE = ("", "Service")
# Labels the controllers add to the pods they create (controller_pod_labels.CONTROLLER_KEYS, cited there): a selector
# on one of them is read as unknown.
_CONTROLLER_LABELS = CONTROLLER_KEYS


def _file(resource: Resource) -> str:
    """The file a manifest object was read from ("" for a Pulumi resource: one program)."""
    location = resource.name.split(" ", 1)[0] if " " in resource.name else ""
    return location.split("#", 1)[0] if "#" in location else ""


def _where(resource: Resource) -> str:
    """The directory of the file a manifest object was read from ("" for a Pulumi resource: one program)."""
    return posixpath.dirname(_file(resource))


def _selector(service: Resource) -> Optional[dict]:
    """The Service's selector where it can be judged: a literal, non-empty map on labels no controller adds."""
    if service.patch or service.base or service.template or get(service.props, "spec", "type") == "ExternalName":
        return None
    selector = get(service.props, "spec", "selector")
    if not isinstance(selector, dict) or not selector:
        return None
    if any(_unknown(k) or _unknown(v) or k in _CONTROLLER_LABELS for k, v in selector.items()):
        return None
    return selector


def _hidden(resource: Resource) -> bool:
    """An object that may make pods whose labels the files do not show; an operator's custom resource whose pod labels
    are known (KubeRay's: policies/reading/operator_pod_labels.py) is read instead, unless its labels are unrendered."""
    if is_operator_pod_owner(resource) and not (resource.template or resource.patch or resource.base):
        return any(_unknown(k) or _unknown(v) for labels in operator_pod_labels(resource) for k, v in labels.items())
    return hides_pods(resource)


def _labels(resource: Resource) -> list[Mapping]:
    return [*pod_label_sets(resource), *operator_pod_labels(resource)]


def _matches(selector: Mapping, labels: Mapping) -> bool:
    return all(labels.get(k) is ANY or str(labels.get(k)) == str(v) for k, v in selector.items() if k in labels) and set(
        selector
    ) <= set(labels)


def _closeness(service: Resource, selector: Mapping, workload: Resource, labels: Mapping) -> tuple[bool, int]:
    """How surely a workload is the one a Service was written for: a container port its targetPort names, then the
    length of the prefix its label values share with the selector's (app=vllm-sim against app=vllm)."""
    targets = {str(as_dict(p).get("targetPort", as_dict(p).get("port"))) for p in as_list(get(service.props, "spec", "ports"))}
    template = get(workload.props, "spec", "template", "spec") or get(workload.props, "spec")
    ports = {
        str(as_dict(p).get(key))
        for c in as_list(as_dict(template).get("containers"))
        for p in as_list(as_dict(c).get("ports"))
        for key in ("containerPort", "name")
    }
    shared = sum(len(posixpath.commonprefix([str(v), str(labels.get(k))])) for k, v in selector.items())
    return bool(targets & ports), shared


# Keys whose other value names another variant of the same app (blue/green colours, canary tracks, versions): a Service
# selecting the variant whose pods another pipeline step applies is no misspelling (cold review 29, finding 9).
_VARIANT_KEYS = {"color", "colour", "slot", "track", "version", "variant", "stage", "canary", "release", "deployment"}


def _misspelled(selector: Mapping, labels: Mapping) -> bool:
    """True when every value the selector wants differs from the pods' in a way a typo makes (one a prefix of the
    other: app=vllm-sim against app=vllm) and no differing key names a variant (color=green against color=blue)."""
    differing = [(k, str(v), str(labels.get(k))) for k, v in selector.items() if str(labels.get(k)) != str(v)]
    return all(
        k.rsplit("/", 1)[-1].lower() not in _VARIANT_KEYS
        and (a.startswith(b) or b.startswith(a))
        and not _VARIANT_WORD.search(a[len(b) :] if a.startswith(b) else b[len(a) :])
        for k, a, b in differing
    )


# A suffix that names a variant of the app inside its value (app=vllm-canary beside app=vllm; cold review 29b, 7).
_VARIANT_WORD = re.compile(
    r"(?i)(?:^|[-_.])(?:canary|blue|green|preview|stable|next|prev|old|new|beta|alpha|shadow|test|staging|v\d+)(?:$|[-_.])"
)


def _stated_namespace(resource: Resource) -> Optional[str]:
    """The namespace an object's file states and nothing of the run overrides (a kustomization's ``namespace:``
    rewrites every object it includes; a Helm template's is the release's), or None."""
    namespace = get(resource.props, "metadata", "namespace")
    if resource.kustomize_namespace or resource.template or not isinstance(namespace, str) or not namespace:
        return None
    return None if _unknown(namespace) else namespace


def _namespace_apart(service: Resource, selector: Mapping, others: list[Resource]) -> list[tuple[str, str]]:
    """A Service whose namespace is not the one the workload of its directory whose pods it selects runs in.

    - The Service names no namespace while the workload names one: advice (``kubectl apply -f`` puts the Service in the
      client's namespace, default unless -n or the context says otherwise, where it selects no pod; ``kubectl apply
      -n`` or a kustomization's namespace the files do not show may put both together; fresh set 55: egel/k8s-ollama
      ollama-all.yaml, Service ollama-service-node-port beside Deployment ollama in namespace ollama).
    - Both state namespaces and they differ: the EndpointSlice controller lists only the pods of the Service's own
      namespace, so the Service has no endpoints wherever the files are applied: blocking, unless a kustomization of
      the run sets one namespace for both (Resource.kustomize_namespace) or a renderer sets them.
    - The Service states one and the workload none: advice (the pods land where the workload is applied)."""
    own = get(service.props, "metadata", "namespace")
    where = _where(service)
    if own is None and where and any(os.path.isfile(os.path.join(where, k)) for k in KUSTOMIZATION_FILES):
        return []  # a kustomization's namespace may set both
    stated = _stated_namespace(service)
    if own is not None and stated is None:
        return []
    wanted = ", ".join(f"{k}={v}" for k, v in selector.items())
    for workload in others:
        namespace = get(workload.props, "metadata", "namespace")
        if _where(workload) != where or (isinstance(namespace, str) and _unknown(namespace)):
            continue
        if not any(_matches(selector, labels) for labels in _labels(workload)):
            continue
        kind, name = get(workload.props, "kind"), get(workload.props, "metadata", "name")
        message: str
        if own is None and isinstance(namespace, str) and namespace:
            message = unproven(
                f"metadata.namespace is left out while {kind}/{name} of the same directory, whose pods carry {wanted}, "
                f"runs in namespace {namespace}: applied without -n the Service lands in the client's namespace "
                f"(default), selects no pod there and has no endpoints; set metadata.namespace: {namespace}"
            )
        elif stated is not None and (namespace is None or namespace == ""):
            message = unproven(
                f"the Service is in namespace {stated} while {kind}/{name} of the same directory, whose pods carry "
                f"{wanted}, names no namespace: applied without -n its pods land in the client's namespace (default), "
                f"away from the Service, which then has no endpoints; set the workload's metadata.namespace: {stated}"
            )
        elif stated is not None and _stated_namespace(workload) not in (None, stated):
            message = (
                f"the Service is in namespace {stated} while {kind}/{name} of the same directory, whose pods carry "
                f"{wanted}, runs in namespace {namespace}: a Service selects only pods of its own namespace, so it has "
                f"no endpoints and every connection to it is refused; put the Service in namespace {namespace}"
            )
        else:
            continue
        return [(service.name, message)]
    return []


def _pinned_apart(service: Resource, selector: Mapping, in_namespace: list[Resource]) -> list[tuple[str, str]]:
    """Advice for a Service that leaves its namespace out while the workload of its directory whose pods it selects
    pins ``namespace: default``: ``kubectl apply -n NS`` (or a context whose namespace is not default) puts the Service
    in NS and the workload in default, so the Service has no endpoints (spent set 58 raulcmz/k8s-llmops-inference-
    platform k8s/gateway/service.yaml beside k8s/gateway/deployment.yaml, namespace default; labelled G56)."""
    where = _where(service)
    if get(service.props, "metadata", "namespace") is not None or service.kustomize_namespace or service.template:
        return []
    if where and any(os.path.isfile(os.path.join(where, k)) for k in KUSTOMIZATION_FILES):
        return []
    for workload in in_namespace:
        if _where(workload) != where or get(workload.props, "metadata", "namespace") != "default":
            continue
        if not any(_matches(selector, labels) for labels in _labels(workload)):
            continue
        kind, name = get(workload.props, "kind"), get(workload.props, "metadata", "name")
        return [
            (
                service.name,
                unproven(
                    f"metadata.namespace is left out while {kind}/{name} of the same directory, whose pods it selects, "
                    f"pins namespace default: applied with -n or under a context whose namespace is not default, the "
                    f"Service lands there, selects no pod and has no endpoints; set metadata.namespace: default"
                ),
            )
        ]
    return []


def _siblings_elsewhere(service: Resource, services: list[Resource], in_namespace: list[Resource]) -> bool:
    """Another Service of the same file, in the same namespace, whose selector matches no pod of the files and no
    workload of them with a typo either: that file fronts pods the files do not define (a repository copied in part, a
    workload another pipeline applies), so a near miss on this one is no proof (set 119
    lahlfors/cybernetic-governance-engine@2bcc2f2e deployment/k8s/vllm-services.yaml: vllm-service selects
    app=vllm-inference, defined in vllm-deployment.yaml, beside vllm-reasoning selecting app=vllm-reasoning, defined in
    vllm-reasoning.yaml, neither file in the run; the streaming Deployment labelled app=vllm-inference-streaming is
    another app)."""
    here = _file(service)
    for other in services:
        if other is service or not here or _file(other) != here:
            continue
        selector = _selector(other)
        if selector is None or namespace_of(other, "default") != namespace_of(service, "default"):
            continue
        near = [
            labels
            for r in in_namespace
            for labels in _labels(r)
            if _matches(selector, labels) or (set(selector) <= set(labels) and labels and _misspelled(selector, labels))
        ]
        if not near:
            return True
    return False


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    services = [r for r in resources if split_type(r.type) == _SERVICE and isinstance(r.props, dict)]
    if not services:
        return findings
    others = [r for r in resources if isinstance(r.props, dict) and split_type(r.type) != _SERVICE]
    hidden = {namespace_of(r, "default") for r in others if _hidden(r) and get(r.props, "kind") != "Namespace"}
    for service in services:
        selector = _selector(service)
        namespace = namespace_of(service, "default")
        if selector is None or namespace in hidden:
            continue
        in_namespace = [r for r in others if namespace_of(r, "default") == namespace and any(True for _ in _labels(r))]
        if any(_matches(selector, labels) for r in in_namespace for labels in _labels(r)):
            findings += _pinned_apart(service, selector, in_namespace)
            continue
        here = [r for r in in_namespace if _where(r) == _where(service)]
        if not here:
            findings += _namespace_apart(service, selector, others)
            continue  # no workload of this directory runs there: the pods may be another repository's
        intended = [(r, labels) for r in here for labels in _labels(r) if set(selector) <= set(labels) and labels]
        wanted = ", ".join(f"{k}={v}" for k, v in selector.items())
        if intended:
            workload, labels = max(intended, key=lambda found: _closeness(service, selector, *found))
            carries = ", ".join(f"{k}={labels.get(k)}" for k in selector)
            message = (
                f"spec.selector {wanted} matches no pod of the files read in namespace {namespace}; "
                f"{get(workload.props, 'kind')}/{get(workload.props, 'metadata', 'name')} of the same directory labels "
                f"its pods {carries}, so the Service has no endpoints and every connection to it is refused; make the "
                f"selector and the pod template's labels agree"
            )
            if not _misspelled(selector, labels) or _siblings_elsewhere(service, services, in_namespace):
                # another colour, track or name; or the Service's file fronts other pods the files do not define: its
                # pods may come from elsewhere
                message = unproven(message)
        else:
            message = unproven(
                f"spec.selector {wanted} matches no pod of the files read in namespace {namespace} (the workloads of "
                f"this directory there carry other labels), so unless pods defined elsewhere carry it the Service has "
                f"no endpoints and every connection to it is refused"
            )
        findings.append((service.name, message))
    return findings


POLICY = Policy(
    name="service-selects-pods",
    description="A Service's selector matches the pods of a workload of the files read, in its namespace: judged where "
    "a workload of the Service's directory runs in that namespace; blocking when one of them carries the selector's "
    "keys with values a typo explains (one a prefix of the other), advice otherwise (another colour, track or app); silent where an operator's custom resource, a "
    "Helm template, a Kustomize patch or an unrendered label may supply the pods.",
    catalog="G56",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Make the Service's spec.selector equal to labels the intended pod template carries (kubectl get "
    "endpointslices -l kubernetes.io/service-name=<service> shows none while they differ).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "The EndpointSlice controller selects the Service's pods by spec.selector in its namespace "
        "(https://kubernetes.io/docs/concepts/services-networking/service/#services-with-selectors); a selector no pod "
        "carries gives no endpoints, and kube-proxy rejects connections to a Service without endpoints. kube-linter's "
        "dangling-service check finds the same."
    ),
)


# A Service whose selector also matches a run-to-completion pod --------------------------------------------------------
# The EndpointSlice controller adds every pod of the namespace whose labels carry the selector (syncService, above),
# whatever made it: a Job's pod (a model preload, a migration) that copies the server's labels becomes an endpoint too,
# and a pod with no readinessProbe counts as ready once its containers run (kubernetes.io/docs/concepts/workloads/pods/
# pod-lifecycle/#container-probes: without the probe the default state is Success), so while the Job runs the Service
# sends part of its traffic to a pod that does not serve it (spent set 82 olafkfreund/SOW-generator
# deployment/k8s-pod-ollama-nvidia.yaml@2e78b6f8: Job ollama-nvidia-model-preload labelled app: ollama, gpu-type:
# nvidia, the selector of Service ollama-nvidia-service and of the Ollama Deployment; labelled none, advisory).
_LONG_RUNNING = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"})


def _runs_to_completion(resource: Resource) -> bool:
    kind = split_type(resource.type)[1]
    if kind in ("Job", "CronJob"):
        return split_type(resource.type)[0] == "batch"
    if split_type(resource.type) == ("", "Pod"):
        return get(resource.props, "spec", "restartPolicy") in ("Never", "OnFailure")
    return False


def _job_podspec(resource: Resource) -> dict:
    spec = as_dict(get(resource.props, "spec"))
    if split_type(resource.type)[1] == "CronJob":
        spec = as_dict(get(spec, "jobTemplate", "spec"))
    return as_dict(get(spec, "template", "spec")) if split_type(resource.type)[1] != "Pod" else spec


def _labels_at(resource: Resource) -> str:
    kind = split_type(resource.type)[1]
    if kind == "Pod":
        return "metadata.labels"
    return "spec.jobTemplate.spec.template.metadata.labels" if kind == "CronJob" else "spec.template.metadata.labels"


def _side_pods(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    services = [r for r in resources if split_type(r.type) == _SERVICE and isinstance(r.props, dict)]
    if not services:
        return findings
    jobs = [r for r in resources if isinstance(r.props, dict) and _runs_to_completion(r) and not hides_pods(r)]
    if not jobs:
        return findings
    servers = [
        r
        for r in resources
        if isinstance(r.props, dict) and split_type(r.type)[1] in _LONG_RUNNING and split_type(r.type)[0] == "apps"
    ]
    for service in services:
        selector = _selector(service)
        if selector is None:
            continue
        namespace, folder = namespace_of(service, "default"), _where(service)
        served = [
            r
            for r in servers
            if namespace_of(r, "default") == namespace and any(_matches(selector, labels) for labels in pod_label_sets(r))
        ]
        if not served:
            continue
        wanted = ", ".join(f"{k}={v}" for k, v in selector.items())
        server = f"{get(served[0].props, 'kind')}/{get(served[0].props, 'metadata', 'name')}"
        for job in jobs:
            if namespace_of(job, "default") != namespace or _where(job) != folder:
                continue
            if not any(_matches(selector, labels) for labels in pod_label_sets(job)):
                continue
            containers = [as_dict(c) for c in as_list(_job_podspec(job).get("containers"))]
            if containers and all(c.get("readinessProbe") for c in containers):
                continue  # ready only when it answers the probe
            findings.append(
                (
                    job.name,
                    unproven(
                        f"{_labels_at(job)} carry {wanted}, the selector of Service "
                        f"{get(service.props, 'metadata', 'name')} in front of {server}: while this "
                        f"{get(job.props, 'kind')}'s pod runs, the EndpointSlice controller counts it as an endpoint "
                        f"(ready at once: no readinessProbe), so part of the Service's traffic goes to a pod that does "
                        f"not serve it (connection refused); give the pod template labels the selector does not match"
                    ),
                )
            )
    return findings


SIDE_POLICY = Policy(
    name="service-selects-only-servers",
    description="A Service in front of a long-running workload does not also select the pods of a Job, CronJob or "
    "run-to-completion Pod of the same folder (a model preload copying the server's labels), which take part of its "
    "traffic while they run.",
    catalog="G56",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Label the Job's pod template with labels of its own (job-type: model-preload alone, not the "
    "server's app label), or narrow the Service's selector to a label only the server's pods carry.",
    config_schema={},
    check_stack=_side_pods,
    rationale=(
        "The EndpointSlice controller selects every pod of the namespace whose labels carry spec.selector "
        "(https://kubernetes.io/docs/concepts/services-networking/service/#services-with-selectors), a Job's pod "
        "included; a container with no readinessProbe counts as ready once it runs "
        "(https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-probes)."
    ),
)
