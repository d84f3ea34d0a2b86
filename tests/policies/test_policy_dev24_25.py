"""Dev sets 24 and 25 (issue 32): forms the pack judged wrongly, as classes, with their third-party fixtures."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

# MohammadB88/rag-anythingllm models/nvidia_nim/llama3-8b_all_resources.yaml@aea543d3cab91cbfdc326af21a266a307788c14a
# (dev set 24, trimmed to what the rules read): one NIM replica, one GPU, the default RollingUpdate, a ReadWriteOnce
# cache claim of the same file. The labeller found no problem in it: the replacement stalls only on another node.
NIM_CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "llama3-1-8b-nim-cache"},
    "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem", "resources": {"requests": {"storage": "50Gi"}}},
}
NIM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama3-1-8b-instruct", "labels": {"app": "llama3-1-8b-instruct"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llama3-1-8b-instruct"}},
        "template": {
            "metadata": {"labels": {"app": "llama3-1-8b-instruct"}},
            "spec": {
                "containers": [
                    {
                        "name": "llama3-1-8b-instruct",
                        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.12.0",
                        "ports": [{"containerPort": 8000}],
                        "env": [
                            {
                                "name": "NGC_API_KEY",
                                "valueFrom": {"secretKeyRef": {"name": "ngc-api-key", "key": "NGC_API_KEY"}},
                            }
                        ],
                        "volumeMounts": [{"name": "llama3-1-8b-nim-cache", "mountPath": "/opt/nim/.cache"}],
                        "resources": {
                            "limits": {"cpu": "8", "memory": "24Gi", "nvidia.com/gpu": "1"},
                            "requests": {"cpu": "6"},
                        },
                    }
                ],
                "volumes": [{"name": "llama3-1-8b-nim-cache", "persistentVolumeClaim": {"claimName": "llama3-1-8b-nim-cache"}}],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "imagePullSecrets": [{"name": "nim-pull-secret"}],
            },
        },
    },
}


def test_one_gpu_replica_rolling_a_read_write_once_cache_is_advice():
    assert [level for level, _ in found_by([NIM_CLAIM, NIM], "single-attach-volume-rolls")] == ["advisory"]
    recreate = copy.deepcopy(NIM)
    recreate["spec"]["strategy"] = {"type": "Recreate"}
    assert found_by([NIM_CLAIM, recreate], "single-attach-volume-rolls") == []
    # Two replicas on the one claim: the second pod on another node never attaches it, whatever the strategy.
    two = copy.deepcopy(recreate)
    two["spec"]["replicas"] = 2
    assert [level for level, _ in found_by([NIM_CLAIM, two], "single-attach-volume-rolls")] == ["mandatory"]
