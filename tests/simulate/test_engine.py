"""The replica scheduler: continuous batching limits, chunked prefill, preemption and recompute, 503 at the in-flight cap."""

from __future__ import annotations

import pytest
import simpy

from components.simulate import engine
from components.simulate.engine import Request
from tests.simulate.helpers import load_fidelity, replica


@pytest.fixture(autouse=True)
def no_frontend(monkeypatch, request):
    """Step-exact tests see the engine alone, planning each step when it starts (the API server's time and async
    scheduling's plan-ahead are tested on their own)."""
    if "frontend" not in request.node.name:
        monkeypatch.setattr(engine, "FRONTEND_SECONDS", 0.0)
    if "async" not in request.node.name:
        monkeypatch.setattr(engine, "ASYNC_SCHEDULING", False)


def _req(i, prompt=100, output=10, t=0.0):
    return Request(i, t, prompt, output, True)


def test_batch_never_exceeds_max_num_seqs_and_every_request_finishes():
    env = simpy.Environment()
    rep = replica(env, seqs=4, tokens=4096)
    peak = []

    def watch():
        while True:
            peak.append(len(rep.running))
            yield env.timeout(0.005)

    env.process(watch())
    for i in range(10):
        assert rep.submit(_req(i, prompt=50, output=20))
    env.run(until=10)
    assert max(peak) == 4
    assert sorted(r.id for r in rep.finished) == list(range(10))
    assert all(r.gen == r.output for r in rep.finished)


def test_chunked_prefill_spends_the_token_budget_per_step():
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=512, step=0.01)
    r = _req(1, prompt=1200, output=3)
    rep.submit(r)
    env.run(until=5)
    # 1200 prompt tokens in chunks of at most 512: three prefill steps, the third gives the first token.
    assert rep.roof.calls[:3] == [(0, 512), (0, 512), (0, 176)]
    assert abs(r.first_token - 0.03) < 1e-9
    # Then two decode steps for the other two tokens.
    assert abs(r.done - 0.05) < 1e-9


def test_decodes_take_budget_before_new_prefills():
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=100, step=0.01)
    rep.submit(_req(1, prompt=10, output=50))
    env.run(until=0.015)  # the first request is decoding now
    rep.submit(_req(2, prompt=500, output=5))
    env.run(until=0.03)
    decodes, prefill = rep.roof.calls[-1]
    assert decodes == 1 and prefill == 99  # budget 100 = 1 decode + a 99-token chunk


def test_prefill_first_runs_whole_prompts_in_steps_without_decodes():
    """The V0 mode benchmarks/fidelity.py --scheduler-v0 replays old releases with: a step that prefills decodes
    nothing (the decoders' tokens do not advance), and prompts are not chunked."""
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=600, step=0.01)
    rep.prefill_first = True
    first = _req(1, prompt=10, output=5)
    rep.submit(first)
    env.run(until=0.015)  # after its prefill step the first request is in its first decode step
    rep.submit(_req(2, prompt=500, output=2))
    rep.submit(_req(3, prompt=200, output=2))  # 500 + 200 > 600: waits for the next prefill step
    env.run(until=1)
    # Prefill 10; decode; the two whole prompts in prefill-only steps; then all three decode, then the first alone.
    assert rep.roof.calls == [(0, 10), (1, 0), (0, 500), (0, 200), (3, 0), (1, 0)]
    # Its 5 tokens: 1 from its prefill, 1 decode, 2 prefill-only steps that did not advance it, 3 more decodes.
    assert abs(first.done - 0.07) < 1e-9
    assert sorted(r.id for r in rep.finished) == [1, 2, 3]


def test_full_kv_cache_preempts_the_newest_request_which_is_recomputed():
    env = simpy.Environment()
    # 40 blocks of 16 tokens = 640 tokens for two requests that grow to 100 + 300 tokens each.
    rep = replica(env, seqs=4, tokens=2048, blocks=40, block=16)
    a, b = _req(1, prompt=100, output=300), _req(2, prompt=100, output=300)
    rep.submit(a)
    rep.submit(b)
    env.run(until=60)
    assert rep.preemptions >= 1
    assert b.preemptions >= 1 and a.preemptions == 0  # the newest one goes back to the queue
    assert {r.id for r in rep.finished} == {1, 2}
    assert a.gen == 300 and b.gen == 300
    assert rep.kv_tokens == 0


def test_max_num_queued_reqs_counts_running_and_waiting_requests():
    # vLLM counts every unfinished request, running or waiting, against --max-num-queued-reqs: config/scheduler.py
    # "Maximum number of requests that can be in-flight (waiting or running)" and v1/engine/async_llm.py
    # check_admission (get_num_unfinished_requests() + n > max_num_queued_reqs: 503), read in the 0.29.0 and
    # 0.33.0 wheels.
    env = simpy.Environment()
    rep = replica(env, seqs=1, queue=2)
    accepted = [rep.submit(_req(i)) for i in range(5)]
    assert accepted == [True, True, False, False, False]
    env.run(until=0.015)  # one request admitted to the batch: two still in flight, so still full
    assert len(rep.running) == 1 and len(rep.waiting) == 1
    assert not rep.submit(_req(9))
    env.run(until=0.105)  # the first one finished (1 prefill + 9 decode steps of 10 ms): a slot is free
    assert [r.id for r in rep.finished] == [0] and rep.in_flight == 1
    assert rep.submit(_req(10))
    assert not rep.submit(_req(11))


def test_no_queue_cap_accepts_everything():
    env = simpy.Environment()
    rep = replica(env, seqs=1, queue=None)
    assert all(rep.submit(_req(i)) for i in range(50))


def test_an_aborted_request_frees_its_slot_and_blocks():
    env = simpy.Environment()
    rep = replica(env, seqs=1)
    long, short = _req(1, prompt=100, output=10_000), _req(2, prompt=10, output=2)
    rep.submit(long)
    rep.submit(short)
    env.run(until=1)
    assert short.done is None  # stuck behind the long one (one slot)
    rep.abort(long)
    env.run(until=2)
    assert short.outcome == "ok"
    assert long.outcome is None and long.replica is None


def test_the_frontend_spreads_a_burst_one_request_at_a_time(monkeypatch):
    monkeypatch.setattr(engine, "FRONTEND_SECONDS", 0.005)
    env = simpy.Environment()
    rep = replica(env, seqs=64, tokens=8192, step=0.01)
    burst = [_req(i, prompt=10, output=2) for i in range(4)]
    for r in burst:
        assert rep.submit(r)
    assert rep.in_flight == 4 and not rep.waiting  # all still in the API server
    env.run(until=1)
    # The first reaches the engine after 5 ms and is prefilled in one 10 ms step; the last waits 20 ms for the API server.
    assert abs(burst[0].first_token - 0.015) < 1e-9
    assert burst[-1].first_token > burst[0].first_token
    assert all(r.outcome == "ok" for r in burst)


def test_the_frontend_counts_toward_the_queue_cap(monkeypatch):
    monkeypatch.setattr(engine, "FRONTEND_SECONDS", 0.005)
    env = simpy.Environment()
    rep = replica(env, seqs=1, queue=2)
    assert [rep.submit(_req(i)) for i in range(3)] == [True, True, False]


def test_a_preempted_stream_is_stalled_until_its_recompute_sends_a_token():
    env = simpy.Environment()
    rep = replica(env, seqs=4, tokens=2048, blocks=40, block=16)
    stalled = []
    rep.on_stall = lambda r: stalled.append((env.now, r.id, r.stalled_at))
    a, b = _req(1, prompt=100, output=300), _req(2, prompt=100, output=300)
    rep.submit(a)
    rep.submit(b)
    env.run(until=60)
    # b had sent tokens when it was preempted: the cluster is told, with the time it stopped sending.
    assert stalled and all(rid == 2 and at == when for when, rid, at in stalled)
    # Its recompute ended with a token: no longer stalled.
    assert b.stalled_at is None and b.gen == 300


def _two_growing_requests(prefix_caching: bool) -> tuple:
    """Two requests of 100 + 300 tokens in 40 blocks of 16: the newest (b) is preempted at 312 cached tokens each."""
    env = simpy.Environment()
    rep = replica(env, seqs=4, tokens=2048, blocks=40, block=16)
    rep.prefix_caching = prefix_caching
    a, b = _req(1, prompt=100, output=300), _req(2, prompt=100, output=300)
    taken: list[float] = []  # blocks taken from the free queue's front, around each admission
    admitted = rep._admitted

    def watched(r, hit):
        taken.append(rep._blocks_used() + rep.kv_returned)
        admitted(r, hit)
        taken.append(rep._blocks_used() + rep.kv_returned)

    rep._admitted = watched
    rep.submit(a)
    rep.submit(b)
    env.run(until=60)
    assert b.preemptions == 1 and a.preemptions == 0 and a.gen == b.gen == 300
    # Blocks found in the queue leave it where they stand: none is taken from its front (the new ones come later).
    assert taken[-1] == taken[-2]
    return rep, b


def test_a_preempted_request_finds_again_the_blocks_allocated_since_did_not_evict():
    """vLLM V1 with prefix caching (components/simulate/kv_refound.py cites 0.11.0 and 0.33.0): a preempted request's
    blocks go to the free queue's back, last block first, keeping their hashes, and its re-admission looks itself up
    in the cache. Here b is preempted after 213 tokens of output with 312 cached (19 full blocks and a partial one)
    and no free block ahead of them; a then grows from 312 to 399 tokens, 5 new blocks from the queue's front: b's
    partial block and its last four full ones. b comes back with 313 tokens and finds blocks 0-14 (240 tokens), so its
    recompute is 73 tokens, not 313."""
    rep, b = _two_growing_requests(prefix_caching=True)
    assert [c for c in rep.roof.calls if c[1]] == [(0, 200), (0, 313 - 240)]
    assert rep.kv_tokens == 0 and b.refound is None


def test_without_prefix_caching_a_preempted_request_is_recomputed_whole():
    rep, _ = _two_growing_requests(prefix_caching=False)
    assert [c for c in rep.roof.calls if c[1]] == [(0, 200), (0, 313)]


def _lru_refound(ahead: int, cached: int, bs: int, events: list, num_tokens: int, partial_front: bool) -> int:
    """vLLM's free queue block by block: ``ahead`` free blocks, then the victim's freed last block first (its partly
    filled block at the back in 0.11.0's ``free_blocks``, at the front in 0.33.0's); each event takes n blocks from the
    front (an allocation) or puts another request's n blocks at the back; the victim then finds its leading full
    blocks still queued, at most ``num_tokens - 1`` tokens."""
    from collections import deque

    queue: deque = deque(("free", i) for i in range(ahead))
    full, part = divmod(cached, bs)
    if part:
        (queue.appendleft if partial_front else queue.append)(("partial",))
    queue.extend(("victim", i) for i in reversed(range(full)))
    for k, (kind, n) in enumerate(events):
        for i in range(n):
            queue.popleft() if kind == "take" else queue.append(("other", k, i))
    found = 0
    while found < (num_tokens - 1) // bs and ("victim", found) in queue:
        found += 1
    return found * bs


@pytest.mark.parametrize("partial_front", [False, True], ids=["0.11.0", "0.33.0"])
def test_the_refound_rule_is_the_free_queue_block_by_block(partial_front):
    """kv_refound's count (the blocks taken since the preemption against the free blocks ahead of the victim's) gives
    what the free queue itself keeps, over random preemptions and traffic."""
    import random

    from components.simulate import kv_refound

    rng = random.Random(23)
    for _ in range(400):
        bs = rng.choice([16, 32])
        ahead, cached, taken0 = rng.randrange(0, 30), rng.randrange(1, 40 * bs), rng.randrange(0, 1000)
        queued, events = ahead + -(-cached // bs), []
        for _ in range(rng.randrange(0, 12)):
            kind = rng.choice(["take", "free"])
            n = rng.randrange(0, 8 if kind == "free" else min(8, queued) + 1)  # never more than the queue holds
            queued += n if kind == "free" else -n
            events.append((kind, n))
        takes = sum(n for kind, n in events if kind == "take")
        num_tokens = cached + rng.randrange(0, 2)  # a decode's last token is not cached yet; a prefill's is
        kept = kv_refound.mark(cached, bs, ahead, taken0)
        rule = kv_refound.refound_tokens(kept, taken0 + takes, num_tokens, bs)
        assert rule == _lru_refound(ahead, cached, bs, events, num_tokens, partial_front), (ahead, cached, events)


class _Watched:
    """Records, per engine step, the preemptions and the admissions from the waiting queue, and the blocks in use."""

    def __init__(self, rep):
        self.events: list[tuple[int, str, int]] = []
        self.over: list[float] = []
        preempt, schedule = rep._preempt, rep._schedule

        def watched_preempt():
            victim = preempt()
            self.events.append((rep.step_no, "preempt", victim.id))
            return victim

        def watched_schedule(n_dec):
            waiting = {r.id for r in rep.waiting}
            chunks = schedule(n_dec)
            self.events.extend((rep.step_no, "admit", r.id) for r, _ in chunks if r.id in waiting)
            self.over.append(rep._blocks_used() + sum(c for _, c in chunks) / rep.bs - rep.num_blocks)
            return chunks

        rep._preempt, rep._schedule = watched_preempt, watched_schedule


def test_a_step_that_preempted_admits_no_waiting_request():
    """vLLM 0.33.0 v1/core/sched/scheduler.py:1050 ``if not preempted_reqs``: the waiting queue (which the victim has
    just joined, at its head) is not scheduled in a step that preempted, so a victim is never re-admitted at once."""
    env = simpy.Environment()
    # A 64-token budget: a victim's recompute comes back in chunks small enough to fit the blocks it freed.
    rep = replica(env, seqs=8, tokens=64, blocks=40, block=16)
    seen = _Watched(rep)
    for i in range(3):
        rep.submit(_req(i, prompt=50, output=300))
    env.run(until=60)
    preempting_steps = {s for s, kind, _ in seen.events if kind == "preempt"}
    assert preempting_steps, "the scenario must preempt"
    assert not [e for e in seen.events if e[1] == "admit" and e[0] in preempting_steps]
    assert {r.id for r in rep.finished} == {0, 1, 2}


def test_a_running_prefill_chunk_needs_blocks_and_preempts_the_newest_request():
    """v1/core/sched/scheduler.py:912-990: a running request's next chunk is allocated like any other; when the cache
    lacks the blocks the newest running request is preempted. Two prompts of 60% of the cache each, in chunks: the
    second's chunks would overfill the cache without it."""
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=256, blocks=50, block=16)  # 800 tokens
    seen = _Watched(rep)
    a, b = _req(1, prompt=480, output=5), _req(2, prompt=480, output=5)
    rep.submit(a)
    rep.submit(b)
    env.run(until=60)
    assert max(seen.over) <= 1e-9, "a step scheduled more blocks than the cache holds"
    assert b.preemptions >= 1 and a.preemptions == 0
    assert {r.id for r in rep.finished} == {1, 2}
    assert rep.kv_tokens == 0


def test_frontend_intake_waits_while_the_api_server_streams_tokens(monkeypatch):
    """The V1 API server runs the engine's output handler in its own asyncio loop (vllm/v1/engine/async_llm.py
    ``output_handler``): tokens it streams delay the requests it takes in next (``API_TOKEN_SECONDS`` each)."""

    def arrival_of_late_request(per_token):
        monkeypatch.setattr(engine, "API_TOKEN_SECONDS", per_token)
        env = simpy.Environment()
        rep = replica(env, seqs=64, tokens=4096, step=0.01)
        for i in range(32):
            rep.submit(_req(i, prompt=20, output=200))
        env.run(until=1.0)  # 32 streams decoding
        late = _req(99, prompt=20, output=2, t=env.now)
        rep.submit(late)
        env.run(until=10)
        return late.first_token - late.arrival

    monkeypatch.setattr(engine, "FRONTEND_SECONDS", 0.001)
    quiet, busy = arrival_of_late_request(0.0), arrival_of_late_request(0.001)
    assert busy > quiet + 0.02  # 32 streams x 1 ms of tokens per 10 ms step keep the API server busy


def test_a_preemption_for_a_chunk_counts_the_chunks_already_planned_in_the_step():
    """After preempting for a running request's chunk, the blocks left are the cache less what is cached and less the
    chunks this step has already planned (v1/core/sched/scheduler.py:950-956 gives back only the victim's share)."""
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=1000, blocks=9, block=16)  # 144 tokens
    r1, r2, r4, r3 = (_req(i, prompt=48 if i == 4 else 64, output=5) for i in (1, 2, 4, 3))
    for r in (r1, r2, r4, r3):  # admitted in this order; r3, the newest, has half its prompt cached
        r.replica = rep
        rep.running.append(r)
        rep.prefilling.append(r)
    r3.cached, r3.prefill_left = 32, 32
    rep.kv_tokens = 32
    chunks = rep._schedule(0)
    planned = sum(c for _, c in chunks)
    # r1 fits; r2 needs the newest (r3) and then r4 preempted: once r3 is gone, r4 is the newest running request.
    assert [r.id for r, _ in chunks] == [1, 2] and planned == 128
    assert rep._blocks_used() + planned / rep.bs <= rep.num_blocks
    assert r3.preemptions == 1 and r4.preemptions == 1


class _CountingStep:
    """A roofline stand-in that records how many requests each step schedules."""

    def __init__(self):
        self.steps: list[tuple[int, int, int]] = []
        self.async_flags: list[bool] = []

    def step_seconds(
        self, decodes, prefill_tokens, context_tokens, prefill_context=0.0, prefill_seqs=None, async_scheduling=False
    ):
        self.steps.append((decodes, prefill_tokens, 0 if prefill_seqs is None else prefill_seqs))
        self.async_flags.append(async_scheduling)
        return 0.01


def test_a_step_is_charged_for_every_request_it_schedules():
    """Six short prompts admitted together are six scheduled requests (each sampled, roofline.per_request_seconds):
    five whole prompts and the sixth's first chunk; the next step holds the five decodes and the sixth's last chunk."""
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=100)
    rep.roof = _CountingStep()
    for i in range(6):
        rep.submit(_req(i, prompt=19, output=3))
    env.run(until=1)
    assert rep.roof.steps[0] == (0, 100, 6)  # 5 x 19 tokens and 5 of the sixth's under the 100-token budget
    assert rep.roof.steps[1] == (5, 14, 1)


def test_a_replica_with_async_scheduling_steps_with_it():
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=100)
    rep.roof = _CountingStep()
    rep.async_scheduling = True
    rep.submit(_req(1, prompt=19, output=5))
    env.run(until=1)
    assert len(rep.roof.async_flags) >= 2 and all(rep.roof.async_flags)  # the prefill step and the decode steps


@pytest.mark.parametrize(
    "point, published",
    [
        # gpustack/gpustack@47277d7 docs/performance-lab/gpt-oss-120b/h100.md: 14.84 req/s, with --async-scheduling 15.71
        ("h100-gpt-oss-120b-tp1-sharegpt1000-maxmodellen32768-gpustack", 15.71 / 14.84),
        # docs/performance-lab/gpt-oss-120b/a100.md: 11.58 req/s, with --async-scheduling 12.14
        ("a10080gb-gpt-oss-120b-tp1-sharegpt1000-maxmodellen32768-gpustack", 12.14 / 11.58),
    ],
)
def test_async_scheduling_gains_what_the_sources_own_ab_run_gained(point, published):
    """The replay of a counted burst point with async scheduling turned on gains about what the source measured when
    it added --async-scheduling to the same run (vLLM 0.11.0): a few per cent, the per-request host work hidden.
    Without the overlap the gain is nil; hiding STEP_OVERHEAD_S too would double it (roofline.step_host_seconds)."""
    import copy

    fidelity = load_fidelity()
    p = next(q for q in fidelity.json.loads(fidelity.POINTS.read_text())["points"] if q["id"] == point)
    assert p["engine"]["async_scheduling"] is False
    on = copy.deepcopy(p)
    on["engine"]["async_scheduling"] = True
    gain = fidelity.simulate_point(on)["req_per_s"] / fidelity.simulate_point(p)["req_per_s"]
    assert published - 0.04 < gain < published + 0.04


def test_async_scheduling_plans_a_request_that_comes_mid_step_into_the_step_after_next():
    """vLLM's async scheduling (0.33.0 v1/engine/core.py ``step_with_batch_queue`` 708-785, default on from 0.14.0):
    the engine core plans and launches step N+1 before it blocks on step N, so a request that reaches the waiting
    queue while step N runs is planned into step N+2; with the engine otherwise idle it is planned at once."""

    def first_token(async_on: bool, busy: bool, output: int = 50) -> float:
        env = simpy.Environment()
        rep = replica(env, seqs=8, tokens=512, step=0.01)
        rep.async_scheduling = async_on
        if busy:
            rep.submit(_req(1, prompt=10, output=output))  # prefill [0, 10 ms], then decodes every 10 ms
        env.run(until=0.025)  # mid step [20, 30 ms]
        late = _req(2, prompt=10, output=3, t=env.now)
        rep.submit(late)
        env.run(until=5)
        assert late.outcome == "ok"
        return late.first_token

    # Synchronous: planned when [20, 30] ends, prefilled in [30, 40]. Async: [30, 40] was planned at 20 ms, so it
    # joins [40, 50]; the step between decodes only (one at a time, not the decode run up to the first request's end).
    assert abs(first_token(False, busy=True) - 0.04) < 1e-9
    assert abs(first_token(True, busy=True) - 0.05) < 1e-9
    # An idle engine plans a step as the request comes, async or not; so does one whose last request ends in the step
    # the newcomer came in (its third token at 30 ms: nothing was left to plan ahead).
    assert abs(first_token(True, busy=False) - 0.035) < 1e-9
    assert abs(first_token(True, busy=True, output=3) - 0.04) < 1e-9


def _reached_engine(**frontend) -> list:
    """When each of three requests sent together reaches the engine's waiting queue, with the replica's front-end
    attributes (``tokenizer_wait_seconds``, ``template_seconds``) set as given."""
    env = simpy.Environment()
    rep = replica(env, seqs=8, tokens=4096, step=0.01)
    for name, value in frontend.items():
        setattr(rep, name, value)
    seen: list = []
    enqueue = rep._enqueue
    rep._enqueue = lambda r: (seen.append(round(env.now, 9)), enqueue(r))
    for i in range(3):
        rep.submit(_req(i))
    env.run(until=1)
    return seen


def test_the_frontend_tokenizer_wait_delays_each_request_without_holding_the_api_server(monkeypatch):
    """vLLM 0.10.0-0.19.0 tokenize through ``AsyncMicrobatchTokenizer`` (0.11.0 vllm/utils/__init__.py:477,
    ``batch_wait_timeout_s=0.002``): a prompt waits for the batch window, while the API server goes on parsing."""
    monkeypatch.setattr(engine, "FRONTEND_SECONDS", 0.005)
    assert _reached_engine(tokenizer_wait_seconds=0.0) == [0.005, 0.01, 0.015]
    assert _reached_engine(tokenizer_wait_seconds=engine.MICROBATCH_TOKENIZER_WAIT_S) == [0.007, 0.012, 0.017]


def test_the_frontend_template_parse_holds_the_api_server_for_each_request(monkeypatch):
    """vLLM 0.11.0 parses a Jinja chat template on every chat request in the API server's event loop
    (entrypoints/chat_utils.py resolve_chat_template_kwargs 1590, uncached): the API server takes requests in that much
    further apart, so a burst reaches the engine spread out by it too."""
    monkeypatch.setattr(engine, "FRONTEND_SECONDS", 0.005)
    assert _reached_engine(template_seconds=0.0) == [0.005, 0.01, 0.015]
    assert _reached_engine(template_seconds=0.003) == [0.008, 0.016, 0.024]
