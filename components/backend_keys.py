"""The serving back-ends the product ships, one line each: the one list of their keys.

The config reads it without importing the back-ends (they import the capacity plan, which imports
the config): ``distributed.backend`` accepts the multi-node keys, and the configuration reference
names them. components/backends/__init__.py registers each line's back-end from the module the line
names, and ``register`` refuses a listed key whose back-end disagrees with its line. So a new back-end
is its module in components/backends/ and its line in ``BUILT_IN`` (docs/design.md).

A back-end registered at run time outside this list (a program's own, a test's:
``components.backends.register``) adds its key here for as long as it stays registered
(:func:`add_runtime_key`, :func:`remove_runtime_key`); the config accepts it from then on.

Plain data; imports nothing of the package.
"""

from __future__ import annotations

from typing import NamedTuple, Optional


class Listing(NamedTuple):
    """One shipped back-end."""

    #: What ``components.backends.backend_key`` returns for its models; a multi-node one's ``distributed.backend``.
    key: str
    #: Its module, components/backends/<module>.py, and its ``ServingBackend`` class there.
    module: str
    backend: str
    #: Its engine spans nodes: picked by ``distributed.backend`` (else it is the single-node default).
    multi_node: bool
    #: What it runs, as the configuration reference names it.
    runs: str
    #: Its engine is vLLM's Ray executor driven from a GPU-less head: the capacity plan checks the image's Ray facts
    #: (components/image_facts.py) for its models.
    ray_executor: bool = False


# The back-end of a model that sets no ``distributed``: one InferenceService replica per node group of TP x PP GPUs.
SINGLE_NODE_KEY = "kserve"

BUILT_IN: tuple[Listing, ...] = (
    Listing(SINGLE_NODE_KEY, "kserve", "KServeBackend", multi_node=False, runs="KServe InferenceService"),
    Listing("ray", "kuberay", "KubeRayBackend", multi_node=True, runs="KubeRay RayCluster", ray_executor=True),
)

# Multi-node keys of back-ends registered at run time outside BUILT_IN, in registration order.
_RUNTIME: list[str] = []


def listing(key: str) -> Optional[Listing]:
    """The shipped back-end listed under ``key``, or None."""
    return next((item for item in BUILT_IN if item.key == key), None)


def multi_node_keys() -> tuple[str, ...]:
    """The values ``distributed.backend`` accepts now: the shipped multi-node back-ends', then the run-time ones."""
    return tuple(item.key for item in BUILT_IN if item.multi_node) + tuple(_RUNTIME)


def add_runtime_key(key: str) -> None:
    """Accept ``key`` as a ``distributed.backend`` (a multi-node back-end registered outside ``BUILT_IN``)."""
    if listing(key) is not None:
        raise ValueError(f"back-end key {key!r} is listed in components/backend_keys.py BUILT_IN already")
    if key not in _RUNTIME:
        _RUNTIME.append(key)


def remove_runtime_key(key: str) -> None:
    """Stop accepting a run-time ``key`` (no-op for a shipped or unknown key)."""
    if key in _RUNTIME:
        _RUNTIME.remove(key)
