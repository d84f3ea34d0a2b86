"""The memory model against real vLLM startup logs.

Two sets: the four logs of tests/capacity/data/vllm_kv_reference_logs.csv, and the V1 logs gathered
from public issues, benchmarks and sweeps in tests/capacity/data/vllm_startup_logs.csv (one row
per log, each with its URL and the log lines quoted). Each log is sized the way `python -m stacks
size` sizes it: the catalogue's architecture and checkpoint size (for a re-quantized upload of a
catalogue architecture, the weights the log shows per GPU x TP x PP), the GPU's reported total, the
flags of the log (a blank utilization takes the release's default, as vLLM does) and, where the log
states it, the vLLM release.

Every row is accounted for: it is sized, or it names why not (``not_sized`` in the CSV for the
judgement calls, the missing field otherwise), and the counts of both are asserted.

Held-out split (the CSV's ``split`` column): ``fit`` rows are the logs the constants of
components/capacity/memory.py were read from or checked against while they were set; ``holdout``
rows are the logs no earlier calibration sized (before this split they were dropped: a key
mismatch, a blank utilization, an unreadable release) and that no constant cites. The accuracy the
docs/accuracy.md quotes is the held-out one, per release family; a test keeps memory.py from citing a
held-out log.

The 0.20-0.33 logs added later (``nl01``-``nl06``, ``nm01``-``nm35`` and ``np01``-``np66``, every one
read in full in the public file the row names) are split by a fixed rule, stated here and checked below: an odd
number is held out, an even one is fit. The rule was set, and the numbers given, before any of
them was sized. The same rule splits the vision rows (``nv``, ``nq``) and the two gpt-oss-120b starts on one H100
found while checking the FlashInfer sampler term (``nf01``-``nf02``, 0.10-0.11, numbered in the order the search
returned them; unlike the others, both had been sized by hand before they were numbered). Every log the searches found is a row: the ones the model misses (nm07 and nm16
among them) are in KNOWN_MISSES with their cause, and the held-out figures count them.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import pytest

from components.capacity.architecture import GIB
from components.capacity.gpus import find_gpu
from components.capacity.memory import EngineArgs, MemoryPlan, accounting_for, kv_layout, plan_memory
from components.capacity.models import UnknownModel, find_model, model_from_config
from tests.conftest import ROOT

DATA = Path(__file__).parent / "data" / "vllm_startup_logs.csv"
# Checkpoints of the same architecture as a catalogue model or a stored config (quantized
# re-uploads: same layers, heads and vocabulary; the log gives their weights per GPU). Keys are
# compared case-insensitively (the CSV spells RedHatAI's -FP8-dynamic as -fp8-dynamic).
SAME_ARCHITECTURE = {
    "redhatai/llama-3.3-70b-instruct-fp8-dynamic": "meta-llama/Llama-3.3-70B-Instruct",
    "redhatai/llama-3.3-70b-instruct-quantized.w8a8": "meta-llama/Llama-3.3-70B-Instruct",
    "redhatai/meta-llama-3.1-8b-instruct-quantized.w4a16": "meta-llama/Llama-3.1-8B-Instruct",
    "redhatai/meta-llama-3.1-8b-instruct-quantized.w8a8": "meta-llama/Llama-3.1-8B-Instruct",
    "redhatai/qwen2.5-7b-instruct-fp8-dynamic": "Qwen/Qwen2.5-7B-Instruct",
    "redhatai/qwen2.5-7b-instruct-quantized.w8a8": "Qwen/Qwen2.5-7B-Instruct",
    "qwen/qwen3-8b-fp8": "Qwen/Qwen3-8B",
    "qwen/qwen3-8b-awq": "Qwen/Qwen3-8B",
    # Qwen3-235B-A22B's FP8 uploads share the 235B-A22B config (94 layers, 4 KV heads, 128 experts).
    "qwen/qwen3-235b-a22b-instruct-2507-fp8": "Qwen/Qwen3-235B-A22B-FP8",
    "qwen3-235b-a22b (fp8 block-scaled checkpoint)": "Qwen/Qwen3-235B-A22B-FP8",
    # Qwen's AWQ uploads keep the BF16 model's layers, heads and vocabulary (rows nm02-nm08, nm28-nm30).
    "qwen/qwen3-14b-awq": "Qwen/Qwen3-14B",
    "qwen/qwen2.5-7b-instruct-awq": "Qwen/Qwen2.5-7B-Instruct",
    "qwen/qwen3-32b-awq": "Qwen/Qwen3-32B",
    # Qwen's GPTQ-Int4 MoE upload keeps the 30B-A3B config (48 layers, 4 KV heads, 128 experts; row nm27).
    "qwen/qwen3-30b-a3b-gptq-int4": "Qwen/Qwen3-30B-A3B",
    # The Qwen2.5-0.5B base upload shares the Instruct model's config.json architecture (row nm18).
    "qwen/qwen2.5-0.5b": "Qwen/Qwen2.5-0.5B-Instruct",
    # RedHatAI's w4a16 (GPTQ-format) re-quantization of Qwen3-8B keeps its layers, heads and vocabulary (row np21).
    "redhatai/qwen3-8b-quantized.w4a16": "Qwen/Qwen3-8B",
}
# Starts that found an earlier start's torch.compile artifacts, and the evidence: sized with
# EngineArgs(compile_cache="warm"); every other log is sized as a cold start, as a new pod is.
WARM_COMPILE_CACHE = {
    "nm24": "the notes say so: run 1 of the same worker, 'compile cache hit (torch.compile took 0.30 s)'",
    "nm07": "the post's replica servers of nm04's exact configuration, started one after another after its 'single' "
    "arm (nm04, 9.10 GiB) had run: its own words, 'started one after another ... 9.10 GiB and 10.33 GiB "
    "depending on the run', give the first (cold) start 9.10 and a later one 10.33. This label was set after "
    "the row's cold sizing (-1.28 GiB) was seen; test_warm_compile_cache_logs shows that figure too",
    "nq01": "the same KV cache to the token (5.87 GiB, 42,768 tokens) as its restart nq03, which found this start's "
    "cache; the same notes' AWQ pair (nq02 first, nq05 restarted) shows the ~1 GiB step a first start costs, "
    "this pair none; a later start of this command logs 'compilation: 0.14 s'",
    "nq03": "a restart of nq01's command (Lab 1b after Lab 1, same model and flags)",
    "nq04": "started after nq01 and nq03 of the same model and flags but the utilization (not in the compile cache's key)",
    "nq05": "started after nq02 of the same checkpoint and flags but the utilization",
    "nm26": "the journal's earlier starts of this command (its section 2: num_gpu_blocks 2312 x 16 = 36,992 tokens per "
    "backend, 5.08 GiB) were followed by this one (section 10-4: 43,888 tokens, 6.03 GiB), logged again after a "
    "driver restore; the same ~1 GiB step as nm23 (cold) to nm24 (warm)",
    # The A10G study of np04-np21 (one box, vLLM 0.27.1, Qwen3-8B): a start is labelled warm when the study
    # documents an earlier start on the box with the same model, weights and compiled settings (batched tokens,
    # sequences, KV dtype, context length); each then logged ~1.0 GiB (7,2xx tokens) more than that first start.
    # These labels were set by the s16 data helper after the rows' cold sizings were seen (shown below).
    "np05": "the second start of np04's exact command: 'Two consecutive starts of the exact same command produced "
    "26,176 and then 33,424 tokens of KV cache' (the study's runbook), 7,248 tokens apart as nm23/nm24",
    "np06": "ablation A (--no-enable-prefix-caching, not part of the compiled model) after np04/np05's starts; "
    "33,424 tokens as np05",
    "np09": "ablation C, the same flag as A, after it; 33,424 tokens as np05",
    "np17": "'67,568 then 74,880 on identical relaunches': the relaunch of np16's fp8 command, 7,312 tokens apart",
    "np19": "bf16 at --max-model-len 16384 after np18's start of it the same day (26,080 tokens), 7,232 tokens apart",
    "np20": "fp8 at --max-model-len 16384 after np16/np17's starts of it the same day; 74,880 tokens as np17",
    "np22": "fp8 at --max-model-len 16384 again (the study's KV-dtype sweep), after np16/np17/np20; 74,880 tokens",
    "np61": "the log says so: 'Directly load the compiled graph(s) for compile range (1, 32768) from the cache' and 'Directly load AOT compilation' (torch.compile took 1.74 s)",
}
GPU_NAMES = (
    ("H100", "H100"),
    ("H200", "H200"),
    ("A100 80", "A100-80GB"),
    ("A100 40", "A100-40GB"),
    ("L40S", "L40S"),
    ("RTX 3090", "RTX-3090"),
    ("RTX 4090", "RTX-4090"),
    ("RTX PRO 6000", "RTX-PRO-6000"),
    ("L4", "L4"),
    ("A10G", "A10G"),
)

# Why a log is not sized. The first three are judgement calls recorded in the CSV's not_sized
# column; the others follow from the fields the log lacks.
SKIP_REASONS = {
    "hybrid-state": "a hybrid linear-attention/Mamba model: per-request state the memory model does not size",
    "unified-memory": "a unified-memory device: no fixed device total to take a fraction of",
    "other-processes": "refused because other processes held the memory at start-up: not a sizing verdict",
    "no-model": "the log does not name the model",
    "no-config": "the model's config.json is in neither the catalogue nor tests/capacity/data/model_configs.json",
    "no-gpu-total": "the log gives neither the GPU type nor its total memory",
    "no-weights": "a checkpoint outside the catalogue, and the log does not give its weights per GPU",
    "lora": "LoRA adapters are loaded: their weights and the punica buffers are not sized by the memory model",
}
JUDGED = ("hybrid-state", "unified-memory", "other-processes", "no-model", "lora")


@dataclass(frozen=True)
class Case:
    """One sized log: the plan, and what vLLM logged."""

    obs_id: str
    split: str
    version: Optional[str]
    plan: MemoryPlan
    args: EngineArgs
    arch: object
    logged_kv_gib: Optional[float]
    logged_tokens: Optional[int]
    logged_concurrency: Optional[float]
    logged_weights_gib: Optional[float]
    started: Optional[bool]
    direct: bool

    @property
    def family(self) -> str:
        """The release family whose accounting sized the log ("unknown" when the log states no release)."""
        acc = accounting_for(self.version)
        return acc.releases if acc else "unknown"

    @property
    def compared_kv_gib(self) -> Optional[float]:
        """The logged per-GPU KV budget of the binding rank.

        With pipeline parallelism the rank that logs "Available KV cache memory" is the first stage,
        which runs neither the LM head nor the sampler warm-up; the block count vLLM keeps is the
        minimum over stages, so the binding (last) stage's budget is the logged token count times
        the bytes per token (both exact).
        """
        if (self.args.pipeline_parallel_size > 1 or self.logged_kv_gib is None) and self.logged_tokens:
            # Also where the log gives the tokens but not the GiB: floor(budget / block) blocks of
            # block_size tokens, so the budget is this to within one block.
            return self.logged_tokens * self.plan.kv_bytes_per_token / GIB
        return self.logged_kv_gib

    @property
    def error(self) -> float:
        """Predicted minus logged KV cache per GPU, GiB (positive = over-predicted: the unsafe side)."""
        return self.plan.kv_cache_gib - self.compared_kv_gib


@dataclass(frozen=True)
class Skip:
    """A log that is not sized, and why."""

    obs_id: str
    reason: str


def _num(text: str, kind=float):
    try:
        return kind(text)
    except (TypeError, ValueError):
        return None


def _version(text: str) -> Optional[str]:
    """The release a log states; a family ("0.2x", ">=0.21") stands for its first release."""
    text = (text or "").strip()
    match = re.match(r"^v?(\d+\.\d+(\.\d+)?)\b", text)
    if match and accounting_for(match.group(1)) is not None:
        return match.group(1)
    if re.match(r"^(>=\s*)?0\.(2\d|3\d|2x|3x)", text):
        return "0.20"
    return None


def _online_quantization(text: str) -> Optional[str]:
    """The --quantization flag of a log, when the checkpoint was quantized on load (not a pre-quantized upload)."""
    match = re.search(r"--quantization[ =](\S+?)\)?$", text)
    return match.group(1) if match else None


def _flashinfer_sampler(evidence: str) -> Optional[bool]:
    """Whether the log shows vLLM sampling with FlashInfer (its own start-up line), None when it does not say."""
    if "Using FlashInfer for top-p & top-k sampling" in evidence:
        return True
    if "FlashInfer is not available. Falling back to the PyTorch-native implementation" in evidence:
        return False
    return None


def _gpu(label: str, total: float):
    name = next((key for needle, key in GPU_NAMES if needle in label), "custom")
    return find_gpu(name, total)


# config.json subsets of the logs' models that the catalogue lacks, each with its source.
CONFIGS = json.loads((Path(__file__).parent / "data" / "model_configs.json").read_text())


def _model(hf_id: str):
    """The catalogue's model, else one built from a stored config.json (its size set later); None when neither knows it."""
    try:
        return find_model(hf_id), True
    except UnknownModel:
        if hf_id in CONFIGS:
            return model_from_config(CONFIGS[hf_id]["config"], 1.0, name=hf_id), False
        return None, False


def _case(row: dict, *, v0: bool = False, cold_start: bool = False, sort_sampler: bool = False) -> Union[Case, Skip]:
    obs = row["obs_id"]
    if row.get("not_sized"):
        return Skip(obs, row["not_sized"])
    logged_id = (row["hf_id"] or row.get("model", "")).strip()
    if not logged_id:
        return Skip(obs, "no-model")
    hf_id = SAME_ARCHITECTURE.get(logged_id.lower(), logged_id)
    model, catalogued = _model(hf_id)
    if model is None:
        return Skip(obs, "no-config")
    total = _num(row["gpu_mem_total_gib"] or row.get("gpu_mem_total_gib_logged"))
    if total is None:
        return Skip(obs, "no-gpu-total")
    direct = catalogued and hf_id == logged_id
    util, weights = _num(row["gpu_memory_utilization"]), _num(row["weights_gib"])
    if weights is None and not direct:
        return Skip(obs, "no-weights")
    tp = _num(row["tensor_parallel_size"], int) or _num(row.get("num_gpus", ""), int) or 1
    pp = _num(row["pipeline_parallel_size"], int) or 1
    max_len = _num(row["max_model_len"], int)
    tokens, seqs, version = (
        _num(row["max_num_batched_tokens"], int),
        _num(row["max_num_seqs"], int),
        _version(row["vllm_version"]),
    )
    if v0:
        # V0 without chunked prefill profiles one batch of max_model_len tokens over its 256 sequences.
        tokens, seqs, version = max(max_len, 2048), seqs or 256, "0.8"
    args = EngineArgs(
        tensor_parallel_size=tp,
        pipeline_parallel_size=pp,
        # Blank: the log ran with the release's default, which is what None asks the plan for.
        gpu_memory_utilization=util,
        max_model_len=max_len,
        max_num_seqs=seqs,
        max_num_batched_tokens=tokens,
        kv_cache_dtype=row["kv_cache_dtype"] or "auto",
        dtype=row["dtype"] if row.get("dtype") in ("float32", "float16", "bfloat16") else "auto",
        quantization=_online_quantization(row.get("quantization") or ""),
        enforce_eager=(row.get("enforce_eager") or "").strip().lower() == "true",
        vllm_version=version,
        compile_cache="warm" if obs in WARM_COMPILE_CACHE and not cold_start else "cold",
        flashinfer_sampler=None if sort_sampler else _flashinfer_sampler(row.get("evidence") or ""),
    )
    # The checkpoint size `size --weights-gib` takes: the catalogue's where the log's model is in
    # it, else what the log shows loaded on one GPU times the GPUs.
    checkpoint = model.checkpoint_bytes if direct else weights * tp * pp * GIB
    plan = plan_memory(model.arch, checkpoint, _gpu(row["gpu"], total), args)
    started = {"yes": True, "no": False}.get((row.get("started") or "").strip())
    return Case(
        obs,
        row.get("split", "fit"),
        version,
        plan,
        args,
        model.arch,
        _num(row["available_kv_gib"]),
        _num((row.get("kv_cache_tokens") or "").replace(",", ""), int),
        _num(row.get("max_concurrency")),
        weights,
        started,
        direct,
    )


def _rows(path: Path = DATA) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _load(path: Path = DATA) -> list[Union[Case, Skip]]:
    return [_case(r) for r in _rows(path)]


@pytest.fixture(scope="module")
def reference_cases() -> list[Case]:
    path = DATA.parent / "vllm_kv_reference_logs.csv"
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    cases = []
    for r in rows:
        r.setdefault("hf_id", "")
        r["hf_id"] = {"o16": "Qwen/Qwen2.5-32B-Instruct"}.get(r["obs_id"], r["model"])
        r["gpu_mem_total_gib"] = r["gpu_mem_total_gib_logged"]
        cases.append(_case(r, v0=r["engine"] == "V0"))
    return cases


@pytest.fixture(scope="module")
def log_cases() -> list[Union[Case, Skip]]:
    return _load(DATA)


def test_the_four_reference_logs_are_reproduced_within_the_bar(reference_cases):
    assert [c.obs_id for c in reference_cases] == ["o01", "o16", "o26", "o27"]
    errors = [abs(c.error) for c in reference_cases]
    assert statistics.median(errors) <= 1.0, errors
    assert max(errors) <= 2.5, errors
    assert all(c.error <= 0.5 for c in reference_cases), [(c.obs_id, round(c.error, 2)) for c in reference_cases]


def _sized(cases) -> list[Case]:
    return [c for c in cases if isinstance(c, Case)]


# Every row, by what became of it (a new row must land in one of these, named).
EXPECTED_SKIPS = {
    "no-config": 21,
    "no-model": 6,
    "hybrid-state": 7,
    "other-processes": 5,
    "unified-memory": 3,
    "no-weights": 15,
    "no-gpu-total": 7,
    "lora": 1,
}


def test_every_row_is_accounted_for(log_cases):
    rows = _rows()
    skipped = [c for c in log_cases if isinstance(c, Skip)]
    assert [c.obs_id for c in log_cases] == [r["obs_id"] for r in rows]
    assert len(_sized(log_cases)) + len(skipped) == len(rows) == 215
    counts = {}
    for s in skipped:
        assert s.reason in SKIP_REASONS, (s.obs_id, s.reason)
        counts[s.reason] = counts.get(s.reason, 0) + 1
    assert counts == EXPECTED_SKIPS
    # The CSV records only judgement calls; a missing field is found, not declared.
    assert {r["not_sized"] for r in rows} <= {"", *JUDGED}
    assert {r["split"] for r in rows} == {"fit", "holdout"}
    # The split rule of the later rows (module docstring): odd numbers held out.
    later = [r for r in rows if r["obs_id"][:2] in ("nl", "nm", "np", "nv", "nq", "nf")]
    assert len(later) == 121
    assert all(r["split"] == ("holdout" if int(r["obs_id"][2:]) % 2 else "fit") for r in later)


def test_no_constant_cites_a_held_out_log():
    source = (ROOT / "components" / "capacity" / "memory.py").read_text()
    held_out = [r["obs_id"] for r in _rows() if r["split"] == "holdout"]
    assert held_out and [o for o in held_out if re.search(rf"\b{o}\b", source)] == []


def test_kv_layout_reproduces_every_logged_token_count_and_concurrency(log_cases):
    # Exact: the logged per-GPU KV budget, cut by the model's layout (bytes per token, KV heads
    # over TP, hybrid groups, the sliding window's edge block), gives the logged tokens and
    # concurrency to within the 0.01 GiB rounding of the logged budget.
    checked = 0
    for c in _sized(log_cases):
        if not c.logged_tokens or c.logged_kv_gib is None or c.args.pipeline_parallel_size > 1:
            continue
        layout = kv_layout(c.arch, c.args, c.logged_kv_gib * GIB, c.plan.max_model_len, c.plan.max_num_batched_tokens)
        assert layout.tokens == pytest.approx(c.logged_tokens, rel=0.003), c.obs_id
        if c.logged_concurrency:
            assert layout.max_concurrency == pytest.approx(c.logged_concurrency, rel=0.003), c.obs_id
        checked += 1
    assert checked >= 55


def test_concurrency_from_the_logged_block_count_is_exact(log_cases):
    # From the logged token count the block count is exact, so the concurrency vLLM prints (two
    # decimals) pins the blocks one request takes: full-attention blocks of max_model_len, and in
    # sliding-window groups the window plus one step plus the window's unaligned edge block.
    checked = 0
    for c in _sized(log_cases):
        if not (c.logged_tokens and c.logged_concurrency) or c.args.pipeline_parallel_size > 1:
            continue
        probe = kv_layout(c.arch, c.args, GIB, c.plan.max_model_len, c.plan.max_num_batched_tokens)
        blocks = c.logged_tokens // c.args.block_size * probe.groups
        layout = kv_layout(c.arch, c.args, blocks * probe.block_bytes, c.plan.max_model_len, c.plan.max_num_batched_tokens)
        assert layout.num_blocks == blocks
        assert layout.max_concurrency == pytest.approx(c.logged_concurrency, abs=0.0051), c.obs_id
        checked += 1
    assert checked >= 55


# Loads that differ from the checkpoint's bytes for a reason the catalogue does not carry.
WEIGHT_EXCEPTIONS = {
    "pl10": "gemma-3-27b-it loads its SigLIP vision tower too (51.45 GiB logged, 51.13 text model)",
    "pl40": "gpt-oss-20b: MXFP4 re-laid for the 0.19 kernels (13.64 logged vs 13.47 in lb01)",
    "lb01": "gpt-oss-20b, release not stated: sized with Marlin's MXFP4 growth (the larger); the log's Triton backend loads 13.47",
    "lb02": "gpt-oss-120b, release not stated: likewise (65.94 modelled with Marlin's growth, 64.38 logged with Triton's)",
    "dl05": "gpt-oss-120b on 4x A100: Marlin's repack at TP4 pads the experts further (17.22 logged, 16.50 modelled)",
    "np01": "gpt-oss-120b on one H100, 0.25.1: the log's 'TRITON' Mxfp4 MoE backend loads 61.29 GiB; the plan charges "
    "Marlin's MXFP4 growth (64.30), the issue's MXFP4 load miss",
}


def test_weights_match_the_logged_load(log_cases):
    # Weights per GPU from the catalogue's checkpoint bytes (split over TP/PP, rotary cache
    # included) against "Model loading took": to 0.1 GiB (the catalogue counts parameters, the log allocator pages).
    checked = 0
    for c in _sized(log_cases):
        if not c.direct or c.logged_weights_gib is None or c.obs_id in WEIGHT_EXCEPTIONS:
            continue
        assert c.plan.weights_gib == pytest.approx(c.logged_weights_gib, abs=0.1), c.obs_id
        checked += 1
    assert checked >= 30


# Logs whose every term is logged (the llm-d-planner 0.19 sweep, and the 0.20+ logs with the
# engine's own breakdown): the KV budget must land within EXACT_TOLERANCE_GIB, so that a 0.5 GiB
# shift in any one term (non-torch memory, CUDA graphs, sampler, rotary cache) fails here.
EXACT_TOLERANCE_GIB = 0.35
EXACT_EXCEPTIONS = {
    "pl10": (0.5, "gemma-3-27b-it's vision tower is loaded but not in the text checkpoint (+0.32 GiB of weights)"),
    "pl34": (0.5, "Mixtral TP2: the fused-MoE workspace over two ranks is charged 0.45 GiB too much (safe side)"),
}


def _exact(c: Case) -> bool:
    return c.obs_id.startswith("pl") or c.obs_id in ("fb07", "nl03")


def test_exact_logs_within_their_tolerance(log_cases):
    exact = [c for c in _sized(log_cases) if _exact(c) and c.compared_kv_gib is not None]
    assert len(exact) >= 45
    off = [
        (c.obs_id, round(c.error, 2))
        for c in exact
        if abs(c.error) > EXACT_EXCEPTIONS.get(c.obs_id, (EXACT_TOLERANCE_GIB, ""))[0]
    ]
    assert off == []


# The sized logs with TP > 1 on PCIe cards (L40S TP4, RTX 3090 TP4): the only ones that exercise the
# PCIe all-reduce charge (NON_TORCH_PCIE_TP_GIB), so a 0.5 GiB shift in it must fail here.
PCIE_TP_LOGS = ("fb01", "nk01")
PCIE_TP_TOLERANCE_GIB = 0.45


def test_pcie_tensor_parallel_logs_within_their_tolerance(log_cases):
    from components.capacity.memory import NON_TORCH_PCIE_TP_GIB

    cases = {c.obs_id: c for c in _sized(log_cases)}
    for obs in PCIE_TP_LOGS:
        c = cases[obs]
        assert c.args.tensor_parallel_size > 1 and c.plan.non_torch_gib == pytest.approx(NON_TORCH_PCIE_TP_GIB), obs
        assert abs(c.error) <= PCIE_TP_TOLERANCE_GIB, (obs, round(c.error, 2))


# The fit logs of a Qwen2.5-VL model whose encoder charge is derived from its vision_config (memory.py
# vision_encoder_profile_bytes): the encoder's profile peak is most of their activation, so a 0.5 GiB
# shift in that term must fail here. (rh01: L4, 0.9.0.1, one 16,384-token image of 65,536 patches.)
VISION_LOGS = ("rh01",)
VISION_TOLERANCE_GIB = 0.35


def test_vision_encoder_logs_within_their_tolerance(log_cases):
    cases = {c.obs_id: c for c in _sized(log_cases)}
    for obs in VISION_LOGS:
        c = cases[obs]
        assert c.split == "fit" and c.arch.vision is not None, obs
        assert abs(c.error) <= VISION_TOLERANCE_GIB, (obs, round(c.error, 2))


# The fit logs of one public study on vLLM 0.10.1.1 whose vLLM says "Using FlashInfer for top-p & top-k sampling."
# (dennislee22/vLLM-benchmarking: Qwen2-7B on A100 80GB at TP 1 and 2, gpt-oss-120b at TP 4): the profile's sampler
# warm-up is FlashInfer's there (accounting.py profiled_sampler_bytes_per_logit), so a 1 GiB shift in that term must
# fail here; sized as the PyTorch sort they are 0.9-1.4 GiB under. dl04 is the same study's start of dl03's model and
# TP 2 on a machine without FlashInfer ("FlashInfer is not available"): sized each with its own sampler, the two agree.
FLASHINFER_SAMPLER_LOGS = ("dl01", "dl02", "dl03", "dl05")
FLASHINFER_SAMPLER_TOLERANCE_GIB = 0.55


def test_flashinfer_sampler_logs_within_their_tolerance(log_cases):
    cases = {c.obs_id: c for c in _sized(log_cases)}
    rows = _rows_by_id()
    for obs in FLASHINFER_SAMPLER_LOGS:
        c = cases[obs]
        assert c.split == "fit" and c.args.flashinfer_sampler is True, obs
        assert abs(c.error) <= FLASHINFER_SAMPLER_TOLERANCE_GIB, (obs, round(c.error, 2))
        sort = _case(rows[obs], sort_sampler=True)
        assert isinstance(sort, Case) and sort.error < -0.85, (obs, round(sort.error, 2))
    assert cases["dl04"].args.flashinfer_sampler is False
    assert cases["dl03"].error == pytest.approx(cases["dl04"].error, abs=0.05)


def test_flashinfer_sampler_peak_of_a_held_out_log(log_cases):
    # fb05 (held out) is a main build of August 2025 (about 0.10.1; sized as release unknown, so its KV figure does not
    # test the term) whose vLLM samples with FlashInfer and logs its profile peak: "torch peak memory increase:
    # 0.45GiB" for Llama-3.2-1B at 2,048 batched tokens and 256 sequences. The term, read from the source and not
    # fitted to this log, charges that within 0.05 GiB; the PyTorch sort would charge 1.23 GiB.
    from components.capacity.accounting import SORT_SAMPLER, profiled_sampler_bytes_per_logit
    from components.capacity.memory import activation_bytes

    row = _rows_by_id()["fb05"]
    assert row["split"] == "holdout" and "Using FlashInfer for top-p & top-k sampling" in row["evidence"]
    assert "torch peak memory increase: 0.45GiB" in row["evidence"]
    model, _ = _model("meta-llama/Llama-3.2-1B")
    assert model is not None
    arch = model.arch
    args = EngineArgs(vllm_version="0.10.1", flashinfer_sampler=True)
    per_logit = profiled_sampler_bytes_per_logit(arch.dtype_bytes, args, SORT_SAMPLER)
    peak = activation_bytes(arch, 2048, 256, 1, SORT_SAMPLER, sampler_bytes_per_logit=per_logit) / GIB
    assert peak == pytest.approx(0.45, abs=0.05)
    assert activation_bytes(arch, 2048, 256, 1, SORT_SAMPLER) / GIB == pytest.approx(1.23, abs=0.01)


# Logs the model still misses by more than the bar, each with its cause (report notes).
KNOWN_MISSES = {
    "nm21": "Qwen3-235B FP8 over PP 4 on PCIe RTX PRO 6000 (0.27.1, 32 sequences): the binding last stage keeps "
    "0.6 GiB less KV cache than modelled (unsafe side); the pipeline stages' own charges (send/receive "
    "buffers, intermediate tensors) are not modelled, the issue's known pipeline-parallel miss",
    "lb02": "gpt-oss-120b, release not stated: sized with the most conservative accounting (0.20's CUDA-graph "
    "reserve, Marlin's MXFP4 growth), which the log's release (Triton backend, 64.38 GiB) did not take "
    "(safe side, -1.6 GiB)",
    "nv04": "Qwen2-VL-7B fine-tune on an RTX 3090 (0.13.0, max_model_len 4096, one image per prompt): 1.13 GiB more KV "
    "cache logged than modelled (safe side). The encoder's profile is derived (memory.py "
    "vision_encoder_profile_bytes: one image of 65,536 patches at the default max_pixels 12,845,056, 2.33 GiB), "
    "but the log leaves 1.41 GiB outside weights and KV cache in all, less than that peak alone, so vLLM's "
    "dummy image was smaller: it takes max_pixels from the checkpoint's own image processor (qwen2_vl.py "
    "get_image_size_with_most_features), which the notes of this local fine-tune do not give (at 3,211,264 "
    "pixels or fewer the plan would be 0.26-0.27 GiB under); not confirmed",
    "nv05": "the GPTQ int4 upload of nv04's fine-tune, same flags (vision encoder kept 16-bit): the same 1.13 GiB (safe "
    "side) for the same reason",
    "np11": "Qwen3-8B on one A10G at --max-num-seqs 32 (0.27.1, 4096 context): 18,816 tokens (2.58 GiB) logged, 1.0 GiB "
    "below the same study's cold default start (np04) although fewer sequences need less activation; the plan "
    "is 1.49 GiB OVER (the unsafe side). Cause not found: the study reports start-to-start KV swings of up to "
    "28% on identical commands, and its ablation script of that date relaunched vLLM without waiting for the "
    "previous server's memory to be released (a wait it added later, citing a 'silently halved KV cache')",
    "np12": "the same study at --max-num-seqs 64: 18,560 tokens (2.55 GiB); 1.46 GiB over (unsafe side); as np11",
    "np13": "the same study at --max-num-batched-tokens 1024 (unpinned first attempt): 17,840 tokens (2.45 GiB), below "
    "both the default (np04) and the 8192 start (np14); 0.87 GiB over (unsafe side); as np11",
    "np25": "Qwen2.5-1.5B on a 12 GB RTX 4080 Laptop under WSL2/k3s (0.23.0, 4096 context, 64 sequences): a restart "
    "whose only logged figure is 28.77x concurrency (3.15 GiB of KV) where every other start of the same "
    "settings on that box logged 59.50x (6.51 GiB, np24 and twelve more); the plan is 3.2 GiB OVER (the "
    "unsafe side). Cause not found: the study suspects the previous pod's memory not yet released during a "
    "rolling update on its single GPU, unconfirmed; vLLM did not refuse the start",
    "np61": "Qwen2.5-0.5B in fp16 on an unnamed 15.55 GiB GPU (0.26.0, V2 model runner, warm compile cache, 32,768 "
    "context and batched tokens): 0.29 GiB under (the safe side). The log's own breakdown gives the cause: "
    "0.07 GiB non-torch memory where the plan charges 0.25, and a 1.06 GiB activation peak where the plan "
    "charges 1.16",
    "np21": "RedHatAI/Qwen3-8B-quantized.w4a16 on the same A10G at 16384 context (0.27.1): 101,920 tokens, 1.12 GiB more "
    "than the plan's cold start (safe side). Most likely a warm torch.compile cache (the study's bf16 and fp8 "
    "relaunches step up by the same ~1.0 GiB), but no earlier int4 start at this context length is "
    "documented, so it is not labelled warm",
    "np17": "Qwen3-8B with --quantization fp8 on an A10G (0.27.1, 16,384 context), a warm relaunch: 0.71 GiB over (the "
    "unsafe side); its cold start np16 is 0.50 over. On Ampere fp8 runs as Marlin weight-only: the repacked "
    "weights, their scales and Marlin's workspace are charged as half the bf16 linear weights, and the study "
    "logs no 'Model loading took' line to tell the load from the rest; not modelled",
    "np20": "the same fp8 configuration relaunched again (warm): 0.71 GiB over (unsafe side), as np17",
    "np22": "the same fp8 configuration again with an explicit fp16 KV cache (warm): 0.71 GiB over (unsafe side), as np17",
    "nm16": "Qwen3-32B over TP 2 on PCIe RTX PRO 6000 at utilization 0.426 (0.27.1): 2.3 GiB more KV cache logged "
    "than modelled (safe side); the one TP 2 log on these cards, so which term over-charges (the PCIe "
    "all-reduce buffers or the V2 runner's compile charge) is not separable from it",
}


def test_marlin_fp8_logs_carry_the_plans_note(log_cases):
    # The Marlin-fp8 starts the plan over-predicts (KNOWN_MISSES) are the ones whose plan says so in its notes.
    marlin = [c for c in _sized(log_cases) if any(n.startswith("fp8 weights on ") for n in c.plan.notes)]
    assert sorted(c.obs_id for c in marlin) == ["np16", "np17", "np20", "np22", "np23"]
    assert all(c.error > 0.3 for c in marlin)
    assert {c.obs_id for c in marlin if c.error > 0.5} <= set(KNOWN_MISSES)


def test_warm_compile_cache_logs(log_cases):
    # The starts that found an earlier start's torch.compile cache (WARM_COMPILE_CACHE, each with its
    # evidence) are sized without Model Runner V2's cold-compile charge (memory.py cold_compile_bytes) and
    # with the sampler pass V2 profiles (v2_profiled_sampler_bytes_per_logit), and land within 0.15 GiB;
    # sized as cold starts they are all more than 1.1 GiB under what they logged (the safe side), so the
    # label is what brings them in, and the cold figure of each is stated here.
    cases = {c.obs_id: c for c in _sized(log_cases)}
    rows = _rows_by_id()
    cold_errors = {}
    for obs in WARM_COMPILE_CACHE:
        c = cases[obs]
        assert c.args.compile_cache == "warm" and c.family == "0.20-0.33", obs
        assert abs(c.error) <= 0.15 or obs in KNOWN_MISSES, (obs, round(c.error, 2))
        cold = _case(rows[obs], cold_start=True)
        assert cold.args.compile_cache == "cold"
        cold_errors[obs] = round(cold.error, 2)
    # (The fp8 starts of the A10G study, np17, np20 and np22, sized cold are only 0.50 under: the plan sizes those Marlin-fp8
    # starts ~0.4 GiB high either way, cold np16 +0.50 and warm +0.36.)
    assert cold_errors == {
        "nm07": -1.28,
        "nm24": -1.15,
        "nm26": -1.27,
        "np05": -1.28,
        "np06": -1.28,
        "np09": -1.28,
        "np17": -0.5,
        "np19": -1.27,
        "np20": -0.5,
        "np22": -0.5,
        "nq01": -1.26,
        "nq03": -1.26,
        "nq04": -1.26,
        "nq05": -1.28,
        "np61": -0.98,
    }
    # One worker's cold and warm starts (nm23 run 0, nm24 run 1; Qwen3-8B, 0.27.1): the logs are 0.99 GiB apart,
    # the plan's two sizings 1.22 GiB (the compile stand-in, 0.86, and the full-feature sampler the cold
    # profile is charged, 0.36, above the default pass), and the warm one's activation is the 0.19 GiB
    # peak vLLM logged to within the allocator slack.
    logged = cases["nm24"].compared_kv_gib - cases["nm23"].compared_kv_gib
    planned = cases["nm24"].plan.kv_cache_gib - cases["nm23"].plan.kv_cache_gib
    assert cases["nm23"].args.compile_cache == "cold" and abs(logged - planned) <= 0.25, (logged, planned)
    assert cases["nm24"].plan.activation_gib == pytest.approx(0.19, abs=0.07)


# "Free memory on device (free/total GiB) on startup. Desired GPU memory utilization is (u, budget GiB).
# Actual usage is C GiB for consumed memory (weights + non-torch), A GiB for peak activation, and G GiB
# for CUDAGraph memory. ... Current kv cache memory in use is K GiB." (vllm/v1/worker/gpu_worker.py)
_BREAKDOWN = re.compile(
    r"Desired GPU memory utilization is \(([\d.]+), ([\d.]+) GiB\)\. Actual usage is ([\d.]+) GiB for consumed "
    r"memory \(weights \+ non-torch\), ([\d.]+) GiB for peak activation, and ([\d.]+) GiB for CUDAGraph memory"
)


def test_engine_breakdown_of_the_consumed_memory_logs():
    # Every 0.2x/0.3x log that prints the engine's own breakdown sized its KV cache as budget minus
    # consumed minus "peak activation", and that "peak activation" already holds the CUDA graph
    # estimate the runner subtracted: gpu_worker.py determine_available_memory sets
    # peak_activation_memory = transient_peak_headroom + cudagraph_memory_estimate_applied and
    # available = requested - non_kv_cache_memory - cudagraph_memory_estimate_applied (0.31.0 lines
    # 668-677, 0.33.0 lines 748-757). The "CUDAGraph memory" the same line reports is the pool
    # actually captured after the KV cache (capture_model's return): it is NOT subtracted a second
    # time. So the reserve is not visible on its own in these lines; memory.py charges it as
    # cuda_graph_gib, and a log's activation + reserve is compared with its "peak activation".
    seen = {}
    for r in _rows():
        m = _BREAKDOWN.search(r["evidence"])
        if not m:
            continue
        budget, consumed, activation, graphs = (float(m.group(i)) for i in (2, 3, 4, 5))
        kv = float(r["available_kv_gib"])
        assert kv == pytest.approx(budget - consumed - activation, abs=0.02), r["obs_id"]
        assert budget - consumed - activation - graphs < kv - 0.1 or graphs == 0.0, r["obs_id"]
        seen[r["obs_id"]] = graphs
    assert seen == {
        "fb06": 0.32,
        "fb07": 0.23,
        "is14": 0.22,
        "nl03": 0.0,
        "nm18": 0.0,
        "nm19": 0.37,
        "nm27": 0.58,
        "nm28": 0.52,
        "nm34": 0.23,
        "nm35": 1.2,
    }


def test_public_logs_within_the_bar(log_cases):
    sized = [c for c in _sized(log_cases) if c.compared_kv_gib is not None]
    assert len(sized) >= 60
    errors = sorted(abs(c.error) for c in sized)
    assert statistics.median(errors) <= 0.3
    worst = [(c.obs_id, round(c.error, 2)) for c in sized if abs(c.error) > 1.5 and c.obs_id not in KNOWN_MISSES]
    assert worst == []


def test_errors_lean_to_the_safe_side(log_cases):
    # Over-predicting the KV cache means an OOM at start-up: it may happen only by a little.
    over = [
        (c.obs_id, round(c.error, 2))
        for c in _sized(log_cases)
        if c.compared_kv_gib is not None and c.error > 0.5 and c.obs_id not in KNOWN_MISSES
    ]
    assert over == []


def test_fits_is_right_for_every_log_with_an_outcome(log_cases):
    judged = [c for c in _sized(log_cases) if c.started is not None]
    wrong = [(c.obs_id, c.plan.fits, c.started) for c in judged if c.plan.fits != c.started]
    assert len(judged) >= 60
    assert wrong == []
    # Every log that did not start and can be sized reaches this test.
    assert {c.obs_id for c in judged if c.started is False} == {
        "lb04",
        "lb06",
        "is05",
        "nm09",
        "nm15",
        "nv06",
        "nf01",
        "nf02",
    }


def _source(url: str) -> str:
    """The source a row's url names first: a GitHub repository, else the search-index file id (a study's logs share it)."""
    match = re.search(r"github\.com/([\w.-]+/[\w.-]+)", url) or re.search(r"\(([\w.-]+/[\w.-]+) ", url)
    if match:
        return match.group(1).lower()
    match = re.search(r"file ids? (\d+)", url)
    return match.group(1) if match else url


def _rows_by_id() -> dict[str, dict]:
    return {r["obs_id"]: r for r in _rows()}


def held_out_figures(cases) -> dict[str, dict]:
    """Per release family of the held-out logs: count, median and max |error| (GiB), verdicts right."""
    out: dict[str, dict] = {}
    for c in _sized(cases):
        if c.split != "holdout":
            continue
        f = out.setdefault(c.family, {"logs": 0, "errors": [], "verdicts": 0, "right": 0})
        f["logs"] += 1
        if c.compared_kv_gib is not None:
            f["errors"].append(abs(c.error))
        if c.started is not None:
            f["verdicts"] += 1
            f["right"] += c.plan.fits == c.started
    for f in out.values():
        errors = f.pop("errors")
        f["median_abs_error_gib"] = round(statistics.median(errors), 2) if errors else None
        f["max_abs_error_gib"] = round(max(errors), 2) if errors else None
    return out


def test_held_out_figures(log_cases):
    # docs/accuracy.md's table is this one (python -m pytest -s shows it).
    figures = held_out_figures(log_cases)
    print("\nheld-out logs per release family:", json.dumps(figures, indent=1, sort_keys=True))
    assert sum(f["logs"] for f in figures.values()) == 56
    assert all(f["right"] == f["verdicts"] for f in figures.values())
    fast = figures["0.17-0.19"]
    assert fast["median_abs_error_gib"] <= 0.3 and fast["max_abs_error_gib"] <= 1.0
    newest = [c for c in _sized(log_cases) if c.split == "holdout" and c.family == "0.20-0.33"]
    assert [c.obs_id for c in newest] == [
        "fb06",
        "fb07",
        "nl03",
        "nm01",
        "nm03",
        "nm07",
        "nm09",
        "nm11",
        "nm15",
        "nm17",
        "nm19",
        "nm21",
        "nm23",
        "nm25",
        "np01",
        "np03",
        "np05",
        "np07",
        "np09",
        "np11",
        "np13",
        "np15",
        "np17",
        "np19",
        "np21",
        "np23",
        "nv03",
        "nq01",
        "nq03",
        "nq05",
        "np25",
        "np27",
        "np29",
        "np31",
        "np33",
        "np35",
        "np37",
        "np41",
        "np43",
        "np53",
        "np55",
        "np57",
        "np59",
        "np61",
    ]
    # The bar for the releases the stacks deploy: median <= 0.3 GiB and max <= 1.0 GiB over the
    # held-out logs, every verdict right (asserted above). The median and the verdicts hold; the max does NOT,
    # by three logs, all in KNOWN_MISSES. Two are of one public A10G study (0.27.1): np11 (+1.49, the unsafe side:
    # an ablation start at --max-num-seqs 32 that logged 1 GiB less than the study's default start, cause not
    # found; the study's script of that date relaunched vLLM without the GPU-release wait it later added for "a
    # silently halved KV cache") and np21 (-1.12, the safe side, most likely a warm compile cache that the study
    # does not document, so not labelled). The third is of one public study on a 12 GB RTX 4080 Laptop under
    # WSL2/k3s (0.23.0): np25 (+3.22, the unsafe side: a restart whose only logged figure, 28.77x, is half the
    # concurrency every other start of its settings logged, cause not found; the study suspects the previous
    # pod's memory during a rolling update, unconfirmed). Over the other held-out logs the bar holds. The median
    # is helped by repetition: eleven held-out logs are that laptop study's starts at -0.14 or -0.23 GiB, most of
    # them one configuration (np24-np59). The figures are pinned so that a fix, or a new miss, fails here and the
    # docs/accuracy.md is updated with it. (Earlier exceptions left for causes read from the logs and the source, not
    # fitted: nm09, the vision encoder's profile on the largest dummy video of a 128K context, memory.py
    # vision_encoder_profile_bytes; nm07, a start on a warm torch.compile cache, WARM_COMPILE_CACHE and
    # test_warm_compile_cache_logs.)
    newest_figures = figures["0.20-0.33"]
    errors = {c.obs_id: c.error for c in newest if c.compared_kv_gib is not None}
    assert len(errors) == len(newest)
    beyond = sorted(obs for obs, error in errors.items() if abs(error) > 1.0)
    assert beyond == ["np11", "np21", "np25"] and all(obs in KNOWN_MISSES for obs in beyond)
    assert (newest_figures["median_abs_error_gib"], newest_figures["max_abs_error_gib"]) == (0.14, 3.22)
    rest = [abs(error) for obs, error in errors.items() if obs not in beyond]
    assert len(rest) == 41 and statistics.median(rest) <= 0.3 and max(rest) <= 1.0
    # Sized as cold starts, every one (no WARM_COMPILE_CACHE label), the same logs are further off: docs/accuracy.md
    # says so with these figures.
    cold = [abs(c.error) for c in (_case(r, cold_start=True) for r in _rows() if r["obs_id"] in errors)]
    cold_figures = f"median {statistics.median(cold):.2f} GiB, max {max(cold):.2f} GiB"
    assert cold_figures == "median 0.37 GiB, max 3.22 GiB"
    # One figure per source: a study that logged many starts (the laptop study's eleven held-out starts, the A10G
    # study's ten) weighs as one. The median over sources of each source's median error, pinned and quoted.
    by_source: dict[str, list[float]] = {}
    rows = _rows_by_id()
    for obs, error in errors.items():
        by_source.setdefault(_source(rows[obs]["url"]), []).append(abs(error))
    per_source = [statistics.median(v) for v in by_source.values()]
    source_figures = f"{len(by_source)} sources, median {statistics.median(per_source):.2f} GiB"
    assert source_figures == "16 sources, median 0.29 GiB"
    # docs/accuracy.md quotes these figures; they must be the test's.
    readme = (ROOT / "docs" / "accuracy.md").read_text()
    assert f"figures would be {cold_figures}" in " ".join(readme.split())
    assert f"logs give {source_figures}." in " ".join(readme.split())
    labels = {"0.17-0.19": "0.17-0.19", "0.20-0.33": "0.20-0.33", "0.8-0.16": "0.8-0.16", "unknown": "release not stated"}
    for family, f in figures.items():
        row = next(line for line in readme.splitlines() if line.startswith(f"| {labels[family]} | {f['logs']}"))
        assert (
            f"| {f['median_abs_error_gib']:.2f} GiB | {f['max_abs_error_gib']:.2f} GiB | {f['right']}/{f['verdicts']} |" in row
        ), row


# Logs of the llm-d-benchmark H100 study (release not stated; vLLM ~0.10-0.11 by the log format):
# fed through the command line exactly as the bar feeds a held-out log, config.json and all.
BAR_ROWS = ("lb01", "lb03", "lb04", "lb05", "lb06")


def _size_like_the_bar(row: dict, tmp_path: Path) -> dict:
    import json
    import subprocess
    import sys

    from components.capacity.model_catalog import MODELS
    from components.capacity.models import find_model as find
    from tests.conftest import ROOT

    model = find(SAME_ARCHITECTURE.get(row["hf_id"].lower(), row["hf_id"]))
    config = tmp_path / f"{row['obs_id']}.json"
    config.write_text(json.dumps(MODELS[model.id]["config"]))
    tp = _num(row["tensor_parallel_size"], int) or 1
    args = [
        "--model-config",
        str(config),
        "--weights-gib",
        f"{float(row['weights_gib']) * tp:.2f}",
        "--gpu-memory-gib",
        row["gpu_mem_total_gib"],
        "--gpu-memory-utilization",
        row["gpu_memory_utilization"],
        "--tensor-parallel-size",
        str(tp),
        "--max-model-len",
        row["max_model_len"],
        "--json",
        # The release is not stated: size says so (without the flag it sizes the release the stacks deploy).
        "--vllm-version",
        "unknown",
    ]
    proc = subprocess.run([sys.executable, "-m", "stacks", "size", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    out = json.loads(proc.stdout)
    assert proc.returncode == (0 if out["fits"] else 1), proc.stderr
    return out


def test_the_bars_own_invocation_on_logs_of_an_unstated_release(tmp_path):
    rows = [r for r in _rows() if r["obs_id"] in BAR_ROWS]
    assert len(rows) == len(BAR_ROWS)
    errors, verdicts = [], []
    for row in rows:
        out = _size_like_the_bar(row, tmp_path)
        if row["available_kv_gib"]:
            errors.append(out["kv_cache_gib"] - float(row["available_kv_gib"]))
        verdicts.append((row["obs_id"], out["fits"], row["started"] == "yes"))
    assert statistics.median(abs(e) for e in errors) <= 1.0, errors
    assert max(abs(e) for e in errors) <= 2.5, errors
    assert max(errors) <= 0.5, errors  # the safe side
    assert [v for v in verdicts if v[1] != v[2]] == []


@pytest.mark.parametrize("model", ["meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-20b", "Qwen/Qwen3-32B"])
@pytest.mark.parametrize("gpu,tp", [("H100", 1), ("H100", 4), ("L40S", 2), ("A10G", 1)])
def test_unknown_release_never_predicts_more_than_any_known_one(model, gpu, tp):
    m = find_model(model)
    plans = {
        version: plan_memory(
            m.arch,
            m.checkpoint_bytes,
            find_gpu(gpu),
            EngineArgs(tensor_parallel_size=tp, gpu_memory_utilization=0.9, max_model_len=4096, vllm_version=version),
        )
        for version in (None, "0.10.0", "0.19.0", "0.33.0")
    }
    unknown = plans.pop(None)
    # Never more than any known release (MXFP4 checkpoints take Marlin's larger load growth on top).
    assert unknown.kv_cache_gib <= min(p.kv_cache_gib for p in plans.values()) + 1e-9
    assert unknown.notes[0].startswith("vLLM release unknown: sized with the ")
