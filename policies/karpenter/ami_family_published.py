"""G70: an EC2NodeClass selects an AMI family Amazon EKS still publishes.

Karpenter resolves an ``al2@VERSION`` alias (and, in v1beta1, an ``amiFamily: AL2`` with no amiSelectorTerms; an
``ssmParameter`` term may name the same parameters directly) from
the EKS-optimized AL2 SSM parameters of the cluster's Kubernetes version,
``/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2{,-arm64,-gpu}/{recommended,amazon-eks-...-VERSION}/image_id``;
when none exists it reports "failed to discover any AMIs for alias" and the class resolves no AMI, so Karpenter
launches no node for it (aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/al2.go:43-72). Amazon EKS
stopped publishing AL2 AMIs on 2025-11-26 and "Kubernetes version 1.32 is the last version for which Amazon EKS will
release Amazon Linux 2 (AL2) AMIs" (v1.14.1 website/content/en/docs/concepts/nodeclasses.md:470-472, "AL2 support
dropped at Kubernetes 1.33"; https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-build-scripts.html). So on a
cluster at 1.33 or later the class launches nothing, and on 1.32 or earlier its nodes run an image that gets no more
fixes. Spent sets 26 FawwadAhmed11/llm-serving-infra k8s/vllm/karpenter.yaml (amiFamily AL2, alias al2@latest) and 32
eliran89c/self-hosted-llm-on-eks karpenter/karpenter-gpu-nodeclass.yaml (alias al2@latest), both labels filed none.

Advice: the cluster's Kubernetes version is not in the files. An ``amiFamily: AL2`` that only picks the bootstrap of
AMIs the class selects by id, name, tags or its own SSM parameter is silent (a custom AL2-based image), as are the
al2023, bottlerocket and windows aliases.
"""

from __future__ import annotations

import re
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.karpenter.gpu_node_disk import EC2_NODE_CLASS_TYPES
from policies.kube import as_dict, as_list, get

# EKS's own AL2 SSM parameter paths: /aws/service/eks/optimized-ami/<k8s>/amazon-linux-2[-gpu|-arm64]/...
_AL2_SSM = re.compile(r"^/aws/service/eks/optimized-ami/([0-9]+)\.([0-9]+)/amazon-linux-2(?:-gpu|-arm64)?/", re.IGNORECASE)


def _al2_selection(props: dict) -> Optional[str]:
    """How the class selects EKS's AL2 AMIs, as the manifest says it; None when it does not."""
    terms = [as_dict(t) for t in as_list(get(props, "spec", "amiSelectorTerms"))]
    for i, term in enumerate(terms):
        alias, ssm = term.get("alias"), term.get("ssmParameter")
        if isinstance(alias, str) and alias.strip().lower().startswith("al2@"):
            return f"spec.amiSelectorTerms[{i}].alias {alias.strip()}"
        if isinstance(ssm, str) and _AL2_SSM.match(ssm.strip()):
            return f"spec.amiSelectorTerms[{i}].ssmParameter {ssm.strip()}"
    family = get(props, "spec", "amiFamily")
    if family == "AL2" and not terms:
        return "spec.amiFamily AL2 with no amiSelectorTerms (the family's EKS-optimized AMIs)"
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    selection = _al2_selection(resource.props)
    if selection is None:
        return []
    return [
        unproven(
            f"{selection}: Karpenter looks the AMIs up in EKS's Amazon Linux 2 SSM parameters for the cluster's "
            "Kubernetes version, and EKS publishes none for 1.33 or later (1.32 was the last; no AL2 AMI at all after "
            "2025-11-26): on a current cluster the class resolves no AMI ('failed to discover any AMIs for alias') and "
            "Karpenter launches no node for it, and on an older one its nodes get no more fixes; select AL2023 "
            "(alias al2023@<version>, which has NVIDIA variants) or Bottlerocket"
        )
    ]


POLICY = Policy(
    name="karpenter-ami-family-published",
    description=(
        "An EC2NodeClass selects an AMI family EKS still publishes: no al2@ alias (nor v1beta1 amiFamily AL2 with no "
        "amiSelectorTerms), since EKS releases no AL2 AMI for Kubernetes 1.33 or later."
    ),
    catalog="G70",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Select AL2023 (amiSelectorTerms: [{alias: al2023@vYYYYMMDD}]) or Bottlerocket; move AL2 bootstrap userData to "
        "AL2023's nodeadm NodeConfig."
    ),
    resource_types=EC2_NODE_CLASS_TYPES,
    check_resource=_check,
    rationale=(
        "Karpenter resolves an al2@ alias from EKS's AL2 SSM parameters for the cluster's version and finds no AMI "
        "when they are absent (aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/al2.go:43-72); EKS released "
        "its last AL2 AMIs for Kubernetes 1.32 and stopped on 2025-11-26 (v1.14.1 website/content/en/docs/concepts/"
        "nodeclasses.md:470-472; https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-build-scripts.html)."
    ),
)
