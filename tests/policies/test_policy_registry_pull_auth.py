"""S52 registry-pull-auth: registry.redhat.io images outside OpenShift need pull credentials (advice). Minimal
hand-written shapes of the cited files."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "registry-pull-auth"

# Set 35: bhajian/redhat llm-d-vllm-aks/manifest/vllm-redhat-llama8b.yaml at c23f3c48189c3b4974408de72ae462a34edea1ee:
# Red Hat AI Inference Server on AKS, imagePullSecrets commented out, no serviceAccountName.
BHAJIAN = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-llama8b", "namespace": "llm-d"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm-llama8b"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-llama8b"}},
            "spec": {
                "initContainers": [{"name": "fix-perms", "image": "registry.access.redhat.com/ubi9/ubi-minimal:latest"}],
                "containers": [
                    {
                        "name": "vllm",
                        "image": "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.1",
                        "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
            },
        },
    },
}


def test_a_red_hat_registry_image_without_credentials_is_advice():
    ((level, message),) = found_by([BHAJIAN], POLICY)
    assert level == "advisory"
    assert "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.1 comes from Red Hat's registry.redhat.io" in message


def test_careful_forms_stay_silent():
    # The pull secret the file comments out, referenced.
    with_secret = copy.deepcopy(BHAJIAN)
    with_secret["spec"]["template"]["spec"]["imagePullSecrets"] = [{"name": "redhat-pull-secret"}]
    assert found_by([with_secret], POLICY) == []
    # A resource meant for OpenShift (OpenShift AI's annotations): the cluster's global pull secret logs nodes in.
    openshift = copy.deepcopy(BHAJIAN)
    openshift["metadata"]["annotations"] = {"openshift.io/display-name": "vllm-llama8b"}
    assert found_by([openshift], POLICY) == []
    # registry.access.redhat.com (the UBI init container) allows anonymous pulls.
    ubi = copy.deepcopy(BHAJIAN)
    ubi["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.access.redhat.com/ubi9/python-311:latest"
    assert found_by([ubi], POLICY) == []
