"""S24 vllm-quantization-supported: an offline --quantization on a checkpoint without that method's quantization_config.

vLLM's loader raises "Cannot find the config file for awq" on a 16-bit checkpoint (0.6.3
model_loader/weight_utils.py:184; 0.33.0 lines 374-380), and a method of another family than the checkpoint's raises
"Quantization method specified in the model config (...) does not match" (0.33.0 config/model.py:1451-1461)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from components.capacity.architecture import parse_config
from components.capacity.startup import BY_NAME, Settings

POLICY = "vllm-quantization-supported"

# Cut down from bogdancstrike/k8s-llm-slm-hami workloads/gemma-1b.yaml at 5ce222ff8d497ce6b7ae038b4c278231d80dd0ba
# (held-out set 15): a kro InferenceEndpoint that serves google/gemma-3-1b-it (bf16, no quantization_config) on vLLM
# with quantization awq.
GEMMA_ENDPOINT = {
    "apiVersion": "kro.run/v1alpha1",
    "kind": "InferenceEndpoint",
    "metadata": {"name": "gemma-1b", "namespace": "inference"},
    "spec": {
        "backend": "vllm",
        "model": "google/gemma-3-1b-it",
        "servedName": "gemma-1b",
        "gpuMemMb": 5000,
        "quantization": "awq",
        "maxModelLen": 2048,
        "gpuMemUtilization": "0.85",
        "minReplicas": 1,
    },
}


def _spec(**changes) -> dict:
    changed = copy.deepcopy(GEMMA_ENDPOINT)
    changed["spec"].update(changes)
    return changed


def test_awq_on_a_16_bit_checkpoint_in_an_endpoint_spec_is_advice():
    ((level, message),) = found_by([GEMMA_ENDPOINT], POLICY)
    assert level == "advisory"
    assert message == (
        "spec (backend: vllm): google/gemma-3-1b-it does not start: quantization awq needs a checkpoint quantized with "
        "it, and this one is bfloat16; use a pre-quantized checkpoint or quantization fp8 (advisory: read from this "
        "resource's own spec, whose rendering into a vLLM server is not in the files)"
    )


def test_careful_endpoint_specs_are_silent():
    assert found_by([_spec(quantization="fp8")], POLICY) == []  # an online method
    assert found_by([_spec(model="TheBloke/gemma-3-1b-it-AWQ")], POLICY) == []  # a checkpoint the catalogue lacks
    assert found_by([_spec(backend="ollama")], POLICY) == []  # another engine
    assert found_by([_spec(model="/models/gemma-3-1b-it")], POLICY) == []  # not a Hub id
    no_quant = copy.deepcopy(GEMMA_ENDPOINT)
    del no_quant["spec"]["quantization"]
    assert found_by([no_quant], POLICY) == []


def _arch(quant_method: str | None) -> object:
    config = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 128,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "max_position_embeddings": 4096,
              "torch_dtype": "float16"}  # fmt: skip
    if quant_method:
        config["quantization_config"] = {"quant_method": quant_method, "bits": 4}
    return parse_config(config)


def test_a_method_of_another_family_than_the_checkpoints_is_refused():
    rule = BY_NAME[POLICY]
    base = {"tensor_parallel_size": 1, "max_model_len": 4096, "max_num_seqs": 1, "max_num_batched_tokens": 4096}
    refusal = rule.refusal(_arch("gptq"), Settings(**base, quantization="awq"))
    assert refusal is not None and "awq does not match the checkpoint's gptq quantization" in refusal
    assert rule.refusal(_arch("gptq"), Settings(**base, quantization="gptq_marlin")) is None  # an override
    assert rule.refusal(_arch("awq"), Settings(**base, quantization="awq_marlin")) is None
    assert rule.refusal(_arch("awq"), Settings(**base, quantization="moe_wna16")) is None  # not judged
    assert rule.refusal(_arch("gptq"), Settings(**base, quantization="fp8")) is None  # online
    assert rule.refusal(_arch(None), Settings(**base, quantization="gptq")) is not None  # 16-bit checkpoint
