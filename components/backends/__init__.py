"""Serving back-ends: one interface (components/backends/base.py) and the built-in implementations.

``serving_backend(model)`` is the one place that picks what serves a model; everything else asks the
back-end it returns. KServe serves a model on one node, KubeRay one that spans several. Each line of
components/backend_keys.py ``BUILT_IN`` registers its back-end here; docs/design.md says how to add a
third (its module here and its line there).
"""

from __future__ import annotations

from importlib import import_module

from ..backend_keys import BUILT_IN, Listing
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


def _built_in(item: Listing) -> ServingBackend:
    """The back-end a line of ``BUILT_IN`` names: its class in its module, which must be a ServingBackend of its key."""
    cls = getattr(import_module(f"{__name__}.{item.module}"), item.backend, None)
    if not (isinstance(cls, type) and issubclass(cls, ServingBackend) and cls.key == item.key):
        raise TypeError(
            f"components/backend_keys.py lists {item.key!r} as components/backends/{item.module}.py {item.backend}, "
            f"which is no ServingBackend with key {item.key!r}"
        )
    return cls()


for _item in BUILT_IN:
    register(_built_in(_item))

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
