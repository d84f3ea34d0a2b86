"""What benchmarks/engine_core_cost.py measured of vLLM 0.11.0's V1 engine core on the host
(benchmarks/data/engine_core_cost-0.11.0.json), and what the simulator's host-work constants
(components/simulate/roofline.py PER_SEQ_OVERHEAD_S and STEP_OVERHEAD_S, engine.py FRONTEND_SECONDS) say about it:
the measurement is evidence read by these tests, not by the simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components.simulate import engine, roofline
from tests.simulate.helpers import load_benchmark

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "benchmarks" / "data" / "engine_core_cost-0.11.0.json").read_text())


COST = load_benchmark("engine_core_cost")
SUMMARY = COST.summary(DATA)


def test_the_file_is_the_release_with_every_piece_the_script_times():
    assert DATA["vllm"] == "0.11.0"
    assert set(DATA["add"]) == {"128", "200"}
    for row in DATA["add"].values():
        assert set(row) == {"decode", "preprocess", "enqueue"}
    assert sorted(r["batch"] for r in DATA["decode_steps"]) == list(COST.BATCHES)
    for row in DATA["decode_steps"]:
        assert set(row) >= {"schedule", "update", "encode", "broadcast"}
    assert sorted(r["batch"] for r in DATA["runner_steps"]) == list(COST.BATCHES)
    for row in DATA["runner_steps"]:
        assert set(row) >= {"update_states", "prepare_inputs", "bookkeeping"}
    got = {(b["name"], b["requests"], b["prompt"], b["output"], b["limits"]) for b in DATA["bursts"]}
    assert got == {(*s, lim[0]) for s in COST.BURSTS for lim in COST.LIMITS}
    # The stored summary is what summary() computes from the pieces.
    assert DATA["summary"] == SUMMARY


def test_the_burst_limits_are_vllm_0110s_gpu_defaults():
    """engine/arg_utils.py 1605-1624 at 0.11.0: the API server's defaults on a GPU of 70 GiB or more but an A100
    (8,192 batched tokens, 1,024 sequences) and on the others (2,048 and 256)."""
    assert dict((n, (t, s)) for n, t, s in COST.LIMITS) == {"h100": (8192, 1024), "a100": (2048, 256)}
    for b in DATA["bursts"]:
        # 1,000 requests in steps of at most max_num_seqs requests and max_num_batched_tokens tokens: at least this many.
        tokens = b["requests"] * (b["prompt"] + b["output"] - 1)
        assert b["steps"] >= max(tokens / b["max_num_batched_tokens"], b["output"])


def test_summary_adds_the_pieces():
    """summary() on made-up pieces."""
    rows = [{"batch": b, "schedule": 60 + 3 * b, "update": 30 + 2 * b, "encode": 10.0, "broadcast": 0.5 * b} for b in (1, 10)]
    data = {
        "add": {"128": {"decode": 1.0, "preprocess": 2.0, "enqueue": 0.5}},
        "decode_steps": rows[::-1],
        "runner_steps": [{"batch": b, "update_states": 1.0, "prepare_inputs": 2.0, "bookkeeping": b} for b in (1, 10)],
        "bursts": [{"name": "x", "limits": "h100", "add": {"a": 1.0}, "loop": {"schedule": 2.0, "update": 3.0, "encode": 4.0}}],
    }
    s = COST.summary(data)
    assert s["step"] == {"1": 105, "10": 150} and s["step_per_request"] == {"1": 105, "10": 15}
    assert s["broadcast_per_request"] == pytest.approx(0.5)
    assert s["runner_step"] == {"1": 4, "10": 13} and s["host_step_per_request"] == {"1": 109, "10": 16.3}
    assert s["add_per_request"] == {"128": 3.5} and s["burst_per_request"] == {"x/h100": 10.0}


def test_the_host_work_of_a_step_is_per_request_not_fixed():
    """schedule() and update_from_output() (scheduler.py 179-627, 861-1042) and the model runner's _update_states,
    _prepare_inputs and _bookkeeping_sync (gpu_model_runner.py 526, 923, 2094) are loops over the running requests: a
    step's host work grows with the batch at 13-15 us a request here, of which the engine core's is 7-8, and a step
    of one request costs about 0.2 ms. STEP_OVERHEAD_S (2 ms a step, calibrated) is ten times that fixed part: it is
    not host work (roofline.step_host_seconds says the same of GPUStack's --async-scheduling A/B runs).
    PER_SEQ_OVERHEAD_S (20 us a request, fixed by those runs) is of the measured per-request work's order: 1.3-1.5x it
    on this machine, 2.2-2.6x on hosts 1.7x faster."""
    steps = [SUMMARY["step"][str(b)] for b in COST.BATCHES]
    runner = [SUMMARY["runner_step"][str(b)] for b in COST.BATCHES]
    assert steps == sorted(steps) and runner == sorted(runner)
    assert steps[0] + runner[0] < 0.15 * roofline.STEP_OVERHEAD_S * 1e6  # one running request
    per_seq = roofline.PER_SEQ_OVERHEAD_S * 1e6
    for batch in COST.BATCHES[1:]:
        assert 2 < SUMMARY["step_per_request"][str(batch)] < 0.5 * per_seq
        assert 0.5 * per_seq < SUMMARY["host_step_per_request"][str(batch)] < per_seq
    # A one-GPU engine has no broadcast; a multi-GPU executor's pickling adds well under a microsecond a request.
    assert SUMMARY["broadcast_per_request"] < 1


def test_the_engine_core_spends_microseconds_on_a_request_not_the_fitted_milliseconds():
    """The add path (msgpack decode, Request with its sha256 block hashes, the waiting queue) costs tens of
    microseconds a request, and a whole 1,000-request random128-4 burst, add path and every step until the last
    answer, about 0.1 ms a request: FRONTEND_SECONDS (8 ms, fitted) is not engine-core work per request either."""
    assert all(v < 100 for v in SUMMARY["add_per_request"].values())
    assert SUMMARY["add_per_request"]["200"] > SUMMARY["add_per_request"]["128"]  # hashing grows with the prompt
    for key in ("random128-4/h100", "random128-4/a100"):
        assert SUMMARY["burst_per_request"][key] < 0.02 * engine.FRONTEND_SECONDS * 1e6
