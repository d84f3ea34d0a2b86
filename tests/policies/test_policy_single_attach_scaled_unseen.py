"""S30 single-attach-volume-rolls: an autoscaler takes a Deployment above one replica over a claim the files do not
hold (advice, on the Deployment and on the autoscaler).

Firing form: ahmedwaleedmalik/k8s-llm-inference-platform@441dd0a3a57db32484e853db7281dc787b1189d8
serving/raw-vllm/deployment.yaml (Recreate, claim vllm-model-cache in no file of the set) and
serving/raw-vllm/scaledobject.yaml (maxReplicaCount 3), spent set 122, S30 advisory on the ScaledObject. Careful forms:
the claim named for a shared file system, mounted read-only, or an autoscaler that stops at one replica.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.gpu.single_attach_rollout import POLICY
from policies.registry import evaluate

RAW_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "raw-vllm", "namespace": "serving"},
    "spec": {
        "replicas": 0,
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {"app.kubernetes.io/name": "raw-vllm"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "raw-vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.23.0",
                        "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
                    }
                ],
                "volumes": [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "vllm-model-cache"}}],
            },
        },
    },
}
SCALER = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "raw-vllm", "namespace": "serving", "annotations": {"autoscaling.keda.sh/paused": "true"}},
    "spec": {
        "scaleTargetRef": {"name": "raw-vllm"},
        "minReplicaCount": 1,
        "maxReplicaCount": 3,
        "triggers": [{"type": "prometheus", "metadata": {"query": "sum(vllm:num_requests_waiting)", "threshold": "5"}}],
    },
}


def _found(*objs):
    return [(v.resource, v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_an_autoscaler_over_an_unseen_claim_is_advice_on_both():
    found = _found(RAW_VLLM, SCALER)
    assert [(r.split()[-1], level) for r, level, _ in found] == [
        ("Deployment/raw-vllm", "advisory"),
        ("ScaledObject/raw-vllm", "advisory"),
    ]
    assert found[0][2].startswith(
        "spec.template.spec.volumes model-cache: PersistentVolumeClaim vllm-model-cache is not in the files read; if it "
        "is ReadWriteOnce (block volumes such as EBS, GCE PD or Azure Disk support no other mode), ScaledObject raw-vllm "
        "adds replicas up to 3"
    )
    assert found[1][2].startswith(
        "spec: scales Deployment raw-vllm up to 3 replicas, whose pods all mount PersistentVolumeClaim vllm-model-cache, "
        "which is not in the files read"
    )


def test_careful_forms_stay_silent():
    shared = copy.deepcopy(RAW_VLLM)
    shared["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = "models-efs"
    assert _found(shared, SCALER) == []
    read_only = copy.deepcopy(RAW_VLLM)
    read_only["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["readOnly"] = True
    assert _found(read_only, SCALER) == []
    one = copy.deepcopy(SCALER)
    one["spec"]["maxReplicaCount"] = 1
    assert _found(RAW_VLLM, one) == []


def test_a_read_write_many_claim_the_files_hold_in_a_stated_namespace_is_not_unseen():
    """review56d: the Deployment and its autoscaler state no namespace (applied with `-n llm`), the claim's file states
    llm and ReadWriteMany: the claim is in the files, and nothing is said (it was 'not in the files read' on both)."""
    deployment, scaler = copy.deepcopy(RAW_VLLM), copy.deepcopy(SCALER)
    del deployment["metadata"]["namespace"], scaler["metadata"]["namespace"]
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "vllm-model-cache", "namespace": "llm"},
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "storageClassName": "standard-rwx",
            "resources": {"requests": {"storage": "50Gi"}},
        },
    }
    assert _found(deployment, scaler, claim) == []
    rolling = copy.deepcopy(deployment)
    rolling["spec"]["strategy"] = {"type": "RollingUpdate"}
    assert _found(rolling, claim) == []
