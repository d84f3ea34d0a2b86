"""Fidelity of the simulator's replica model against published vLLM load points.

    python benchmarks/fidelity.py [--calibrate] [--json] [--explain] [--closed-outputs fixed] [--scheduler-v0]

benchmarks/data/fidelity_points.json holds published vLLM serving benchmarks (`vllm bench serve` /
`benchmark_serving.py`): a GPU, a model, an engine configuration and the workload the client sent (the random or
ShareGPT dataset's lengths, requests at a rate with a burstiness, at most N in flight, or all at once), with the
request throughput, median TTFT and TPOT it measured; each cites its source (repository, commit and path, or URL).
Its ``points`` are counted: each meets the file's ``rules`` (a V1 release, a documented client, a stated GPU in the
hardware records, a catalogue model, one TP x PP replica, a physically possible TTFT); ``earlier`` are the points an
earlier calibration used (V0 releases or an undocumented client), replayed and printed but not counted;
``candidates_excluded`` is every other candidate examined, with the rule it failed. Each point runs through one
simulated replica (components/simulate/engine.py on the roofline of components/simulate/roofline.py, sized by the
capacity plan's memory model for the release the point ran, unless the source logs its KV cache; a point whose workload
states ``runs_before`` starts from the prefix cache its server's earlier runs left: PrefixLedger); the script prints
the relative errors, the calibration and held-out halves apart, and by how the load was offered.

Target (issue 23): median error <= 15% and every point <= 30% on throughput and median TTFT.

``--calibrate`` runs a coordinate descent of the constants (CONSTANTS: the roofline's HBM, dense and MoE FLOP
efficiencies, step overhead and per-request overhead; the API server's time per request and per streamed token) on the
calibration half of the counted points only, and prints the best; the constants committed in roofline.py and engine.py
are what the plain run uses.

Diagnostics (docs/simulate.md "Fidelity"): ``--explain`` splits each point's simulated median TTFT into API server,
queue and prefill beside the published figure; ``--closed-outputs fixed`` gives every closed-loop answer of the
earlier points the published mean length (their source gives no distribution); ``--scheduler-v0`` replays the earlier
points whose release ran V0 without chunked prefill (``engine.scheduler`` ``prefill-first``) with that scheduler.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
import json
import math
import statistics
import sys
import textwrap
from collections import OrderedDict
from pathlib import Path
from typing import Optional

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POINTS = ROOT / "benchmarks" / "data" / "fidelity_points.json"
SHAREGPT_PAIRS = ROOT / "benchmarks" / "data" / "sharegpt_pairs.json"
# The API server's time per request of the V0-era runs (vLLM before 0.8: the API server and the engine shared one
# process; the earlier points, which carry no "release"): the value the calibration on those points chose. V1 releases
# run the API server in a process of its own; their time is components/simulate/engine.py FRONTEND_SECONDS.
V0_FRONTEND_SECONDS = 0.012
TARGET_MEDIAN, TARGET_MAX = 0.15, 0.30


class NoKvCache(ValueError):
    """The capacity plan says the point's replica would not start, so it cannot be replayed."""


def _replica_roofline(p: dict):
    """The point's replica: its roofline and KV cache tokens (the logged figure where the source gives one, else the
    capacity plan's, for the release the point ran when it is known)."""
    from components.capacity.gpus import find_gpu
    from components.capacity.memory import EngineArgs, plan_memory
    from components.capacity.models import find_model
    from components.simulate.roofline import roofline_for

    model = find_model(p["model"])
    gpu = find_gpu(p["gpu"])
    e = p["engine"]
    pp = p.get("pp", 1)
    args = EngineArgs(
        tensor_parallel_size=p["tp"],
        pipeline_parallel_size=pp,
        gpu_memory_utilization=e.get("gpu_memory_utilization", 0.9),  # the key absent (earlier points): 0.9
        max_model_len=e["max_model_len"],
        max_num_seqs=e["max_num_seqs"],
        max_num_batched_tokens=e["max_num_batched_tokens"],
        quantization=e.get("quantization"),
        vllm_version=p.get("release"),
        flashinfer_sampler=e.get("flashinfer_sampler"),
    )
    mem = plan_memory(model.arch, model.checkpoint_bytes, gpu, args)
    kv_tokens = e["kv_tokens"] or mem.kv_cache_tokens
    if not e["kv_tokens"] and not mem.fits:
        raise NoKvCache(f"the capacity plan says this replica would not start ({mem.reason}); the source ran it")
    fp8 = e.get("quantization") == "fp8"
    # A point's pre-quantized FP8 checkpoint of a catalogue model's architecture (Qwen3's -FP8) says in its notes
    # whether it is block-scaled; the catalogue's own FP8 models say so in config.json (weight_block_size).
    block = True if "block-FP8" in str(e.get("checkpoint", "")) else None
    # engine.tp_link: the link the source's ranks used where it is not the GPU's own (roofline ALLREDUCE_LATENCY_S).
    roof = roofline_for(
        model.arch,
        gpu.name,
        mem.weights_gib * 2**30,
        mem.kv_bytes_per_token,
        p["tp"],
        pp,
        fp8=fp8,
        fp8_block_scaled=block,
        link=e.get("tp_link"),
    )
    # engine.sampling: whether the client's requests sampled (top-k/top-p) or decoded greedily (roofline.logits_seconds).
    roof = dataclasses.replace(roof, sampled=str(e.get("sampling") or "").startswith("sampled"))
    return roof, kv_tokens, (mem.max_num_seqs, mem.max_num_batched_tokens, mem.max_model_len)


def _sharegpt_lengths(n: int, mean: float, rng: np.random.Generator, sigma: float = 1.0, cap: int = 1024) -> np.ndarray:
    """Log-normal lengths in [4, cap] whose mean is ``mean`` (ShareGPT's shape after benchmark_serving's filters)."""
    raw = np.exp(rng.normal(0.0, sigma, n))
    scale = mean / np.mean(raw)
    for _ in range(20):  # clipping lowers the mean: rescale until it matches
        lens = np.clip(np.rint(raw * scale), 4, cap)
        scale *= mean / max(1.0, float(np.mean(lens)))
    return np.clip(np.rint(raw * scale), 4, cap).astype(int)


def _sharegpt_pairs(
    n: int, mean_in: float, mean_out: float, rng: np.random.Generator, sigma: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Prompt and output lengths of n ShareGPT conversations as vllm bench serve keeps them: a pair is skipped, not
    clipped, unless prompt >= 4, output >= 4, prompt <= 1024 and prompt + output <= 2048 (vLLM 0.11.0
    benchmarks/datasets.py is_valid_sequence, lines 254-278, called by ShareGPTDataset.sample, 981-985; the same rules
    "copied from the original sample_sharegpt_requests"). The kept pairs have the published means: each side is
    log-normal (the shape is an assumption: the run's per-request lengths are not published), scaled until the kept
    pairs' means match."""
    raw = np.exp(rng.normal(0.0, sigma, (2, 8 * n + 64)))
    scale = np.array([mean_in, mean_out]) / raw.mean(axis=1)
    for _ in range(40):
        ins, outs = np.rint(raw[0] * scale[0]), np.rint(raw[1] * scale[1])
        keep = (ins >= 4) & (outs >= 4) & (ins <= 1024) & (ins + outs <= 2048)
        ins, outs = ins[keep][:n], outs[keep][:n]
        scale *= np.array([mean_in / max(1.0, ins.mean()), mean_out / max(1.0, outs.mean())])
    return ins.astype(int), outs.astype(int)


@functools.cache
def _sharegpt_pool(pool: str) -> np.ndarray:
    return np.array(json.loads(SHAREGPT_PAIRS.read_text())["pools"][pool])


def _sharegpt_pool_lengths(
    n: int, pool: str, mean_in: float, mean_out: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Prompt and output lengths of n ShareGPT conversations drawn from the kept pairs of benchmarks/data/sharegpt_pairs.json
    (``pool``: the model family's tokenizer; its description says how they were counted), each pair whole, so the
    lengths keep the dataset's spread and their correlation; then each side is scaled to the published mean (the run's
    own 1,000 conversations differ from the pool's by a few percent, and answers that stopped early lower the mean)."""
    pairs = _sharegpt_pool(pool)
    pick = pairs[rng.choice(len(pairs), n, replace=n > len(pairs))]
    ins = np.maximum(1, np.rint(pick[:, 0] * mean_in / pick[:, 0].mean()))
    outs = np.maximum(1, np.rint(pick[:, 1] * mean_out / pick[:, 1].mean()))
    return ins.astype(int), outs.astype(int)


def _traced_replica(env, roof, seqs: int, tokens: int, kv_tokens: int, on_done, ledger=None):
    """One replica that also records when each request reached the scheduler and when it was first scheduled.

    A subclass of the engine's Replica that only observes (the engine's own code decides everything), so the
    figures are the plain run's; the times split the simulated TTFT into API server, queue and prefill. Given a
    ``ledger`` (PrefixLedger: the server's prefix cache across the source's runs), it also tells the ledger every
    admission, growth and release of blocks, and admits each request with the prompt tokens the ledger finds cached
    (a preempted request is admitted again with what the engine's own rule finds of its blocks: kv_refound.py).
    """
    from components.simulate.engine import Replica, blocks_for

    class Traced(Replica):
        def __init__(self, *args, **kwargs):
            self.enqueued: dict = {}
            self.admitted: dict = {}
            self.ledger: Optional[PrefixLedger] = ledger
            super().__init__(*args, **kwargs)

        def _prefix_hit(self, r):
            if self.ledger is None or r.preemptions:
                return super()._prefix_hit(r)
            return self.ledger.cached_prefix(r.id, r.prompt)

        def _admitted(self, r, hit):
            if self.ledger is not None:
                self._grow_all()
                self.ledger.admit(r.id, r.id, r.prompt)
            super()._admitted(r, hit)

        def _remove(self, r):
            if self.ledger is not None and r in self.running:
                self._grow_all()
                self.ledger.release(r.id)
            super()._remove(r)

        def _prefilled(self, r):
            super()._prefilled(r)
            if self.ledger is not None and r.replica is None:  # it ended at its first token
                self.ledger.release(r.id)

        def _grow_all(self):
            """The blocks the running requests' answers have filled so far come out of the ledger's queue."""
            for q in self.running:
                self.ledger.grow(q.id, blocks_for(self._ctx(q), self.bs))

        def _enqueue(self, req):
            self.enqueued.setdefault(req.id, self.env.now)
            super()._enqueue(req)

        def _schedule(self, n_dec):
            return self._note(super()._schedule(n_dec))

        def _schedule_prompts(self):
            return self._note(super()._schedule_prompts())

        def _note(self, chunks):
            for r, _ in chunks:
                self.admitted.setdefault(r.id, self.env.now)
            return chunks

    return Traced(env, 1, roof, seqs, tokens, kv_tokens // 16, 16, None, lambda r: None, on_done)


class PrefixLedger:
    """vLLM's prefix cache on one server, block by block, across the runs a source sent to it one after another.

    As vLLM 0.10.1.1 (the server of the runs that state ``runs_before``) keeps it: the free blocks form one queue,
    "ordered by block ID in the beginning", "the least recent used block is at the front" (v1/core/kv_cache_utils.py
    ``FreeKVCacheBlockQueue`` 185-205); a new block is taken from the front and what it cached is evicted
    (v1/core/block_pool.py ``get_new_blocks``, ``_maybe_evict_cached_block``); a finished or preempted request's
    blocks go to the back, its last block first ("Free blocks in reverse order so that the tail blocks are freed
    first", v1/core/single_type_kv_cache_manager.py ``free`` 152-166); an admitted request finds its prompt's leading
    full blocks while they are cached, at most the prompt less one token, and takes them out of the queue
    (kv_cache_manager.py ``get_computed_blocks`` 145-158, block_pool.py ``touch``). A prompt's blocks are named by
    its index in the dataset: the random dataset's prompt i is the same whatever --num-prompts is (RandomDataset,
    see the points' ``runs_before_source``). Blocks that never held anything are at the front; they are counted.
    ``queries`` and ``hits`` are the tokens vLLM's logged "Prefix cache hit rate" divides (the same lines)."""

    def __init__(self, num_blocks: int, block_size: int = 16):
        self.bs = block_size
        self.never_used = num_blocks
        self.queue: OrderedDict = OrderedDict()  # free blocks that held something, least recently freed first
        self.refs: dict = {}  # every block that holds something: the requests using it (0: it is in the queue)
        self.held: dict = {}  # request id: its blocks in order
        self.queries = self.hits = 0
        self._anon = itertools.count()

    def cached_prefix(self, k: int, prompt: int) -> int:
        """Tokens of prompt ``k`` (``prompt`` tokens) found cached: its leading full blocks, never the last token."""
        n = 0
        while n < (prompt - 1) // self.bs and ("p", k, n) in self.refs:
            n += 1
        return n * self.bs

    def _take(self, n: int) -> list:
        """Up to ``n`` new blocks from the queue's front (never-used blocks first), evicting what they cached; fewer
        when every block is in use (the engine counts its cache in tokens: a request takes the rest later)."""
        fresh = min(max(n, 0), self.never_used)
        self.never_used -= fresh
        evicted = min(n - fresh, len(self.queue)) if n > fresh else 0
        for _ in range(evicted):
            del self.refs[self.queue.popitem(last=False)[0]]
        return [("a", next(self._anon)) for _ in range(fresh + evicted)]

    def admit(self, rid, k: int, prompt: int) -> int:
        """Request ``rid`` of prompt ``k`` is admitted: it touches the cached prefix, takes blocks for the rest of its
        prompt (whose full blocks then hold prompt ``k``'s); returns the tokens found cached."""
        hit = self.cached_prefix(k, prompt)
        self.queries += prompt
        self.hits += hit
        blocks = [("p", k, b) for b in range(hit // self.bs)]
        for key in blocks:
            if self.refs[key] == 0:
                del self.queue[key]
            self.refs[key] += 1
        new = self._take(-(-prompt // self.bs) - len(blocks))
        for b, anon in enumerate(new, start=len(blocks)):
            key = ("p", k, b) if b < prompt // self.bs and ("p", k, b) not in self.refs else anon
            self.refs[key] = 1
            blocks.append(key)
        self.held[rid] = blocks
        return hit

    def grow(self, rid, blocks: int) -> None:
        """Request ``rid`` now fills ``blocks`` blocks: the new ones (its answer's) come from the queue's front."""
        have = self.held[rid]
        for key in self._take(blocks - len(have)):
            self.refs[key] = 1
            have.append(key)

    def release(self, rid) -> None:
        """Request ``rid`` ended or was preempted: its blocks go to the queue's back, its last block first."""
        for key in reversed(self.held.pop(rid)):
            self.refs[key] -= 1
            if self.refs[key] == 0:
                self.queue[key] = None

    def alone(self, k: int, prompt: int, output: int) -> None:
        """A request of prompt ``k`` runs alone to its end (the client's test run before its measured run)."""
        self.admit("test", k, prompt)
        self.grow("test", -(-(prompt + output - 1) // self.bs))
        self.release("test")


def _server_ledger(p: dict, seed: int) -> Optional[PrefixLedger]:
    """The prefix cache the point's run found on its server: None unless the workload states ``runs_before`` (the
    earlier runs on the same server process, oldest first, by ``--num-prompts``: the source's logs give their order).
    Each earlier run is replayed on the same ledger, its client's test run first, so what it left cached, as far
    as the KV cache held it under vLLM's LRU eviction, is what the measured run starts from."""
    runs = p["workload"].get("runs_before")
    if runs is None or not p["engine"].get("prefix_caching"):
        return None
    _, kv_tokens, _ = _replica_roofline(p)
    ledger = PrefixLedger(kv_tokens // 16)
    for n in runs:
        simulate_point({**p, "workload": {**p["workload"], "num_prompts": n, "runs_before": None}}, seed, ledger=ledger)
    return ledger


def _closed_outputs(w: dict, rng: np.random.Generator, mode: str) -> np.ndarray:
    """Output lengths of a closed-loop run whose source gives only their mean (EOS ends answers before the cap).

    ``exponential`` (the default): exponential, clipped at the cap and rescaled to the mean; ``fixed``: every
    answer at the mean, the other extreme, where clients that started together finish together.
    """
    n, mean_out = w["num_prompts"], w["mean_output"]
    if mode == "fixed":
        return np.full(n, int(round(mean_out)))
    outs = np.clip(np.rint(rng.exponential(mean_out, n)), 1, 128).astype(int) if mean_out < 128 else np.full(n, 128)
    return np.clip(np.rint(outs * mean_out / max(1.0, outs.mean())), 1, 128).astype(int)


def _drive(env, rep, p: dict, rng: np.random.Generator, waiters: dict, closed_outputs: str) -> int:
    """Start the point's workload against ``rep``; returns the number of requests it sends."""
    from components.simulate.engine import Request

    w, limit = p["workload"], p["engine"]["max_model_len"]
    if w["kind"] == "bench":
        return _drive_bench(env, rep, w, limit, rng, waiters, p["engine"].get("prefix_caching", False))
    if w["kind"] == "lens":  # recorded lengths, all sent at once (request rate inf)
        pairs = [(i, o) for i, o in zip(w["input_lens"], w["output_lens"]) if o > 0]
        for k, (i, o) in enumerate(pairs):
            rep.submit(Request(k, 0.0, i, o, True))
        return len(pairs)
    n = w["num_prompts"]
    if w["kind"] == "sharegpt":  # Poisson at a rate
        ins = _sharegpt_lengths(n, w["mean_input"], rng)
        outs = _sharegpt_lengths(n, w["mean_output"], rng)
        gaps = rng.exponential(1.0 / w["rate"], n)

        def arrivals():
            for k in range(n):
                yield env.timeout(float(gaps[k]))
                i = int(min(ins[k], limit - 1))
                rep.submit(Request(k, env.now, i, int(max(1, min(outs[k], limit - i))), True))

        env.process(arrivals())
        return n
    # closed loop: C clients, each sends its next request when the last one ends
    outs = _closed_outputs(w, rng, closed_outputs)
    todo = iter(range(n))

    def client():
        for k in todo:
            ev = env.event()
            waiters[k] = ev
            rep.submit(Request(k, env.now, w["input"], int(outs[k]), True))
            yield ev

    for _ in range(w["concurrency"]):
        env.process(client())
    return n


# How --random-range-ratio r bounds the random dataset's lengths, by the client a point ran.
RANGE_RULES = {
    # vllm bench serve (vllm/benchmarks/datasets.py RandomDataset.get_sampling_params; 0.11.0 lines 488-491, 0.15.1
    # lines 593-596): "input_low = math.floor(real_input_len * (1 - range_ratio))", high "* (1 + range_ratio)",
    # and "if not (0.0 <= range_ratio < 1.0): raise ValueError" -- so r = 1.0 cannot run under it.
    "around": "[len x (1 - r), len x (1 + r)]",
    # benchmark_serving.py as vllm-project/perf-dashboard@5533cde benchmark/lib/benchmark_serving.py carries it,
    # sample_random_requests lines 112-115: "lower = int(seq_len * range_ratio); upper = seq_len;
    # np.random.randint(lower, upper+1, ...)" -- r = 1.0 fixes every length.
    "below": "[len x r, len]",
}


def _bench_lengths(w: dict, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Prompt and output lengths as `vllm bench serve` draws them.

    random: integers uniform in [len x (1 - r), len x (1 + r)] (vLLM 0.33.0 benchmarks/datasets/datasets.py
    RandomDataset: "Sample input/output token lengths per request from integer-uniform ranges around configured
    means (controlled by range_ratio)"; the same rule, with r < 1 enforced, in 0.11.0 datasets.py 482-491 and 0.15.1
    datasets.py 587-596), or, for a point whose workload says ``"range_rule": "below"``, in [len x r, len] (the older
    benchmark_serving.py copy some sources run: RANGE_RULES); without --ignore-eos an answer may end before its cap, so where the source's
    generated-token total says the answers averaged less, they are drawn as the closed-loop points' are (exponential,
    clipped at the cap, rescaled to the published mean). sharegpt: pairs from the model family's pool
    (_sharegpt_pool_lengths) where the point names one, else _sharegpt_pairs; both at the published means.
    """
    n = w["num_prompts"]
    if w["dataset"] == "sharegpt":
        if w.get("length_pool"):
            return _sharegpt_pool_lengths(n, w["length_pool"], w["mean_input"], w["mean_output"], rng)
        return _sharegpt_pairs(n, w["mean_input"], w["mean_output"], rng)
    r = w.get("range_ratio") or 0.0
    below = w.get("range_rule") == "below"  # the older client: [len x r, len] (see RANGE_RULES)

    def uniform(mean: int) -> np.ndarray:
        lo, hi = (int(mean * r), mean) if below else (int(mean * (1 - r)), int(mean * (1 + r)))
        lo, hi = max(1, lo), max(1, hi)
        return rng.integers(lo, hi + 1, n) if hi > lo else np.full(n, mean)

    ins, outs = uniform(w["input"]), uniform(w["output"])
    mean_out = w.get("mean_output")
    if mean_out and mean_out < 0.98 * outs.mean():
        cap = int(outs.max())
        draw = np.clip(np.rint(rng.exponential(mean_out, n)), 1, cap)
        outs = np.clip(np.rint(draw * mean_out / max(1.0, draw.mean())), 1, cap).astype(int)
    return ins.astype(int), outs.astype(int)


def _bench_arrivals(w: dict, rng: np.random.Generator) -> np.ndarray:
    """Send times as `vllm bench serve` spaces them (vLLM 0.33.0 benchmarks/serve.py get_request): all at 0 at
    request rate inf; else gamma(burstiness, 1 / (rate x burstiness)) gaps (Poisson at burstiness 1), summed and
    rescaled so the last is sent at num_prompts / rate."""
    n, rate = w["num_prompts"], w.get("rate")
    if rate is None:
        return np.zeros(n)
    b = w.get("burstiness") or 1.0
    t = np.cumsum(rng.gamma(b, 1.0 / (rate * b), n))
    return t * (n / rate) / t[-1]


def _drive_bench(env, rep, w: dict, limit: int, rng: np.random.Generator, waiters: dict, warm: bool) -> int:
    """A `vllm bench serve` run: requests sent at their times, at most --max-concurrency in flight (a client-side
    semaphore: vLLM 0.33.0 benchmarks/serve.py limited_request_func; TTFT is timed from when a request gets its slot,
    lib/endpoint_request_func.py ``st``), so the simulated TTFT starts when the request reaches the server."""
    import simpy

    from components.simulate.engine import Request

    ins, outs = _bench_lengths(w, rng)  # the client's lengths; the chat template's tokens are added server-side
    sends = _bench_arrivals(w, rng)
    n = len(ins)
    slots = simpy.Resource(env, capacity=w["max_concurrency"]) if w.get("max_concurrency") else None

    template = w.get("chat_template") or {"tokens": 0, "shared_prefix": 0}
    ledger = getattr(rep, "ledger", None)

    def lengths(k: int) -> tuple[int, int]:
        i = int(min(ins[k] + template["tokens"], limit - 1))
        return i, int(max(1, min(outs[k], limit - i)))

    if ledger is not None:  # the server's cache holds what the run's test prompt (request 0's) leaves there
        ledger.alone(0, *lengths(0))

    def one(k: int):
        yield env.timeout(float(sends[k]))
        i, o = lengths(k)
        if warm and ledger is None:  # the cached prefix is not computed again (its blocks are not counted)
            i -= _warm_prefix(i) if k == 0 else _shared_prefix_hit(template["shared_prefix"])
        if slots is None:
            rep.submit(Request(k, env.now, i, o, True))
            return
        with slots.request() as slot:
            yield slot
            ev = env.event()
            waiters[k] = ev
            rep.submit(Request(k, env.now, i, o, True))
            yield ev

    for k in range(n):
        env.process(one(k))
    return n


def _shared_prefix_hit(shared: int, block_size: int = 16) -> int:
    """Prompt tokens every request finds in the prefix cache because the chat endpoint's template puts the same
    ``shared`` tokens before each user's text (workload ``chat_template``: the system/developer messages and the user
    turn's header): their full blocks, cached by the run's first prompt (the client's test run sends it before the
    measured run), are not computed again (V1 prefix caching hashes full blocks only)."""
    return (shared // block_size) * block_size


def _warm_prefix(prompt: int, block_size: int = 16) -> int:
    """Prompt tokens of the run's first request that vLLM finds in its prefix cache: `vllm bench serve` sends
    ``input_requests[0]`` as its "initial single prompt test run" and as every --num-warmups request (vLLM 0.33.0
    benchmarks/serve.py lines 875-945), so with prefix caching on (V1's default) that prompt's full blocks are cached
    when the measured run sends it again; vLLM recomputes at least the last token."""
    return _shared_prefix_hit(prompt - 1, block_size)


def _median_ms(vals: list) -> float:
    return statistics.median(vals) * 1000 if vals else math.nan


def release_frontend(p: dict) -> dict:
    """What the point's release does to a request on its way in, as Replica attributes (components/simulate/engine.py
    ASYNC_SCHEDULING, MICROBATCH_TOKENIZER_WAIT_S and JINJA_PARSE_SECONDS say what each does).

    ``async_scheduling``: the point's ``engine.async_scheduling`` (the data file states it with its source), else its
    release's default with the flags: off through 0.13.0 (0.11.0 and 0.13.0 vllm/config/scheduler.py
    ``async_scheduling: bool = False``, lines 138 and 133) unless the flags give --async-scheduling; on from 0.14.0
    (config/scheduler.py:133 ``default=None``, config/vllm.py:628 sets it True; likewise 0.15.1, 0.18.0, 0.19.0).
    0.10.2 and 0.11.0 refuse it with pipeline parallelism (engine/arg_utils.py 1291 and 1295), and a pipeline-parallel
    replica runs a batch queue as deep as its stages in any case, which the simulator's PP step stands for: no
    plan-ahead with PP (the engine's Replica drops it for PP > 1 too). Earlier points (V0, no release): off.
    ``tokenizer_wait_seconds``: the micro-batching tokenizer of vLLM 0.10.0 to 0.19.0 (read in the 0.10.0, 0.10.2,
    0.11.0, 0.15.1, 0.18.0 and 0.19.0 wheels; gone by 0.29.0). ``template_seconds``: 0.11.0's per-request parse of a
    Jinja chat template (the chat endpoint with the model's Jinja template: the workload's ``chat_template.renderer``;
    not gpt-oss's harmony, not the completions endpoint)."""
    from components.capacity.accounting import parse_release
    from components.simulate import engine

    release = parse_release(p.get("release"))
    if release is None:
        return {"async_scheduling": False, "tokenizer_wait_seconds": 0.0, "template_seconds": 0.0}
    stated = p["engine"].get("async_scheduling")
    by_default = release >= (0, 14) or "--async-scheduling" in p["engine"].get("flags", "")
    renderer = (p["workload"].get("chat_template") or {}).get("renderer", "")
    jinja = p.get("release") == "0.11.0" and renderer.startswith("jinja")
    return {
        "async_scheduling": (by_default if stated is None else bool(stated)) and p.get("pp", 1) == 1,
        "tokenizer_wait_seconds": engine.MICROBATCH_TOKENIZER_WAIT_S if (0, 10) <= release <= (0, 19) else 0.0,
        "template_seconds": engine.JINJA_PARSE_SECONDS if jinja else 0.0,
    }


def simulate_point(
    p: dict, seed: int = 0, closed_outputs: str = "exponential", v0: bool = False, ledger: Optional[PrefixLedger] = None
) -> dict:
    """Run one point's workload through one simulated replica: its throughput, median TTFT and TPOT, and the
    simulated TTFT split into API server, queue (waiting for a batch slot, tokens or blocks) and prefill. ``ledger``:
    the server's prefix cache (else the one the workload's ``runs_before`` left: _server_ledger)."""
    import simpy

    ledger = _server_ledger(p, seed) if ledger is None else ledger
    roof, kv_tokens, (seqs, tokens, max_len) = _replica_roofline(p)
    env = simpy.Environment()
    done: list = []
    waiters: dict = {}

    def on_done(r):
        if r.outcome is None:
            r.outcome, r.done = "ok", env.now
        done.append(r)
        ev = waiters.pop(r.id, None)
        if ev is not None:
            ev.succeed()

    rep = _traced_replica(env, roof, seqs, tokens, kv_tokens, on_done, ledger)
    # --scheduler-v0: replay the points whose release ran V0 without chunked prefill with that scheduler.
    rep.prefill_first = v0 and p["engine"].get("scheduler") == "prefill-first"
    # A preempted request finds its own blocks again only with the prefix cache on: the point's engine.prefix_caching
    # (the earlier points state none; V0 left it off, only V1 turns it on by default: 0.8.5 engine/arg_utils.py 1571).
    rep.prefix_caching = bool(p["engine"].get("prefix_caching"))
    if "release" not in p:
        rep.frontend_seconds = V0_FRONTEND_SECONDS
    for name, value in release_frontend(p).items():
        setattr(rep, name, value)
    point = {**p, "engine": {**p["engine"], "max_model_len": max_len}}
    n = _drive(env, rep, point, np.random.default_rng(seed), waiters, closed_outputs)
    env.run(until=36_000)
    # vllm bench serve times the run from its start (its first send may come later); the earlier points' clients
    # from their first request.
    first = 0.0 if p["workload"]["kind"] == "bench" else min(r.arrival for r in done)
    last = max(r.done for r in done)
    ttft = [r.first_token - r.arrival for r in done]
    tpot = [(r.done - r.first_token) / (r.output - 1) for r in done if r.output > 1]
    split = {
        "api_server_ms": _median_ms([rep.enqueued[r.id] - r.arrival for r in done]),
        "queue_ms": _median_ms([rep.admitted[r.id] - rep.enqueued[r.id] for r in done]),
        "prefill_ms": _median_ms([r.first_token - rep.admitted[r.id] for r in done]),
    }
    return {
        "req_per_s": len(done) / (last - first) if last > first else math.nan,
        "median_ttft_ms": statistics.median(ttft) * 1000,
        "median_tpot_ms": statistics.median(tpot) * 1000 if tpot else None,
        "completed": len(done),
        "sent": n,
        "ttft_split": split,
        "busy_share": rep.busy_seconds / (last - first),
    }


def errors(points: list, seed: int = 0, closed_outputs: str = "exponential", v0: bool = False) -> list:
    """Per point: the simulated figures and their relative errors against the published ones."""
    rows = []
    for p in points:
        try:
            sim = simulate_point(p, seed, closed_outputs, v0)
        except NoKvCache as exc:
            rows.append(
                {
                    "id": p["id"],
                    "split": p["split"],
                    "gpu": p["gpu"],
                    "model": p["model"],
                    "unsimulated": str(exc),
                    "source": p["source"],
                    "excluded": p.get("excluded"),
                }
            )
            continue
        pub = p["published"]
        err = {
            k: (sim[k] - pub[k]) / pub[k]
            for k in ("req_per_s", "median_ttft_ms", "median_tpot_ms")
            if pub.get(k) and sim.get(k) is not None
        }
        rows.append(
            {
                "id": p["id"],
                "split": p["split"],
                "gpu": p["gpu"],
                "model": p["model"],
                "tp": p["tp"],
                "sim": sim,
                "published": pub,
                "error": err,
                "source": p["source"],
                "load": _load(p["workload"]),
                "kind": load_kind(p["workload"]),
                "diagnosis": p.get("diagnosis"),
                "excluded": p.get("excluded"),
            }
        )
    return rows


def _load(w: dict) -> str:
    """The offered load, as the benchmark client sent it."""
    if w["kind"] == "lens":
        return f"{len([o for o in w['output_lens'] if o > 0])} requests at once"
    if w["kind"] == "sharegpt":
        return f"Poisson {w['rate']} req/s"
    if w["kind"] == "bench":
        rate = "all at once" if w.get("rate") is None else f"{w['rate']} req/s"
        return rate + (f", <= {w['max_concurrency']} in flight" if w.get("max_concurrency") else "")
    return f"closed loop, {w['concurrency']} clients"


def explain(rows: list) -> None:
    """Where each point's simulated TTFT goes, beside the published TTFT and what the source shows."""
    print(f"{'point':34} {'load':22} {'busy':>5} {'TTFT pub':>9} {'sim':>7} = {'API':>6} + {'queue':>7} + {'prefill':>7}")
    for r in rows:
        sim, split = r["sim"], r["sim"]["ttft_split"]
        print(
            f"{r['id']:34} {r['load']:22} {sim['busy_share']:>5.0%} {r['published']['median_ttft_ms']:>9.0f} "
            f"{sim['median_ttft_ms']:>7.0f} = {split['api_server_ms']:>6.0f} + {split['queue_ms']:>7.0f} + "
            f"{split['prefill_ms']:>7.0f}"
        )
        if r["diagnosis"]:
            for line in textwrap.wrap(r["diagnosis"], 110):
                print(f"    {line}")
    print(
        "(medians of each part, so they need not add up to the median TTFT; busy: the engine's share of the run spent stepping)"
    )


def load_kind(w: dict) -> str:
    """How the client offered the load: ``paced`` (requests at a rate), ``limited`` (at most N in flight: a closed loop
    or --max-concurrency) or ``burst`` (every request at once)."""
    if w["kind"] == "closed" or w.get("max_concurrency"):
        return "limited"
    if w["kind"] == "lens" or (w["kind"] == "bench" and w.get("rate") is None):
        return "burst"
    return "paced"


def summary(rows: list, split: Optional[str] = None, kind: Optional[str] = None) -> dict:
    """Median and largest absolute error of throughput, median TTFT and median TPOT over the replayed rows of one split
    (or all) and one load kind (or all)."""
    out = {}
    chosen = [r for r in rows if "error" in r and split in (None, r["split"]) and kind in (None, r["kind"])]
    for k in ("req_per_s", "median_ttft_ms", "median_tpot_ms"):
        vals = [abs(r["error"][k]) for r in chosen if k in r["error"]]
        if vals:
            out[k] = {
                "median": statistics.median(vals),
                "max": max(vals),
                "n": len(vals),
                "within_30": sum(v <= TARGET_MAX for v in vals),
            }
    return out


def meets_target(s: dict) -> bool:
    """Issue 23's bar on one summary: median error <= 15% and every point <= 30%, on throughput and median TTFT."""
    return all(k in s and s[k]["median"] <= TARGET_MEDIAN and s[k]["max"] <= TARGET_MAX for k in ("req_per_s", "median_ttft_ms"))


# The constants --calibrate tunes, each with the values it tries: (module, name, values). roofline.PER_SEQ_OVERHEAD_S
# is not among them: GPUStack's own --async-scheduling A/B runs fix it at 20 us (the overlap gains what they gained
# only there: tests/simulate/test_engine.py test_async_scheduling_gains_what_the_sources_own_ab_run_gained; the
# calibration half alone chose 40 us, whose gains, +11% and +8%, are twice the published +6% and +5%).
CONSTANTS = (
    ("roofline", "HBM_EFFICIENCY", (0.4, 0.5, 0.6, 0.7, 0.8, 0.9)),
    ("roofline", "FLOP_EFFICIENCY", (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
    ("roofline", "MOE_FLOP_EFFICIENCY", (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7)),
    ("roofline", "STEP_OVERHEAD_S", (0.001, 0.002, 0.004, 0.006, 0.008)),
    ("roofline", "MOE_LAYER_SECONDS", (0.0, 0.00002, 0.00004, 0.00006, 0.00008, 0.0001, 0.00015)),
    ("engine", "FRONTEND_SECONDS", (0.0, 0.002, 0.004, 0.006, 0.008, 0.012)),
    ("engine", "API_TOKEN_SECONDS", (0.0, 0.00002, 0.00005, 0.0001, 0.0002)),
    # A measured cost (engine.py: 9.1-9.9 ms of CPU here): the grid spans host CPUs up to 1.3x slower than this one,
    # and faster; beyond it the term would stand in for other costs of the same points (see engine.py).
    ("engine", "JINJA_PARSE_SECONDS", (0.0, 0.003, 0.005, 0.007, 0.009, 0.012)),
)


def _score(points: list) -> tuple:
    """The calibration objective: the worse of the throughput and TTFT median errors, then the mean of both."""
    rows = [r for r in errors(points) if "error" in r]
    tput = [abs(r["error"]["req_per_s"]) for r in rows]
    ttft = [abs(r["error"]["median_ttft_ms"]) for r in rows]
    return max(statistics.median(tput), statistics.median(ttft)), statistics.fmean(tput + ttft)


def calibrate(points: list, rounds: int = 3) -> tuple:
    """Coordinate descent of CONSTANTS on the calibration half of the counted points (the held-out half is never read):
    each constant in turn takes the value of its list that scores best with the others held, until a round changes
    nothing. Returns (best score, constants). The module constants are restored afterwards."""
    from components.simulate import engine, roofline

    modules = {"engine": engine, "roofline": roofline}
    cal = [p for p in points if p["split"] == "calibration"]
    saved = {name: getattr(modules[m], name) for m, name, _ in CONSTANTS}
    try:
        best = _score(cal)
        for _ in range(rounds):
            changed = False
            for m, name, values in CONSTANTS:
                mod, current = modules[m], getattr(modules[m], name)
                trials = []
                for v in values:
                    setattr(mod, name, v)
                    trials.append((_score(cal), v))
                score, value = min(trials)
                setattr(mod, name, value)
                changed |= value != current
                best = score
            if not changed:
                break
        return best, {name: getattr(modules[m], name) for m, name, _ in CONSTANTS}
    finally:
        for m, name, _ in CONSTANTS:
            setattr(modules[m], name, saved[name])


def _pct(x) -> str:
    return "-" if x is None else f"{x * 100:+.0f}%"


def _table(rows: list) -> None:
    print(
        f"{'point':60} {'split':5} {'load':24} {'req/s pub':>9} {'sim':>7} {'err':>6} {'TTFT p50 ms pub':>15} {'sim':>9} "
        f"{'err':>6} {'TPOT pub':>8} {'sim':>6} {'err':>6}"
    )
    for r in rows:
        if "unsimulated" in r:
            print(f"{r['id']:60} {r['split'][:5]:5} not replayed: {r['unsimulated']}")
            continue
        pub, sim, err = r["published"], r["sim"], r["error"]
        tp = "-" if pub.get("median_tpot_ms") is None else f"{pub['median_tpot_ms']:.1f}"
        ts = "-" if sim.get("median_tpot_ms") is None else f"{sim['median_tpot_ms']:.1f}"
        print(
            f"{r['id']:60} {r['split'][:5]:5} {r['load'][:24]:24} {pub['req_per_s']:>9.2f} {sim['req_per_s']:>7.2f} "
            f"{_pct(err.get('req_per_s')):>6} {pub['median_ttft_ms']:>15.0f} {sim['median_ttft_ms']:>9.0f} "
            f"{_pct(err.get('median_ttft_ms')):>6} {tp:>8} {ts:>6} {_pct(err.get('median_tpot_ms')):>6}"
        )


def _summary_line(label: str, s: dict) -> str:
    parts = [f"{k}: median {v['median']:.0%}, max {v['max']:.0%}, {v['within_30']}/{v['n']} within 30%" for k, v in s.items()]
    verdict = "meets" if meets_target(s) else "misses"
    return f"{label:24} {'; '.join(parts)}  [{verdict} the target]"


def _where(src: dict) -> str:
    if src.get("repository") and src.get("commit") and src.get("path"):
        return f"{src['repository']}@{src['commit'][:12]}:{src['path']}"
    return src.get("url") or src.get("repository", "?")


def report(data: dict, rows: list, earlier: list) -> None:
    """The printed report: counted points, their errors by split and by load, the earlier points, the sources."""
    gpus = {r["gpu"] for r in rows if "gpu" in r}
    models = {r["model"] for r in rows if "model" in r}
    replayed = [r for r in rows if "error" in r]
    print(
        f"{len(rows)} counted points ({len(replayed)} replayed), {len(gpus)} GPU types, {len(models)} models; "
        f"{len(earlier)} earlier points not counted; {len(data.get('candidates_excluded', []))} other candidates excluded"
    )
    _table(rows)
    print("\ncounted points, by split (target: median <= 15% and every point <= 30%, throughput and median TTFT):")
    for split in ("calibration", "held-out"):
        print(_summary_line(split, summary(rows, split)))
    print("by how the load was offered (both halves):")
    for kind in ("paced", "limited", "burst"):
        s = summary(rows, kind=kind)
        if s:
            print(_summary_line(kind, s))
    print("\nearlier points (not counted: " + "; ".join(sorted({r["excluded"] for r in earlier})) + "):")
    _table(earlier)
    print(_summary_line("earlier, all", summary(earlier)))
    print("\nsources of the counted points (repository: files, points; each point's file and commit: --json):")
    by_repo: dict = {}
    for r in rows:
        src = r["source"]
        repo = src.get("repository") or src.get("url", "?")
        files, n = by_repo.get(repo, (set(), 0))
        by_repo[repo] = (files | {(src.get("commit", "")[:12], src.get("path") or src.get("url", ""))}, n + 1)
    for repo, (files, n) in sorted(by_repo.items()):
        commits = ", ".join(sorted({c for c, _ in files if c}))
        print(f"  {repo}: {len(files)} files, {n} points (commits {commits or '-'})")
    counts: dict = {}
    for c in data.get("candidates_excluded", []):
        key = (c.get("rule") or "unstated").split(" + ")[0]
        counts[key] = counts.get(key, 0) + 1
    print("other candidates excluded, by the first rule they failed: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true", help="coordinate descent of the constants on the calibration half")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="per point: the offered load, the simulated TTFT split into API server, queue and prefill, "
        "and what the source shows",
    )
    parser.add_argument(
        "--closed-outputs",
        choices=("exponential", "fixed"),
        default="exponential",
        help="output lengths of the earlier closed-loop points, whose source gives only the mean (sensitivity)",
    )
    parser.add_argument(
        "--scheduler-v0",
        action="store_true",
        help="replay the earlier points whose vLLM release ran the V0 scheduler without chunked prefill with it "
        "(whole prompts, prefill steps hold no decode) instead of V1's",
    )
    args = parser.parse_args()
    data = json.loads(POINTS.read_text())
    points = data["points"]
    if args.calibrate:
        (median, mean), consts = calibrate(points)
        print(
            f"best on the calibration half: {consts} (worse median |error| of throughput and TTFT {median:.1%}, mean {mean:.1%})"
        )
        return 0
    rows = errors(points)
    earlier = errors(data.get("earlier", []), closed_outputs=args.closed_outputs, v0=args.scheduler_v0)
    if args.explain:
        explain([r for r in rows + earlier if "error" in r])
        return 0
    if args.json:
        result = {
            "points": rows,
            "earlier": earlier,
            "calibration": summary(rows, "calibration"),
            "held_out": summary(rows, "held-out"),
            "by_load": {k: summary(rows, kind=k) for k in ("paced", "limited", "burst")},
            "rules": data.get("rules", []),
        }
        print(json.dumps(result, indent=2, sort_keys=True, default=str))
        return 0
    report(data, rows, earlier)
    return 0


if __name__ == "__main__":
    sys.exit(main())
