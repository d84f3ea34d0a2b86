"""The plan reports a setting vLLM refuses before it sizes memory under the rule's own row (S21-S25,
components/capacity/startup.py), at the stack file's line of that setting, with exit 1 as before; S2 only
judges the KV cache. A maxNumSeqs above an explicit maxNumBatchedTokens stays a configuration error (exit 2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from tests.conftest import STACKS, run_plan


def plan(stack: str, out: Path) -> subprocess.CompletedProcess:
    return run_plan(stack, out, "--format", "json")


def dev_with(tmp_path: Path, **engine) -> str:
    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    doc["config"]["llm-serving:models"][0]["engine"].update(engine)
    path = tmp_path / "Pulumi.dev-startup.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


def line_of(stack: str, key: str) -> int:
    return next(i for i, text in enumerate(Path(stack).read_text().splitlines(), start=1) if text.strip().startswith(f"{key}:"))


def test_a_context_beyond_the_model_is_its_own_row_at_the_maxmodellen_line(tmp_path):
    stack = dev_with(tmp_path, maxModelLen=262144)
    proc = plan(stack, tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    mandatory = [v for v in report["violations"] if v["enforcement"] == "mandatory"]
    assert [(v["policy"], v["catalog"], v["line"]) for v in mandatory] == [
        ("vllm-context-within-model-limit", "S23", line_of(stack, "maxModelLen"))
    ]
    assert mandatory[0]["message"] == (
        "container kserve-container: meta-llama/Llama-3.1-8B-Instruct does not start: --max-model-len 262,144 exceeds "
        "the model's maximum of 131,072 tokens; vLLM refuses it (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); lower "
        "--max-model-len"
    )
    (model,) = report["models"]
    # The model's reason names the stack file's field, as a configuration error would.
    assert model["fits"] is False and model["reason"].startswith(
        "models[0].engine.maxModelLen: maxModelLen 262,144 exceeds the model's maximum"
    )


def test_an_offline_quantization_method_is_its_own_row_at_the_quantization_line(tmp_path):
    stack = dev_with(tmp_path, quantization="awq")
    proc = plan(stack, tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    mandatory = [v for v in json.loads(proc.stdout)["violations"] if v["enforcement"] == "mandatory"]
    assert [(v["policy"], v["line"]) for v in mandatory] == [("vllm-quantization-supported", line_of(stack, "quantization"))]


def test_seqs_above_explicit_batched_tokens_stays_a_configuration_error(tmp_path):
    proc = plan(dev_with(tmp_path, maxNumSeqs=512, maxNumBatchedTokens=256), tmp_path / "out")
    assert proc.returncode == 2
    assert "models[0].engine.maxNumSeqs" in proc.stderr and "Traceback" not in proc.stderr


def test_bfloat16_on_a_t4_pool_is_its_own_row_at_the_dtype_line(tmp_path):
    # The case: the plan accepted dtype bfloat16 on a compute-capability-7.5 GPU, which vLLM refuses.
    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    doc["config"]["llm-serving:gpuPools"][0]["instanceTypes"] = ["g4dn.xlarge"]
    (model,) = doc["config"]["llm-serving:models"]
    model["engine"].update(dtype="bfloat16", maxModelLen=4096)
    stack = tmp_path / "Pulumi.dev-t4.yaml"
    stack.write_text(yaml.safe_dump(doc, sort_keys=False))
    proc = plan(str(stack), tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    rows = [v for v in report["violations"] if v["policy"] == "vllm-dtype-supported-by-gpu"]
    assert [(v["catalog"], v["enforcement"], v["line"]) for v in rows] == [("S25", "mandatory", line_of(str(stack), "dtype"))]
    assert "--dtype bfloat16 needs a GPU of compute capability 8.0 or above, and the T4 has 7.5" in rows[0]["message"]
    (figures,) = report["models"]
    assert figures["fits"] is False and figures["reason"].startswith(
        "models[0].engine.dtype: dtype bfloat16 needs a GPU of compute capability 8.0"
    )
    # float16 on the same pool: the row is quiet (the 8B model's 15 GiB of weights on a 14.75 GiB T4 are S2's).
    model["engine"]["dtype"] = "float16"
    stack.write_text(yaml.safe_dump(doc, sort_keys=False))
    proc = plan(str(stack), tmp_path / "out2")
    assert "vllm-dtype-supported-by-gpu" not in {v["policy"] for v in json.loads(proc.stdout)["violations"]}
