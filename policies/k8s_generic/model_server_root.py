"""G28 (advice): a model server whose securityContext pins it to root.

``runAsUser: 0`` or ``runAsNonRoot: false`` written on a model server's container, or on its pod and not overridden by
the container (the container's securityContext wins field by field, core/v1 SecurityContext), states that the
network-reachable server runs as UID 0: a foothold through its API (a remote-code model, a tool call, an engine bug)
is root in the container and on any hostPath or device it mounts. The restricted Pod Security Standard requires
runAsNonRoot true and forbids runAsUser 0 (https://kubernetes.io/docs/concepts/security/pod-security-standards/
#restricted, "Running as Non-root" and "Running as Non-root user"). Advice: a risk, not a failure; many engine images
run as root by default, and only the pin written in the files is reported. A container that also sets a non-zero
runAsUser runs as that user and is silent; so are serving-path apps and chat UIs (only the engine table's servers).

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
from policies.kube import WORKLOAD_TYPES, get
from policies.reading.serving import engine_row, model_servers
from policies.reading.serving_containers import spec_security_contexts


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


POLICY = Policy(
    name="model-server-runs-as-root",
    description=(
        "A model server whose securityContext (container, else pod) writes runAsUser: 0 or runAsNonRoot: false is "
        "pinned to root (advice)."
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
