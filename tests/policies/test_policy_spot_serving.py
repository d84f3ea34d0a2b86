"""S50 gpu-serving-on-spot (advisory): GPU model servers on spot capacity.

Third-party forms (spent set 11, /work/eval11/PROVENANCE.md; minimal hand-written reductions):
- walidshaari/sample-aws-eks-auto-mode nodepools/gpu-nodepool.yaml @8ebbbeb3a721a0fe73e5ebf3032876a47c7361a3: a g5
  EKS Auto Mode NodePool with karpenter.sh/capacity-type In [spot, on-demand], which examples/gpu/vllm-deepseek-gpu.yaml
  (same commit) selects with nodeSelector karpenter.sh/nodepool: gpu-nodepool;
- jkwong888/gke-llm-serve deployment.yaml @7b73943516499e742d2e2c58ec1018a084bbcaa6: a vLLM Deployment preferring
  cloud.google.com/gke-spot "true".
"""

import copy

from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, resource

from policies.karpenter.spot_serving import POLICY
from policies.registry import evaluate

NODEPOOL_TYPE = "kubernetes:karpenter.sh/v1:NodePool"


def _pool(name="gpu-nodepool", capacity=("spot", "on-demand")):
    requirements = [{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g5"]}]
    if capacity is not None:
        requirements.append({"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(capacity)})
    props = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {"template": {"spec": {"nodeClassRef": {"name": "gpu-nodeclass"}, "requirements": requirements}}},
    }
    return resource(NODEPOOL_TYPE, props, name)


def _server(selector=None, affinity=None):
    props = copy.deepcopy(deployment_props())
    spec = props["spec"]["template"]["spec"]
    spec.pop("affinity", None)
    spec["nodeSelector"] = selector or {}
    if affinity:
        spec["affinity"] = {"nodeAffinity": affinity}
    return resource(DEPLOYMENT_TYPE, props)


def _found(*resources):
    return [(v.enforcement, v.message) for v in evaluate(list(resources), None, policies=[POLICY])]


def test_spot_pool_a_model_server_selects_is_advice():
    ((level, message),) = _found(_pool(), _server({"karpenter.sh/nodepool": "gpu-nodepool"}))
    assert level == "advisory" and "capacity-type In ['spot', 'on-demand'] admits spot" in message
    # The only GPU pool of the files, and a server naming no pool, lands there too.
    assert len(_found(_pool(), _server())) == 1


def test_gke_spot_preference_and_aks_spot_selector_are_advice():
    preferred = {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 100,
                "preference": {"matchExpressions": [{"key": "cloud.google.com/gke-spot", "operator": "In", "values": ["true"]}]},
            }
        ]
    }
    ((level, message),) = _found(_server(affinity=preferred))
    assert level == "advisory" and "preferred node affinity on cloud.google.com/gke-spot" in message
    ((_, message),) = _found(_server({"kubernetes.azure.com/scalesetpriority": "spot"}))
    assert "scalesetpriority: spot" in message


def test_careful_forms_stay_silent():
    server = _server({"karpenter.sh/nodepool": "serving"})
    # An on-demand-only pool, a pool with no capacity requirement (Karpenter's on-demand default).
    assert _found(_pool("serving", ("on-demand",)), server) == []
    assert _found(_pool("serving", None), server) == []
    # A spot pool for batch work that no model server lands on, beside the on-demand serving pool.
    assert _found(_pool("batch"), _pool("serving", ("on-demand",)), server) == []
    # A spot pool read with no GPU workload at all is advice since spent sets 13 and 15 (test_policy_spent_13_15_misses),
    # unless it is named for batch work.
    assert _found(_pool("batch")) == []
    # A model server that asks for on-demand nodes explicitly.
    assert _found(_pool(), _server({"karpenter.sh/capacity-type": "on-demand"})) == []


# Set 39 (spent at 08:06 this session), siyuanfoundation/vllm-on-tpu @b1fe13fa79a8bf1376c6dfdd1174ba1eab0de64d:
# llm-d/gpu/compute-class.yaml is a ComputeClass whose one priority is spot A100 (whenUnsatisfiable DoNotScaleUp),
# selected by Deployments through a kustomization that is not read; deployments/vllm-deployment.yaml runs vLLM on a
# TPU slice with nodeSelector cloud.google.com/gke-flex-start "true".
_CLASS = {
    "apiVersion": "cloud.google.com/v1",
    "kind": "ComputeClass",
    "metadata": {"name": "a100-spot"},
    "spec": {
        "priorities": [{"gpu": {"type": "nvidia-tesla-a100", "count": 2}, "spot": True}],
        "nodePoolAutoCreation": {"enabled": True},
        "whenUnsatisfiable": "DoNotScaleUp",
    },
}


def test_a_spot_first_compute_class_nothing_selects_is_advice():
    ((level, message),) = _found(resource("kubernetes:cloud.google.com/v1:ComputeClass", _CLASS))
    assert level == "advisory"
    assert "spec.priorities[0] asks for spot GPU capacity first and no later priority falls back to on-demand" in message


def test_a_compute_class_with_an_on_demand_first_priority_stays_silent():
    careful = copy.deepcopy(_CLASS)
    careful["spec"]["priorities"].insert(0, {"gpu": {"type": "nvidia-tesla-a100", "count": 2}})
    assert _found(resource("kubernetes:cloud.google.com/v1:ComputeClass", careful)) == []
    batch = copy.deepcopy(_CLASS)
    batch["metadata"]["name"] = "a100-spot-batch"
    assert _found(resource("kubernetes:cloud.google.com/v1:ComputeClass", batch)) == []


def test_flex_start_for_a_model_server_is_advice():
    ((level, message),) = _found(_server({"cloud.google.com/gke-flex-start": "true"}))
    assert level == "advisory" and "puts this model server on GKE flex-start capacity" in message
    assert _found(_server({"cloud.google.com/gke-flex-start": "false"})) == []


def test_spot_labels_of_every_cloud_are_advice():
    # EKS managed node groups (eks.amazonaws.com/capacityType: SPOT, upper case as EKS writes it), GKE preemptible VMs.
    ((_, message),) = _found(_server({"eks.amazonaws.com/capacityType": "SPOT"}))
    assert "capacityType: SPOT" in message
    ((_, message),) = _found(_server({"cloud.google.com/gke-preemptible": "true"}))
    assert "gke-preemptible: true" in message
    # ... and their on-demand values stay silent.
    assert _found(_server({"eks.amazonaws.com/capacityType": "ON_DEMAND"})) == []


# Fresh set 53 (labelled S50 advisory): felipemoz/vllm-on-azure k8s/vllm-deployment.yaml tolerates AKS's spot taint
# kubernetes.azure.com/scalesetpriority=spot:NoSchedule, its GPU count an envsubst placeholder (${VLLM_GPU_COUNT}).
def test_an_aks_spot_toleration_on_a_server_whose_gpu_count_is_a_placeholder_is_advice():
    server = _server({"hardware": "gpu"})
    spec = server.props["spec"]["template"]["spec"]
    spec["tolerations"] = [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
    ]
    for container in spec["containers"]:
        container["resources"] = {"limits": {"nvidia.com/gpu": "${VLLM_GPU_COUNT}"}}
    ((level, message),) = _found(server)
    assert level == "advisory" and "tolerations[1] kubernetes.azure.com/scalesetpriority" in message
    # The same server with no GPU key at all is not a GPU server.
    for container in spec["containers"]:
        container["resources"] = {"limits": {"cpu": "2"}}
    assert _found(server) == []
