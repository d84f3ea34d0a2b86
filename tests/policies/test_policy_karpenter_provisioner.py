"""S11 and S13 read a karpenter.sh/v1alpha5 Provisioner as the NodePool it migrates to (policies/reading/nodepools.py
nodepool_props; Karpenter v0.32 upgrade guide https://karpenter.sh/v0.32/upgrading/v1beta1-migration/), as advice:
Karpenter 0.33 and later serve no Provisioner (G40 says so)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

# aws-samples/aws-do-eks Container-Root/eks/deployment/karpenter/provisioner-efa.yaml@f721602f7389b817a74fec8343862733bce638ed
# (spent set 30, labelled S11 and S13): g4dn.8xlarge only, no taint, limits only cpu 1000.
EFA = {
    "apiVersion": "karpenter.sh/v1alpha5",
    "kind": "Provisioner",
    "metadata": {"name": "default"},
    "spec": {
        "requirements": [
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g4dn.8xlarge"]},
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]},
        ],
        "limits": {"resources": {"cpu": 1000}},
        "providerRef": {"name": "default"},
        "ttlSecondsAfterEmpty": 30,
    },
}
# mohamedaminradyahmed-netizen/Prompt-Architect k8s/gpu-nodepool.yaml@2a2484d5dec51bbe74fcc87b92614e5bcace7156 (spent
# set 26): tainted nvidia.com/gpu, any amd64 type, limits only cpu 256.
PROMPT_ARCHITECT = {
    "apiVersion": "karpenter.sh/v1alpha5",
    "kind": "Provisioner",
    "metadata": {"name": "gpu-nodepool"},
    "spec": {
        "labels": {"accelerator": "nvidia"},
        "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
        "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
        "limits": {"resources": {"cpu": "256"}},
        "ttlSecondsAfterEmpty": 60,
    },
}
# aws-samples/terraform-eks-code extra/.karpenter-provisioner/01-provisioner.sh@738dd307d71f21495fb9c5e3882fef7bca407b1b: a CPU
# Provisioner (no GPU in requirements, labels or taints) with a cpu limit.
CPU_ONLY = {
    "apiVersion": "karpenter.sh/v1alpha5",
    "kind": "Provisioner",
    "metadata": {"name": "default"},
    "spec": {
        "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}],
        "limits": {"resources": {"cpu": 128}},
        "ttlSecondsAfterEmpty": 30,
    },
}


def test_an_untainted_gpu_provisioner_is_advised_on_its_own_fields():
    assert found_by([EFA], "karpenter-gpu-nodepool-tainted") == [
        (
            "advisory",
            "spec.taints: GPU NodePool without a nvidia.com/gpu:NoSchedule taint; pods that do not ask for a GPU can land "
            "on its nodes and keep them (and their GPUs) alive (a v1alpha5 Provisioner, read as the NodePool it migrates to)",
        )
    ]
    assert found_by([EFA], "karpenter-gpu-nodepool-limits") == [
        (
            "advisory",
            'spec.limits.resources: GPU NodePool without limits["nvidia.com/gpu"]; only cpu 1000 bound it, which admits '
            "31 GPUs on g4dn.8xlarge nodes the requirements allow; cap the GPUs themselves (a v1alpha5 Provisioner, read "
            "as the NodePool it migrates to)",
        )
    ]


def test_a_tainted_gpu_provisioner_bounded_by_cpu_only_gets_s13_alone():
    assert found_by([PROMPT_ARCHITECT], "karpenter-gpu-nodepool-tainted") == []
    [(level, message)] = found_by([PROMPT_ARCHITECT], "karpenter-gpu-nodepool-limits")
    assert level == "advisory" and message.startswith('spec.limits.resources: GPU NodePool without limits["nvidia.com/gpu"]')


def test_a_cpu_provisioner_or_a_capped_tainted_one_stays_silent():
    capped = copy.deepcopy(PROMPT_ARCHITECT)
    capped["spec"]["limits"]["resources"]["nvidia.com/gpu"] = 8
    for policy in ("karpenter-gpu-nodepool-tainted", "karpenter-gpu-nodepool-limits"):
        assert found_by([CPU_ONLY, capped], policy) == []
