"""G46 container-can-start: a volume mounted over the folder the image's own ENTRYPOINT runs from.

components/image_contents.toml row localai (mudler/LocalAI Dockerfile v2.14.0-v3.0.0, read with
tools/read_image_contents.py at every release tag: WORKDIR /build, ENTRYPOINT /build/entrypoint.sh, which runs
`exec ./local-ai` from /build). Fire: the form of LocalAI's own example (mudler/LocalAI@f19ee465, v2.19.0,
examples/kubernetes/deployment-nvidia.yaml) with its models claim mounted at /build instead of /build/models, and a
ConfigMap mounted as a whole directory there. Silent: the example as published (/build/models), a subPath file, a
container with its own command, a release the table does not cover (v3.1.0: WORKDIR /) or a moving tag; advice on a mirror.
"""

from __future__ import annotations

from policy_fixtures import found_by

G46 = "container-can-start"


def _localai(image="quay.io/go-skynet/local-ai:v2.19.0-cublas-cuda12-ffmpeg", at="/build", volume=None, **extra):
    mount = {"name": "models-volume", "mountPath": at, **extra.pop("mount", {})}
    container = {
        "name": "local-ai",
        "image": image,
        "args": ["phi-2"],
        "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "16Gi"}},
        "volumeMounts": [mount],
        **extra,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "local-ai"},
        "spec": {
            "selector": {"matchLabels": {"app": "local-ai"}},
            "template": {
                "metadata": {"labels": {"app": "local-ai"}},
                "spec": {
                    "containers": [container],
                    "volumes": [{"name": "models-volume", **(volume or {"persistentVolumeClaim": {"claimName": "models-pvc"}})}],
                },
            },
        },
    }


def _hidden(objs):
    return [(level, m) for level, m in found_by(objs, G46) if "hides" in m]


def test_a_claim_over_the_program_folder_of_a_released_image_blocks():
    ((level, message),) = _hidden([_localai()])
    assert level == "mandatory"
    assert "persistentVolumeClaim models-volume mounted at /build hides /build/entrypoint.sh, /build/local-ai" in message


def test_a_config_map_as_a_whole_directory_blocks_too():
    config = {"configMap": {"name": "localai-config"}}
    ((level, message),) = _hidden([_localai(volume=config, at="/build/")])
    assert level == "mandatory" and "the configMap models-volume mounted at /build hides" in message


def test_a_mirror_of_a_covered_release_is_advice():
    ((level, message),) = _hidden([_localai(image="registry.example.com/localai/localai:v2.19.0-cublas-cuda12")])
    assert level == "advisory" and "is a mirror or rebuild path" in message


def test_careful_forms_stay_silent():
    assert _hidden([_localai(at="/build/models")]) == []
    assert _hidden([_localai(at="/build/config.yaml", mount={"subPath": "config.yaml"})]) == []
    assert _hidden([_localai(command=["/usr/bin/local-ai"])]) == []
    assert _hidden([_localai(image="localai/localai:v3.1.0-gpu-nvidia-cuda-12")]) == []
    # A tag naming no release: a moving tag may follow a release that runs from / (LocalAI's latest).
    assert _hidden([_localai(image="localai/localai:latest")]) == []
    assert _hidden([_localai(image="quay.io/go-skynet/local-ai:master-cublas-cuda12")]) == []
    assert _hidden([_localai(image="ollama/ollama:0.6.2")]) == []
