"""S1/S2 unset cases: vllm-gpu-memory-utilization-explicit and vllm-max-model-len-explicit."""

from policy_fixtures import isvc, isvc_props, messages, ray_serve_llm, set_arg, vllm_container

from policies.vllm.gpu_memory_utilization_unset import POLICY as S1_UNSET
from policies.vllm.max_model_len_unset import POLICY as S2_UNSET

LABEL = "container kserve-container"


def without(flag, image=None):
    props = isvc_props()
    set_arg(vllm_container(props), flag, None)
    if image:
        vllm_container(props)["image"] = image
    return isvc(props)


def test_compliant_inference_service_passes_both():
    assert messages(S1_UNSET, isvc()) == []
    assert messages(S2_UNSET, isvc()) == []


def test_unset_utilization_names_the_release_default():
    assert messages(S1_UNSET, without("gpu-memory-utilization")) == [
        f"{LABEL}: --gpu-memory-utilization is not set, so vLLM takes its default 0.92 (vLLM 0.33.0); the KV cache "
        f"then changes with the image tag; set it explicitly"
    ]


def test_unset_utilization_before_0_20_is_0_9():
    assert messages(S1_UNSET, without("gpu-memory-utilization", "vllm/vllm-openai:v0.8.5")) == [
        f"{LABEL}: --gpu-memory-utilization is not set, so vLLM takes its default 0.9 (vLLM 0.8.5); the KV cache "
        f"then changes with the image tag; set it explicitly"
    ]


def test_unset_utilization_before_the_modelled_releases_is_0_9_of_that_release():
    # A v0.6.3 tag names its release; before 0.8 the default was 0.90 too (cold review finding 13).
    assert messages(S1_UNSET, without("gpu-memory-utilization", "vllm/vllm-openai:v0.6.3")) == [
        f"{LABEL}: --gpu-memory-utilization is not set, so vLLM takes its default 0.9 (vLLM 0.6.3); the KV cache "
        f"then changes with the image tag; set it explicitly"
    ]


def test_unset_utilization_with_an_unknown_release():
    assert messages(S1_UNSET, without("gpu-memory-utilization", "my/vllm:prod")) == [
        f"{LABEL}: --gpu-memory-utilization is not set, so vLLM takes its default 0.9 or 0.92 (0.90 before vLLM 0.20, "
        f"0.92 from 0.20 on; the image names no release); the KV cache then changes with the image tag; set it "
        f"explicitly"
    ]


def test_unset_max_model_len_is_the_model_context():
    assert messages(S2_UNSET, without("max-model-len")) == [
        f"{LABEL}: --max-model-len is not set, so vLLM serves the model's full context (131,072 tokens for "
        f"meta-llama/Llama-3.1-8B-Instruct); one such request must fit the KV cache or the engine refuses to start; "
        f"set the length you serve"
    ]


def test_unset_max_model_len_of_an_unknown_model():
    props = isvc_props()
    container = vllm_container(props)
    container["args"] = ["org/unknown-model", "--gpu-memory-utilization=0.9"]
    assert messages(S2_UNSET, isvc(props)) == [
        f"{LABEL}: --max-model-len is not set, so vLLM serves the model's full context (from org/unknown-model's "
        f"config.json); one such request must fit the KV cache or the engine refuses to start; set the length you serve"
    ]


def test_a_null_ray_serve_llm_engine_kwarg_is_unset_not_a_bare_flag():
    # `max_model_len: null` is EngineArgs' default (vllm 0.33.0 config/model.py:249, default None: derived from the
    # model), so Ray Serve LLM's engine leaves it unset; it must not read as a bare --max-model-len that silences S2.
    unset = [
        "serveConfigV2 application llms llm_configs[0]: max_model_len is not set, so vLLM serves the model's full "
        "context (32,768 tokens for Qwen/Qwen2.5-7B-Instruct); one such request must fit the KV cache or the engine "
        "refuses to start; set the length you serve"
    ]
    assert messages(S2_UNSET, ray_serve_llm("engine_kwargs: {gpu_memory_utilization: 0.9}")) == unset
    assert messages(S2_UNSET, ray_serve_llm("engine_kwargs: {gpu_memory_utilization: 0.9, max_model_len: null}")) == unset
    assert messages(S2_UNSET, ray_serve_llm("engine_kwargs: {gpu_memory_utilization: 0.9, max_model_len: 8192}")) == []
