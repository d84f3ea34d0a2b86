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
from .errors import ConfigError, Problem


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


def own_depends_on(opts: Optional[pulumi.ResourceOptions]) -> list[Any]:
    """The resources a component was told to wait for (``opts.depends_on``), for a child that must wait too.

    Pulumi makes a component's dependents wait for its children, but not its children wait for the
    component's own depends_on: a workload child that must start after, say, its ServiceAccount and
    Pod Identity association gets them explicitly.
    """
    deps = opts.depends_on if opts is not None else None
    if deps is None:
        return []
    return list(deps) if isinstance(deps, (list, tuple)) else [deps]


class RegionMismatch(ConfigError, pulumi.RunError):
    """The stack's aws:region and the AWS provider's region differ (a ConfigError the CLI prints without a traceback)."""


def provider_region(
    configured: Optional[str], parent: Optional[pulumi.Resource] = None, aws_provider: Optional[pulumi.ProviderResource] = None
) -> pulumi.Output[str]:
    """The region of the AWS provider (``aws.get_region``), refused when the stack's ``aws:region`` names another.

    The default provider reads ``aws:region`` itself, so the two can only differ for an explicit
    provider (``LlmPlatformArgs.aws_provider``) or when ``aws:region`` is unset and the provider
    takes AWS_REGION or the profile's region; then this region is the one every ARN, chart value
    and ``--region`` uses.
    """
    from pulumi_aws import get_region_output

    found = get_region_output(opts=pulumi.InvokeOptions(parent=parent, provider=aws_provider))

    def check(region: Optional[str]) -> str:
        if not region:
            raise RegionMismatch(
                [Problem("aws:region", "is unset and the AWS provider names no region; set aws:region", has_value=False)]
            )
        if configured and region != configured:
            raise RegionMismatch(
                [
                    Problem(
                        "aws:region",
                        f"is {configured!r} but the AWS provider's region is {region!r}; ARNs, the kubeconfig's --region "
                        "and the controllers' settings must name the region the resources are made in: make them the same",
                        configured,
                    )
                ]
            )
        return region

    return found.region.apply(check)


def eks_kubeconfig_output(
    cluster_name: pulumi.Input[str],
    region: pulumi.Input[str],
    parent: Optional[pulumi.Resource] = None,
    aws_provider: Optional[pulumi.ProviderResource] = None,
    profile: Optional[str] = None,
    role_arn: Optional[str] = None,
    cluster: Any = None,
) -> pulumi.Output[str]:
    """The exec-plugin kubeconfig of the EKS cluster ``cluster_name`` (looked up with pulumi-aws), as a secret Output.

    ``profile`` / ``role_arn``: the AWS provider's profile and assumed role, which the exec plugin
    uses too (builders/kubeconfig.py). ``cluster``: an ``aws.eks.get_cluster_output`` result already
    looked up (default: looked up here).
    """
    # Imported here: pulumi-aws is only needed for this lookup and for Karpenter's AWS resources,
    # and its import is the slowest of the SDKs (keep `python -m stacks plan` fast).
    from pulumi_aws import eks

    if cluster is None:
        cluster = eks.get_cluster_output(name=cluster_name, opts=pulumi.InvokeOptions(parent=parent, provider=aws_provider))

    def build(args: list) -> str:
        name, endpoint, authorities, region_ = args
        return eks_kubeconfig(name, endpoint, certificate_authority(authorities), region_, profile, role_arn)

    return pulumi.Output.secret(
        pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authorities, region).apply(build)
    )


def certificate_authority(authorities: Any) -> str:
    """The CA bundle (base64) of an ``aws.eks.get_cluster`` result's certificate_authorities."""
    first = authorities[0]
    # A typed GetClusterCertificateAuthority from the engine; a plain mapping when mocked.
    return first["data"] if isinstance(first, Mapping) else first.data


def kubernetes_provider(
    name: str,
    cluster: ClusterConfig,
    region: pulumi.Input[str],
    parent: pulumi.Resource,
    aws_provider: Optional[pulumi.ProviderResource] = None,
    profile: Optional[str] = None,
    role_arn: Optional[str] = None,
    kubeconfig: Optional[pulumi.Output[str]] = None,
) -> pulumi.ProviderResource:
    """The explicit Kubernetes provider of the cluster (``<name>`` is its resource name).

    ``kubeconfig``: the EKS kubeconfig already built (``eks_kubeconfig_output``); default: built here.
    """
    import pulumi_kubernetes as k8s

    opts = pulumi.ResourceOptions(parent=parent)
    if cluster.connection == "ambient":
        return k8s.Provider(name, context=cluster.kube_context, opts=opts)
    if kubeconfig is None:
        kubeconfig = eks_kubeconfig_output(cluster.name, region, parent, aws_provider, profile, role_arn)
    return k8s.Provider(name, kubeconfig=kubeconfig, opts=opts)
