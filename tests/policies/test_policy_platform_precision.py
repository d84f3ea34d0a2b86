"""Platform awareness for precision (issue 32, deliverable 5): careful third-party forms stay silent.

Each case is a manifest written in the shape its platform documents (source named above it), run through
`policies check`'s reading and the whole pack, and must draw no finding of the policy it used to trip
wrongly; a mutation of the same manifest shows the policy still fires where the platform does not cover it.
"""

from __future__ import annotations

import copy

import yaml

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate


def _findings(tmp_path, docs: list[dict], policy: str) -> list[str]:
    path = tmp_path / "manifests.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return [v.message for v in evaluate(resources_of(read_manifests([str(path)]))) if v.policy == policy]


# KServe v0.20.0: a ServingRuntime whose kserve-container carries the resources, and an InferenceService whose
# predictor model names it and asks only for the GPU (the form of KServe's docs, "Deploy the LLaMA model with
# vLLM Runtime", https://kserve.github.io/website/docs/model-serving/generative-inference/overview; runtime
# shape as config/runtimes/kserve-vllmserver.yaml). KServe merges the runtime's container under the model's
# (policies/reading/kserve_runtime.py cites the merge).
_RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "vllm-runtime", "namespace": "llm"},
    "spec": {
        "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "vllm/vllm-openai:v0.11.0",
                "args": ["--model", "/mnt/models", "--port", "8080"],
                "resources": {"requests": {"cpu": "4", "memory": "32Gi"}, "limits": {"cpu": "8", "memory": "32Gi"}},
            }
        ],
    },
}
_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llama", "namespace": "llm"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "vLLM"},
                "runtime": "vllm-runtime",
                "storageUri": "hf://meta-llama/Llama-3.1-8B-Instruct",
                "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
            }
        }
    },
}


def test_resources_a_serving_runtime_supplies_are_not_missing(tmp_path):
    for policy in ("serving-memory-limit", "serving-resource-requests"):
        assert _findings(tmp_path, [_RUNTIME, _ISVC], policy) == []


def test_an_auto_selected_runtime_is_merged_too(tmp_path):
    isvc = copy.deepcopy(_ISVC)
    del isvc["spec"]["predictor"]["model"]["runtime"]
    assert _findings(tmp_path, [_RUNTIME, isvc], "serving-memory-limit") == []


def test_a_runtime_without_the_resources_still_fires_and_is_named(tmp_path):
    runtime = copy.deepcopy(_RUNTIME)
    del runtime["spec"]["containers"][0]["resources"]
    assert _findings(tmp_path, [runtime, _ISVC], "serving-memory-limit") == [
        "spec.predictor.model: no resources.limits.memory on this vllm server (with ServingRuntime/vllm-runtime merged "
        "in, as KServe does); host memory for weight loading, /dev/shm and swap space is then unbounded and the node's "
        "other pods pay for it; set a memory limit"
    ]
    # A runtime of another namespace is not the one KServe picks for a ServingRuntime (GetServingRuntime).
    elsewhere = copy.deepcopy(_RUNTIME)
    elsewhere["metadata"]["namespace"] = "other"
    assert _findings(tmp_path, [runtime, elsewhere, _ISVC], "serving-memory-limit") != []


def test_a_runtime_not_among_the_manifests_is_not_guessed(tmp_path):
    # KServe's built-in runtimes all set cpu and memory (config/runtimes/*.yaml at v0.20.0): unknown, not missing.
    assert _findings(tmp_path, [_ISVC], "serving-memory-limit") == []


# Karpenter v1.14.1 static NodePool (spec.replicas; https://karpenter.sh/docs/concepts/nodepools/ "Static
# NodePools"): only limits.nodes is allowed, so a GPU limit cannot be demanded; consolidation is ignored.
_STATIC_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu-static"},
    "spec": {
        "replicas": 2,
        "limits": {"nodes": 2},
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.2xlarge"]}],
                "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
            }
        },
        "disruption": {"budgets": [{"nodes": "1"}]},
    },
}


def test_a_static_nodepool_is_not_asked_for_a_gpu_limit_or_consolidation_budget(tmp_path):
    assert _findings(tmp_path, [_STATIC_POOL], "karpenter-gpu-nodepool-limits") == []
    assert _findings(tmp_path, [_STATIC_POOL], "karpenter-gpu-nodepool-disruption-budget") == []
    dynamic = copy.deepcopy(_STATIC_POOL)
    del dynamic["spec"]["replicas"]
    assert len(_findings(tmp_path, [dynamic], "karpenter-gpu-nodepool-limits")) == 1
    assert len(_findings(tmp_path, [dynamic], "karpenter-gpu-nodepool-disruption-budget")) == 1


# GKE: a vLLM Deployment that picks its GPU through a custom compute class (the form of GKE's "Serve open
# models ... with a ComputeClass" tutorials: nodeSelector cloud.google.com/compute-class, no toleration: GKE
# taints GPU nodes and its admission adds the toleration to pods that request GPUs).
_GKE_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-gemma", "namespace": "llm"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "gemma"}},
        "template": {
            "metadata": {"labels": {"app": "gemma"}},
            "spec": {
                "nodeSelector": {"cloud.google.com/compute-class": "l4-gpu-class"},
                "containers": [
                    {
                        "name": "inference-server",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["--model=google/gemma-3-4b-it"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
                    }
                ],
            },
        },
    },
}


def test_a_gke_compute_class_pod_needs_no_toleration_or_gpu_type_label(tmp_path):
    assert _findings(tmp_path, [_GKE_DEPLOYMENT], "gpu-pod-tolerates-and-targets") == []
    plain = copy.deepcopy(_GKE_DEPLOYMENT)
    del plain["spec"]["template"]["spec"]["nodeSelector"]
    assert len(_findings(tmp_path, [plain], "gpu-pod-tolerates-and-targets")) == 2  # no toleration, no GPU type


def test_a_gke_compute_class_in_required_affinity_counts_too(tmp_path):
    deployment = copy.deepcopy(_GKE_DEPLOYMENT)
    pod = deployment["spec"]["template"]["spec"]
    del pod["nodeSelector"]
    pod["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "cloud.google.com/compute-class", "operator": "In", "values": ["l4"]}]}
                ]
            }
        }
    }
    assert _findings(tmp_path, [deployment], "gpu-pod-tolerates-and-targets") == []


# KubeRay's GKE LLM sample shape (ray-project/kuberay ray-operator/config/samples/ray-service.llm-serve.yaml):
# GPU workers select cloud.google.com/gke-accelerator; the head requests no GPU, tolerates no GPU taint and
# leaves num-gpus unset. On GKE it never lands on a GPU node, so num-gpus "0" protects nothing.
def _ray_service(head_spec: dict) -> dict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "llm", "namespace": "llm"},
        "spec": {
            "rayClusterConfig": {
                "headGroupSpec": {
                    "rayStartParams": {"dashboard-host": "0.0.0.0"},
                    "template": {"spec": head_spec},
                },
                "workerGroupSpecs": [
                    {
                        "groupName": "gpu-group",
                        "replicas": 1,
                        "minReplicas": 1,
                        "maxReplicas": 2,
                        "rayStartParams": {},
                        "template": {
                            "spec": {
                                "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                                "containers": [
                                    {
                                        "name": "llm",
                                        "image": "rayproject/ray-llm:2.46.0-py311-cu124",
                                        "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "32Gi"}},
                                    }
                                ],
                            }
                        },
                    }
                ],
            }
        },
    }


_HEAD = {"containers": [{"name": "ray-head", "image": "rayproject/ray-llm:2.46.0-py311-cu124"}]}
_NUM_GPUS = "rayStartParams num-gpus is not set"


def test_a_ray_head_that_cannot_reach_gpu_nodes_needs_no_num_gpus(tmp_path):
    assert [m for m in _findings(tmp_path, [_ray_service(_HEAD)], "kuberay-gpu-hygiene") if _NUM_GPUS in m] == []
    tolerating = {**_HEAD, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    assert [m for m in _findings(tmp_path, [_ray_service(tolerating)], "kuberay-gpu-hygiene") if _NUM_GPUS in m] != []


def test_a_ray_head_on_cpu_only_nodes_needs_no_num_gpus(tmp_path):
    service = _ray_service({**_HEAD, "nodeSelector": {"workload": "cpu-general"}})
    del service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"]
    assert [m for m in _findings(tmp_path, [service], "kuberay-gpu-hygiene") if _NUM_GPUS in m] == []
    anywhere = _ray_service(_HEAD)
    del anywhere["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"]
    assert [m for m in _findings(tmp_path, [anywhere], "kuberay-gpu-hygiene") if _NUM_GPUS in m] != []
