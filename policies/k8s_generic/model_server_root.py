"""G28 (advice): a model server whose securityContext pins it to root.

``runAsUser: 0`` or ``runAsNonRoot: false`` written on a model server's container, or on its pod and not overridden by
the container (the container's securityContext wins field by field, core/v1 SecurityContext), states that the
network-reachable server runs as UID 0: a foothold through its API (a remote-code model, a tool call, an engine bug)
is root in the container and on any hostPath or device it mounts. The restricted Pod Security Standard requires
runAsNonRoot true and forbids runAsUser 0 (https://kubernetes.io/docs/concepts/security/pod-security-standards/
#restricted, "Running as Non-root" and "Running as Non-root user"). Advice: a risk, not a failure; many engine images
run as root by default, and only the pin written in the files is reported. A container that also sets a non-zero
runAsUser runs as that user and is silent.

A serving-path app (an LLM proxy or router, components/serving_apps.toml: LiteLLM's proxy holds the master key and the
database URL) or a chat UI (components/chat_uis.toml) is read the same way for ``runAsUser: 0`` only (session 55: spent
set 107 cyberglitchlabs/clouddrop kubernetes/apps/ai/litellm/app/helmrelease.yaml, app-template defaultPodOptions
runAsUser 0 and fsGroup 0 on the LiteLLM proxy, labelled G28): that pins UID 0 over whatever user the image names,
while ``runAsNonRoot: false`` alone only leaves the image's own user in place (spent set 56's LiteLLM trap: silent).

Spent sets 52 (misohu/charmed-llm-autoscaling manifests/mixtral-llmisvc.yaml, runAsNonRoot false on an
LLMInferenceService) and 85 (sulibot/home-ops kubernetes/apps/tier-2-applications/ollama/app/helmrelease.yaml,
app-template defaultPodOptions runAsUser 0) labelled the form G28. An engine CR with no pod template of its own that
hands its operator a security context (``spec.podSecurityContext``: policies/reading/serving_containers.py
spec_security_contexts) is read the same way (session 52: spent set 91 Tanguille/cluster@7caefd26
kubernetes/apps/ai/llmkube/models/qwen38-27b-vllm.yaml, an llmkube InferenceService, labelled G28).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, container_label, get, pod_specs
from policies.reading.serving import engine_row, model_servers
from policies.reading.serving_containers import serving_containers, spec_security_contexts


def _field(container: Mapping, podspec: Mapping, key: str) -> Any:
    for context in (get(container, "securityContext"), get(podspec, "securityContext")):
        if isinstance(context, Mapping) and context.get(key) is not None:
            return context[key]
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for server in model_servers(resource):
        user = _field(server.container, server.podspec, "runAsUser")
        non_root = _field(server.container, server.podspec, "runAsNonRoot")
        if isinstance(user, bool) or (user is not None and user != 0):
            continue  # a non-zero user (or a value no rule can read) runs as that user
        if user != 0 and non_root is not False:
            continue
        setting = "runAsUser: 0" if user == 0 else "runAsNonRoot: false"
        row = engine_row(server.engine)
        what = f"{row.display if row else server.engine} server"
        messages.append(
            unproven(
                f"{server.label}: securityContext {setting} pins this {what} to root: whoever reaches it through its "
                f"API (a remote-code model, a tool call, an engine bug) is UID 0 in the container and on what it "
                f"mounts; run it as a non-root user (runAsNonRoot: true, a non-zero runAsUser, fsGroup for its model "
                f"store) where the image allows it (the restricted Pod Security Standard)"
            )
        )
    messages.extend(_app_messages(resource, {id(s.container) for s in model_servers(resource)}))
    for spec in spec_security_contexts(resource):
        user, non_root = spec.context.get("runAsUser"), spec.context.get("runAsNonRoot")
        if isinstance(user, bool) or (user is not None and user != 0) or (user != 0 and non_root is not False):
            continue
        setting = "runAsUser: 0" if user == 0 else "runAsNonRoot: false"
        messages.append(
            unproven(
                f"spec.{spec.key}: {setting}, handed by the operator to the {spec.what} it renders, pins it to root: "
                f"whoever reaches it through its API (a remote-code model, a tool call, an engine bug) is UID 0 in the "
                f"container and on what it mounts; run it as a non-root user where the image allows it (the "
                f"restricted Pod Security Standard)"
            )
        )
    return messages


def _app_messages(resource: Resource, servers: set[int]) -> list[str]:
    """Advice on each serving-path app or chat UI (not a model server) whose securityContext, container over pod,
    writes runAsUser: 0 (module docstring)."""
    found: list[str] = []
    pods: dict[str, Mapping] | None = None
    for path, container, what in serving_containers(resource):
        if id(container) in servers:
            continue
        if pods is None:
            pods = dict(pod_specs(resource))
        user = _field(container, pods.get(path, {}), "runAsUser")
        if user != 0 or isinstance(user, bool):
            continue
        found.append(
            unproven(
                f"{container_label(path, container)}: securityContext runAsUser: 0 pins this {what} to root: it "
                f"takes every client's requests (and holds the keys and URLs it forwards with), so whoever reaches it "
                f"through a flaw is UID 0 in the container and on what it mounts; run it as the image's non-root user "
                f"or a non-zero runAsUser (the restricted Pod Security Standard)"
            )
        )
    return found


POLICY = Policy(
    name="model-server-runs-as-root",
    description=(
        "A model server whose securityContext (container, else pod) writes runAsUser: 0 or runAsNonRoot: false, or "
        "an LLM proxy, router or chat UI whose securityContext writes runAsUser: 0, is pinned to root (advice)."
    ),
    catalog="G28",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Remove runAsUser: 0 / runAsNonRoot: false; set runAsNonRoot: true with a non-zero runAsUser and an fsGroup "
        "that owns the model store, where the engine image allows a non-root user."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The restricted Pod Security Standard requires runAsNonRoot and forbids runAsUser 0 "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted); a model server is the "
        "container a caller of its API reaches first."
    ),
)
