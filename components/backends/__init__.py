"""Serving back-ends: one interface (components/backends/base.py) and the built-in implementations.

``serving_backend(model)`` is the one place that picks what serves a model; everything else asks the
back-end it returns. KServe serves a model on one node, KubeRay one that spans several. docs/design.md
says how to add a third (its module here and one ``register`` line below).
"""

from __future__ import annotations

from .base import (
    SINGLE_NODE_KEY,
    Controller,
    RouteTarget,
    ServeRequest,
    ServingBackend,
    backend_key,
    register,
    registered,
    serving_backend,
    unregister,
)
from .kserve import KServeBackend
from .kuberay import KubeRayBackend

register(KServeBackend())
register(KubeRayBackend())

__all__ = [
    "SINGLE_NODE_KEY",
    "Controller",
    "KServeBackend",
    "KubeRayBackend",
    "RouteTarget",
    "ServeRequest",
    "ServingBackend",
    "backend_key",
    "register",
    "registered",
    "serving_backend",
    "unregister",
]
