"""Values that may come from another stack or resource: ``pulumi.Input`` in Args, resolved at the edge.

A component's Args keep plain data (engine flags, SLOs) in pydantic models; a namespace, a pool
name or a Secret's name may instead be an ``Output`` read from another stack
(``StackReference``) or resource. Such fields are typed ``pulumi.Input[str]`` for type checkers;
at run time pydantic accepts an Output (or awaitable) as is and checks a plain string by the
field's own rule. Builders stay pure: :func:`resolve` calls them with plain values, directly when
every input is already plain (no Output machinery on the common path) or inside
``Output.all(...).apply`` when one is not.

Providers are not Inputs (Pulumi's ``provider=`` option takes a provider object), but they come
from another stack or program just the same: :data:`AwsProvider` and :data:`K8sProvider` accept a
``pulumi_aws.Provider`` / ``pulumi_kubernetes.Provider`` (or None) and refuse anything else.
"""

from __future__ import annotations

import inspect
import sys
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional, TypeVar, Union

import pulumi
from pydantic import AfterValidator, WithJsonSchema

T = TypeVar("T")


def is_plain(value: Any) -> bool:
    """True unless ``value`` is a pulumi Output or another awaitable (an Input not yet known)."""
    return not isinstance(value, pulumi.Output) and not inspect.isawaitable(value)


def _string_input(check: Optional[Callable[[str], str]]) -> Callable[[Any], Any]:
    def validate(value: Any) -> Any:
        if not is_plain(value):
            return value
        if not isinstance(value, str):
            raise ValueError(f"must be a string or a pulumi Output of one, not {type(value).__name__}")
        return check(value) if check else value

    return validate


def _provider(module: str) -> Callable[[Any], Any]:
    def validate(value: Any) -> Any:
        # The SDK is looked up, not imported: pulumi-aws is slow to import (components/cluster.py),
        # and a value cannot be an instance of a Provider class whose module was never imported.
        cls = getattr(sys.modules.get(module), "Provider", None)
        if value is None or (cls is not None and isinstance(value, cls)):
            return value
        kind = type(value)
        # A provider of another package is named in full: "not Provider" would not say which.
        named = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise ValueError(f"must be a {module}.Provider or null, not {named}")

    return validate


if TYPE_CHECKING:
    import pulumi_aws
    import pulumi_kubernetes

    InputStr = pulumi.Input[str]
    InputName = pulumi.Input[str]
    AwsProvider = pulumi_aws.Provider
    K8sProvider = pulumi_kubernetes.Provider
else:
    # "title" is the type's name in the README's generated reference (stacks/reference.py).
    _SCHEMA = {
        "type": "string",
        "title": "Input[str]",
        "description": "a string or a pulumi Output of one (another stack's output)",
    }
    # Any Input of a string: not checked further when plain.
    InputStr = Annotated[Any, AfterValidator(_string_input(None)), WithJsonSchema(_SCHEMA)]

    def _dns_label(value: str) -> str:
        from .config import _dns_name

        return _dns_name(value)

    # A Kubernetes object name (DNS-1035 label) when plain; an Output is checked by the API server.
    InputName = Annotated[Any, AfterValidator(_string_input(_dns_label)), WithJsonSchema(_SCHEMA)]

    def _provider_type(module: str) -> Any:
        schema = {"type": "object", "title": f"{module}.Provider", "description": f"a {module}.Provider resource"}
        return Annotated[Any, AfterValidator(_provider(module)), WithJsonSchema(schema)]

    # A provider object, not an Input: ResourceOptions(provider=...) needs the resource itself.
    AwsProvider = _provider_type("pulumi_aws")
    K8sProvider = _provider_type("pulumi_kubernetes")


def resolve(build: Callable[..., T], *inputs: Any) -> Union[T, "pulumi.Output[T]"]:
    """``build(*inputs)`` with every input plain: at once when they are, else once they resolve."""
    if all(is_plain(i) for i in inputs):
        return build(*inputs)
    return pulumi.Output.all(*inputs).apply(lambda values: build(*values))


STAND_IN = "input-not-yet-known"


def shape_of(build: Callable[..., T], *inputs: Any) -> T:
    """``build`` called with a stand-in string for every input not known yet: for the parts of
    its result that do not depend on those inputs (a manifest's kind, a Helm release's chart)."""
    return build(*(i if is_plain(i) else STAND_IN for i in inputs))


def part(manifest: Any, key: str) -> Any:
    """``manifest[key]`` of a manifest dict or of an Output of one."""
    if isinstance(manifest, pulumi.Output):
        return manifest.apply(lambda m: m[key])
    return manifest[key]


def manifest_parts(build: Callable[..., dict], *inputs: Any) -> tuple[str, str, Any, Any]:
    """``(apiVersion, kind, metadata, spec)`` of ``build(*inputs)`` where the inputs are Inputs.

    apiVersion and kind name the resource's type, which Pulumi needs before any Input resolves;
    no builder's type depends on its Inputs (a namespace, a cluster name), so they are read from
    a build with stand-in strings when an input is not known yet. Metadata and spec come from
    the real values.
    """
    manifest = resolve(build, *inputs)
    shape = manifest if isinstance(manifest, dict) else shape_of(build, *inputs)
    return shape["apiVersion"], shape["kind"], part(manifest, "metadata"), part(manifest, "spec")


def namespaced_manifest(build: Callable[[str], dict], namespace: Any) -> tuple[str, str, Any, Any]:
    """``(apiVersion, kind, metadata, spec)`` of ``build(namespace)`` where ``namespace`` is an Input."""
    return manifest_parts(build, namespace)


__all__ = [
    "AwsProvider",
    "InputName",
    "InputStr",
    "K8sProvider",
    "is_plain",
    "manifest_parts",
    "namespaced_manifest",
    "part",
    "resolve",
    "shape_of",
]
