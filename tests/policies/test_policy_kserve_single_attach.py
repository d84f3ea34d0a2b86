"""S30 single-attach-volume-rolls on the claim KServe mounts for a pvc:// model.

Firing forms:
- rrbanda/rhoai-deploy-gitops usecases/models/orchestrator-8b/manifests/inference-service.yaml
  @4fc6f52adfac8dfdc0dfba3a6bd3b1434779620d (spent set 36, labelled S30): a RawDeployment InferenceService, one
  replica, ``storageUri: pvc://model-weights/...``; the repository's pvc.yaml makes model-weights ReadWriteOnce. KServe
  v0.20.0 gives the predictor Deployment RollingUpdate 25%/25% (deployment_reconciler.go:162-168, :341-349).
- natifridman/kserve-demo models/gpt-oss-20b/inference-service.yaml and pvc.yaml (spent set 28, labelled S30): an
  LLMInferenceService with ``replicas: 2`` on ``pvc://gpt-oss-20b-pvc``, a ReadWriteOnce claim.
Careful form: KServe's own sample it copies, kserve v0.20.0 docs/samples/llmisvc/e2e-gpt-oss/inference_default.yaml
(two replicas on pvc://gpt-oss-20b-pvc), whose model-pvc.yaml asks ReadWriteMany (README.md:53).
"""

import copy

from policy_fixtures import manifest

from policies.gpu.single_attach_rollout import POLICY
from policies.registry import evaluate

ORCHESTRATOR = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "orchestrator-8b", "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"}},
    "spec": {
        "predictor": {
            "maxReplicas": 1,
            "minReplicas": 1,
            "model": {
                "modelFormat": {"name": "vLLM"},
                "runtime": "orchestrator-8b",
                "storageUri": "pvc://model-weights/Nemotron-Orchestrator-8B",
                "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
            },
        }
    },
}
GPT_OSS = {
    "apiVersion": "serving.kserve.io/v1alpha2",
    "kind": "LLMInferenceService",
    "metadata": {"name": "gpt-oss-20b"},
    "spec": {
        "baseRefs": [{"name": "llm-template"}],
        "model": {"name": "RedHatAI/gpt-oss-20b", "uri": "pvc://gpt-oss-20b-pvc"},
        "replicas": 2,
        "template": {
            "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "2"}}}],
        },
    },
}


def _pvc(name, mode):
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {"accessModes": [mode], "resources": {"requests": {"storage": "50Gi"}}},
    }


def _found(*objs, config=None):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], config, policies=[POLICY])]


def test_raw_inference_service_on_an_unseen_claim_is_advice():
    ((level, message),) = _found(ORCHESTRATOR)
    assert level == "advisory"
    assert message.startswith("spec.predictor.model pvc://model-weights/Nemotron-Orchestrator-8B: PersistentVolumeClaim ")
    assert "model-weights is not in the files read" in message and "deploymentStrategy Recreate" in message


def test_raw_inference_service_one_replica_on_a_read_write_once_claim_of_the_run_is_advice():
    ((level, message),) = _found(ORCHESTRATOR, _pvc("model-weights", "ReadWriteOnce"))
    assert level == "advisory"
    assert "model-weights is ReadWriteOnce (single-attach) and the RollingUpdate of the Deployment KServe renders" in message


def test_raw_inference_service_several_replicas_block():
    isvc = copy.deepcopy(ORCHESTRATOR)
    isvc["spec"]["predictor"]["minReplicas"] = 2
    ((level, message),) = _found(isvc, _pvc("model-weights", "ReadWriteOnce"))
    # ReadWriteOnce admits replicas on one node: advice unless the pods are kept apart (review 43 #7).
    assert level == "advisory" and "2 replicas: the pods after the first cannot attach it" in message
    isvc["spec"]["predictor"]["affinity"] = {
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname"}]}
    }
    assert [level for level, _ in _found(isvc, _pvc("model-weights", "ReadWriteOnce"))] == ["mandatory"]


def test_llm_inference_service_two_replicas_on_a_read_write_once_claim_block():
    ((level, message),) = _found(GPT_OSS, _pvc("gpt-oss-20b-pvc", "ReadWriteOnce"))
    assert level == "advisory"  # the labeller of set 28 filed it advisory: on one node ReadWriteOnce admits both
    assert message.startswith("spec.model.uri pvc://gpt-oss-20b-pvc: PersistentVolumeClaim gpt-oss-20b-pvc is ReadWriteOnce")
    assert "deploymentStrategy" not in message


def test_careful_forms_stay_silent():
    # KServe's own sample: the same service on a ReadWriteMany claim.
    assert _found(GPT_OSS, _pvc("gpt-oss-20b-pvc", "ReadWriteMany")) == []
    assert _found(ORCHESTRATOR, _pvc("model-weights", "ReadWriteMany")) == []
    recreate = copy.deepcopy(ORCHESTRATOR)
    recreate["spec"]["predictor"]["deploymentStrategy"] = {"type": "Recreate"}
    assert _found(recreate, _pvc("model-weights", "ReadWriteOnce")) == []
    assert _found(recreate) == []
    # Serverless (Knative) mode renders no Deployment of KServe's: not this rule's.
    serverless = copy.deepcopy(ORCHESTRATOR)
    serverless["metadata"]["annotations"] = {}
    assert _found(serverless, _pvc("model-weights", "ReadWriteOnce")) == []
    # ... unless the cluster's default mode is raw.
    raw = {"single-attach-volume-rolls": {"kserveDefaultDeploymentMode": "Standard"}}
    assert [lvl for lvl, _ in _found(serverless, _pvc("model-weights", "ReadWriteOnce"), config=raw)] == ["advisory"]
    # A model fetched by the storage initializer (no pvc://) mounts no claim.
    hub = copy.deepcopy(ORCHESTRATOR)
    hub["spec"]["predictor"]["model"]["storageUri"] = "hf://nvidia/Nemotron-Orchestrator-8B"
    assert _found(hub) == []
    # A multi-node LLMInferenceService is a LeaderWorkerSet, not this Deployment.
    multi = copy.deepcopy(GPT_OSS)
    multi["spec"]["worker"] = {"containers": [{"name": "main"}]}
    assert _found(multi, _pvc("gpt-oss-20b-pvc", "ReadWriteOnce")) == []


# The llama-stack operator's LlamaStackDistribution with spec.server.storage: one ReadWriteOnce claim of the operator's
# (llamastack/llama-stack-k8s-operator 7735e43c controllers/manifests/base/pvc.yaml:6-7) in every pod. Firing form:
# opendatahub-io/llama-stack-k8s-operator config/samples/_v1alpha1_llamastackdistribution.yaml (spent set 31, labelled
# S30): storage and autoscaling up to 5 replicas.
LLAMA_STACK = {
    "apiVersion": "llamastack.io/v1alpha1",
    "kind": "LlamaStackDistribution",
    "metadata": {"name": "llamastackdistribution-sample"},
    "spec": {
        "replicas": 1,
        "server": {
            "containerSpec": {"name": "llama-stack"},
            "distribution": {"name": "starter"},
            "autoscaling": {"minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 75},
            "storage": {"size": "20Gi", "mountPath": "/home/lls/.lls"},
        },
    },
}


def test_llama_stack_storage_with_autoscaling_or_replicas_is_advice():
    ((level, message),) = _found(LLAMA_STACK)
    assert level == "advisory" and "adds replicas up to 5" in message
    two = copy.deepcopy(LLAMA_STACK)
    two["spec"]["replicas"] = 2
    ((level, message),) = _found(two)
    assert level == "advisory" and "mounted by 2 replicas" in message  # ReadWriteOnce is per node (review 43 #7)


def test_llama_stack_careful_forms_stay_silent():
    no_storage = copy.deepcopy(LLAMA_STACK)
    del no_storage["spec"]["server"]["storage"]
    assert _found(no_storage) == []
    single = copy.deepcopy(LLAMA_STACK)
    del single["spec"]["server"]["autoscaling"]
    assert _found(single) == []
