"""G1 image-tag-pinned: one compliant fixture, one mutation per case."""

import pytest
from policy_fixtures import found_by, isvc, isvc_props, messages, vllm_container

from components.images import image_tag, is_digest
from policies.k8s_generic.image_tag_pinned import POLICY

FIX = "pin a version tag (ideally a digest, image@sha256:...)"


def with_image(image):
    props = isvc_props()
    vllm_container(props)["image"] = image
    return isvc(props)


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


def test_digest_is_pinned():
    assert messages(POLICY, with_image("vllm/vllm-openai@sha256:" + "a" * 64)) == []


def test_untagged_image():
    assert messages(POLICY, with_image("vllm/vllm-openai")) == [
        f"container kserve-container: image vllm/vllm-openai has no tag, so it pulls :latest, which moves; {FIX}"
    ]


def test_registry_port_is_not_a_tag():
    assert messages(POLICY, with_image("registry.local:5000/vllm/vllm-openai")) == [
        "container kserve-container: image registry.local:5000/vllm/vllm-openai has no tag, so it pulls "
        f":latest, which moves; {FIX}"
    ]


def test_latest_tag():
    assert messages(POLICY, with_image("vllm/vllm-openai:latest")) == [
        f"container kserve-container: image vllm/vllm-openai:latest uses the mutable tag latest; {FIX}"
    ]


def test_init_containers_are_checked():
    props = isvc_props()
    props["spec"]["predictor"]["initContainers"] = [{"name": "fetch-model", "image": "amazon/aws-cli"}]
    assert messages(POLICY, isvc(props)) == [
        f"container fetch-model: image amazon/aws-cli has no tag, so it pulls :latest, which moves; {FIX}"
    ]


def test_config_adds_disallowed_tags():
    config = {"disallowedTags": ["latest", "nightly"]}
    assert messages(POLICY, with_image("vllm/vllm-openai:nightly"), config=config) == [
        f"container kserve-container: image vllm/vllm-openai:nightly uses the mutable tag nightly; {FIX}"
    ]


@pytest.mark.parametrize(
    "image, tag, digest",
    [
        ("vllm/vllm-openai:v0.33.0", "v0.33.0", False),
        ("vllm/vllm-openai", None, False),
        ("host:5000/repo", None, False),
        ("host:5000/repo:1.2", "1.2", False),
        ("repo@sha256:abc", None, True),
        ("repo:v1@sha256:abc", "v1", True),
        ("repo:", None, False),
    ],
)
def test_image_tag(image, tag, digest):
    assert (image_tag(image), is_digest(image)) == (tag, digest)


# A publisher's moving tag holds on its repository whatever the container runs: sankapoo/serving-runtimes
# llama-cpp-runtime.yaml at 731717f73a86109d652736840e6d60d9dc4bc880 (dev set 25, labelled G1) runs `python3 -m llama_cpp.server` in ghcr.io/ggml-org/llama.cpp:full,
# a tag llama.cpp rebuilds from master (the engine table's llama-cpp row, tags source: docs/docker.md).
def _runtime(image: str) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "llama-cpp-runtime"},
        "spec": {
            "supportedModelFormats": [{"name": "gguf", "version": "1", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": image,
                    "command": ["/bin/bash", "-c"],
                    "args": ["python3 -m llama_cpp.server --model /mnt/models/m.gguf --host 0.0.0.0 --port 8000"],
                }
            ],
        },
    }


def test_a_publishers_moving_tag_holds_whatever_runs_in_its_image():
    [(_, message)] = found_by([_runtime("ghcr.io/ggml-org/llama.cpp:full")], "image-tag-pinned")
    assert message.startswith(
        "container kserve-container: image ghcr.io/ggml-org/llama.cpp:full uses full, a tag llama.cpp server moves to each new build"
    )
    assert found_by([_runtime("ghcr.io/ggml-org/llama.cpp:full-b6000")], "image-tag-pinned") == []
    assert found_by([_runtime("ghcr.io/myorg/llama.cpp-tools:full")], "image-tag-pinned") == []
