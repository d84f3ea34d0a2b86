"""benchmarks/fidelity.py's data and client model: every counted point meets the rules its data file states, the
benchmark has what issue 23 asks of it (>= 12 cited points, >= 3 GPU types and 3 models, half held out), and the
replayed client draws and spaces requests as `vllm bench serve` does."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from components.capacity.models import MODELS, find_model
from components.hardware import GPUS
from components.simulate.roofline import active_params
from tests.simulate.helpers import load_fidelity

ROOT = Path(__file__).resolve().parents[2]
fidelity = load_fidelity()
DATA = json.loads((ROOT / "benchmarks" / "data" / "fidelity_points.json").read_text())
POINTS = DATA["points"]


def _release(p: dict) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)\.(\d+)(\.\d+)*", p["release"])
    assert m, p["id"]
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("p", POINTS, ids=[p["id"] for p in POINTS])
def test_every_counted_point_meets_the_stated_rules(p):
    assert _release(p) >= (0, 8), "engine: a V1 release"
    gpu = GPUS.get(p["gpu"])
    assert gpu is not None and gpu.performance is not None, "gpu: in the hardware records with performance figures"
    if p["gpu"] == "H100":
        assert "SXM" in p.get("gpu_variant", "").upper(), "gpu: an H100 stated as SXM"
    assert p["model"] in MODELS
    w = p["workload"]
    assert w["kind"] == "bench" and w["dataset"] in ("random", "sharegpt"), "client: vllm bench serve's datasets"
    assert w["num_prompts"] >= 1 and (w["rate"] is None or w["rate"] > 0)
    assert ("input" in w and "output" in w) if w["dataset"] == "random" else ("mean_input" in w and "mean_output" in w)
    pub = p["published"]
    assert pub["req_per_s"] > 0 and pub["median_ttft_ms"] > 0, "figures: throughput and median TTFT"
    src = p["source"]
    assert (src.get("repository") and src.get("commit") and src.get("path")) or src.get("url"), "cited"
    assert p["split"] in ("calibration", "held-out")
    # figures: no faster than the GPUs' peak can compute the prompts ahead of the median request.
    perf = gpu.performance
    peak = (perf.fp8_tflops if p["engine"].get("quantization") == "fp8" and perf.fp8_tflops else perf.bf16_tflops) * 1e12
    burst = w["rate"] is None and not w.get("max_concurrency")
    prompt = w.get("input") or w["mean_input"]
    bound = (w["num_prompts"] / 2 if burst else 1) * prompt * 2 * active_params(find_model(p["model"]).arch)
    assert pub["median_ttft_ms"] / 1000 >= bound / (peak * p["tp"] * p.get("pp", 1))


def test_the_benchmark_has_what_issue_23_asks():
    assert len(POINTS) >= 12
    assert len({p["gpu"] for p in POINTS}) >= 3 and len({p["model"] for p in POINTS}) >= 3
    assert len({p["id"] for p in POINTS}) == len(POINTS)
    by_source: dict = defaultdict(list)
    for p in POINTS:
        by_source[p["source"].get("repository") or p["source"]["url"]].append(p)
    for source, ps in by_source.items():
        ordered = [p["split"] for p in sorted(ps, key=lambda p: p["id"])]
        assert ordered == ["calibration" if i % 2 == 0 else "held-out" for i in range(len(ps))], source


def test_earlier_and_excluded_candidates_say_why():
    assert DATA["earlier"] and all(p.get("excluded") for p in DATA["earlier"])
    assert all(c.get("rule") and c.get("where") for c in DATA["candidates_excluded"])
    rules = {r.split(":")[0] for r in DATA["rules"]}
    assert {"engine", "client", "gpu", "model", "replica", "figures", "variant", "split"} <= rules


def test_random_lengths_are_uniform_around_the_mean_as_vllm_draws_them():
    rng = np.random.default_rng(0)
    ins, outs = fidelity._bench_lengths(
        {"dataset": "random", "num_prompts": 2000, "input": 1000, "output": 100, "range_ratio": 0.5}, rng
    )
    assert ins.min() >= 500 and ins.max() <= 1500 and abs(ins.mean() - 1000) < 20
    fixed, _ = fidelity._bench_lengths({"dataset": "random", "num_prompts": 5, "input": 512, "output": 128}, rng)
    assert set(fixed) == {512}
    # Without --ignore-eos the answers averaged less than the cap: drawn to the published mean, capped.
    _, early = fidelity._bench_lengths(
        {"dataset": "random", "num_prompts": 4000, "input": 10, "output": 200, "mean_output": 80.0}, rng
    )
    assert early.max() <= 200 and abs(early.mean() - 80) < 4


def test_the_older_clients_range_ratio_bounds_lengths_below_the_mean():
    # perf-dashboard's benchmark_serving.py: "lower = int(seq_len * range_ratio); upper = seq_len" (lines 113-114),
    # so its --random-range-ratio 1.0 fixes every length, where vllm bench serve's rule would spread them over
    # [0, 2 x len] (and 0.11.0-0.15.1 refuse r = 1.0).
    rng = np.random.default_rng(0)
    w = {"dataset": "random", "num_prompts": 640, "input": 1024, "output": 1024, "range_ratio": 1.0, "range_rule": "below"}
    ins, outs = fidelity._bench_lengths(w, rng)
    assert set(ins) == {1024} and set(outs) == {1024}
    half, _ = fidelity._bench_lengths({**w, "range_ratio": 0.5, "num_prompts": 4000}, rng)
    assert half.min() >= 512 and half.max() <= 1024 and abs(half.mean() - 768) < 15
    around, _ = fidelity._bench_lengths({**w, "range_rule": "around"}, rng)
    assert around.max() > 1500  # the default rule: around the mean
    point = next(p for p in POINTS if p["id"] == "h200-gptoss-120b-random1k1k-c64-perfdashboard")
    n, pub = point["workload"]["num_prompts"], point["published"]
    assert pub["total_input_tokens"] == pub["total_generated_tokens"] == n * 1024  # the source's totals: fixed lengths
    assert point["workload"]["range_rule"] == "below"


def test_requests_are_spaced_as_vllm_bench_serve_spaces_them():
    rng = np.random.default_rng(0)
    assert not fidelity._bench_arrivals({"num_prompts": 10, "rate": None}, rng).any()
    t = fidelity._bench_arrivals({"num_prompts": 500, "rate": 10.0, "burstiness": 1.0}, rng)
    assert t[-1] == pytest.approx(50.0) and (np.diff(t) >= 0).all()
    smooth = fidelity._bench_arrivals({"num_prompts": 500, "rate": 10.0, "burstiness": 50.0}, rng)
    assert np.std(np.diff(smooth)) < np.std(np.diff(t)) / 3  # burstiness > 1: more even gaps


def test_the_warm_up_prompt_is_found_in_the_prefix_cache_but_its_last_token():
    assert fidelity._warm_prefix(1024) == 1008 and fidelity._warm_prefix(17) == 16 and fidelity._warm_prefix(16) == 0


def _first(kind: str) -> dict:
    return next(p for p in POINTS if fidelity.load_kind(p["workload"]) == kind and "gpustack" not in str(p["source"]))


@pytest.mark.parametrize("kind", ["paced", "limited", "burst"])
def test_a_point_of_each_load_replays_deterministically(kind):
    p = _first(kind) if kind != "limited" else next(p for p in POINTS if fidelity.load_kind(p["workload"]) == kind)
    a, b = fidelity.simulate_point(p), fidelity.simulate_point(p)
    assert a == b
    assert a["completed"] == a["sent"] and math.isfinite(a["req_per_s"]) and a["median_ttft_ms"] > 0


def test_gpustacks_points_record_the_greedy_sampling_their_client_sent():
    # vllm bench serve --backend openai-chat sends "temperature": 0.0 (0.11.0 endpoint_request_func.py 259-260), which
    # vLLM turns into greedy sampling (sampling_params.py 353-357): the sampler-cost model reads this field.
    gpustack = [p for p in POINTS if p["source"].get("repository") == "gpustack/gpustack"]
    assert gpustack and all(p["engine"]["sampling"].startswith("greedy") for p in gpustack)
    # from ~0.15 the client sends no temperature (0.15.1 benchmarks/serve.py 1635-1640): the server's sampling defaults apply
    assert all(
        p["engine"]["sampling"].startswith("sampled") == (_release(p) >= (0, 15)) for p in POINTS if p["release"] != "0.15.1"
    )


def test_a_run_whose_requests_partly_failed_replays_the_successful_ones():
    # qwen3-235b-a22b/h100.md: 'Successful requests: 984' and 'Peak concurrent requests: 984.00' for --num-prompts 1000.
    partial = [p for p in POINTS if p["published"].get("completed") == 984]
    assert len(partial) == 4 and all(p["workload"]["num_prompts"] == 984 for p in partial)


def test_sharegpt_pairs_are_kept_by_vllm_bench_serves_filter_at_the_published_means():
    # vLLM 0.11.0 benchmarks/datasets.py is_valid_sequence (254-278): prompt and output >= 4, prompt <= 1024,
    # prompt + output <= 2048; a failing pair is skipped, so an answer may run past 1024 after a short prompt.
    ins, outs = fidelity._sharegpt_pairs(1000, 217.39, 201.65, np.random.default_rng(0))
    assert len(ins) == len(outs) == 1000
    assert ins.min() >= 4 and outs.min() >= 4 and ins.max() <= 1024 and (ins + outs).max() <= 2048
    assert abs(ins.mean() - 217.39) < 0.5 and abs(outs.mean() - 201.65) < 0.5
    assert outs.max() > 1024
    w = {"dataset": "sharegpt", "num_prompts": 1000, "mean_input": 217.39, "mean_output": 201.65}
    a, b = fidelity._bench_lengths(w, np.random.default_rng(0))
    assert (a == ins).all() and (b == outs).all()


class _Recorder:
    def __init__(self):
        self.requests: list = []

    def submit(self, req):
        self.requests.append(req)


def test_the_chat_templates_tokens_reach_the_server_less_the_shared_blocks_the_prefix_cache_holds():
    # gpt-oss via harmony (vLLM 0.11.0 serving_chat.py 1575-1583): 66 shared tokens before the user's text (4 full
    # blocks: a cache hit after the client's test run) and 3 after it, so each request computes its text + 5.
    import simpy

    w = {"dataset": "random", "num_prompts": 3, "input": 128, "output": 4, "rate": None}
    w["chat_template"] = {"tokens": 69, "shared_prefix": 66}
    for warm, want in ((True, 128 + 69 - 64), (False, 128 + 69)):
        env, rep = simpy.Environment(), _Recorder()
        fidelity._drive_bench(env, rep, w, 40960, np.random.default_rng(0), {}, warm)
        env.run()
        assert [r.prompt for r in rep.requests[1:]] == [want, want]
    # the first prompt was sent whole by the test run: all its full blocks are cached
    assert rep.requests[0].prompt == 197 and fidelity._shared_prefix_hit(66) == 64 and fidelity._shared_prefix_hit(3) == 0
    chat = [p for p in POINTS if p["source"].get("repository") in ("gpustack/gpustack", "Alberto-Codes/turboquant-vllm")]
    assert chat and all(p["workload"]["chat_template"]["tokens"] > p["workload"]["chat_template"]["shared_prefix"] for p in chat)


def test_sharegpt_points_draw_whole_pairs_from_their_tokenizers_pool_at_the_published_means():
    pools = json.loads((ROOT / "benchmarks" / "data" / "sharegpt_pairs.json").read_text())["pools"]
    for name, pairs in pools.items():
        a = np.array(pairs)
        # vLLM 0.11.0 is_valid_sequence kept every pair (benchmarks/datasets.py 254-278)
        assert len(a) == 4000 and a.min() >= 4 and a[:, 0].max() <= 1024 and a.sum(axis=1).max() <= 2048, name
    sharegpt = [p for p in POINTS if p["workload"]["dataset"] == "sharegpt"]
    assert sharegpt and all(p["workload"]["length_pool"] in pools for p in sharegpt)
    w = {"dataset": "sharegpt", "num_prompts": 1000, "mean_input": 217.39, "mean_output": 201.65, "length_pool": "qwen3"}
    ins, outs = fidelity._bench_lengths(w, np.random.default_rng(0))
    assert abs(ins.mean() - 217.39) < 0.5 and abs(outs.mean() - 201.65) < 0.5
    # the drawn pairs are the pool's pairs, scaled: a long prompt keeps its own answer
    a = np.array(pools["qwen3"])
    k = np.random.default_rng(0).choice(len(a), 1000, replace=False)
    assert np.corrcoef(ins, a[k, 0])[0, 1] > 0.999 and np.corrcoef(outs, a[k, 1])[0, 1] > 0.999


def test_every_point_states_its_async_scheduling_and_cuda_graph_limit():
    # off by default through 0.11 (config/scheduler.py 'async_scheduling: bool = False'), on by default from 0.15
    for p in POINTS:
        e = p["engine"]
        assert isinstance(e["async_scheduling"], bool) and e["async_scheduling_source"], p["id"]
        if _release(p) >= (0, 15):
            assert e["async_scheduling"], p["id"]
        # the largest batch a CUDA graph covers: none under --enforce-eager, else the release's rule or the source's flag
        assert (e["cuda_graph_max_batch"] == 0) == bool(e.get("enforce_eager")) and e["cuda_graph_max_batch_source"], p["id"]
