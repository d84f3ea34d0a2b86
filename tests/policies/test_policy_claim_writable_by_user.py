"""G84 claim-writable-by-user: a non-root model server writing to a claim has fsGroup or an init that owns it (advice).

Firing forms (brief none48: labellers of spent sets found no row for them): an Ollama server with runAsUser 1000 and
OLLAMA_MODELS on a PersistentVolumeClaim, no fsGroup; a vLLM server with runAsUser 1000 and HF_HOME on a StatefulSet's
volumeClaimTemplate. Kubernetes changes a volume's owner only for fsGroup
(https://kubernetes.io/docs/tasks/configure-pod-container/security-context/#set-the-security-context-for-a-pod).
Careful forms: fsGroup set; root; no runAsUser; an emptyDir; an init container that chowns the folder; a readOnly
mount; the image's default folder (not set explicitly).
"""

import copy

from policy_fixtures import found_by

POLICY = "claim-writable-by-user"


def _ollama(volume=None, pod_context=None, user=1000):
    container = {
        "name": "ollama",
        "image": "ollama/ollama:0.6.8",
        "env": [{"name": "OLLAMA_MODELS", "value": "/data/models"}],
        "volumeMounts": [{"name": "models", "mountPath": "/data"}],
    }
    if user is not None:
        container["securityContext"] = {"runAsUser": user, "runAsNonRoot": user != 0}
    pod = {
        "containers": [container],
        "volumes": [volume or {"name": "models", "persistentVolumeClaim": {"claimName": "ollama-models"}}],
    }
    if pod_context is not None:
        pod["securityContext"] = pod_context
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "ai"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": pod},
        },
    }


def _vllm_statefulset():
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "vllm", "namespace": "ai"},
        "spec": {
            "serviceName": "vllm",
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "securityContext": {"runAsUser": 1000, "runAsGroup": 1000},
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:v0.10.1",
                            "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"],
                            "env": [{"name": "HF_HOME", "value": "/cache/hf"}],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                            "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
                        }
                    ],
                },
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "cache"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}},
                }
            ],
        },
    }


def test_a_non_root_server_writing_to_a_claim_with_no_fs_group():
    ((level, message),) = found_by([_ollama()], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: runs as user 1000 and writes its models under /data/models, on the PersistentVolumeClaim "
        "ollama-models (volume models), but the pod sets no securityContext.fsGroup"
    )
    ((_, message),) = found_by([_vllm_statefulset()], POLICY)
    assert "under /cache/hf/hub, on the volumeClaimTemplate cache" in message


def test_careful_forms_are_silent():
    assert found_by([_ollama(pod_context={"fsGroup": 1000})], POLICY) == []
    assert found_by([_ollama(user=0)], POLICY) == []
    assert found_by([_ollama(user=None)], POLICY) == []
    assert found_by([_ollama(volume={"name": "models", "emptyDir": {}})], POLICY) == []
    chown = _ollama()
    chown["spec"]["template"]["spec"]["initContainers"] = [
        {
            "name": "own",
            "image": "busybox:1.36",
            "command": ["sh", "-c", "chown -R 1000:1000 /data"],
            "volumeMounts": [{"name": "models", "mountPath": "/data"}],
        }
    ]
    assert found_by([chown], POLICY) == []
    read_only = _ollama()
    read_only["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["readOnly"] = True
    assert found_by([read_only], POLICY) == []
    default = _ollama()
    default["spec"]["template"]["spec"]["containers"][0]["env"] = []
    default["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] = "/root/.ollama"
    assert found_by([default], POLICY) == []
    vllm = _vllm_statefulset()
    vllm["spec"]["template"]["spec"]["securityContext"]["fsGroup"] = 1000
    assert found_by([copy.deepcopy(vllm)], POLICY) == []
