"""How a finding names a derived object: the object, who creates it and from what."""

from __future__ import annotations

from typing import Any

from policies.framework import Resource
from policies.kube import get


def subject(resource: Resource) -> str:
    """``Deployment llm/chat-8b-predictor (KServe creates it from InferenceService llm/chat-8b)``, or
    ``Deployment NAME`` for an object the stack or a manifest declares itself."""
    kind = resource.props.get("kind", "object")
    namespace = get(resource.props, "metadata", "namespace")
    name = get(resource.props, "metadata", "name") or resource.name
    shown = f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"
    origin: Any = resource.origin
    if origin is None:
        return shown
    return f"{shown} ({_controller(origin.controller)} creates it from {origin.source})"


def rule_of(resource: Resource, path: str) -> str:
    """The controller rule that set ``path`` of a derived object ("" when it copied our value)."""
    origin: Any = resource.origin
    return origin.rule(path) if origin is not None else ""


def _controller(name: str) -> str:
    return {"kserve": "KServe", "kuberay": "KubeRay", "karpenter": "Karpenter"}.get(name, name)
