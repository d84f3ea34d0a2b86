"""G6 readiness-waits-for-model: an Ollama store on a claim the run creates empty, filled by nothing, with readiness on
"/" (which answers as soon as the server listens) is Ready with no model (policies/reading/fresh_store.py).

Firing form: igfurlan/k3s-llmd-lab manifests/40-ollama.yaml at 443808bcd14fabd1647445ed3254e974e2840c1a (spent set 42,
labelled G6 advisory): PVC ollama-models (5Gi, no dataSource), ollama/ollama:0.34.3 with the claim at /root/.ollama,
readinessProbe httpGet / on 11434, nothing pulls qwen2.5:0.5b. Careful forms that stay silent: the claim restored from
a snapshot (dataSource), bound to a PersistentVolume (volumeName), not among the files, a postStart hook that pulls,
a loader Job of the run on the same claim (spent set 43 kcirtapfromspace/gemma4's model-loader Job, trap S57 there).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G6 = "readiness-waits-for-model"

CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "ollama-models", "namespace": "llm-d"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}},
}
OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "llm-d", "labels": {"app": "ollama"}},
    "spec": {
        "replicas": 1,
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:0.34.3",
                        "ports": [{"name": "http", "containerPort": 11434}],
                        "env": [
                            {"name": "OLLAMA_HOST", "value": "0.0.0.0:11434"},
                            {"name": "OLLAMA_KEEP_ALIVE", "value": "5m"},
                        ],
                        "volumeMounts": [{"name": "models", "mountPath": "/root/.ollama"}],
                        "readinessProbe": {"httpGet": {"path": "/", "port": 11434}, "initialDelaySeconds": 5},
                    }
                ],
                "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "ollama-models"}}],
            },
        },
    },
}
LOADER = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "model-loader", "namespace": "llm-d"},
    "spec": {
        "template": {
            "spec": {
                "restartPolicy": "OnFailure",
                "containers": [
                    {
                        "name": "pull",
                        "image": "ollama/ollama:0.34.3",
                        "command": ["/bin/sh", "-c", "ollama serve & sleep 5; ollama pull qwen2.5:0.5b"],
                    }
                ],
                "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "ollama-models"}}],
            }
        }
    },
}


def test_a_fresh_claim_nothing_fills_with_readiness_on_root_is_advice():
    [(level, message)] = found_by([CLAIM, OLLAMA], G6)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: Ollama keeps its models in /root/.ollama/models on claim ollama-models, which these files "
        "create empty (no dataSource), and nothing in the pod or its run pulls one, while the readinessProbe asks /"
    )


def test_careful_forms_stay_silent():
    restored = copy.deepcopy(CLAIM)
    restored["spec"]["dataSource"] = {"name": "models-snap", "kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io"}
    assert found_by([restored, OLLAMA], G6) == []
    bound = copy.deepcopy(CLAIM)
    bound["spec"]["volumeName"] = "ollama-models-pv"
    assert found_by([bound, OLLAMA], G6) == []
    assert found_by([OLLAMA], G6) == []
    hooked = copy.deepcopy(OLLAMA)
    hooked["spec"]["template"]["spec"]["containers"][0]["lifecycle"] = {
        "postStart": {"exec": {"command": ["/bin/sh", "-c", "sleep 5; ollama pull qwen2.5:0.5b"]}}
    }
    assert found_by([CLAIM, hooked], G6) == []
    assert found_by([CLAIM, OLLAMA, LOADER], G6) == []


def test_a_job_of_the_run_that_pulls_through_the_api_is_silent():
    """egdcrypto/microk8s-gpu-stack applications/ollama (spent set 16): a preload Job with curl calls the server's
    /api/pull through its Service; it fills the store once the server is up."""
    preload = copy.deepcopy(LOADER)
    container = preload["spec"]["template"]["spec"]["containers"][0]
    container.update(
        image="curlimages/curl:latest",
        command=["sh", "-c", 'curl -X POST http://ollama:11434/api/pull -d \'{"name": "llama3"}\''],
    )
    del preload["spec"]["template"]["spec"]["volumes"]
    assert found_by([CLAIM, OLLAMA, preload], G6) == []
