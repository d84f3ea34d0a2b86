"""G4 on every long-running workload container that takes a Service's traffic: a readinessProbe (advice).

serving-readiness-probe judges the model servers, serving-path apps and chat UIs, router-readiness-probe the apps in
front of model servers; this row judges every other long-running pod template the readers reach
(policies/reading/workload_pods.py) with a container that takes a Service's traffic, where no container of the pod
has a readinessProbe. With no readinessProbe a pod is Ready as soon as its containers start
(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/): the Service's endpoints take it
before the app listens or has loaded what it serves, and keep it after the app stops answering. Spent sets 76-79:
cncf/llm-in-action (a Streamlit front end behind Service keynote), iammuhammadnoumankhan/talkflow (a published
frontend), yashbhangale/Karpenter-GPU-Autoscaling (a model demo on port 8000 behind its Service).

A container takes a Service's traffic when it declares a containerPort, or when it is the pod's only running container
and a Service of the files selecting the pod targets a port by number. A declared containerPort with no Service of the
files is advised too (its Service, or the Ingress's, is often in a file not checked: spent set 78
AlemMekru/sovereign-llm-kubernetes-platform infra/k8s/api-deployment.yaml, set 73 willie191998/eks-deepseek
fastapi-deployment.yaml); a container with no port and no Service is not (a worker).

A readinessProbe that cannot fail while the app does not answer (policies/reading/pod_probes.py inert_exec: an exec
that only imports modules, ``true``, ``echo``) counts as none, and the message quotes it (session 55: spent set 118
ayutaz/project-sid@c3962def k8s/llm-gateway.yaml, ``python -c "import piano; print('ok')"`` on a gateway behind Service
llm-gateway, labelled G4).

Silent for: a pod with any readinessProbe that asks the app (a pod is Ready only when every container is, so another
container's probe holds it back too); Jobs, CronJobs and pods that run to completion; pods that hold a model server, an app of the
tables or a chat UI run from its publisher's image (their rows judge them); KubeRay's kinds (the head Service is the operator's); KServe's kinds (the operator
supplies a probe: policies/operator_defaults.py); Knative's Service and Configuration (its webhook adds a TCP probe:
_PROBED_BY_OPERATOR); the training operators' kinds (PyTorchJob, TFJob, MPIJob, JobSet...: their pods run to
completion, the port is the workers' rendezvous).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.app_template import app_template_services
from policies.framework import Policy, Resource, unproven
from policies.helm_charts import RELEASE_GROUP_KINDS
from policies.k8s_generic.router_readiness_probe import fronting
from policies.kube import as_list, containers, get, is_ray, split_type
from policies.reading.chat_ui_backends import ui_app
from policies.reading.label_selectors import selector_matches
from policies.reading.pod_probes import inert_exec
from policies.reading.published import same_namespace
from policies.reading.serving import template_labels
from policies.reading.workload_pods import native_sidecars, workload_containers

_RUN_ONCE = frozenset({"Job", "CronJob", "JobSet"})
# Knative Serving gives the serving container a TCP readinessProbe when it has none (knative/serving knative-v1.23.0
# pkg/apis/serving/v1/revision_defaults.go:134-138 applyDefault, :160-170 applyUserContainerDefaultReadinessProbe).
_PROBED_BY_OPERATOR = frozenset(
    {("serving.knative.dev", "Service"), ("serving.knative.dev", "Configuration"), ("serving.knative.dev", "Revision")}
)


def _runs_once(kind: str) -> bool:
    """Job, CronJob, JobSet and the training operators' kinds (PyTorchJob, TFJob, MPIJob, TrainJob, Volcano's Job...):
    their pods run to completion, whatever the pod template's own restartPolicy says."""
    return kind in _RUN_ONCE or kind.endswith("Job")


_SERVICE = ("", "Service")


def _services(resources: list[Resource]) -> list[tuple[Any, str, dict, list[Any]]]:
    """(Service, name, selector, target ports) of every Service of the run that selects pods by labels."""
    found = []
    for r in resources:
        if split_type(r.type) != _SERVICE or not isinstance(r.props, dict):
            continue
        name, selector = get(r.props, "metadata", "name"), get(r.props, "spec", "selector")
        if not isinstance(name, str) or not isinstance(selector, Mapping) or not selector:
            continue
        targets = []
        for port in as_list(get(r.props, "spec", "ports")):
            if isinstance(port, Mapping):
                targets.append(port.get("targetPort", port.get("port")))
        found.append((r, name, dict(selector), targets))
    return found


def _released(r: Resource) -> bool:
    """A chart release object (a Flux HelmRelease, an Argo CD Application, a k3s HelmChart)."""
    return split_type(r.type) in RELEASE_GROUP_KINDS


def _declares(container: Mapping) -> bool:
    return any(isinstance(p, Mapping) and p.get("containerPort") is not None for p in as_list(container.get("ports")))


def _takes_traffic(container: Mapping, alone: bool, targets: list[Any]) -> bool:
    if _declares(container):
        return True
    return alone and any(isinstance(t, int) and not isinstance(t, bool) or (isinstance(t, str) and t.isdigit()) for t in targets)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    candidates = [
        r
        for r in resources
        if isinstance(r.props, dict)
        and not _runs_once(split_type(r.type)[1])
        and split_type(r.type) not in _PROBED_BY_OPERATOR
        and not is_ray(r.type)
        and workload_containers(r)
    ]
    if not candidates:
        return []
    services = _services(resources)
    routed = None
    findings: list[tuple[str, str]] = []
    for r in candidates:
        by_path: dict[str, list] = {}
        for c in workload_containers(r):
            by_path.setdefault(c.path, []).append(c)
        labels_named: list[str] = []
        names: list[str] = []
        inert: list[str] = []
        templated = [(svc, pod) for svc, pod, _ in app_template_services(r.props)] if _released(r) else []
        for path, judged in by_path.items():
            podspec = judged[0].podspec
            running = containers(podspec) + native_sidecars(podspec)
            if podspec.get("restartPolicy") in ("Never", "OnFailure") or len(judged) != len(running):
                continue  # a run to completion, or a pod holding a server or app another row judges
            if any(ui_app(c) for c in running):
                continue  # a chat UI run from its publisher's image: serving-readiness-probe's
            probes = [c.get("readinessProbe") for c in running if isinstance(c.get("readinessProbe"), dict)]
            if not all(inert_exec(p) for p in probes):
                continue  # a probe that asks the server holds the pod back
            shown = [f"`{inert_exec(p)}`" for p in probes]
            labels = template_labels(r, path)
            selecting = [
                (name, targets)
                for service, name, selector, targets in services
                if same_namespace(service, r) and any(selector_matches(selector, lab, plain=True) for lab in labels)
            ]
            targets = [t for _, ts in selecting for t in ts]
            serving = [c for c in judged if _takes_traffic(c.container, bool(selecting) and len(running) == 1, targets)]
            charted = [f"the chart's service.{svc.rsplit('.', 1)[-1]}" for svc, pod in templated if pod == path]
            if charted and len(running) == 1:
                # the only container of an app-template controller the release's own service.<s> selects
                # (policies/app_template.py app_template_services; spent set 98 gelato/homecluster ollama/ui)
                serving = serving or judged
                selecting += [(n, []) for n in charted]
            if serving:
                # quoted only for a pod this finding names, each command once
                inert.extend(dict.fromkeys(q for q in shown if q not in inert))
                labels_named.extend(c.label for c in serving)
                names.extend(n for n, _ in selecting if n not in names)
        if not labels_named:
            continue
        if routed is None:
            routed = fronting(resources)
        if r.name in routed:
            continue  # router-readiness-probe's finding names the model server it fronts
        by = (
            f"{', '.join(n if n.startswith('the chart') else f'Service {n}' for n in names)} selects it"
            if names
            else "it declares a containerPort for the Service in front of it (none among the files)"
        )
        what = (
            f"the pod's readinessProbe only runs {', '.join(inert)}, which succeeds whether or not the app listens"
            if inert
            else "no readinessProbe on any container of the pod"
        )
        findings.append(
            (
                r.name,
                unproven(
                    f"{', '.join(labels_named)}: {what}, and {by}: the pod is "
                    f"Ready as soon as its containers start, so its Service sends requests before the app listens and "
                    f"keeps sending them after it stops answering; probe its health endpoint"
                ),
            )
        )
    return findings


POLICY = Policy(
    name="workload-readiness-probe",
    description="A long-running workload container that takes a Service's traffic (a containerPort, or a Service of the "
    "files selects it), not only a model server, has a readinessProbe (advice).",
    catalog="G4",
    severity="low",
    enforcement="advisory",
    remediation_steps="Add a readinessProbe on the container the Service sends traffic to (an HTTP GET of its health "
    "endpoint, or a TCP check of its port).",
    config_schema={},
    check_stack=_check,
    operator_fills="a readinessProbe",
    rationale=(
        "With no readinessProbe a pod is Ready once its containers run "
        "(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/), and a Service's "
        "endpoints are its Ready pods (https://kubernetes.io/docs/concepts/services-networking/service/). Catalogue "
        "row 4 (Polaris readinessProbeMissing, kube-linter no-readiness-probe, Checkov CKV_K8S_9), on every workload "
        "a Service of the files selects."
    ),
)
