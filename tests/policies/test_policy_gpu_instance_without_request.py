"""G13 advice: an operator resource no reader knows that puts its pods on a GPU instance type of its own field while
its pod template requests no GPU (policies/k8s_generic/gpu_request_equals_limit.py _gpu_nodes_without_request)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gpu-request-equals-limit"


def _workspace(args: list[str], image: str) -> dict:
    return {
        "apiVersion": "kaito.sh/v1alpha1",
        "kind": "Workspace",
        "metadata": {"name": "workspace-custom-llm"},
        "resource": {"instanceType": "Standard_NC12s_v3", "labelSelector": {"matchLabels": {"apps": "custom-llm"}}},
        "inference": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "custom-llm-container",
                            "image": image,
                            "command": ["accelerate"],
                            "args": args,
                            "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                        }
                    ],
                    "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
                }
            }
        },
    }


# Azure/kaito docs/custom-model-integration/custom-deployment-template.yaml and reference-image-deployment.yaml (spent
# set 31, both labelled G13): Kaito copies the custom template unchanged (pkg/workspace/manifests/manifests.go:382-440
# GenerateDeploymentManifestWithPodTemplate: affinity and tolerations only), so no GPU is requested.
CUSTOM = _workspace(
    ["launch", "--num_processes", "1", "--gpu_ids", "all", "tfs/inference_api.py", "--pipeline", "text-generation"],
    "modelsregistry.azurecr.io/custom-llm:0.0.1",
)
REFERENCE = _workspace(
    ["launch", "--num_processes", "1", "inference_api.py", "--pipeline", "text-generation", "--torch_dtype", "float16"],
    "ghcr.io/azure/kaito/llm-reference-preset:0.0.1",
)
# kaito-project/kaito examples/inference/kaito_workspace_phi_3.5-instruct.yaml@0e39c99caf319bdad7bdd6e5b169155d4510a3a7:
# a preset Workspace (no template: Kaito sizes the GPUs from its SKU table), the careful form.
PRESET = {
    "apiVersion": "kaito.sh/v1beta1",
    "kind": "Workspace",
    "metadata": {"name": "workspace-phi-3-5-mini"},
    "resource": {"instanceType": "Standard_NC24ads_A100_v4", "labelSelector": {"matchLabels": {"apps": "phi-3-5"}}},
    "inference": {"preset": {"name": "phi-3.5-mini-instruct"}},
}


def test_a_custom_template_on_gpu_nodes_without_a_gpu_request_is_advice():
    for workspace in (CUSTOM, REFERENCE):
        assert found_by([workspace], POLICY) == [
            (
                "advisory",
                "inference.template.spec: resource.instanceType puts these pods on Standard_NC12s_v3 GPU nodes, but no "
                "container of the template requests nvidia.com/gpu, so the device plugin allocates them no GPU (the "
                "container sees none, or every GPU of the node unaccounted, as its runtime decides); request the GPUs "
                "the server uses in resources.limits",
            )
        ]


def test_a_preset_or_a_template_that_requests_its_gpus_stays_silent():
    requested = copy.deepcopy(CUSTOM)
    requested["inference"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 2}}
    cpu = copy.deepcopy(CUSTOM)
    cpu["resource"]["instanceType"] = "Standard_D8s_v5"
    assert found_by([PRESET, requested, cpu], POLICY) == []
