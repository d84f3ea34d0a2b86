"""G28 run-as-non-root-image-user: runAsNonRoot the image's user cannot satisfy (kubelet verifyRunAsNonRoot)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from policies.k8s_generic.run_as_non_root_image import image_users

# Minimal form of adminless-io/aks-llm-platform gitops/apps/llm/base/deployment.yaml at
# 6b5fdadb83b761da5a65760f608df8e13dfdbedf (spent set 9): pod securityContext runAsNonRoot: true with seccompProfile RuntimeDefault and no runAsUser, container
# vllm/vllm-openai:v0.6.3 (no USER in vLLM's docker/Dockerfile: root).
AKS = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llm-serving", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "llm"}},
        "template": {
            "metadata": {"labels": {"app": "llm"}},
            "spec": {
                "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.6.3"}],
            },
        },
    },
}

POLICY = "run-as-non-root-image-user"


def test_table_rows_are_the_root_images_read():
    root = {repository: uid for repository, uid in image_users().items() if uid == 0}
    assert root == {"vllm/vllm-openai": 0, "ollama/ollama": 0, "ghcr.io/huggingface/text-generation-inference": 0}
    # The non-root rows (brief none50: G84's well-known apps) never make G28 fire.
    assert image_users()["grafana/grafana"] == 472 and image_users()["prom/prometheus"] == 65534


def test_root_image_with_run_as_non_root_is_reported_as_advice():
    found = found_by([AKS], POLICY)
    assert len(found) == 1
    level, message = found[0]
    # Advice: OpenShift's restricted SCC assigns a UID at admission to the same spec (rh-aiservices-bu/llm-on-openshift
    # llm-servers/hf_tgi/deployment.yaml in corpus manifests-v2 is written so and runs there).
    assert level == "advisory"
    assert message.startswith("container vllm: runAsNonRoot: true without runAsUser, but the vllm/vllm-openai image runs as root")


def test_docker_io_prefix_matches_and_run_as_user_zero_blocks():
    obj = copy.deepcopy(AKS)
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = "docker.io/vllm/vllm-openai:v0.6.3"
    assert len(found_by([obj], POLICY)) == 1
    obj["spec"]["template"]["spec"]["containers"][0]["securityContext"] = {"runAsUser": 0}
    assert found_by([obj], POLICY) == [
        (
            "mandatory",
            "container vllm: runAsNonRoot: true with runAsUser: 0; the kubelet refuses to start the container "
            "(CreateContainerConfigError), so the model never serves; set a non-zero runAsUser",
        )
    ]


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s["securityContext"].update(runAsUser=1000),  # a non-root UID the kubelet can check
        lambda s: s["containers"][0].update(securityContext={"runAsUser": 2000}),  # the container's wins
        lambda s: s["containers"][0].update(securityContext={"runAsNonRoot": False}),  # the container's wins
        lambda s: s["containers"][0].update(image="myacr.azurecr.io/vllm/vllm-openai:v0.6.3"),  # a mirror: own USER?
        lambda s: s["containers"][0].update(image="lmsysorg/sglang:v0.4.6"),  # not tabled
        lambda s: s["securityContext"].pop("runAsNonRoot"),
    ],
)
def test_careful_forms_stay_silent(change):
    obj = copy.deepcopy(AKS)
    change(obj["spec"]["template"]["spec"])
    assert found_by([obj], POLICY) == []


def test_silent_when_the_files_are_for_openshift():
    route = {
        "apiVersion": "route.openshift.io/v1",
        "kind": "Route",
        "metadata": {"name": "llm"},
        "spec": {"to": {"kind": "Service", "name": "llm"}},
    }
    assert found_by([AKS, route], POLICY) == []
