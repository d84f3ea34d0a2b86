"""Serving back-ends: one interface (components/builders/serving_backend.py) and the built-in implementations.

``serving_backend(model)`` is the one place that picks what serves a model; everything else asks the
back-end it returns. KServe serves a model on one node, KubeRay one that spans several. Each line of
components/backend_keys.py ``BUILT_IN`` names its back-end's module here, which the registry loads on its
first look-up; docs/design.md says how to add a third (its module here and its line there).
"""

from __future__ import annotations

from ..builders.serving_backend import (
    SINGLE_NODE_KEY,
    Controller,
    RouteTarget,
    ServeRequest,
    ServingBackend,
    backend_key,
    load_built_ins,
    register,
    registered,
    serving_backend,
    unregister,
)
from .kserve import KServeBackend
from .kuberay import KubeRayBackend

load_built_ins()

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
