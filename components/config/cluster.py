"""The cluster the stack deploys into, and the subnets and security groups its GPU nodes use.

Pure: pydantic only.
"""

from __future__ import annotations

import re
from typing import Annotated, Callable, Literal, Optional

from pydantic import AfterValidator, Field, field_validator, model_validator

from .base import Bool, Str, _Model, matching

_SUBNET_ID = re.compile(r"subnet-([0-9a-f]{8}|[0-9a-f]{17})")
_SG_ID = re.compile(r"sg-([0-9a-f]{8}|[0-9a-f]{17})")
# EC2NodeClass limits (karpenter.k8s.aws_ec2nodeclasses.yaml v1.14.1): at most 30 selector terms, 20 tags per term.
_MAX_TERMS, _MAX_TAGS = 30, 20


def _check_id(pattern: re.Pattern[str], kind: str) -> Callable[[str], str]:
    """A validator: the value matches ``pattern`` (an AWS id of ``kind``)."""

    def check(v: str) -> str:
        if not pattern.fullmatch(v):
            prefix = pattern.pattern.split("-")[0]
            raise ValueError(f"must be a {kind} id ({prefix}- and 8 or 17 lowercase hex digits)")
        return v

    return check


def _check_tags(v: dict[str, str]) -> dict[str, str]:
    if len(v) > _MAX_TAGS:
        raise ValueError(f"holds {len(v)} tags; an EC2NodeClass selector term takes at most {_MAX_TAGS}")
    for key, value in v.items():
        if not key or not value or len(key) > 128 or len(value) > 256:
            raise ValueError(
                f"tag {key!r}: keys and values must be non-empty (at most 128 and 256 characters; '*' matches any value)"
            )
    return v


SubnetId = Annotated[Str, AfterValidator(_check_id(_SUBNET_ID, "subnet"))]
SecurityGroupId = Annotated[Str, AfterValidator(_check_id(_SG_ID, "security group"))]


class SubnetSelectorConfig(_Model):
    """Which subnets the GPU nodes launch in: by ID, by tags, or (default) by Karpenter's discovery tag."""

    ids: tuple[SubnetId, ...] = Field(
        default=(), description="Subnet IDs (subnet-...). Default (): select by tags.", max_length=_MAX_TERMS
    )
    tags: dict[Str, Str] = Field(
        default_factory=dict,
        description="Tags every selected subnet carries ('*' matches any value). Default {}: karpenter.sh/discovery=<cluster.name>.",
    )

    _check_tags = field_validator("tags")(classmethod(lambda cls, v: _check_tags(v)))

    @model_validator(mode="after")
    def _one_way(self) -> "SubnetSelectorConfig":
        if self.ids and self.tags:
            raise ValueError("set ids or tags, not both (Karpenter ORs its terms: both would widen the selection)")
        return self


class SecurityGroupSelectorConfig(_Model):
    """Which security groups the GPU nodes get: by ID, by tags, the EKS cluster security group, or (default) the discovery tag."""

    ids: tuple[SecurityGroupId, ...] = Field(
        default=(), description="Security group IDs (sg-...). Default (): select by tags.", max_length=_MAX_TERMS - 1
    )
    tags: dict[Str, Str] = Field(
        default_factory=dict,
        description="Tags every selected group carries ('*' matches any value). Default {}: karpenter.sh/discovery=<cluster.name>.",
    )
    eks_cluster_security_group: Bool = Field(
        default=False,
        description="Select the cluster security group EKS created, by the aws:eks:cluster-name=<cluster.name> tag EKS puts on it. "
        "Default false.",
    )

    _check_tags = field_validator("tags")(classmethod(lambda cls, v: _check_tags(v)))

    @model_validator(mode="after")
    def _one_way(self) -> "SecurityGroupSelectorConfig":
        if sum(map(bool, (self.ids, self.tags, self.eks_cluster_security_group))) > 1:
            raise ValueError(
                "set one of ids, tags or eksClusterSecurityGroup (Karpenter ORs its terms: more would widen the selection)"
            )
        return self


class DiscoveryTaggingConfig(_Model):
    """Existing subnets and security groups the stack tags karpenter.sh/discovery=<cluster> (aws.ec2.Tag), so the default selectors find them."""

    subnet_ids: tuple[SubnetId, ...] = Field(default=(), description="Subnets to tag. Default ().")
    security_group_ids: tuple[SecurityGroupId, ...] = Field(default=(), description="Security groups to tag. Default ().")


class ClusterConfig(_Model):
    """The EKS cluster the stack deploys into."""

    name: Str = Field(description="EKS cluster name (required); Karpenter discovers subnets and security groups by it.")
    kubernetes_version: Str = Field(
        default="1.33", description='Kubernetes minor version of the cluster, e.g. "1.33". Default "1.33".'
    )
    connection: Literal["eks", "ambient"] = Field(
        default="eks",
        description='How the program reaches the cluster. "eks" (default): an explicit Kubernetes provider whose '
        "kubeconfig is built from the EKS cluster named `name` (looked up with pulumi-aws) and a token from the "
        '`aws eks get-token` exec plugin, so no credential is stored. "ambient": an explicit provider on the '
        'kubeconfig of the machine running Pulumi (KUBECONFIG or ~/.kube/config). Default "eks".',
    )
    kube_context: Optional[Str] = Field(
        default=None, description='Kubeconfig context to use with connection "ambient". Default null (the current context).'
    )
    subnets: SubnetSelectorConfig = Field(
        default_factory=SubnetSelectorConfig,
        description="Subnets of the GPU nodes (every pool's EC2NodeClass). Default: tagged karpenter.sh/discovery=<name>.",
    )
    security_groups: SecurityGroupSelectorConfig = Field(
        default_factory=SecurityGroupSelectorConfig,
        description="Security groups of the GPU nodes (an EFA pool also gets its own EFA group). Default: tagged "
        "karpenter.sh/discovery=<name>.",
    )
    tag_for_discovery: DiscoveryTaggingConfig = Field(
        default_factory=DiscoveryTaggingConfig,
        description="Subnets and security groups this stack tags karpenter.sh/discovery=<name> (only with the default "
        "selectors, which read that tag). Default: none.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return matching(
            v, r"[A-Za-z][A-Za-z0-9-]{0,99}", "must start with a letter and hold only letters, digits and '-' (at most 100)"
        )

    @model_validator(mode="after")
    def _context_needs_ambient(self) -> "ClusterConfig":
        if self.kube_context is not None and self.connection != "ambient":
            raise ValueError('kubeContext is only read with connection "ambient"; remove it or set connection: ambient')
        return self

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        # 1.30: the preStop sleep action that drains vLLM pods (PodLifecycleSleepAction, on by default
        # from 1.30); 1.37: the newest schemas kubernetes-validate ships.
        return matching(v, r"1\.3[0-7]", 'must be a Kubernetes minor version between "1.30" and "1.37", quoted')
