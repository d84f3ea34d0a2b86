"""S30 single-attach-volume-rolls on pods that run on several nodes by design: an InferenceService predictor allowed
above one replica, and a DaemonSet, each pod mounting one single-attach claim.

Firing forms:
- JakeBx/hardened-llm-deployment@88313865be9ebd1d217f01671dc3621fcd6e64c7
  deployments/manifests/models/kimi-k2.5/inference-service.yaml with pvc.yaml (spent set 88, labelled S30): predictor
  volumes mount the ReadWriteOnce claim kimi-k2-5-model-storage, maxReplicas 3; smollm-360m/inference-service.yaml
  (maxReplicas 5, its pvc.yaml not in the set: an unseen claim). kserve v0.20.0 pkg/apis/serving/v1beta1/
  component.go:83-88 (minReplicas, maxReplicas), the HPA's and Knative's ceiling (hpa_reconciler.go:162,177;
  ksvc_reconciler.go:109).
- cuongtop4598/chatbot-ui k8s/ollama-deployment.yaml (spent set 86, labelled none): DaemonSet ollama-gpu on the
  ReadWriteOnce claim ollama-models-pvc.
Careful forms: maxReplicas 1, a ReadWriteMany claim, a claim named for a shared file system, a DaemonSet pinned to one
node or on a hostPath PersistentVolume bound by volumeName (nothing to attach).
"""

import copy

from policy_fixtures import manifest

from policies.gpu.single_attach_spread import POLICY
from policies.registry import evaluate

KIMI = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "kimi-k2-5", "namespace": "ml-inference"},
    "spec": {
        "predictor": {
            "containers": [
                {
                    "name": "vllm",
                    "image": "vllm/vllm-openai:latest",
                    "args": ["--model=moonshotai/Kimi-K2.5"],
                    "resources": {"limits": {"nvidia.com/gpu": "8"}},
                    "volumeMounts": [{"name": "model-storage", "mountPath": "/root/.cache/huggingface"}],
                }
            ],
            "volumes": [{"name": "model-storage", "persistentVolumeClaim": {"claimName": "kimi-k2-5-model-storage"}}],
            "minReplicas": 1,
            "maxReplicas": 3,
        }
    },
}
DAEMON = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "ollama-gpu"},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:latest",
                        "volumeMounts": [{"name": "models", "mountPath": "/root/.ollama/models"}],
                    }
                ],
                "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "ollama-models-pvc"}}],
            },
        },
    },
}


def _pvc(name, mode, namespace=None, **spec):
    meta = {"name": name} | ({"namespace": namespace} if namespace else {})
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": meta,
        "spec": {"accessModes": [mode], "resources": {"requests": {"storage": "150Gi"}}} | spec,
    }


def _found(*objs):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_inference_service_scaled_over_a_read_write_once_claim_is_advice():
    ((level, message),) = _found(KIMI, _pvc("kimi-k2-5-model-storage", "ReadWriteOnce", "ml-inference"))
    assert level == "advisory"
    assert message.startswith("spec.predictor.volumes model-storage: PersistentVolumeClaim kimi-k2-5-model-storage is")
    assert "up to 3 replicas" in message and "Multi-Attach" in message


def test_inference_service_scaled_over_an_unseen_claim_is_advice():
    ((level, message),) = _found(KIMI)
    assert level == "advisory" and "is not in the files read" in message


def test_inference_service_careful_forms_stay_silent():
    one = copy.deepcopy(KIMI)
    one["spec"]["predictor"]["maxReplicas"] = 1
    assert _found(one, _pvc("kimi-k2-5-model-storage", "ReadWriteOnce", "ml-inference")) == []
    assert _found(KIMI, _pvc("kimi-k2-5-model-storage", "ReadWriteMany", "ml-inference")) == []
    shared = copy.deepcopy(KIMI)
    shared["spec"]["predictor"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = "models-efs"
    assert _found(shared) == []
    hub = copy.deepcopy(KIMI)
    del hub["spec"]["predictor"]["volumes"]
    assert _found(hub) == []


def test_daemonset_on_a_read_write_once_claim_is_advice():
    ((level, message),) = _found(DAEMON, _pvc("ollama-models-pvc", "ReadWriteOnce"))
    assert level == "advisory"
    assert "ollama-models-pvc is ReadWriteOnce" in message and "one pod on every node" in message


def test_daemonset_careful_forms_stay_silent():
    assert _found(DAEMON, _pvc("ollama-models-pvc", "ReadWriteMany")) == []
    pinned = copy.deepcopy(DAEMON)
    pinned["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "gpu-1"}
    assert _found(pinned, _pvc("ollama-models-pvc", "ReadWriteOnce")) == []
    host_path = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "ollama-models-pv"},
        "spec": {"capacity": {"storage": "150Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/models"}},
    }
    claim = _pvc("ollama-models-pvc", "ReadWriteOnce", volumeName="ollama-models-pv")
    assert _found(DAEMON, claim, host_path) == []


# Two or more pods of a StatefulSet, LeaderWorkerSet group or KubeRay cluster on one claim of their pod volumes
# (hand-written after the LeaderWorkerSet API: kubernetes-sigs/lws v0.10.0 leaderworkerset_types.go:152-165, size is the
# pods of a group; KubeRay v1.7.0 raycluster_types.go:447-453, a worker group's replicas).
def _lws(size, claim="hf-cache"):
    pod = {
        "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "resources": {"limits": {"nvidia.com/gpu": "8"}}}],
        "volumes": [{"name": "cache", "persistentVolumeClaim": {"claimName": claim}}],
    }
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "deepseek"},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {"size": size, "leaderTemplate": {"spec": pod}, "workerTemplate": {"spec": pod}},
        },
    }


def _ray(replicas):
    pod = {"containers": [{"name": "ray", "image": "rayproject/ray:2.46.0"}], "volumes": [_claim_volume()]}
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "llm"},
        "spec": {
            "headGroupSpec": {"template": {"spec": {"containers": [{"name": "head", "image": "rayproject/ray:2.46.0"}]}}},
            "workerGroupSpecs": [{"groupName": "gpu", "replicas": replicas, "template": {"spec": pod}}],
        },
    }


def _claim_volume():
    return {"name": "cache", "persistentVolumeClaim": {"claimName": "hf-cache"}}


def test_a_multi_node_group_or_worker_replicas_on_one_read_write_once_claim_is_advice():
    ((level, message),) = _found(_lws(2), _pvc("hf-cache", "ReadWriteOnce"))
    assert level == "advisory"
    assert "PersistentVolumeClaim hf-cache is ReadWriteOnce (single-attach) and 2 pods mount it" in message
    ((level, message),) = _found(_ray(3), _pvc("hf-cache", "ReadWriteOnce"))
    assert level == "advisory" and "spec.workerGroupSpecs[0].template.spec (3 pods)" in message


def test_one_pod_a_shared_claim_or_claim_templates_stay_silent():
    assert _found(_lws(1), _pvc("hf-cache", "ReadWriteOnce")) == []
    assert _found(_lws(2), _pvc("hf-cache", "ReadWriteMany")) == []
    assert _found(_ray(1), _pvc("hf-cache", "ReadWriteOnce")) == []
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "replicas": 3,
            "serviceName": "vllm",
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [{"name": "vllm", "image": "x"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "hf-cache"}, "spec": {"accessModes": ["ReadWriteOnce"]}}],
        },
    }
    assert _found(sts) == []
    shared = copy.deepcopy(sts)
    shared["spec"]["template"]["spec"]["volumes"] = [_claim_volume()]
    ((level, message),) = _found(shared, _pvc("hf-cache", "ReadWriteOnce"))
    assert level == "advisory" and "3 pods mount it" in message
