"""S2 with no GPU pinned: the weights must still fit some GPU (policies/reading/weights_anywhere.py).

The firing form is spent set 88's JakeBx/hardened-llm-deployment
deployments/manifests/models/kimi-k2.5/inference-service.yaml (moonshotai/Kimi-K2.5, --tensor-parallel-size=4 on 4
GPUs, no GPU type selected): its ~555 GB INT4 checkpoint (components/model_weights.toml, with its sources) is ~129 GiB
per GPU, above every 80-96 GB GPU.
"""

import re

import pytest
from policy_fixtures import isvc, isvc_props, messages, set_arg, vllm_container

from components import model_weights
from policies.reading.weights_anywhere import estimate
from policies.registry import evaluate
from policies.vllm.max_model_len_fits_kv_cache import POLICY


def _levels(resource) -> list[tuple[str, str]]:
    """(enforcement, message) of S2's findings, as a report gives them."""
    return [(v.enforcement, v.message) for v in evaluate([resource], None, policies=[POLICY])]


def _server(model: str, **flags: str | None):
    props = isvc_props()
    container = vllm_container(props)
    container["args"][0] = model
    for flag, value in flags.items():
        set_arg(container, flag.replace("_", "-"), value)
    return isvc(props)


def test_estimates_read_the_catalogue_the_id_and_the_table():
    assert estimate("Qwen/Qwen2.5-72B-Instruct").exact  # the catalogue's checkpoint
    llama = estimate("meta-llama/Meta-Llama-3-70B-Instruct")
    assert llama and not llama.exact and round(llama.gib) == 130  # 70e9 x 2 B
    awq = estimate("casperhansen/llama-3-70b-instruct-awq")
    assert awq and round(awq.gib) == 33  # 70e9 x 0.5 B
    assert estimate("Qwen/Qwen3-30B-A3B-FP8").how.startswith("30B")  # the active-parameter token is not read
    kimi = estimate("moonshotai/Kimi-K2.5")
    assert kimi and round(kimi.gib) == 517
    assert estimate("mistralai/Mixtral-8x22B-Instruct-v0.1") is None  # an expert count is not a parameter count
    assert estimate("/models/llama-70b") is None and estimate("acme/private-model") is None


def test_kimi_on_four_unpinned_gpus_is_advised():
    ((level, msg),) = _levels(_server("moonshotai/Kimi-K2.5", tensor_parallel_size="4", max_model_len="32768"))
    assert "moonshotai/Kimi-K2.5's weights take 129.2 GiB per GPU" in msg
    assert "more than 0.9 of an 80-96 GB GPU" in msg
    assert level == "advisory"


def test_weights_above_every_gpu_are_blocked_only_from_the_catalogue():
    ((level, msg),) = _levels(_server("meta-llama/Llama-3.1-405B-Instruct", gpu_memory_utilization="0.9"))
    assert "no GPU can load them" in msg
    assert level == "mandatory"  # the catalogue's checkpoint, over a B300
    ((guess_level, guess),) = _levels(_server("acme/giant-400B-chat"))
    assert "no GPU can load them" in guess and guess_level == "advisory"


def test_careful_forms_stay_silent():
    assert messages(POLICY, _server("moonshotai/Kimi-K2.5", tensor_parallel_size="8")) == []  # 65 GiB per GPU
    assert messages(POLICY, _server("meta-llama/Meta-Llama-3-70B-Instruct", tensor_parallel_size="2")) == []
    assert messages(POLICY, _server("casperhansen/llama-3-70b-instruct-awq")) == []
    assert messages(POLICY, _server("meta-llama/Meta-Llama-3-70B-Instruct", quantization="awq")) == []
    assert messages(POLICY, _server("Qwen/Qwen2.5-72B-Instruct", tensor_parallel_size="two")) == []  # unreadable
    assert messages(POLICY, _server("Qwen/Qwen2.5-72B-Instruct", gpu_memory_utilization="1.5")) == []  # S1's finding
    # A pinned GPU is the capacity plan's to judge, not this estimate's.
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = "b200"
    vllm_container(props)["args"][0] = "moonshotai/Kimi-K2.5"
    set_arg(vllm_container(props), "tensor-parallel-size", "4")
    assert messages(POLICY, isvc(props)) == []


def test_a_selection_of_an_unknown_gpu_is_not_read_as_the_common_class():
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["nvidia.com/gpu.product"] = "NVIDIA-GB300"  # not in the catalogue
    vllm_container(props)["args"][0] = "moonshotai/Kimi-K2.5"
    set_arg(vllm_container(props), "tensor-parallel-size", "4")
    assert messages(POLICY, isvc(props)) == []


def test_a_table_engine_on_no_gpu_is_held_to_the_same_bound():
    # SGLang serving a 72B bf16 checkpoint on one unpinned GPU: ~135 GiB, above every 80-96 GB GPU.
    props = isvc_props()
    container = vllm_container(props)
    container["image"] = "lmsysorg/sglang:v0.4.6"
    container["command"] = ["python3", "-m", "sglang.launch_server"]
    container["args"] = ["--model-path", "Qwen/Qwen2.5-72B-Instruct", "--tp", "1"]
    ((level, msg),) = _levels(isvc(props))
    assert "Qwen/Qwen2.5-72B-Instruct's weights take 135.4 GiB per GPU" in msg and level == "advisory"
    container["args"] = ["--model-path", "Qwen/Qwen2.5-72B-Instruct", "--tp", "2"]
    assert messages(POLICY, isvc(props)) == []


def test_a_bad_row_of_the_weights_table_names_the_row_and_the_field(tmp_path):
    """components/model_weights.toml is read through the row checks of every fact table (components/table_rows.py)."""
    assert any(row.prefix == "moonshotai/kimi-k2" and row.gb == 555 for row in model_weights.load())
    good = 'prefix = "acme/big"\ngb = 100\nsource = "acme model card"\n'
    bad = {
        'prefix = "acme/big"\ngb = 100\n': "missing fields ['source']",
        good + 'size = "huge"\n': "unknown fields ['size']",
        good.replace("gb = 100", 'gb = "100"'): "(acme/big): gb must be a number > 0",
        good.replace("gb = 100", "gb = 0"): "(acme/big): gb must be a number > 0",
        good.replace('prefix = "acme/big"', 'prefix = " "'): "#2: prefix must be text",
        good.replace('"acme model card"', '""'): "(acme/big): source must be text",
    }
    for body, named in bad.items():
        table = tmp_path / "model_weights.toml"
        table.write_text(f"[[model]]\n{good}\n[[model]]\n{body}", encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(named)):
            model_weights.load(table)
