"""G27: a serving container sets allowPrivilegeEscalation: false.

``allowPrivilegeEscalation`` "controls whether a process can gain more privileges than its parent process" (the
``no_new_privs`` flag); unset, it is true, and the restricted Pod Security Standard requires it false on every container
(https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted, "Privilege Escalation"). It is a field
of the container's SecurityContext only: PodSecurityContext has none (the v1.33 schemas of policies/reading/
core_schemas.json), so a pod-level securityContext never sets it, and runAsNonRoot does not stand in for it (a non-root
process still gains a setuid binary's user). A model server (any engine of the engine table, in any pod template the
readers reach: Deployment, StatefulSet, Pod, LWS, Ray groups, KServe predictor or runtime, operator CRs), a serving-path
app (an LLM proxy or router, components/serving_apps.toml) or a chat UI (components/chat_uis.toml: Open WebUI) takes
requests over its API, and one that loads remote code or tools on request (``--trust-remote-code``, tool servers) is
the container an attacker lands in first: without the flag, a setuid binary of the image lifts that foothold. Advice:
a risk, not a failure (and where the image runs as root, G28's finding is the larger one). The message says which
Service publishes it where an edge does (an Ingress of any class, a Gateway API route, an Istio VirtualService, an
OpenShift Route, a Traefik or Contour route: policies/reading/exposure.py; or a LoadBalancer or NodePort Service).
Session 48 advised only on published ones; spent sets 64-66 labelled three unpublished model servers with no
securityContext (an Ollama Deployment, a KServe InferenceService predictor, a vLLM Pod), so every serving container is
read (brief pods49). An OpenShift restricted SCC that sets the flag is not in the files: still advice.

A native sidecar (an init container with ``restartPolicy: Always``) running an engine, app or chat UI counts as one of
``containers`` (spent set 77 CivicPulse/geo-api, an Ollama native sidecar). Silent for a container that sets it false and
a privileged one (G26's finding). One finding per container.
"""

from __future__ import annotations

from collections.abc import Mapping

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, container_label, get
from policies.reading.published import published_services, publisher
from policies.reading.serving_containers import serving_containers


def _escalates(container: Mapping) -> bool:
    context = get(container, "securityContext")
    context = context if isinstance(context, Mapping) else {}
    return context.get("allowPrivilegeEscalation") is not False and context.get("privileged") is not True


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    published: list[tuple[Resource, str]] | None = None
    findings: list[tuple[str, str]] = []
    for resource in resources:
        if resource.type not in WORKLOAD_TYPES or not isinstance(resource.props, dict) or resource.template:
            continue
        for path, container, what in serving_containers(resource):
            if not _escalates(container):
                continue
            if published is None:
                published = published_services(resources)
            by = publisher(resource, path, published)
            reach = (
                f", published through Service {get(by[0].props, 'metadata', 'name')} ({by[1]})"
                if by
                else " (a caller of its API reaches it first)"
            )
            value = get(container, "securityContext", "allowPrivilegeEscalation")
            setting = "allowPrivilegeEscalation: true" if value is True else "no securityContext.allowPrivilegeEscalation"
            findings.append(
                (
                    resource.name,
                    unproven(
                        f"{container_label(path, container)}: {setting} on this {what}{reach}: a process it runs may "
                        f"gain more privileges than its parent (setuid binaries of the image; runAsNonRoot does not "
                        f"stop it, and allowPrivilegeEscalation is a container field only), so a foothold through the "
                        f"API becomes more; set securityContext.allowPrivilegeEscalation: false (the restricted Pod "
                        f"Security Standard; an OpenShift SCC that sets it is not in the files)"
                    ),
                )
            )
    return findings


POLICY = Policy(
    name="serving-privilege-escalation",
    description="Every model-server, serving-path app and chat UI container sets securityContext.allowPrivilegeEscalation: "
    "false (advice; the message names the Ingress, route, LoadBalancer or NodePort Service that publishes it).",
    catalog="G27",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set `securityContext: {allowPrivilegeEscalation: false}` on the container (and drop capabilities, "
    "run as non-root where the image allows it).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "allowPrivilegeEscalation defaults to true; the restricted Pod Security Standard requires it false "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted). A serving container "
        "is the first one a caller of its API reaches, and a published one the first a caller from outside reaches."
    ),
)
