"""S40 model-folder-mounted: a model volume is mounted where the server reads its models (the engine table's folder).

Fire: the form of LocalAI's own Kubernetes example (mudler/LocalAI@f19ee465d2c0ee66cc56b6918311a46020df8a6b, tag
v2.19.0, examples/kubernetes/deployment-nvidia.yaml: claim models-pvc at /build/models, args [phi-2]) with the image
moved to a v3 release, whose WORKDIR is / and whose models folder /models (v3.1.0 Dockerfile L360, L377; core/cli/
run.go L25 --models-path default ${basepath}/models); an Ollama StatefulSet whose claim template sits at /models with
no OLLAMA_MODELS (ollama/ollama v0.32.15 envconfig/config.go L111-124: $HOME/.ollama/models).
Silent: the example as published (master-cublas-cuda12, a tag frozen at the v2 images' WORKDIR /build when v3.1.0 renamed
the flavours); MODELS_PATH pointing at the mount; a workingDir that makes it the folder; a claim at /root/.ollama;
OLLAMA_MODELS from a Secret; a rebuilt image; a non-root user under a home folder; a config volume not named for models.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S40 = "model-folder-mounted"


def _localai(image="quay.io/go-skynet/local-ai:v3.5.0-gpu-nvidia-cuda-12", at="/build/models", env=None, **extra):
    container = {
        "name": "local-ai",
        "image": image,
        "args": ["phi-2"],
        "env": [{"name": "DEBUG", "value": "true"}] + (env or []),
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "volumeMounts": [{"name": "models-volume", "mountPath": at}],
        **extra,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "local-ai", "namespace": "local-ai"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "local-ai"}},
            "template": {
                "metadata": {"labels": {"app": "local-ai"}},
                "spec": {
                    "runtimeClassName": "nvidia",
                    "containers": [container],
                    "volumes": [{"name": "models-volume", "persistentVolumeClaim": {"claimName": "models-pvc"}}],
                },
            },
        },
    }


def _ollama(at="/models", env=None, user=None, image="ollama/ollama:0.6.2"):
    pod = {
        "containers": [
            {
                "name": "ollama",
                "image": image,
                "ports": [{"containerPort": 11434}],
                "env": env or [],
                "volumeMounts": [{"name": "models", "mountPath": at}],
            }
        ]
    }
    if user is not None:
        pod["securityContext"] = {"runAsUser": user}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "ollama"},
        "spec": {
            "serviceName": "ollama",
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": pod},
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "models"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}},
                }
            ],
        },
    }


def test_a_localai_v3_image_given_the_v2_folder_is_advice():
    ((level, message),) = found_by([_localai()], S40)
    assert level == "advisory"
    assert "mounts volume models-volume (claim models-pvc) at /build/models" in message
    assert "reads its models from /models" in message
    assert "no --models-path, LOCALAI_MODELS_PATH, MODELS_PATH" in message


def test_the_moving_tag_follows_the_newest_release_and_an_old_release_reads_build_models():
    assert len(found_by([_localai(image="localai/localai:latest")], S40)) == 1
    assert len(found_by([_localai(image="localai/localai:master-gpu-nvidia-cuda-12")], S40)) == 1
    # A v2 release given /models, its v3 folder: the v2 image reads /build/models.
    ((_, message),) = found_by([_localai(image="localai/localai:v2.19.4-cublas-cuda12", at="/models")], S40)
    assert "reads its models from /build/models" in message


def test_an_ollama_claim_template_beside_its_folder_is_advice():
    ((level, message),) = found_by([_ollama()], S40)
    assert level == "advisory"
    assert "(claim template models) at /models" in message and "/root/.ollama/models" in message
    assert "no OLLAMA_MODELS" in message


def test_careful_forms_stay_silent():
    # The example as published: a flavour tag that stopped moving at the v2 images (WORKDIR /build).
    assert found_by([_localai(image="quay.io/go-skynet/local-ai:master-cublas-cuda12")], S40) == []
    assert found_by([_localai(image="localai/localai:v3.0.0-cublas-cuda12")], S40) == []
    # Moved to the mount by a variable or a flag, or by the working directory.
    assert found_by([_localai(env=[{"name": "MODELS_PATH", "value": "/build/models"}])], S40) == []
    moved = _localai()
    moved["spec"]["template"]["spec"]["containers"][0]["args"] = ["--models-path", "/build/models", "phi-2"]
    assert found_by([moved], S40) == []
    assert found_by([_localai(workingDir="/build")], S40) == []
    # Mounted at the folder, above it, or an unknown tag or a rebuilt image.
    assert found_by([_localai(at="/models")], S40) == []
    assert found_by([_localai(image="localai/localai:my-build")], S40) == []
    assert found_by([_localai(image="registry.local/team/localai-custom:v3.5.0")], S40) == []
    assert found_by([_ollama(at="/root/.ollama")], S40) == []
    assert found_by([_ollama(at="/root")], S40) == []
    assert found_by([_ollama(env=[{"name": "OLLAMA_MODELS", "value": "/models"}])], S40) == []
    secret = [{"name": "OLLAMA_MODELS", "valueFrom": {"secretKeyRef": {"name": "cfg", "key": "models"}}}]
    assert found_by([_ollama(env=secret)], S40) == []
    # Another user's home: the folder is not /root's.
    assert found_by([_ollama(user=1000)], S40) == []
    # A volume not meant for models (its folder and names say nothing of models).
    config = copy.deepcopy(_ollama(at="/etc/ollama-config"))
    config["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] = "config"
    config["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["name"] = "config"
    assert found_by([config], S40) == []
    # A path under the mount the container names itself (a config file).
    named = _localai()
    named["spec"]["template"]["spec"]["containers"][0]["args"] = ["--config-file=/build/models/models.yaml"]
    assert found_by([named], S40) == []
