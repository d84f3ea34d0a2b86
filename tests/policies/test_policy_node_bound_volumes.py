"""Volumes bound to a node: a model read from a hostPath that must exist on the node (G31 host-path-read-only), and a
single-attach claim under an autoscaler that adds replicas (S30 single-attach-volume-rolls). Both advice.

Fixtures, cut down from spent set 23 (/work/eval23/labels.yaml), farrukhmustafa/fintech-function-calling-llm:

- kubernetes/vllm-deployment.yaml: vLLM serving /models/merged-qwen25-7b-finetuned from hostPath /mnt/data/outputs
  (type Directory), nodeSelector library-solution: k8s-training;
- kubernetes/triton-inference-deployment.yaml: a Triton Deployment, strategy Recreate, mounting PVC
  triton-model-repository (ReadWriteOnce), with HPA triton-hpa (maxReplicas 3) on it.

A second form of the class: Coosis/k8s-vllm-router benchmarks/baseline/3_pods_20260423/deployment.yaml at
0b898b62e463f82d05068eb4124b7bc5c12febd5 (spent set 20): 3 replicas of vllm/vllm-openai-cpu serving the positional
/models/Qwen2.5-0.5B-Instruct from hostPath /mnt/models (type Directory), no node selector at all.

Careful forms: KSign-Security-Lab/agents k8s/vllm.yaml (set 23: a Hub model with a DirectoryOrCreate hostPath cache),
the same vLLM pinned to its node, and the HPA at maxReplicas 1 or the claim ReadWriteMany.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by
from test_policy_shell_scripts_and_service_links import DEPLOYMENT as KSIGN
from test_policy_triton_switches import FARRUKH as TRITON

VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-serving", "namespace": "inference"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm-serving"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-serving"}},
            "spec": {
                "nodeSelector": {"library-solution": "k8s-training"},
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "args": ["--model", "/models/merged-qwen25-7b-finetuned", "--port", "8000"],
                        "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "128Gi"}},
                        "volumeMounts": [{"name": "model-data", "mountPath": "/models", "readOnly": True}],
                    }
                ],
                "volumes": [{"name": "model-data", "hostPath": {"path": "/mnt/data/outputs", "type": "Directory"}}],
            },
        },
    },
}

G31 = "host-path-read-only"
S30 = "single-attach-volume-rolls"


def test_a_model_on_a_must_exist_host_path_of_an_unpinned_pod_is_advice():
    assert found_by([VLLM], G31) == [
        (
            "advisory",
            "container vllm: reads its model /models/merged-qwen25-7b-finetuned from hostPath /mnt/data/outputs (type "
            "Directory), which must already exist on the node it lands on, and nodeSelector "
            "library-solution=k8s-training picks a class of nodes, not the node holding the files: on any other node "
            "the mount fails and the server never starts; put the weights on a PVC, in the image or a download, or on "
            "every node the pod may use",
        )
    ]


COOSIS = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm"},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai-cpu:v0.19.1-arm64",
                        "args": ["/models/Qwen2.5-0.5B-Instruct", "--served-model-name", "Qwen/Qwen2.5-0.5B-Instruct"],
                        "volumeMounts": [{"name": "modeldir", "mountPath": "/models", "readOnly": True}],
                    }
                ],
                "volumes": [{"name": "modeldir", "hostPath": {"path": "/mnt/models", "type": "Directory"}}],
            },
        },
    },
}


def test_the_positional_model_of_an_unselected_pod_is_read_too():
    [(level, message)] = found_by([COOSIS], G31)
    assert level == "advisory" and message.startswith(
        "container vllm: reads its model /models/Qwen2.5-0.5B-Instruct from hostPath /mnt/models (type Directory), "
        "which must already exist on the node it lands on, and nothing pins the pod to a node"
    )


def test_a_pinned_pod_a_daemonset_or_a_hub_model_on_a_host_cache_is_silent():
    pinned = copy.deepcopy(VLLM)
    pinned["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "trainer-0"}
    assert found_by([pinned], G31) == []
    daemon = copy.deepcopy(VLLM)
    daemon["kind"] = "DaemonSet"
    del daemon["spec"]["replicas"]
    assert found_by([daemon], G31) == []
    # KSign: vllm serve "$MODEL_ID" (a Hub id from a ConfigMap) with a DirectoryOrCreate cache: only the writable-mount row.
    assert all("reads its model" not in message for _, message in found_by([KSIGN], G31))


CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "triton-model-repository", "namespace": "triton"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}},
}
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "triton-hpa", "namespace": "triton"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "triton-inference-server"},
        "minReplicas": 1,
        "maxReplicas": 3,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
        ],
    },
}


def _triton_with_claim() -> dict:
    triton = copy.deepcopy(TRITON)
    pod = triton["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "model-repository", "persistentVolumeClaim": {"claimName": "triton-model-repository"}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "model-repository", "mountPath": "/models"}]
    return triton


def test_an_autoscaler_adding_replicas_on_a_single_attach_claim_is_advice():
    # The Deployment carries the advice, and (fresh set 54: rupalimits/LLM-Inference-Platform-for-Real-Time-and-Batch-
    # Workloads k8s/inference-service.yaml, HPA inference-hpa to 4 over the ReadWriteOnce claim hf-cache-pvc, labelled S30
    # advisory on the HPA) so does the autoscaler that adds the replicas.
    assert found_by([_triton_with_claim(), CLAIM, HPA], S30) == [
        (
            "advisory",
            "spec.template.spec.volumes model-repository: PersistentVolumeClaim triton-model-repository is ReadWriteOnce "
            "(single-attach) and HorizontalPodAutoscaler triton-hpa adds replicas up to 3: a replica placed on another "
            "node waits in ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a "
            "ReadWriteMany volume, a StatefulSet with volumeClaimTemplates, or keep the autoscaler at one replica",
        ),
        (
            "advisory",
            "spec: scales Deployment triton-inference-server up to 3 replicas, whose pods all mount PersistentVolumeClaim "
            "triton-model-repository (ReadWriteOnce, single-attach): a replica placed on another node waits in "
            "ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a ReadWriteMany volume, a "
            "StatefulSet with volumeClaimTemplates, or keep maxReplicas at 1",
        ),
    ]
    # A KEDA ScaledObject (maxReplicaCount defaults to 100) carries it too.
    scaled = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "triton-scaler", "namespace": "triton"},
        "spec": {"scaleTargetRef": {"name": "triton-inference-server"}, "triggers": []},
    }
    assert any("up to 100 replicas" in m for _, m in found_by([_triton_with_claim(), CLAIM, scaled], S30))


def test_one_replica_at_most_or_a_shared_claim_is_silent():
    single = copy.deepcopy(HPA)
    single["spec"]["maxReplicas"] = 1
    assert found_by([_triton_with_claim(), CLAIM, single], S30) == []
    shared = copy.deepcopy(CLAIM)
    shared["spec"]["accessModes"] = ["ReadWriteMany"]
    assert found_by([_triton_with_claim(), shared, HPA], S30) == []
    elsewhere = copy.deepcopy(HPA)
    elsewhere["spec"]["scaleTargetRef"]["name"] = "another-deployment"
    assert found_by([_triton_with_claim(), CLAIM, elsewhere], S30) == []
