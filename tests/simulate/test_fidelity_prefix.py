"""benchmarks/fidelity.py's prefix cache across a source's runs: what a run finds cached when the source sent several
runs one after another to one vLLM server (the points' ``workload.runs_before``), kept block by block as vLLM 0.10.1.1
keeps it (PrefixLedger), and the engine's admission of a request with the prompt tokens found there."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
import simpy

from components.simulate.engine import Request
from tests.simulate.helpers import FixedStep, load_fidelity

ROOT = Path(__file__).resolve().parents[2]
fidelity = load_fidelity()
POINTS = {p["id"]: p for p in json.loads((ROOT / "benchmarks" / "data" / "fidelity_points.json").read_text())["points"]}
TP1 = "a10080gb-qwen25-32b-random1024-1024-n{}-dennislee22"
TP2 = "a10080gb-qwen25-32b-tp2-random1024x1024-n{}-dennislee22"


def test_the_ledger_evicts_never_used_blocks_first_then_the_least_recently_freed_a_requests_last_block_first():
    # vLLM 0.10.1.1 v1/core/kv_cache_utils.py FreeKVCacheBlockQueue 185-205 (block-id order at first, LRU front);
    # single_type_kv_cache_manager.py 162-166 frees a request's blocks last block first; block_pool.py get_new_blocks
    # takes the front; kv_cache_manager.py 145-153 finds full blocks, at most the prompt less one token.
    ledger = fidelity.PrefixLedger(num_blocks=8, block_size=16)
    ledger.alone(0, 48, 17)  # prompt 0: 3 blocks, then its answer fills a 4th; all four freed
    assert ledger.cached_prefix(0, 48) == 32 and ledger.cached_prefix(0, 49) == 48
    ledger.admit("x", 1, 64)  # 4 blocks: the 4 never used
    assert ledger.cached_prefix(0, 48) == 32
    ledger.admit("y", 2, 32)  # 2 blocks from the queue's front: the answer's block, then prompt 0's third
    assert ledger.cached_prefix(0, 49) == 32
    ledger.admit("z", 3, 16)  # prompt 0's second block
    assert ledger.cached_prefix(0, 48) == 16
    assert ledger.admit("w", 0, 48) == 16  # found and taken out of the queue: the next block taken is not it
    ledger.release("z")
    ledger.admit("v", 4, 16)
    assert ledger.cached_prefix(0, 48) == 16 and ledger.queries == 48 + 64 + 32 + 16 + 48 + 16 and ledger.hits == 16


# The cumulative "Prefix cache hit rate" each run's first log line prints (dennislee22/vLLM-benchmarking@b474d1e
# README.md, Test 7 and Test 6), on the runs that did not fill the KV cache, so every request was queried once.
LOGGED = [
    (TP1.format(10), "8.9"),  # '(APIServer pid=133) INFO 09-09 20:52:06 ... Prefix cache hit rate: 8.9%'
    (TP2.format(1), "49.2"),  # '(APIServer pid=126) INFO 09-07 00:41:06 ... Prefix cache hit rate: 49.2%'
    (TP2.format(10), "22.7"),  # '(APIServer pid=126) INFO 09-07 00:42:36 ... Prefix cache hit rate: 22.7%'
]


@pytest.mark.parametrize("pid,rate", LOGGED, ids=[p for p, _ in LOGGED])
def test_the_replayed_runs_give_the_prefix_cache_hit_rate_the_servers_logged(pid, rate):
    # vLLM's rate is the tokens found over the tokens queried at admission (v1/core/kv_cache_manager.py 155-158) since
    # the server started (up to 1,000 requests: kv_cache_utils.py PrefixCachingMetrics): the earlier runs' included.
    p = POINTS[pid]
    ledger = fidelity._server_ledger(p, 0)
    fidelity.simulate_point(p, ledger=ledger)
    assert f"{100 * ledger.hits / ledger.queries:.1f}" == rate


def test_a_run_after_one_the_cache_held_finds_its_prompts_and_holds_their_blocks():
    # Test 7's n50 run followed its n10 run on one server: the n10 run's prompts and answers fit the 2,483-block cache,
    # so prompts 0-9 (and the test run's prompt 0) are found whole: 63 of 64 blocks each.
    p = POINTS[TP1.format(50)]
    assert p["workload"]["runs_before"] == [10]
    first: dict = {}

    class Recording(fidelity.PrefixLedger):
        def admit(self, rid, k, prompt):
            hit = super().admit(rid, k, prompt)
            first.setdefault(rid, hit)
            return hit

    ledger = Recording.__new__(Recording)
    ledger.__dict__ = fidelity._server_ledger(p, 0).__dict__
    warm = fidelity.simulate_point(p, ledger=ledger)
    assert {rid for rid, hit in first.items() if hit} == {"test", *range(10)}
    assert all(first[k] == 1008 for k in range(10))
    cold = fidelity.simulate_point({**p, "workload": {**p["workload"], "runs_before": []}})
    assert warm["median_ttft_ms"] < 0.8 * cold["median_ttft_ms"]


def test_a_request_admitted_with_a_cached_prefix_computes_the_rest_and_holds_the_whole_prompt():
    # vLLM admits it with num_computed_tokens = the hit (v1/core/sched/scheduler.py 376-381): the cached blocks are
    # touched, not computed, and count against the free blocks (kv_cache_manager.py allocate_slots).
    rep = fidelity._traced_replica(simpy.Environment(), FixedStep(0.01), 8, 2048, 4096, lambda r: None)
    rep._prefix_hit = lambda r: 1008
    r = Request(0, 0.0, 1024, 4, True)
    rep._enqueue(r)
    chunks = rep._schedule(0)
    assert chunks == [(r, 16)] and r.cached == 1008 and rep.kv_tokens == 1008


def test_runs_before_chains_agree_across_the_points_of_one_server():
    # A point's runs_before is the earlier runs on its server process, oldest first; a point that is one of them
    # lists the runs before it the same way.
    stated = [p for p in POINTS.values() if "runs_before" in p["workload"]]
    assert len(stated) == 9
    by_server: dict = defaultdict(list)
    for p in stated:
        w = p["workload"]
        assert p["engine"]["prefix_caching"] and not w.get("chat_template") and w["runs_before_source"]
        by_server[(p["source"]["path"], p["tp"])].append(w)
    for runs in by_server.values():
        n = {w["num_prompts"]: w["runs_before"] for w in runs}
        for w in runs:
            for i, earlier in enumerate(w["runs_before"]):
                assert n.get(earlier, w["runs_before"][:i]) == w["runs_before"][:i]


def test_the_runs_excluded_for_an_impossible_ttft_replay_near_it_after_their_servers_earlier_runs():
    # Test 6's 20-prompt run (published median TTFT 288 ms, under the 1,050 ms the GPUs' peak needs for its prompts,
    # so not counted) came after the 1, 10, 50, 100 and 30-prompt runs on one server (all '(APIServer pid=126)'):
    # the 30-prompt run left all 20 prompts cached. Replayed so, it is as fast as published; cold it cannot be.
    p = POINTS[TP2.format(30)]
    n20 = {**p, "workload": {**p["workload"], "num_prompts": 20, "runs_before": [1, 10, 50, 100, 30]}}
    assert fidelity.simulate_point(n20)["median_ttft_ms"] < 288
    assert fidelity.simulate_point({**n20, "workload": {**n20["workload"], "runs_before": []}})["median_ttft_ms"] > 1050
