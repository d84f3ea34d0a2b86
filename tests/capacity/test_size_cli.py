"""`python -m stacks size`: the DESIGN.md flags and --json keys, and clear errors for bad flags."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

JSON_KEYS = {
    "weights_gib",
    "activation_gib",
    "non_torch_gib",
    "kv_cache_gib",
    "kv_bytes_per_token",
    "kv_cache_tokens",
    "max_concurrency",
    "fits",
    "reason",
}


def size(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stacks", "size", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_json_has_the_contract_keys():
    proc = size("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100", "--max-model-len", "16000", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert JSON_KEYS <= set(out)
    assert out["kv_bytes_per_token"] == 131072
    assert out["gpu"] == "H100" and out["fits"] is True
    assert out["kv_cache_tokens"] == out["num_blocks"] * 16


def test_text_form_shows_the_breakdown():
    proc = size("--model", "qwen3-32b", "--gpu", "L40S", "--tensor-parallel-size", "2", "--max-model-len", "32768")
    assert proc.returncode == 0, proc.stderr
    for row in (
        "total (device)",
        "- weights",
        "- activation peak",
        "- non-torch",
        "- CUDA graphs",
        "= KV cache",
        "max concurrency",
    ):
        assert row in proc.stdout
    assert proc.stdout.startswith("Qwen/Qwen3-32B on 2x L40S (44.42 GiB each)")


def test_model_config_and_weights_for_a_model_outside_the_catalogue(tmp_path):
    cfg = {
        "num_hidden_layers": 28,
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "vocab_size": 152064,
        "intermediate_size": 18944,
        "max_position_embeddings": 32768,
        "torch_dtype": "bfloat16",
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    proc = size(
        "--model-config", str(path), "--weights-gib", "14.2", "--gpu-memory-gib", "79.18", "--max-model-len", "32768", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["kv_bytes_per_token"] == 2 * 28 * 4 * 128 * 2
    assert out["gpu_memory_gib"] == 79.18


def test_a_model_that_does_not_fit_exits_1_and_still_says_why():
    # DESIGN.md: 0 fits, 1 does not, 2 bad flags -- scripts gate on `size` as they gate on `plan`.
    proc = size("--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "L40S", "--json")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["fits"] is False
    assert out["reason"].startswith("weights need ")
    text = size("--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "L40S")
    assert text.returncode == 1 and "DOES NOT FIT: weights need " in text.stdout


def test_a_context_beyond_the_kv_cache_exits_1():
    proc = size("--model", "llama-3.1-8b", "--gpu", "A10G", "--max-model-len", "131072", "--vllm-version", "0.33.0", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["reason"].startswith("maxModelLen 131,072 exceeds the KV cache (")


def test_help_documents_the_exit_codes():
    proc = size("--help")
    assert proc.returncode == 0
    for line in ("0  the model fits", "1  it does not fit", "2  invalid flags"):
        assert line in proc.stdout


def test_an_alias_prints_the_model_that_was_asked_for():
    # Llama-3.3-70B-Instruct shares the 3.1 entry's figures; it is still reported as 3.3.
    proc = size(
        "--model",
        "meta-llama/llama-3.3-70b-instruct",
        "--gpu",
        "H100",
        "--tensor-parallel-size",
        "4",
        "--max-model-len",
        "8192",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["model"] == "meta-llama/Llama-3.3-70B-Instruct"
    assert size("--model", "llama-3.1-8b", "--gpu", "H100", "--max-model-len", "8192").stdout.startswith(
        "meta-llama/Llama-3.1-8B-Instruct on 1x H100"
    )


def test_a_known_release_is_taken_and_its_accounting_named():
    proc = size(
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "H100",
        "--max-model-len",
        "8192",
        "--vllm-version",
        "0.29.1rc1.dev17+gd2d649e67",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["accounting"] == "0.20-0.33"
    # No "release unknown" note; the settings left to vLLM name the release they are the defaults of.
    assert out["notes"] == [
        "maxNumBatchedTokens 8,192 and maxNumSeqs 1,024: the OpenAI server's defaults of vLLM 0.29.1rc1.dev17+gd2d649e67 "
        "for a 79 GiB H100 (engine/arg_utils.py get_batch_defaults)",
        "gpuMemoryUtilization 0.92: the default of vLLM 0.29.1rc1.dev17+gd2d649e67 (config/cache.py)",
    ]


def test_a_warm_compile_cache_is_sized_on_request_and_said():
    # Model Runner V2 on 0.27 charges a cold start's compile peak; --compile-cache warm drops exactly that.
    common = ("--model", "qwen3-8b", "--gpu", "RTX-4090", "--max-model-len", "8192", "--vllm-version", "0.27.1", "--json")
    cold, warm = (json.loads(size(*common, *extra).stdout) for extra in ((), ("--compile-cache", "warm")))
    assert warm["activation_gib"] < cold["activation_gib"] - 0.5 and warm["kv_cache_gib"] > cold["kv_cache_gib"] + 0.5
    assert cold["kv_cache_gib"] + cold["activation_gib"] == pytest.approx(warm["kv_cache_gib"] + warm["activation_gib"], abs=0.02)
    assert any(n.startswith("sized for a warm torch.compile cache") and "a new pod's cache is empty" in n for n in warm["notes"])
    assert not any("warm" in n for n in cold["notes"])
    # Where no compile charge applies (0.33: V2 reserves its graph estimate) nothing changes, and the note says so.
    late = [
        json.loads(size(*common[:-3], "--vllm-version", "0.33.0", "--json", *extra).stdout)
        for extra in ((), ("--compile-cache", "warm"))
    ]
    assert late[0]["kv_cache_gib"] == late[1]["kv_cache_gib"]
    assert any("so nothing changes" in n for n in late[1]["notes"])


@pytest.mark.parametrize(
    "args,expected",
    [
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--tensor-parallel-size", "0"],
            "--tensor-parallel-size = '0': must be a whole number from 1 to 64",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--tensor-parallel-size", "1000"],
            "--tensor-parallel-size = '1000': must be a whole number from 1 to 64",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--pipeline-parallel-size", "65"],
            "--pipeline-parallel-size = '65': must be a whole number from 1 to 64",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--tensor-parallel-size", "1_0"],
            "--tensor-parallel-size = '1_0': must be a whole number from 1 to 64",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--max-model-len", "9" * 400],
            "--max-model-len = '" + "9" * 40 + "': must be a whole number from 1 to 10,485,760",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--max-num-seqs", "65537"],
            "--max-num-seqs = '65537': must be a whole number from 1 to 65,536",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--max-num-batched-tokens", "1048577"],
            "--max-num-batched-tokens = '1048577': must be a whole number from 1 to 1,048,576",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--gpu-memory-utilization", "1.2"],
            "--gpu-memory-utilization = '1.2': must be a fraction in (0, 1]",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--gpu-memory-utilization", "nan"],
            "--gpu-memory-utilization = 'nan': must be a fraction in (0, 1]",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--kv-cache-dtype", "int3"],
            "--kv-cache-dtype = 'int3': must be one of auto, fp8, fp8_e4m3, fp8_e5m2",
        ),
        (["--model", "llama-3.1-8b", "--gpu", "TPU"], "--gpu = 'TPU': unknown GPU 'TPU'; known: A100-40GB, A100-80GB,"),
        (
            ["--model", "acme/unknown", "--gpu", "H100"],
            "--model = 'acme/unknown': model 'acme/unknown' is not in the lock file or the built-in catalogue; run `python -m stacks models lock`",
        ),
        (["--model", "llama-3.1-8b"], "--gpu: is required (or --gpu-memory-gib)"),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--vllm-version", "latest"],
            "--vllm-version = 'latest': must be a release number such as 0.33.0",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--vllm-version", "0.5.0"],
            "--vllm-version = '0.5.0': outside the releases the memory model was calibrated on (0.8 to 0.33.x); give unknown to size with the most conservative accounting",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--vllm-version", "9.0.0"],
            "--vllm-version = '9.0.0': outside the releases the memory model was calibrated on",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--vllm-version", "0.34.0"],
            "--vllm-version = '0.34.0': outside the releases the memory model was calibrated on",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--quantization", "FP 8"],
            "--quantization = 'FP 8': must be one of fp8, awq, awq_marlin, gptq, gptq_marlin, compressed-tensors,",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--block-size", "0"],
            "--block-size = '0': must be one of 1, 8, 16, 32, 64, 128, 256",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--block-size", "3"],
            "--block-size = '3': must be one of 1, 8, 16, 32, 64, 128, 256",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu-memory-gib", "-4"],
            "--gpu-memory-gib = '-4': must be a number > 0 and below 1,000,000",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--gpu-memory-gib", "1e400"],
            "--gpu-memory-gib = '1e400': must be a number > 0 and below 1,000,000",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--weights-gib", "0"],
            "--weights-gib = '0': must be a number > 0 and below 1,000,000",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--dtype", "int4"],
            "--dtype = 'int4': must be one of auto, bfloat16, float16, half, float32",
        ),
        (
            ["--model-config", "/nonexistent/config.json", "--weights-gib", "3", "--gpu", "H100"],
            "--model-config = '/nonexistent/config.json': cannot read: No such file or directory",
        ),
        (["--model-config", "/dev/null", "--gpu", "H100"], "--weights-gib: is required with --model-config"),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--compile-cache", "hot"],
            "--compile-cache = 'hot': must be one of cold, warm",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--image", "vLLM Image"],
            "--image = 'vLLM Image': must be an image reference like vllm/vllm-openai:v0.33.0",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--image", "vllm/vllm-openai:v0.10.2", "--vllm-version", "0.11.0"],
            "--image = 'vllm/vllm-openai:v0.10.2': names vLLM 0.10.2 but --vllm-version is 0.11.0; give one",
        ),
        (
            ["--model", "llama-3.1-8b", "--gpu", "H100", "--image", "vllm/vllm-openai:v0.5.0"],
            "--image = 'vllm/vllm-openai:v0.5.0': names vLLM 0.5.0, outside the releases the memory model was calibrated on",
        ),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(args, expected):
    proc = size(*args)
    assert proc.returncode == 2
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr


def test_config_json_that_is_not_a_model_config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"hidden_size": 64}))
    proc = size("--model-config", str(path), "--weights-gib", "1", "--gpu", "H100")
    assert proc.returncode == 2
    assert "config.json lacks num_hidden_layers" in proc.stderr


def test_without_a_release_size_reports_what_plan_reports_for_the_dev_model():
    """No --vllm-version: the stacks' release (0.33 from ModelConfig's default image), their default
    utilization and the max_num_seqs their plan derives, so the KV cache is the plan's, to the hundredth."""
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from tests.conftest import stack_config

    plan = plan_stack(load_stack_config(stack_config("dev")))["chat-8b"]
    proc = size("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S", "--max-model-len", "8192", "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert out["vllm_version"] == "0.33.0" and out["accounting"].startswith("0.20-0.33")
    assert out["gpu_memory_utilization"] == 0.9
    assert out["max_num_seqs"] == plan.max_num_seqs == 88
    assert out["kv_cache_gib"] == plan.memory.as_dict()["kv_cache_gib"] == 23.91


def test_without_a_release_size_says_which_it_used():
    proc = size("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert (
        lines[1] == "vLLM 0.33.0: the release the stacks deploy, vllm/vllm-openai:v0.33.0; utilization 0.9, the stacks' default"
    )
    assert lines[2].startswith("maxNumSeqs 88, derived as the stacks' capacity plan derives it: ")
    assert "= KV cache         23.91" in lines


def test_unknown_release_is_the_conservative_accounting():
    out = json.loads(
        size("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S", "--vllm-version", "unknown", "--json").stdout
    )
    known = json.loads(
        size("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S", "--vllm-version", "0.33.0", "--json").stdout
    )
    assert out["vllm_version"] == "unknown" and out["max_num_seqs"] == known["max_num_seqs"] == 256
    assert out["kv_cache_gib"] <= known["kv_cache_gib"]


GPT_OSS_AT_32K = ("--model", "openai/gpt-oss-120b", "--gpu", "H100", "--max-model-len", "32768", "--json")


def test_vllms_own_010_image_is_sized_with_flashinfers_sampler():
    # vllm/vllm-openai:v0.10.2 installs FlashInfer and 0.10.2 samples with it (accounting.py image_flashinfer_sampler):
    # gpt-oss-120b at 32,768 on one H100 fits, as GPUStack ran it; the same release from --vllm-version alone (the
    # install unknown, a pip install has no FlashInfer) is sized as the PyTorch sort and does not.
    proc = size(*GPT_OSS_AT_32K, "--image", "vllm/vllm-openai:v0.10.2")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["vllm_version"], out["vllm_version_from"]) == ("0.10.2", "the tag of --image vllm/vllm-openai:v0.10.2")
    assert out["flashinfer_sampler"] is True and out["kv_cache_gib"] == 2.39
    unknown = size(*GPT_OSS_AT_32K, "--vllm-version", "0.10.2")
    assert unknown.returncode == 1 and json.loads(unknown.stdout)["flashinfer_sampler"] is None
    assert json.loads(unknown.stdout)["kv_cache_gib"] == -2.27


@pytest.mark.parametrize(
    "flags, fits, flashinfer",
    [
        (("--image", "ghcr.io/acme/vllm:v0.10.2"), False, None),  # a custom image: unknown, the sort
        (("--image", "vllm/vllm-openai:v0.10.2", "--no-flashinfer-sampler"), False, False),  # the flag wins
        (("--vllm-version", "0.10.2", "--flashinfer-sampler"), True, True),  # a pip install with the extra
        (("--image", "vllm/vllm-openai:latest", "--vllm-version", "0.10.2"), True, True),  # the release of a bare tag
        (("--image", "vllm/vllm-openai:v0.11.1"), False, None),  # opt-in from 0.11.1
    ],
)
def test_the_flashinfer_sampler_flag_and_its_default(flags, fits, flashinfer):
    proc = size(*GPT_OSS_AT_32K, *flags)
    out = json.loads(proc.stdout)
    assert (proc.returncode, out["fits"], out["flashinfer_sampler"]) == (0 if fits else 1, fits, flashinfer)


def test_an_image_without_a_release_is_the_conservative_accounting():
    out = json.loads(size(*GPT_OSS_AT_32K, "--image", "vllm/vllm-openai:latest").stdout)
    assert out["vllm_version"] == "unknown" and out["flashinfer_sampler"] is None
    assert out["vllm_version_from"] == "--image vllm/vllm-openai:latest names no vLLM release: the most conservative accounting"


def test_the_stacks_release_is_unchanged_by_the_sampler_rule():
    # 0.33 (what the stacks deploy) charges its own sampler constant; the rule gives None there.
    out = json.loads(
        size("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S", "--max-model-len", "8192", "--json").stdout
    )
    image = json.loads(
        size(
            "--model",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--gpu",
            "L40S",
            "--max-model-len",
            "8192",
            "--json",
            "--image",
            "vllm/vllm-openai:v0.33.0",
            "--gpu-memory-utilization",
            "0.9",
        ).stdout
    )
    assert out["flashinfer_sampler"] is image["flashinfer_sampler"] is None
    assert out["kv_cache_gib"] == 23.91
