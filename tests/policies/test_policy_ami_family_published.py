"""G70 karpenter-ami-family-published: an EC2NodeClass that selects EKS's Amazon Linux 2 AMIs, which EKS no longer
publishes (none for Kubernetes 1.33+, none at all after 2025-11-26)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "karpenter-ami-family-published"

# Minimal form of FawwadAhmed11/llm-serving-infra k8s/vllm/karpenter.yaml @
# dac7501ceacbfe59eba2920c62e23b273c6c130c (set 26, label filed none): amiFamily AL2
# and alias al2@latest. Set 32's eliran89c/self-hosted-llm-on-eks karpenter/karpenter-gpu-nodeclass.yaml @
# 87198d8afa9d40b3ae929ff5458e504b03a8a658 (label filed none) has the alias alone.
FAWWAD = {
    "apiVersion": "karpenter.k8s.aws/v1",
    "kind": "EC2NodeClass",
    "metadata": {"name": "gpu-nodeclass"},
    "spec": {
        "amiFamily": "AL2",
        "amiSelectorTerms": [{"alias": "al2@latest"}],
        "role": "KarpenterNodeRole-cluster",
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "cluster"}}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "cluster"}}],
    },
}
TAIL = (
    ": Karpenter looks the AMIs up in EKS's Amazon Linux 2 SSM parameters for the cluster's Kubernetes version, and "
    "EKS publishes none for 1.33 or later (1.32 was the last; no AL2 AMI at all after 2025-11-26): on a current "
    "cluster the class resolves no AMI ('failed to discover any AMIs for alias') and Karpenter launches no node for "
    "it, and on an older one its nodes get no more fixes; select AL2023 (alias al2023@<version>, which has NVIDIA "
    "variants) or Bottlerocket"
)


def test_an_al2_alias_is_advised():
    assert found_by([FAWWAD], POLICY) == [("advisory", "spec.amiSelectorTerms[0].alias al2@latest" + TAIL)]


def test_a_pinned_al2_alias_without_family_is_advised():
    nodeclass = copy.deepcopy(FAWWAD)
    del nodeclass["spec"]["amiFamily"]
    nodeclass["spec"]["amiSelectorTerms"] = [{"alias": "al2@v20250203"}]
    assert found_by([nodeclass], POLICY) == [("advisory", "spec.amiSelectorTerms[0].alias al2@v20250203" + TAIL)]


def test_a_v1beta1_family_with_no_terms_is_advised():
    # Second third-party form: aws-samples/scalable-hw-agnostic-inference nodepools/amd-nvidia-a10g-nodepool.yaml
    # @ ed2cb2646d45f188efd18cf1660ae0db7067af42 (set 31): a v1beta1 EC2NodeClass with amiFamily AL2 and no amiSelectorTerms.
    nodeclass = copy.deepcopy(FAWWAD)
    nodeclass["apiVersion"] = "karpenter.k8s.aws/v1beta1"
    del nodeclass["spec"]["amiSelectorTerms"]
    (found,) = found_by([nodeclass], POLICY)
    assert found[1].startswith("spec.amiFamily AL2 with no amiSelectorTerms")


@pytest.mark.parametrize(
    "terms",
    [
        [{"alias": "al2023@v20260903"}],
        [{"alias": "al2023@latest"}],
        [{"alias": "bottlerocket@1.55.0"}],
        # amiFamily AL2 only picks the bootstrap of an AMI chosen by id (philipsolarz/aws-eks-vllm-infra
        # k8s/modules/karpenter/templates/EC2NodeClass.yaml, set 34): a custom image, silent.
        [{"id": "ami-08b337e0945038ec4"}],
    ],
)
def test_a_published_family_or_a_custom_image_is_silent(terms):
    nodeclass = copy.deepcopy(FAWWAD)
    nodeclass["spec"]["amiSelectorTerms"] = terms
    if terms[0].get("alias", "").startswith(("al2023", "bottlerocket")):
        del nodeclass["spec"]["amiFamily"]
    assert found_by([nodeclass], POLICY) == []


def test_an_al2_ssm_parameter_term_is_advised():
    nodeclass = copy.deepcopy(FAWWAD)
    del nodeclass["spec"]["amiFamily"]
    path = "/aws/service/eks/optimized-ami/1.33/amazon-linux-2-gpu/recommended/image_id"
    nodeclass["spec"]["amiSelectorTerms"] = [{"ssmParameter": path}]
    assert found_by([nodeclass], POLICY) == [("advisory", f"spec.amiSelectorTerms[0].ssmParameter {path}" + TAIL)]
    nodeclass["spec"]["amiSelectorTerms"] = [
        {"ssmParameter": path.replace("amazon-linux-2-gpu", "amazon-linux-2023/x86_64/nvidia")}
    ]
    assert found_by([nodeclass], POLICY) == []
