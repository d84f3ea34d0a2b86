"""S15 gpu-pod-tolerates-and-targets: a GPU pod that requires, by name, a NodePool none of the files' NodePools is.

Karpenter labels each NodePool's nodes ``karpenter.sh/nodepool: <its name>`` and schedules against that label
(kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go:78-84), so a pod that
requires another name gets no node. Advice: the pool may be created elsewhere (Terraform, a chart).

Fixtures (facts of the files):
- spent set 31 aws-samples/scalable-hw-agnostic-inference mistral/mistral-g5-deploy.yaml@ed2cb26: nodeSelector
  ``karpenter.sh/nodepool: g5-nodepool``, 1 GPU; nodepools/amd-nvidia-a10g-nodepool.yaml defines only NodePool
  amd-nvidia-a10g (labelled none, advisory: Pending).
- second form, the affinity spelling of the class: the same repository's bert/bert-g6-deploy.yaml and
  mistral/mistral-g6-deploy.yaml require ``g6-nodepool`` while none of its 16 NodePools (nodepools/, optimal-tp-dp-llm/)
  carries that name; written here as a required node-affinity term, as the optimal-tp-dp-llm deployments select.
Careful forms, silent: spent set 15 OchiShuji/vllm-eks manifests/02-vllm-deployment.yaml@89ff5ff selects
gpu-nodepool, which manifests/01-gpu-nodepool.yaml defines; no NodePool in the files; Karpenter's own
``karpenter.sh/nodepool DoesNotExist`` affinity (its chart keeps the controller off its nodes); EKS Auto Mode's
built-in general-purpose pool; a NodePool whose name is unrendered.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_POLICY = "gpu-pod-tolerates-and-targets"


def _nodepool(name: str) -> dict:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "amd-nvidia"},
                    "requirements": [
                        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]},
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
                }
            },
            "limits": {"nvidia.com/gpu": 8},
        },
    }


def _deployment(selection: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "mistral-g5"},
        "spec": {
            "selector": {"matchLabels": {"app": "mistral-g5"}},
            "template": {
                "metadata": {"labels": {"app": "mistral-g5"}},
                "spec": {
                    **selection,
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [
                        {
                            "name": "app",
                            "image": "vllm/vllm-openai:v0.9.1",
                            "args": ["--model", "mistralai/Mistral-7B-Instruct-v0.3"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ],
                },
            },
        },
    }


def _selector(name: str) -> dict:
    return {"nodeSelector": {"karpenter.sh/nodepool": name}}


def _affinity(operator: str, *values: str) -> dict:
    expression = {"key": "karpenter.sh/nodepool", "operator": operator, **({"values": list(values)} if values else {})}
    terms = [{"matchExpressions": [expression]}]
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}}


def _missing(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, _POLICY) if "(karpenter.sh/nodepool), which none" in m]


def test_a_nodepool_no_file_defines_is_advice():
    found = _missing([_deployment(_selector("g5-nodepool")), _nodepool("amd-nvidia-a10g")])
    assert found == [
        (
            "advisory",
            "spec.template.spec: requires NodePool g5-nodepool (karpenter.sh/nodepool), which none of the NodePools of "
            "the files read is (amd-nvidia-a10g): unless one of that name is created elsewhere, Karpenter has no pool "
            "to launch a node from for it and the pod stays Pending; select one of those pools",
        )
    ]


def test_the_affinity_spelling_is_read_too():
    objs = [_deployment(_affinity("In", "g6-nodepool")), _nodepool("nvidia-a10g"), _nodepool("neuron-inf2")]
    found = _missing(objs)
    assert len(found) == 1 and "requires NodePool g6-nodepool" in found[0][1]
    assert "(neuron-inf2, nvidia-a10g)" in found[0][1]


def test_a_defined_pool_is_silent():
    assert _missing([_deployment(_selector("gpu-nodepool")), _nodepool("gpu-nodepool")]) == []
    assert _missing([_deployment(_affinity("In", "a", "gpu-nodepool")), _nodepool("gpu-nodepool")]) == []


def test_no_nodepool_in_the_files_is_silent():
    assert _missing([_deployment(_selector("g5-nodepool"))]) == []


def test_other_operators_and_built_in_pools_are_silent():
    pool = _nodepool("amd-nvidia-a10g")
    assert _missing([_deployment(_affinity("DoesNotExist")), pool]) == []
    assert _missing([_deployment(_affinity("NotIn", "g5-nodepool")), pool]) == []
    assert _missing([_deployment(_selector("general-purpose")), pool]) == []


def test_a_pool_with_an_unrendered_name_is_silent():
    pool = copy.deepcopy(_nodepool("x"))
    pool["metadata"]["name"] = "${POOL_NAME}"
    assert _missing([_deployment(_selector("g5-nodepool")), pool]) == []
