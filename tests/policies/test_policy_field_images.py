"""Image references an operator CR holds outside any pod template (policies/reading/field_images.py): G1 and G46
judge them as they judge a container's image, as advice; an image that is one part of an assembled reference is not
read, and an operator's component settings with such parts are no container either."""

from __future__ import annotations

import yaml

from policies.check import resources_of
from policies.kube import pod_specs
from policies.manifests import read_manifests
from policies.reading.field_images import field_images
from policies.registry import evaluate

# substratusai/substratus examples/llama2-13b-chat-gguf/server-gpu.yaml and examples/llama2-70b/base-model.yaml at
# 7352fb05897b42d2cf31022e528f93f60fdc931b (spent set 30, both labelled G1): ServerSpec.Image / ModelSpec.Image
# (api/v1/server_types.go, model_types.go) is the image the operator runs.
SERVER = {
    "apiVersion": "substratus.ai/v1",
    "kind": "Server",
    "metadata": {"name": "llama2-13b-chat-gguf"},
    "spec": {
        "image": "substratusai/model-server-llama-cpp:latest-gpu",
        "model": {"name": "llama2-13b-chat-gguf"},
        "params": {"n_gpu_layers": 30},
        "resources": {"gpu": {"count": 1}},
    },
}
MODEL = {
    "apiVersion": "substratus.ai/v1",
    "kind": "Model",
    "metadata": {"name": "llama-2-70b"},
    "spec": {"image": "substratusai/model-loader-huggingface", "params": {"name": "meta-llama/Llama-2-70b-hf"}},
}
# Azure/kaito examples/inference/kaito_workspace_llama2_70b-chat.yaml (spent set 31, labelled G46): a private preset
# whose image (taken verbatim, pkg/workspace/inference/preset-inferences.go:114-119) is the literal <YOUR IMAGE URL>.
KAITO = {
    "apiVersion": "kaito.sh/v1alpha1",
    "kind": "Workspace",
    "metadata": {"name": "workspace-llama-2-70b-chat"},
    "resource": {"instanceType": "Standard_NC96ads_A100_v4", "count": 2},
    "inference": {
        "preset": {"name": "llama-2-70b-chat", "accessMode": "private", "presetOptions": {"image": "<YOUR IMAGE URL>"}}
    },
}
# JustHumanz/Kube-dojo Virt/Setup.md@524a26db4619103d41b467a4345a903e2a2488d7 (its vm.yaml): a KubeVirt VirtualMachine
# whose containerDisk image (pulled by the virt-launcher pod) has no tag.
VM = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "testvm"},
    "spec": {
        "running": False,
        "template": {
            "spec": {
                "domain": {"resources": {"requests": {"memory": "64M"}}},
                "volumes": [
                    {"name": "containerdisk", "containerDisk": {"image": "quay.io/kubevirt/cirros-container-disk-demo"}},
                    {"name": "cloudinitdisk", "cloudInitNoCloud": {"userDataBase64": "SGkuXG4="}},
                ],
            }
        },
    },
}
# The careful forms. ContainerCraft/containerdisks images/ubuntu-18.04/testvm.yaml.sh@a7185c69289f5d4f8056123497221ba7d875d773:
# the containerDisk pinned to a version tag. NVIDIA/gpu-operator config/samples/v1_clusterpolicy.yaml@01125b9d29000b3eb73c904b140cce746821146a:
# each component's image is one part of repository/image:version, and devicePlugin carries args and env beside it.
PINNED_VM_IMAGE = "docker.io/containercraft/ubuntu:18.04-dev"
CLUSTER_POLICY = {
    "apiVersion": "nvidia.com/v1",
    "kind": "ClusterPolicy",
    "metadata": {"name": "gpu-cluster-policy"},
    "spec": {
        "operator": {"initContainer": {"image": "cuda", "repository": "nvcr.io/nvidia", "version": "11.2.1-base-ubi8"}},
        "driver": {"enabled": True, "repository": "nvcr.io/nvidia", "image": "driver", "version": "460.73.01"},
        "devicePlugin": {
            "repository": "nvcr.io/nvidia",
            "image": "k8s-device-plugin",
            "version": "v0.9.0-ubi8",
            "args": [],
            "env": [{"name": "PASS_DEVICE_SPECS", "value": "true"}],
        },
        "dcgmExporter": {
            "repository": "nvcr.io/nvidia/k8s",
            "image": "dcgm-exporter",
            "version": "2.1.8-2.4.0-rc.2-ubi8",
            "args": ["-f", "/etc/dcgm-exporter/dcp-metrics-included.csv"],
        },
    },
}


def _read(tmp_path, *docs: dict):
    path = tmp_path / "cr.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return resources_of(read_manifests([str(path)]))


def _findings(tmp_path, *docs: dict) -> list[tuple[str, str, str]]:
    return [(v.catalog, v.enforcement, v.message) for v in evaluate(_read(tmp_path, *docs))]


def test_substratus_image_fields_are_held_to_g1(tmp_path):
    g1 = sorted((e, m) for c, e, m in _findings(tmp_path, SERVER, MODEL) if c == "G1")
    assert g1 == [
        (
            "advisory",
            "spec.image: image substratusai/model-loader-huggingface has no tag, so it pulls :latest, which moves; pin a "
            "version tag (ideally a digest, image@sha256:...)",
        ),
        (
            "advisory",
            "spec.image: image substratusai/model-server-llama-cpp:latest-gpu uses the mutable tag latest-gpu; pin a "
            "version tag (ideally a digest, image@sha256:...)",
        ),
    ]


def test_a_placeholder_preset_image_is_g46_advice_judged_as_written(tmp_path):
    [workspace] = _read(tmp_path, KAITO)
    assert field_images(workspace) == [("inference.preset.presetOptions.image", "<YOUR IMAGE URL>")]
    g46 = [(e, m) for c, e, m in _findings(tmp_path, KAITO) if c == "G46"]
    assert len(g46) == 1 and g46[0][0] == "advisory"
    assert g46[0][1].startswith("inference.preset.presetOptions.image: image '<YOUR IMAGE URL>' is not a valid image reference")


def test_a_kubevirt_container_disk_image_is_read_and_a_pinned_one_stays_silent(tmp_path):
    assert [m for c, _, m in _findings(tmp_path, VM) if c == "G1"] == [
        "spec.template.spec.volumes[0].containerDisk.image: image quay.io/kubevirt/cirros-container-disk-demo has no tag, "
        "so it pulls :latest, which moves; pin a version tag (ideally a digest, image@sha256:...)"
    ]
    pinned = yaml.safe_load(yaml.safe_dump(VM))
    pinned["spec"]["template"]["spec"]["volumes"][0]["containerDisk"]["image"] = PINNED_VM_IMAGE
    assert [c for c, _, _ in _findings(tmp_path, pinned) if c in ("G1", "G46")] == []


def test_image_parts_are_neither_references_nor_containers(tmp_path):
    [policy] = _read(tmp_path, CLUSTER_POLICY)
    assert field_images(policy) == [] and pod_specs(policy) == []
    assert _findings(tmp_path, CLUSTER_POLICY) == []


def test_a_known_kind_is_left_to_its_reader(tmp_path):
    # A Deployment's images are its containers'; nothing is read twice.
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "vllm/vllm-openai:v0.9.2"}]}}},
    }
    [res] = _read(tmp_path, deployment)
    assert field_images(res) == []
