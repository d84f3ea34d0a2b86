"""S57 ollama-model-store-lasts: an Ollama model store that starts empty with every pod and nothing in it pulls."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by, workload

POLICY = "ollama-model-store-lasts"


def _deployment(container: dict, volumes: list, init: list | None = None) -> dict:
    return workload("ollama", [container], volumes=volumes, init_containers=init)


# Minimal form of dylanvanh/homelab-infra k8s/ollama/deployment.yaml at 0f1f01c0d453c3e748e18eda00c2e496aec15132
# (set 41, label "none": models live in an emptyDir at /root/.ollama and nothing pulls them).
HOMELAB = _deployment(
    {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "ports": [{"containerPort": 11434}],
        "volumeMounts": [{"name": "ollama-data", "mountPath": "/root/.ollama"}],
    },
    [{"name": "ollama-data", "emptyDir": {}}],
)

# Minimal form of davidgamero/kaimahi k8s/ollama.yaml at a284923fe8599d502169e0a62f3bd826569157c1 (set 38, label
# "none": the model is pulled out of band by a Makefile into an emptyDir): OLLAMA_MODELS=/data/models, emptyDir /data.
KAIMAHI = _deployment(
    {
        "name": "ollama",
        "image": "ollama/ollama:0.11.8",
        "env": [{"name": "HOME", "value": "/data"}, {"name": "OLLAMA_MODELS", "value": "/data/models"}],
        "volumeMounts": [{"name": "models", "mountPath": "/data"}],
    },
    [{"name": "models", "emptyDir": {}}],
)

# Minimal form of Heydevopsproductbased/llmops-platform k8s/ollama-deployment.yaml at
# 6fa53b7e0ae0305dda8d55a653949516b119ef06 (set 29, label "none": no volume, nothing pulls the models the gateway calls).
LLMOPS = _deployment({"name": "ollama", "image": "ollama/ollama:latest", "ports": [{"containerPort": 11434}]}, [])


def test_an_emptydir_store_with_no_pull_is_advised():
    found = found_by([HOMELAB], POLICY)
    assert found == [
        (
            "advisory",
            "container ollama: Ollama keeps its models under OLLAMA_MODELS, here /root/.ollama/models on the emptyDir "
            "ollama-data, empty at every pod start, and nothing in the pod pulls a model (no `ollama pull`/`ollama "
            "run`, no call of /api/pull): after every restart, reschedule or rollout the server is Ready with no model "
            "and requests fail with model not found until someone pulls again; keep OLLAMA_MODELS on a "
            "PersistentVolumeClaim (or a hostPath), or pull the models in the pod (an init container running `ollama "
            "serve & ollama pull MODEL` on the same volume, or a postStart hook that waits for the server)",
        )
    ]


def test_ollama_models_is_read_from_the_env():
    found = found_by([KAIMAHI], POLICY)
    assert len(found) == 1
    assert "here /data/models on the emptyDir models, empty at every pod start" in found[0][1]


def test_the_publishers_image_layer_holds_no_model():
    found = found_by([LLMOPS], POLICY)
    assert len(found) == 1
    assert "here /root/.ollama/models in the container's own layer (the ollama/ollama image carries no model)" in (found[0][1])


# Careful form, Tsmbtw/chatbot-llm-k8s k8s/ollama-deployment.yaml at bd7f2a25f02b70b61a8986d9a14465fc33192f59 (set 41):
# the same server with /root/.ollama on the PersistentVolumeClaim ollama-pvc keeps what was pulled.
def test_a_claim_or_host_path_store_is_silent():
    for volume in ({"persistentVolumeClaim": {"claimName": "ollama-pvc"}}, {"hostPath": {"path": "/srv/ollama"}}):
        pod = copy.deepcopy(HOMELAB)
        pod["spec"]["template"]["spec"]["volumes"] = [{"name": "ollama-data", **volume}]
        assert found_by([pod], POLICY) == []


# Careful forms: the pod pulls its models itself (ahoffer/aiagent k8s/ollama.yaml at
# 42ed47fa1bc0299a84be79b4958d2350a27936d7, set 38: `timeout 600 ollama pull "$AGENT_MODEL"` in its init container;
# yuxiaojian/ollama-k8s ollama-gpu.yaml at 7915996, set 18: a postStart `ollama run $model ""`).
@pytest.mark.parametrize(
    "where",
    [
        {"command": ["/bin/sh", "-c", "ollama serve & sleep 5; ollama pull llama3.2:1b; wait"]},
        {"lifecycle": {"postStart": {"exec": {"command": ["/bin/sh", "-c", 'ollama run "$MODEL" ""']}}}},
        {"lifecycle": {"postStart": {"exec": {"command": ["curl", "-d", '{"model":"phi3"}', "localhost:11434/api/pull"]}}}},
    ],
)
def test_a_pull_in_the_server_container_is_silent(where):
    pod = copy.deepcopy(HOMELAB)
    pod["spec"]["template"]["spec"]["containers"][0].update(where)
    assert found_by([pod], POLICY) == []


def test_an_init_container_on_the_store_is_silent():
    init = {
        "name": "pull",
        "image": "ollama/ollama:0.6.5",
        "command": ["/bin/sh", "-c", 'ollama serve & sleep 5; timeout 600 ollama pull "$AGENT_MODEL"'],
        "env": [{"name": "AGENT_MODEL", "valueFrom": {"configMapKeyRef": {"name": "m", "key": "model"}}}],
        "volumeMounts": [{"name": "ollama-data", "mountPath": "/root/.ollama"}],
    }
    pod = copy.deepcopy(HOMELAB)
    pod["spec"]["template"]["spec"]["initContainers"] = [init]
    assert found_by([pod], POLICY) == []


def test_a_rebuild_keeping_its_store_in_the_layer_is_silent():
    pod = copy.deepcopy(LLMOPS)
    pod["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/acme/ollama-baked:1.2"
    pod["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 11434}]
    assert found_by([pod], POLICY) == []


def test_a_store_from_an_unseen_source_is_silent():
    pod = copy.deepcopy(HOMELAB)
    pod["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "OLLAMA_MODELS", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "models"}}}
    ]
    assert found_by([pod], POLICY) == []
