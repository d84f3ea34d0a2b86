"""The connection to the cluster: one explicit Kubernetes provider, and how every child gets it.

Every Kubernetes object the platform creates goes to the cluster through ONE explicit
``pulumi_kubernetes.Provider`` (never the engine's default provider, which would follow whatever
kubeconfig happens to be current). With ``cluster.connection: eks`` (the default) its kubeconfig
is built from the EKS cluster looked up by name with pulumi-aws and authenticates with the
``aws eks get-token`` exec plugin: nothing secret is stored, and the kubeconfig is still handled
as a Pulumi secret so it never appears in clear text in state, previews or the offline plan.
With ``connection: ambient`` the provider reads the kubeconfig of the machine running Pulumi.

How a component passes the provider on (issue-independent, use it for every new component):

* the platform creates the provider once and hands each child component
  ``opts=platform.k8s_opts(...)`` (parent=platform, provider=the cluster's provider);
* a component whose children are Kubernetes objects subclasses :class:`KubernetesComponent`
  and creates each child with ``opts=self.child_opts(...)`` (parent=self, the same provider,
  plus any other ResourceOptions such as ``depends_on``);
* a component that is not a KubernetesComponent can call :func:`k8s_child_opts` with
  :func:`kubernetes_provider_of` its own ``opts``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

import pulumi

from .builders.kubeconfig import eks_kubeconfig
from .config import ClusterConfig


def kubernetes_provider_of(opts: Optional[pulumi.ResourceOptions]) -> Optional[pulumi.ProviderResource]:
    """The Kubernetes provider a component was given: ``opts.provider`` or ``opts.providers["kubernetes"]``."""
    if opts is None:
        return None
    if opts.provider is not None and getattr(opts.provider, "package", None) == "kubernetes":
        return opts.provider
    providers = opts.providers
    if isinstance(providers, Mapping):
        return providers.get("kubernetes")
    if isinstance(providers, Sequence):
        return next((p for p in providers if getattr(p, "package", None) == "kubernetes"), None)
    return None


def k8s_child_opts(parent: pulumi.Resource, provider: Optional[pulumi.ProviderResource], **kwargs: Any) -> pulumi.ResourceOptions:
    """ResourceOptions for a Kubernetes child: ``parent`` and the cluster's ``provider`` set explicitly.

    ``kwargs`` are any other ResourceOptions fields (``depends_on``, ``ignore_changes``...). With
    ``provider`` None (a caller that passed none) the child inherits whatever its parent has.
    """
    return pulumi.ResourceOptions(parent=parent, provider=provider, **kwargs)


class KubernetesComponent(pulumi.ComponentResource):
    """Base of components whose children are Kubernetes objects on one cluster.

    Pass the cluster's provider as ``opts.provider`` (``LlmPlatform.k8s_opts()`` does); create
    every child with ``opts=self.child_opts(...)`` so it carries ``parent=self`` and that provider.
    """

    def __init__(self, t: str, name: str, props: Optional[dict] = None, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(t, name, props, opts)
        self.k8s_provider = kubernetes_provider_of(opts)

    def child_opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        """ResourceOptions for a child: parent=self, the cluster's provider, and ``kwargs``."""
        return k8s_child_opts(self, self.k8s_provider, **kwargs)


def eks_kubeconfig_output(
    cluster_name: pulumi.Input[str], region: str, parent: Optional[pulumi.Resource] = None, aws_provider: Optional[pulumi.ProviderResource] = None
) -> pulumi.Output[str]:
    """The exec-plugin kubeconfig of the EKS cluster ``cluster_name`` (looked up with pulumi-aws), as a secret Output."""
    # Imported here: pulumi-aws is only needed for this lookup and for Karpenter's AWS resources,
    # and its import is the slowest of the SDKs (keep `python -m stacks plan` fast).
    from pulumi_aws import eks

    cluster = eks.get_cluster_output(name=cluster_name, opts=pulumi.InvokeOptions(parent=parent, provider=aws_provider))

    def build(args: list) -> str:
        name, endpoint, authorities = args
        first = authorities[0]
        # A typed GetClusterCertificateAuthority from the engine; a plain mapping when mocked.
        data = first["data"] if isinstance(first, Mapping) else first.data
        return eks_kubeconfig(name, endpoint, data, region)

    return pulumi.Output.secret(pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authorities).apply(build))


def kubernetes_provider(
    name: str, cluster: ClusterConfig, region: str, parent: pulumi.Resource, aws_provider: Optional[pulumi.ProviderResource] = None
) -> pulumi.ProviderResource:
    """The explicit Kubernetes provider of the cluster (``<name>`` is its resource name)."""
    import pulumi_kubernetes as k8s

    opts = pulumi.ResourceOptions(parent=parent)
    if cluster.connection == "ambient":
        return k8s.Provider(name, context=cluster.kube_context, opts=opts)
    return k8s.Provider(name, kubeconfig=eks_kubeconfig_output(cluster.name, region, parent, aws_provider), opts=opts)
