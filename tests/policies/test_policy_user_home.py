"""S19 reads an engine's HOME-derived folder from the HOME of the user the pod runs as (components/engine_env.toml
[homes]; policies/reading/user_home.py).

Firing form: haroonsyed/homelab apps/ollama/deployment.yaml at f6a067eb26a5a8ee5cee3b01a3882e9bb31a062c (spent set 43,
labelled S57/S19 advisory): ollama/ollama:latest with runAsUser 1000 and the PVC mounted at /root/.ollama. The image is
FROM ubuntu:24.04 since v0.9.6, whose uid 1000 is ubuntu with HOME /home/ubuntu, and Ollama keeps its models in
$HOME/.ollama/models (envconfig/config.go L111-124 at v0.32.15): the pulls land in the container's layer.

Careful forms that stay silent: the same pod with OLLAMA_MODELS on the claim, with the claim mounted at
/home/ubuntu/.ollama, or running as root.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.engine_env import EngineEnvError, engine_env_of, home_of
from components.serving_engines import engine_named

S19 = "gpu-pod-ephemeral-storage"

OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ollama"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "securityContext": {"runAsNonRoot": True, "runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000},
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:latest",
                        "ports": [{"containerPort": 11434}],
                        "volumeMounts": [{"name": "models", "mountPath": "/root/.ollama"}],
                        "resources": {"requests": {"memory": "1Gi", "cpu": "500m"}, "limits": {"memory": "4Gi", "cpu": "2"}},
                    }
                ],
                "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "ollama-models"}}],
            },
        },
    },
}


def _pod(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def test_a_user_whose_home_moves_the_model_store_is_advice():
    [(level, message)] = found_by([OLLAMA], S19)
    assert level == "advisory"
    assert "into /home/ubuntu/.ollama/models on the node's ephemeral storage" in message
    assert message.endswith(
        "(runAsUser 1000 has HOME /home/ubuntu in ollama/ollama:latest, so Ollama keeps its files in "
        "/home/ubuntu/.ollama/models, not under /root; the volume mounted at /root/.ollama is never written)"
    )


def test_careful_forms_stay_silent():
    on_claim = copy.deepcopy(OLLAMA)
    _pod(on_claim)["containers"][0]["env"] = [{"name": "OLLAMA_MODELS", "value": "/root/.ollama/models"}]
    assert found_by([on_claim], S19) == []
    at_home = copy.deepcopy(OLLAMA)
    _pod(at_home)["containers"][0]["volumeMounts"][0]["mountPath"] = "/home/ubuntu/.ollama"
    assert found_by([at_home], S19) == []
    as_root = copy.deepcopy(OLLAMA)
    del _pod(as_root)["securityContext"]
    assert found_by([as_root], S19) == []


def test_the_home_holds_from_the_release_the_table_names():
    ollama = engine_named("ollama")
    assert home_of(ollama, "ollama/ollama:latest", 1000) == "/home/ubuntu"
    assert home_of(ollama, "ollama/ollama:0.12.3", 1000) == "/home/ubuntu"
    # v0.9.0 and older are FROM ubuntu:20.04, which has no uid 1000: the table does not say.
    assert home_of(ollama, "ollama/ollama:0.5.4", 1000) is None
    assert home_of(ollama, "ollama/ollama:latest", 1001) is None
    assert home_of(ollama, "example.com/ollama-fork:latest", 1000) is None
    old = copy.deepcopy(OLLAMA)
    _pod(old)["containers"][0]["image"] = "ollama/ollama:0.5.4"
    assert found_by([old], S19) == []


@pytest.mark.parametrize(
    "row, field",
    [
        ({"images": [], "since": "0.9.6", "users": {"1000": "/home/u"}, "source": "x"}, "images"),
        ({"images": ["a"], "since": "new", "users": {"1000": "/home/u"}, "source": "x"}, "since"),
        ({"images": ["a"], "since": "0.9.6", "users": {"ubuntu": "/home/u"}, "source": "x"}, "users"),
        ({"images": ["a"], "since": "0.9.6", "users": {"1000": "home"}, "source": "x"}, "users"),
        ({"images": ["a"], "since": "0.9.6", "users": {"1000": "/home/u"}}, "source"),
    ],
)
def test_a_bad_homes_row_names_its_field(row, field):
    with pytest.raises(EngineEnvError, match=rf"\[homes\.ollama\]\.{field}"):
        engine_env_of({"homes": {"ollama": row}})
