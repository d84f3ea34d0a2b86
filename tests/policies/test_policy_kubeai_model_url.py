"""G72 kubeai-model-url-ref: a KubeAI Model's url names its model as KubeAI reads it.

Fires: spent set 25 (label filed NONE) maxlim0/kubeai cdr-model-qwen2-5-3b-instruct.yaml@3d8c288a, url
"hf:///Qwen/Qwen2.5-3B-Instruct" on the VLLM engine: KubeAI takes everything after hf:// as the reference
(substratusai/kubeai v0.21.0 internal/modelcontroller/model_source.go:229-265) and passes it as --model=
(engine_vllm.go:20-35), so vLLM is given the absolute path /Qwen/Qwen2.5-3B-Instruct. The Ollama form
(ollama:///qwen2.5:0.5b) is the second form of the class.
Careful forms stay silent: KubeAI's own catalogue urls (hf://Qwen/..., ollama://qwen2.5:0.5b), pvc:// and s3://
urls, and a Model with a cacheProfile.
"""

from __future__ import annotations

from policy_fixtures import found_by

G72 = "kubeai-model-url-ref"


def _model(url: str, engine: str = "VLLM", **spec: object) -> dict:
    return {
        "apiVersion": "kubeai.org/v1",
        "kind": "Model",
        "metadata": {"name": "qwen2-5-3b-instruct"},
        "spec": {"features": ["TextGeneration"], "url": url, "engine": engine, "resourceProfile": "nvidia-gpu-l4:1", **spec},
    }


def test_third_slash_on_a_hub_url() -> None:
    assert found_by([_model("hf:///Qwen/Qwen2.5-3B-Instruct")], G72) == [
        (
            "advisory",
            "spec.url hf:///Qwen/Qwen2.5-3B-Instruct: KubeAI takes everything after hf:// as the model reference, here "
            "/Qwen/Qwen2.5-3B-Instruct, so vLLM gets --model=/Qwen/Qwen2.5-3B-Instruct, which it takes for a local path "
            "that does not exist, and exits at start; write hf://Qwen/Qwen2.5-3B-Instruct",
        )
    ]


def test_third_slash_on_an_ollama_url() -> None:
    [(level, message)] = found_by([_model("ollama:///qwen2.5:0.5b", engine="OLlama")], G72)
    assert (
        level == "advisory" and "the engine is asked for a model name that cannot exist; write ollama://qwen2.5:0.5b" in message
    )


def test_well_formed_urls_stay_silent() -> None:
    for url, engine in (
        ("hf://Qwen/Qwen2.5-3B-Instruct", "VLLM"),
        ("ollama://qwen2.5:0.5b", "OLlama"),
        ("pvc://model-pvc/models/qwen", "VLLM"),
        ("s3://models/qwen2.5-3b", "VLLM"),
    ):
        assert found_by([_model(url, engine=engine)], G72) == [], url
    assert found_by([_model("hf:///Qwen/Qwen2.5-3B-Instruct", cacheProfile="efs-dynamic")], G72) == []
