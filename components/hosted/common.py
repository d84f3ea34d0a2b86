"""What every hosted component shares: the options of the library component it wraps, and its outputs.

The library's components take live objects (a ``pulumi_kubernetes.Provider``, other components) that
a package schema cannot carry. The hosted forms take plain data and references instead; the cluster
comes the way every Pulumi language passes providers to a component (the ``providers`` resource
option, which Construct hands over as provider references), or from a ``kubeconfig`` input (an
LlmPlatform's ``kubeconfig`` output) of which the component makes its own provider.
"""

from typing import Any, Mapping, Optional

import pulumi
from pulumi.provider.experimental.util import camel_case

from ..cluster import own_depends_on


def inner_opts(
    component: pulumi.Resource, name: str, kubeconfig: Optional[pulumi.Input[str]], opts: Optional[pulumi.ResourceOptions]
) -> pulumi.ResourceOptions:
    """Options of the library component inside ``component``: its parent, the cluster's provider, its dependsOn.

    With ``kubeconfig`` the provider is made here (``<name>-k8s``, a child of ``component``); without,
    the library component and its children inherit ``component``'s providers. The hosted
    component's ``dependsOn`` is passed on, so the children that wait for what their component was
    told to wait for (``cluster.own_depends_on``) do so here too.
    """
    provider = None
    if kubeconfig is not None:
        import pulumi_kubernetes as k8s

        provider = k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(parent=component))
    waits = own_depends_on(opts)
    return pulumi.ResourceOptions(parent=component, provider=provider, depends_on=waits or None)


def set_outputs(component: pulumi.ComponentResource, outputs: Mapping[str, Any]) -> None:
    """Each output as the attribute of the same Python name (the schema's outputs), registered under its schema name."""
    for key, value in outputs.items():
        setattr(component, key, pulumi.Output.from_input(value))
    component.register_outputs({camel_case(key): value for key, value in outputs.items()})


__all__ = ["inner_opts", "set_outputs"]
