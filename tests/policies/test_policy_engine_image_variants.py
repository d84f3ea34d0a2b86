"""S46 engine-image-from-publisher reads an image named after an engine plus a variant (``vllm-gptoss``,
``vllm-rocm``) as that engine's image: another Docker Hub account's build of it is advice; the publisher's own variants
and an image built on the node (imagePullPolicy Never) are not."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "engine-image-from-publisher"


def _deployment(image: str, pull: str | None = None) -> dict:
    container = {
        "name": "vllm",
        "image": image,
        "args": ["--model", "openai/gpt-oss-20b"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    if pull:
        container["imagePullPolicy"] = pull
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-gptoss"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [container]}},
        },
    }


def test_a_personal_build_named_after_vllm_is_advice():
    # VIDA-NYU/data-gatherer k8s/vllm-deployment.yaml@529759e37a074071625219c82d981cf09e5f2f57 (spent set 26, labelled
    # S46): pietromarini/vllm-gptoss, one person's vLLM build for gpt-oss.
    assert found_by([_deployment("pietromarini/vllm-gptoss:20260812")], POLICY) == [
        (
            "advisory",
            "container vllm: image pietromarini/vllm-gptoss:20260812 is vllm-gptoss as the Docker Hub account pietromarini "
            "publishes it, not the engine's release (vllm/vllm-openai): what it holds and whether it changes or "
            "disappears is that account's; use the engine's image, or build your own into a registry you control",
        )
    ]
    # A platform's own ROCm build pushed under its account (kalavai's vllm-rocm build script pushes
    # kalavai/vllm-rocm:v<version>): the same advice.
    [(level, _)] = found_by([_deployment("kalavai/vllm-rocm:v0.8.5")], POLICY)
    assert level == "advisory"


def test_the_publishers_own_variants_and_a_node_built_image_stay_silent():
    # vllm-project/vllm docs (ROCm installation): vllm/vllm-openai-rocm is vLLM's own image; OPEA's GenAIExamples build
    # opea/vllm-rocm (opea publishes a vllm build); kimun608/k8s-llm-serving model_serving/k8s/base/deployment.yaml@3eebddd
    # (spent set 18): local/vllm-cpu built on the node, imagePullPolicy Never.
    silent = [
        _deployment("vllm/vllm-openai-rocm:v0.20.2"),
        _deployment("opea/vllm-rocm:1.3"),
        _deployment("local/vllm-cpu:qwen3.5-0.8b-vllm0.26.0", pull="Never"),
    ]
    assert found_by(silent, POLICY) == []


def test_a_variant_word_naming_another_program_is_not_the_engine():
    # Review 41 item 16: a benchmark client or a proxy named after the engine is not a build of it.
    for image in ("acme/vllm-benchmark:0.3", "acme/ollama-proxy:1.2", "acme/vllm-router:1.0.0"):
        assert found_by([_deployment(image)], POLICY) == [], image
    # A platform or model variant still is: the advice above stands.
    assert [level for level, _ in found_by([_deployment("acme/vllm-cuda12:0.8.5")], POLICY)] == ["advisory"]
