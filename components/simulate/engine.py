"""One vLLM replica's scheduler as a SimPy process: continuous batching with chunked prefill.

What it follows of vLLM's V1 scheduler (vllm/v1/core/sched/scheduler.py):

* every step has a token budget, ``max_num_batched_tokens``: running requests first (one token
  per decoding request, a chunk per request still prefilling), then waiting requests in arrival
  order while the batch holds fewer than ``max_num_seqs`` and the KV cache has blocks for the chunk;
* the KV cache is ``num_blocks`` blocks of ``block_size`` tokens (the capacity plan's figures); when
  a decoding step would not fit, the most recently admitted running request is preempted: its
  blocks are freed and it goes back to the head of the queue, to be recomputed (prompt plus the
  tokens it had produced) when it is admitted again, less the leading blocks the prefix cache still
  holds of it then (kv_refound.py);
* ``--max-num-queued-reqs`` bounds the requests in flight, running or waiting: a request beyond it is
  refused (HTTP 503). vLLM 0.33.0 (the release the stacks pin) counts every unfinished request against it:
  ``config/scheduler.py`` "Maximum number of requests that can be in-flight (waiting or running) at the
  same time ... Size it as roughly ``data_parallel_size * max_num_seqs`` plus the desired queue depth if it
  should not bind before per-rank admission does", enforced by ``v1/engine/async_llm.py`` ``check_admission``
  (``get_num_unfinished_requests() + n > max_num_queued_reqs``: QueueOverflowError, HTTP 503), which the
  OpenAI server calls in ``_preflight`` before a streamed response starts.

Speed: steps that only decode (nothing can be admitted) are taken together, up to the next
request to finish or the next step that would need a block the cache lacks, in one SimPy
timeout; an arrival that could be admitted, or an abort, interrupts it at the next step boundary.
KV blocks are counted as cached tokens / block size plus half a block per request (the expected
partly-filled last block), not block by block.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections import deque
from typing import Any, Callable, Generator, Optional

import simpy

from . import kv_refound
from .request import Request
from .roofline import Roofline

# The API server's work per request before the engine sees it (HTTP, validation, tokenizing), one
# request at a time: calibrated with the roofline's constants (benchmarks/fidelity.py --calibrate). Measured with vLLM's
# own code at 0.10.2, 0.11.0 and 0.11.1 (benchmarks/api_server_cost.py, benchmarks/data/api_server_cost-*.json), that
# path costs 0.7-1.1 ms of CPU a request on this project's build machine whatever the endpoint and renderer, 0.11.0's
# template parse aside (below): uvicorn and vLLM's FastAPI app 0.45-0.51 ms with the body's validation, tokenizing
# 0.16-0.25 ms or gpt-oss's harmony rendering 0.43-0.48 ms, the parameters, Processor.process_inputs, the engine
# request and the output state 0.07 ms. The
# 0.11.0 Qwen3 burst at 161 req/s through the parsed template puts the points' hosts at least 1.7x faster than that
# machine, so the measured path is a tenth or less of this fitted figure, which stands for costs outside the API
# server's request path (docs/simulate.md). Nor is it the engine core's work per request: vLLM 0.11.0's own add path
# (the request's msgpack decode, Request with its sha256 block hashes, the waiting queue: v1/engine/core.py 874,
# 426-450, 217-243) costs 29 us a 128-token request and 37 us a 200-token one on the same machine, and a whole
# 1,000-request random128-4 burst, add path and every scheduler step to the last answer, 77-84 us a request
# (benchmarks/engine_core_cost.py, benchmarks/data/engine_core_cost-0.11.0.json).
FRONTEND_SECONDS = 0.008
# The API server's time per output token it detokenizes and streams (V1: the API server process runs the engine's
# output handler in the same asyncio loop as the HTTP server, vllm/v1/engine/async_llm.py ``output_handler``), so a
# replica streaming many tokens takes new requests in later. Calibrated with the constants above. Measured (as above):
# 17-24 us a token (0.11.0 OutputProcessor.process_outputs 7 us, the chunk's ChatCompletionStreamResponse JSON 10 us,
# its HTTP write 4 us; gpt-oss's harmony parser 2 us more), a fifth of this fitted figure.
API_TOKEN_SECONDS = 0.0001
# V0's block watermark: the share of blocks admission leaves free (vllm/config.py CacheConfig ``watermark``, 0.01).
V0_WATERMARK = 0.01
# The API server tokenizes prompts through a micro-batching tokenizer in vLLM 0.10.0-0.19.0: the first prompt of a
# batch waits up to ``batch_wait_timeout_s`` (0.002) for others before it is encoded (0.11.0 vllm/utils/__init__.py:477
# ``AsyncMicrobatchTokenizer``, ``_batch_encode_loop`` 529-550, used for chat and completions prompts through
# entrypoints/openai/serving_engine.py:571; 0.19.0 vllm/utils/async_utils.py:36, renderers/base.py:384). 0.33.0, the
# release the stacks pin, tokenizes in a thread pool without the wait (renderers/base.py:156), so a Replica's
# ``tokenizer_wait_seconds`` is 0 unless set (benchmarks/fidelity.py sets this for the releases that have it).
MICROBATCH_TOKENIZER_WAIT_S = 0.002
# vLLM 0.11.0 parses the model's Jinja chat template on every chat request, in the API server's event loop, to find
# the template's variables (vllm/entrypoints/chat_utils.py ``resolve_chat_template_kwargs`` 1575-1598: a new
# ImmutableSandboxedEnvironment, ``env.parse(chat_template)`` at 1590 and ``find_undeclared_variables``; called by
# ``apply_hf_chat_template`` 1626 from serving_engine.py ``_preprocess_chat`` 791). 0.10.2 has no such call and 0.11.1
# caches it (chat_utils.py 1535 ``_cached_resolve_chat_template_kwargs = lru_cache(...)``; likewise through 0.33.0),
# and gpt-oss chat requests render with openai_harmony instead (0.11.0 serving_chat.py 146). Qwen3's template (4.0 KB)
# takes 9.2-10.5 ms of CPU per parse on this project's build machine, vLLM's DeepSeek-R1 example template (4.5 KB)
# 12.0-13.9 ms (benchmarks/api_server_cost.py: jinja2 3.1.6, the 0.11.0 environment and extensions; 9.1-9.9 ms for
# Qwen3's in an earlier, lighter-loaded run); transformers compiles the template once (``_compile_jinja_template`` is
# lru_cached), so rendering adds ~0.04 ms. A Replica's ``template_seconds`` is 0 unless set (benchmarks/fidelity.py: 0.11.0 Jinja chat runs). Its
# calibration grid stays near the measurement: a free fit pushes it to 25 ms to make up the too-fast Qwen3-14B and
# DeepSeek-R1 bursts, while the 0.11.0 Qwen3-235B bursts on H100 (111 and 161 req/s published) allow the API server
# at most 6-9 ms per request in all, the parse included. The joint calibration (2026-12-01) chose 3 ms, a third of
# this machine's measurement (GPUStack's hosts' CPUs are not stated).
JINJA_PARSE_SECONDS = 0.003
# vLLM's async scheduling (default on from 0.14.0 to 0.33.0, the release the stacks pin; off through 0.13.0 unless
# --async-scheduling): the engine core schedules step N+1 and launches it before it blocks on step N's result
# (0.33.0 vllm/v1/engine/core.py ``step_with_batch_queue`` 708-785: ``return None, model_executed`` while the batch
# queue is not full, then ``batch_queue.pop()`` and ``future.result()``; the queue holds 2 batches with async
# scheduling, config/vllm.py ``max_concurrent_batches`` 588-598; default on: config/vllm.py 1719). A request that
# reaches the engine while step N runs is planned into step N+2, not N+1.
ASYNC_SCHEDULING = True


class Replica:
    """One engine (a TP x PP group) with its waiting queue, running batch and KV cache."""

    def __init__(
        self,
        env: simpy.Environment,
        rid: int,
        roofline: Roofline,
        max_num_seqs: int,
        max_num_batched_tokens: int,
        num_blocks: int,
        block_size: int,
        max_num_queued_reqs: Optional[int],
        on_first_token: Callable[[Request], None],
        on_done: Callable[[Request], None],
    ):
        self.env = env
        self.id = rid
        self.roof = roofline
        self.max_seqs = max_num_seqs
        self.max_tokens = max_num_batched_tokens
        self.num_blocks = num_blocks
        self.bs = block_size
        self.queue_cap = max_num_queued_reqs
        self.on_first_token = on_first_token
        self.on_done = on_done
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []
        self.prefilling: list[Request] = []
        self.n_decoding = 0
        self.heap: list[tuple[int, int, Request]] = []
        self.step_no = 0
        self.kv_tokens = 0
        # Blocks given back to the free queue so far, less those found there again: taken = used + returned.
        self.kv_returned = 0.0
        # vLLM V1's prefix cache (on by default: 0.11.0 engine/arg_utils.py 1560-1561, 0.33.0 config/cache.py 257):
        # a preempted request finds its own blocks again (kv_refound.py). benchmarks/fidelity.py sets each run's.
        self.prefix_caching = True
        self.preemptions = 0
        self.peak_kv = 0.0
        self.busy_seconds = 0.0
        self.fill_seconds = 0.0  # integral of the running batch's size over time
        self.api_tokens = 0  # tokens the API server handled: prompts tokenized, output tokens detokenized and sent
        self.aborts: list[Request] = []
        self._pending: dict[int, Request] = {}  # requests the API server is still handling
        self._frontend_free = 0.0
        self.stopped = False
        # The API server's time per request; None: FRONTEND_SECONDS (benchmarks/fidelity.py sets V0-era runs' own).
        self.frontend_seconds: Optional[float] = None
        self._step_preempted = False
        # The decode steps taken together now (start, decodes, step seconds) and the tokens of them streamed so far.
        self._streaming: Optional[tuple[float, int, float]] = None
        self._streamed = 0
        self._kick: Optional[simpy.Event] = None
        self._kick_on_arrival = False
        self.on_stall: Optional[Callable[[Request], None]] = None  # told when a stream that sent tokens is preempted
        # The tokenizer's micro-batching wait (MICROBATCH_TOKENIZER_WAIT_S for the releases that have it; 0.33.0: 0).
        self.tokenizer_wait_seconds = 0.0
        # The API server's further time per request for the chat template (JINJA_PARSE_SECONDS on 0.11.0; 0.33.0: 0).
        self.template_seconds = 0.0
        # Async scheduling (ASYNC_SCHEDULING: the pinned release's default; benchmarks/fidelity.py sets each run's). A
        # pipeline-parallel engine keeps as many batches in flight as it has stages in any case (0.33.0 config/vllm.py
        # ``max_concurrent_batches`` 588-598): a newcomer waits for one pass of the pipeline, which this model's PP step
        # already is, so no further plan-ahead. Under it the step's per-request host work overlaps the GPU's
        # (roofline.step_host_seconds).
        self.async_scheduling = ASYNC_SCHEDULING and getattr(roofline, "pp", 1) == 1
        # The last engine step's start and end, and the latest arrival time the step starting now may admit.
        self._last_step = (-1.0, -1.0)
        self._admit_until = 0.0
        # vLLM's V0 scheduler without chunked prefill (releases before V1; benchmarks/fidelity.py replays such runs):
        # whole prompts, and a step that prefills decodes nothing. The stacks pin V1 releases: False.
        self.prefill_first = False
        self.process = env.process(self._run())

    # ---- what the router and the metrics see -------------------------------------------------
    @property
    def in_flight(self) -> int:
        """vllm:num_requests_running + vllm:num_requests_waiting (and what the API server still handles)."""
        return len(self.running) + len(self.waiting) + len(self._pending)

    def kv_usage(self) -> float:
        """vllm:kv_cache_usage_perc (0-1)."""
        return min(1.0, self._blocks_used() / self.num_blocks)

    def submit(self, req: Request) -> bool:
        """Queue ``req``; False when the requests in flight (running, waiting, in the API server) are at
        ``--max-num-queued-reqs`` (vLLM answers 503; see the module docstring for vLLM's count).

        The API server handles requests one at a time (parsing, tokenizing) before the engine
        sees them: ``FRONTEND_SECONDS`` each, so a burst reaches the scheduler spread out.
        """
        if self.stopped:
            return False
        if self.queue_cap is not None and self.in_flight >= self.queue_cap:
            return False
        req.replica = self
        self.api_tokens += req.prompt
        frontend = FRONTEND_SECONDS if self.frontend_seconds is None else self.frontend_seconds
        frontend += self.template_seconds
        if frontend <= 0 and self.tokenizer_wait_seconds <= 0:
            self._enqueue(req)
            return True
        now = self.env.now
        ready = now
        if frontend > 0:
            self._catch_up()
            self._frontend_free = max(now, self._frontend_free) + frontend
            ready = self._frontend_free
        # The tokenizer's batching window delays each request without holding the API server's loop.
        ready += self.tokenizer_wait_seconds
        self._pending[req.id] = req
        self.env.timeout(ready - now).callbacks.append(functools.partial(self._from_frontend, req))
        return True

    def _from_frontend(self, req: Request, _event: Optional[simpy.Event] = None) -> None:
        self._pending.pop(req.id, None)
        if self.stopped or req.replica is not self or req.abort_pending:
            if req.abort_pending and req.replica is self:
                req.replica = None
            return
        self._enqueue(req)

    def _enqueue(self, req: Request) -> None:
        req.queued = self.env.now
        self.waiting.append(req)
        if self._kick is not None and self._kick_on_arrival and not self._kick.triggered:
            self._kick.succeed()

    def abort(self, req: Request) -> None:
        """Drop ``req`` at the next step boundary (the client went away: 504 or cut)."""
        if req.replica is not self or req.abort_pending:
            return
        req.abort_pending = True
        self.aborts.append(req)
        if self._kick is not None and not self._kick.triggered:
            self._kick.succeed()

    def stop(self) -> list[Request]:
        """The replica goes away: returns the requests it still held (they are cut)."""
        self.stopped = True
        left = [r for r in self.running + list(self.waiting) + list(self._pending.values()) if r.outcome is None]
        self._pending.clear()
        self.running, self.prefilling, self.heap = [], [], []
        self.waiting.clear()
        self.n_decoding = 0
        self.kv_tokens = 0
        if self._kick is not None and not self._kick.triggered:
            self._kick.succeed()
        return left

    # ---- internals ---------------------------------------------------------------------------
    def _blocks_used(self) -> float:
        return self.kv_tokens / self.bs + 0.5 * len(self.running)

    def _ctx(self, r: Request) -> int:
        """Tokens ``r`` holds in the cache now."""
        if r.prefill_left > 0:
            return r.cached
        return r.base_ctx + (self.step_no - r.dec0)

    def _remove(self, r: Request) -> None:
        """Take ``r`` out of the batch or the queue and free its blocks."""
        if r in self.running:
            ctx = self._ctx(r)
            self.kv_tokens -= ctx
            self.kv_returned += ctx / self.bs + 0.5
            self.running.remove(r)
            if r.prefill_left > 0:
                self.prefilling.remove(r)
            else:
                self.n_decoding -= 1
                r.gen = r.gen0 + (self.step_no - r.dec0)
                r.finish_step = None
        else:
            try:
                self.waiting.remove(r)
            except ValueError:
                pass

    def _process_aborts(self) -> None:
        for r in self.aborts:
            if r.replica is self:
                self._remove(r)
                r.replica = None
        self.aborts.clear()

    def _preempt(self) -> Request:
        """Preempt the newest running request (V1: ``self.running.pop()`` in ``Scheduler.schedule``); returns it."""
        victim = self.running[-1]
        self._step_preempted = True
        if self.prefix_caching:  # its blocks go to the free queue's back with their hashes
            used = self._blocks_used()
            victim.refound = kv_refound.mark(self._ctx(victim), self.bs, self.num_blocks - used, used + self.kv_returned)
        self._remove(victim)
        victim.prefill_left = victim.prompt + victim.gen
        victim.cached = 0
        victim.preemptions += 1
        self.preemptions += 1
        self.waiting.appendleft(victim)
        if victim.first_token is not None:
            victim.stalled_at = self.env.now
            if self.on_stall is not None:
                self.on_stall(victim)
        return victim

    def _finish(self, r: Request) -> None:
        self._remove(r)
        r.replica = None
        self.on_done(r)

    def _run(self) -> Generator[simpy.Event, Any, None]:
        """The engine's step loop: idle until a request comes; each step admits, prefills and decodes."""
        env = self.env
        while not self.stopped:
            if self.aborts:
                self._process_aborts()
            if not self.running and not self.waiting:
                self._kick = env.event()
                self._kick_on_arrival = True
                yield self._kick
                self._kick = None
                continue
            # Decodes need a slot each: preempt the newest requests until they fit.
            self._step_preempted = False
            while self.n_decoding and (self.num_blocks - self._blocks_used()) * self.bs < self.n_decoding:
                self._preempt()
            n_dec = self.n_decoding
            self._admit_until = self._planned_at()
            chunks = self._schedule_prompts() if self.prefill_first else self._schedule(n_dec)
            n_dec = self.n_decoding  # a prefill chunk that lacked blocks may have preempted decodes
            if chunks:
                stopped = yield from self._prefill_step(0 if self.prefill_first else n_dec, chunks)
            elif n_dec == 0:
                self._refuse_head()
                continue
            else:
                stopped = yield from self._decode_steps(n_dec)
            if stopped:
                return
            used = self._blocks_used() / self.num_blocks
            if used > self.peak_kv:
                self.peak_kv = min(1.0, used)

    def _planned_at(self) -> float:
        """When vLLM's scheduler planned the step that starts now: now, or with async scheduling, while other requests
        keep the engine busy, when the step that just ended began (``ASYNC_SCHEDULING``: the engine core schedules a
        step and launches it before it blocks on the previous step's result). Only requests in the waiting queue by
        then can join this step. With nothing else running the step is planned as the request comes (the batch queue
        is empty, so ``step_with_batch_queue`` schedules at once)."""
        began, ended = self._last_step
        if self.async_scheduling and not self.prefill_first and ended == self.env.now and self.running:
            return began
        return self.env.now

    def _held_for_next_plan(self) -> bool:
        """The waiting queue's head could join the batch but came after the step starting now was planned (async
        scheduling): it joins the next step, so decode steps are taken one at a time until it does."""
        return bool(self.waiting) and self.waiting[0].queued > self._admit_until and len(self.running) < self.max_seqs

    def _schedule(self, n_dec: int) -> list[tuple[Request, int]]:
        """One step's prefill chunks under the token budget left after ``n_dec`` decodes: the running prefills, then
        waiting requests in order while the batch has room (``max_num_seqs``) and the cache has blocks.

        As vLLM 0.33.0's V1 ``Scheduler.schedule`` (v1/core/sched/scheduler.py): a running request's chunk needs its
        blocks too, and when ``allocate_slots`` cannot give them the newest running request is preempted, until the
        chunk fits or the request preempted is this one (lines 912-990); a step that preempted admits no waiting
        request (line 1050, ``if not preempted_reqs``).
        """
        bs = self.bs
        budget = self.max_tokens - n_dec
        chunks: list[tuple[Request, int]] = []
        free_blocks = self.num_blocks - self._blocks_used() - n_dec / bs
        for r in list(self.prefilling):
            if budget <= 0:
                break
            if r.replica is not self or r not in self.prefilling:
                continue  # preempted for an earlier chunk of this step
            c = min(r.prefill_left, budget)
            while c / bs > free_blocks:
                victim = self._preempt()
                if victim is r:
                    break
                # The victim's blocks and its share of the budget (a chunk or a decode) come back (lines 950-956).
                chunks = [(q, k) for q, k in chunks if q is not victim]
                planned = self.n_decoding + sum(k for _, k in chunks)
                free_blocks = self.num_blocks - self._blocks_used() - planned / bs
                budget = self.max_tokens - planned
            if r not in self.prefilling:
                continue
            chunks.append((r, c))
            budget -= c
            free_blocks -= c / bs
        if self._step_preempted:
            return chunks
        return self._admit_waiting(chunks, budget, free_blocks, whole=False)

    def _schedule_prompts(self) -> list[tuple[Request, int]]:
        """V0 without chunked prefill (``Scheduler._schedule_default``: "First, it batches as many prefill requests as
        possible. And it schedules decodes"): whole waiting prompts in order while they fit the token budget, the batch
        (``max_num_seqs``) and the free blocks less V0's watermark (``CacheConfig`` ``gpu_memory_utilization``'s sibling
        ``watermark``, 1% of the blocks, which ``BlockSpaceManager.can_allocate`` keeps free for running decodes);
        the step holds no decode."""
        free_blocks = self.num_blocks * (1 - V0_WATERMARK) - self._blocks_used()
        return self._admit_waiting([], self.max_tokens, free_blocks, whole=True)

    def _admit_waiting(
        self, chunks: list[tuple[Request, int]], budget: int, free_blocks: float, whole: bool
    ) -> list[tuple[Request, int]]:
        """Waiting requests in order join the batch while it has room (``max_num_seqs``), each with a chunk of its
        prompt under the token budget (V1), or with the whole prompt when it fits the budget (``whole``: V0), and the
        cache has the chunk's blocks; returns ``chunks`` with theirs added."""
        while self.waiting and len(self.running) < self.max_seqs:
            r = self.waiting[0]
            if r.queued > self._admit_until:
                break  # it came after this step was planned (async scheduling)
            hit = self._prefix_hit(r)
            c = r.prefill_left - hit if whole else min(r.prefill_left - hit, budget)
            need = (hit + c) / self.bs + 0.5  # the cached blocks it takes out of the free pool count too
            if c <= 0 or c > budget or need > free_blocks:
                break
            self.waiting.popleft()
            self._admitted(r, hit)
            self.running.append(r)
            self.prefilling.append(r)
            chunks.append((r, c))
            budget -= c
            free_blocks -= need
        return chunks

    def _prefix_hit(self, r: Request) -> int:
        """Tokens of ``r``'s prompt already in the KV cache when it is admitted (vLLM's prefix cache: full blocks, at
        most the prompt less one token, vLLM 0.10.1.1 v1/core/kv_cache_manager.py ``get_computed_blocks`` 145-153;
        the touched blocks leave the free pool, ``allocate_slots``): of a preempted request, what the allocations
        since have not evicted of its own blocks (kv_refound.py); no prefix cache is shared between requests.
        benchmarks/fidelity.py, replaying a source's runs sent back to back to one server, overrides it."""
        if r.refound is None:
            return 0
        return kv_refound.refound_tokens(r.refound, self._blocks_used() + self.kv_returned, r.prefill_left, self.bs)

    def _admitted(self, r: Request, hit: int) -> None:
        """``r`` joins the batch with ``hit`` prompt tokens found cached: not computed again, their KV held from now."""
        r.refound = None
        if hit:
            r.cached += hit
            r.prefill_left -= hit
            self.kv_tokens += hit
            self.kv_returned -= hit / self.bs  # found in the free queue, not taken from its front

    def _prefill_step(self, n_dec: int, chunks: list[tuple[Request, int]]) -> Generator[simpy.Event, Any, bool]:
        """One step of ``n_dec`` decodes and the prefill ``chunks``; True when the replica stopped meanwhile."""
        tokens = sum(c for _, c in chunks)
        attn = sum(c * (r.cached + c / 2) for r, c in chunks)
        # A V0 prefill-only step reads no decoder's KV; a V1 step reads every scheduled request's.
        ctx = tokens if self.prefill_first else self.kv_tokens + tokens
        # Every request with a chunk in the step is scheduled, sampled and accounted like a decode (roofline.py).
        dt = self.roof.step_seconds(n_dec, tokens, ctx, attn, prefill_seqs=len(chunks), async_scheduling=self.async_scheduling)
        yield self.env.timeout(dt)
        self._last_step = (self.env.now - dt, self.env.now)
        self.busy_seconds += dt
        self.fill_seconds += dt * len(self.running)
        if self.stopped:
            return True
        if not self.prefill_first:  # decodes advance one token (V0's prefill-only step pauses them)
            self.step_no += 1
        self.kv_tokens += n_dec
        out = n_dec
        for r, c in chunks:
            if r.replica is not self or r.abort_pending or r.prefill_left <= 0:
                continue
            r.prefill_left -= c
            r.cached += c
            self.kv_tokens += c
            if r.prefill_left == 0:
                out += 1
                self._prefilled(r)
        self._stream(out, self.env.now - dt)
        self._pop_finished()
        return False

    def _stream(self, tokens: int, since: float) -> None:
        """The API server streams ``tokens`` output tokens produced since ``since``: it takes requests in after them."""
        self.api_tokens += tokens
        if API_TOKEN_SECONDS > 0 and tokens:
            self._frontend_free = max(since, self._frontend_free) + tokens * API_TOKEN_SECONDS

    def _catch_up(self) -> None:
        """Account the tokens of the decode steps taken together so far (their interval is not over): a request that
        comes in meanwhile waits for what the API server has streamed up to now."""
        if self._streaming is None:
            return
        t0, n_dec, dt = self._streaming
        produced = n_dec * int((self.env.now - t0) / dt)
        if produced > self._streamed:
            self._stream(produced - self._streamed, t0 + self._streamed / n_dec * dt)
            self._streamed = produced

    def _prefilled(self, r: Request) -> None:
        """``r``'s prompt is in the cache: its first (or next) token is out; it decodes, or ends at one token."""
        env = self.env
        self.prefilling.remove(r)
        r.gen += 1
        r.stalled_at = None
        if r.first_token is None:
            r.first_token = env.now
            self.on_first_token(r)
        if r.gen >= r.output:
            self.kv_tokens -= r.cached
            self.kv_returned += r.cached / self.bs + 0.5
            self.running.remove(r)
            r.replica = None
            self.on_done(r)
            return
        self.n_decoding += 1
        r.base_ctx = r.cached
        r.dec0 = self.step_no
        r.gen0 = r.gen
        r.finish_step = self.step_no + r.output - r.gen
        heapq.heappush(self.heap, (r.finish_step, r.id, r))

    def _refuse_head(self) -> None:
        """Only waiting requests that cannot be admitted and nothing running: cannot happen with a cache that holds
        max_model_len; refuse the head rather than spin."""
        r = self.waiting.popleft()
        r.replica = None
        r.outcome = "503"
        self.on_done(r)

    def _decode_steps(self, n_dec: int) -> Generator[simpy.Event, Any, bool]:
        """Pure decode steps taken together, up to the next finish or the step that would lack a block; an arrival
        that could be admitted, or an abort, interrupts them at the next step boundary. True when the replica stopped."""
        env = self.env
        heap = self.heap
        while heap and heap[0][2].finish_step != heap[0][0]:
            heapq.heappop(heap)
        k_finish = heap[0][0] - self.step_no
        k_kv = int((self.num_blocks - self._blocks_used()) * self.bs // n_dec)
        k = 1 if self._held_for_next_plan() else max(1, min(k_finish, k_kv))
        dt = self.roof.step_seconds(n_dec, 0, self.kv_tokens + n_dec * k / 2, async_scheduling=self.async_scheduling)
        t0 = env.now
        admit = not self.waiting and len(self.running) < self.max_seqs
        self._streaming = (t0, n_dec, dt)
        self._streamed = 0
        if k > 1:
            kick = self._kick = env.event()
            self._kick_on_arrival = admit
            yield env.timeout(k * dt) | kick
            self._kick = None
            if kick.triggered:
                j = min(k, int((env.now - t0) / dt) + 1)
                rest = t0 + j * dt - env.now
                if rest > 0:
                    yield env.timeout(rest)
            else:
                j = k
        else:
            yield env.timeout(dt)
            j = 1
        self._last_step = (env.now - dt, env.now)
        self.busy_seconds += j * dt
        self.fill_seconds += j * dt * len(self.running)
        if self.stopped:
            return True
        self.step_no += j
        self.kv_tokens += n_dec * j
        self._streaming = None
        self._stream(n_dec * j - self._streamed, t0 + self._streamed / n_dec * dt)
        self._pop_finished()
        return False

    def _pop_finished(self) -> None:
        heap = self.heap
        while heap and heap[0][0] <= self.step_no:
            step, _, r = heapq.heappop(heap)
            if r.finish_step != step or r.replica is not self:
                continue
            # Tokens it held: its prompt (and recomputed output) plus the decode steps since.
            self._finish(r)


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks a request of ``tokens`` needs."""
    return math.ceil(tokens / block_size)
