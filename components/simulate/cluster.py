"""The stack around the replicas, as SimPy processes: routing, metrics, the HPA, Karpenter, timeouts, drains.

* Routing: the ALB (least outstanding requests) and, with Istio, Envoy's LEAST_REQUEST (power of
  two choices) over the model's ready pods; one retry on another pod when vLLM answers 503 (the
  VirtualService's ``retryOn`` as rendered); the header route sends a long-context request to the
  ``<name>-long`` sibling.
* Signal: Prometheus scrapes each pod's running + waiting every scrape interval; the Prometheus
  Adapter only serves a pod's series after its next relist; the HPA syncs every 15 s and computes
  ceil(sum / target) (10% tolerance), then applies the rendered behavior: stabilization windows and
  the Pods/Percent policies over their periods. KEDA's HPA reads Prometheus directly (no relist).
  The seed defaults' CPU HPA sees the pod's CPU over metrics-server's interval relative to its CPU
  request: one core per GPU process while the engine steps, plus the API server's CPU per token
  handled (settings.py ``CPU_SECONDS_PER_TOKEN``; modelling choice, docs/simulate.md).
* Karpenter: a pending pod preempts a buffer pod on a ready node at once (the buffer pod goes
  pending and Karpenter provisions a node for it), or binds to a free slot, or waits for a new node
  (launch and join, then the image pull); ``limits.nvidia.com/gpu`` caps the pool; an empty node
  goes after ``consolidateAfter``. The container then starts in the plan's startup time.
* Timeouts: a request with no byte by the ALB idle timeout (streamed: before its first token;
  not streamed: before it ends) or not done by the route timeout is a 504 and is aborted; a stream
  that had sent tokens and then sends none for the ALB idle timeout (it was preempted and waits for
  its recompute) is cut: the ALB closes the connection mid-stream; a pod that
  scale-down removes stops taking requests, drains for preStop + --shutdown-timeout (bounded by the
  grace period) and cuts whatever it still holds.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Generator, Optional

import numpy as np
import simpy

from ..traffic.workload import Workload
from .engine import Replica, Request
from .hpa import limit_down, limit_up, recommend, stabilized_down
from .pool import Node, Pod, PoolRun
from .settings import CPU_SECONDS_PER_TOKEN, ModelSettings, StackSettings

Process = Generator[simpy.Event, Any, None]

TICK_SECONDS = 1.0  # resolution of the timeout checks and drain polls


@dataclass
class Stats:
    """What one model's requests and pods did."""

    ttft: list[float] = field(default_factory=list)
    tpot: list[float] = field(default_factory=list)
    e2e: list[float] = field(default_factory=list)
    output_tokens: int = 0
    ok: int = 0
    rejected_503: int = 0
    timeouts_504: int = 0
    cut: int = 0
    cut_idle: int = 0  # of ``cut``: streams the ALB closed idle (no first token yet, or preempted mid-way)
    cut_route: int = 0  # of ``cut``: streams the route timeout reset after their headers
    cut_drain: int = 0  # of ``cut``: requests a removed pod still held when its drain ended
    retries: int = 0
    in_flight_at_scale_in: int = 0
    requests: int = 0
    scale_events: list[tuple[float, int, int]] = field(default_factory=list)  # (time, from, to)
    ready_events: list[float] = field(default_factory=list)  # times a new pod became ready


class ModelRun:
    """One served model: its pods, router, autoscaler and stats."""

    def __init__(self, sim: Simulation, ms: ModelSettings, pool: PoolRun, rng: np.random.Generator):
        self.sim = sim
        self.s = ms
        self.pool = pool
        # Envoy's two random choices: Python's Mersenne Twister seeded from the run's seed (fast for one draw at a time).
        self.rnd = random.Random(int(rng.integers(0, 2**63)))
        self.pods: list[Pod] = []
        self.ready: list[Pod] = []
        self.stats = Stats()
        self.fb: deque[Request] = deque()  # first-byte deadlines, in arrival order
        self.rt: deque[Request] = deque()  # route deadlines
        self.stalls: deque[tuple[float, Request]] = deque()  # (when, stream) preempted after sending tokens
        self.fb_limit = ms.route.alb_idle_seconds
        if ms.route.route_timeout_seconds is not None:
            self.fb_limit = min(self.fb_limit, ms.route.route_timeout_seconds)
        self.rt_limit = ms.route.route_timeout_seconds
        self.desired = ms.scaling.min_replicas
        self.recommendations: deque[tuple[float, int]] = deque()
        self.changes: list[tuple[float, int]] = []  # (time, replicas added (+) or removed (-)) for the policies
        self.metric: dict[int, float] = {}
        self.first_over: Optional[float] = None
        self.first_new_ready: Optional[float] = None
        self.peak_kv = 0.0
        self.peak_cpu: Optional[float] = None  # the highest CPU utilisation a CPU HPA saw (None: not a CPU HPA)
        self.replicas: list[Replica] = []  # every engine the model ever ran (preemptions, peak KV)

    # ---- pods ---------------------------------------------------------------------------------
    def new_pod(self, at_start: bool = False) -> Pod:
        pod = Pod(self.sim.next_id(), self, self.s.gpus_per_pod, self.sim.env.now)
        self.pods.append(pod)
        if at_start:
            node = next((n for n in self.pool.nodes if not n.gone and n.free >= pod.gpus), None)
            if node is None:
                node = self.pool.add_node(self.s.node_gpus, ready=True)
            node.free -= pod.gpus
            node.pods.append(pod)
            pod.node = node
            self._make_ready(pod)
        else:
            self.pool.submit(pod)
        return pod

    def start(self, pod: Pod, node: Node) -> Process:
        """The container's start on ``node``: the node's join, the image pull (once per node), then the plan's startup."""
        env = self.sim.env
        wait = max(0.0, node.ready_at - env.now)
        if not node.image:
            wait += self.s.image_pull_seconds
        yield env.timeout(wait + self.s.container_start_seconds)
        node.image = True
        if pod.state != "starting":
            return
        self._make_ready(pod)
        if self.first_new_ready is None and env.now > 0:
            self.first_new_ready = env.now
        self.stats.ready_events.append(env.now)

    def _make_ready(self, pod: Pod) -> None:
        e = self.s.engine
        pod.replica = Replica(
            self.sim.env,
            pod.id,
            self.s.roofline,
            e.max_num_seqs,
            e.max_num_batched_tokens,
            e.num_blocks,
            e.block_size,
            e.max_num_queued_reqs,
            self._first_token,
            self._done,
        )
        pod.replica.on_stall = self._stalled
        pod.state = "ready"
        pod.ready_at = self.sim.env.now
        self.ready.append(pod)
        self.replicas.append(pod.replica)

    def remove_pod(self, pod: Pod) -> None:
        """Scale-down takes ``pod`` away: pending/starting ones at once, ready ones after their drain."""
        if pod.state in ("pending", "starting"):
            pod.state = "gone"
            self.pods.remove(pod)
            if pod.node is not None:
                self.pool.release(pod)
            return
        pod.state = "draining"
        self.ready.remove(pod)
        # What a drain of 0 s (the seeds' default) would cut here.
        self.stats.in_flight_at_scale_in += pod.engine.in_flight
        self.sim.env.process(self._drain(pod))

    def _drain(self, pod: Pod) -> Process:
        env = self.sim.env
        engine = pod.engine
        end = env.now + self.s.drain_seconds
        while env.now < end and engine.in_flight:
            yield env.timeout(min(TICK_SECONDS * 5, end - env.now))
        for r in engine.stop():
            if r.outcome is None:
                r.outcome = "cut"
                r.done = env.now
                self.stats.cut += 1
                self.stats.cut_drain += 1
        self.metric.pop(pod.id, None)
        pod.state = "gone"
        self.pods.remove(pod)
        self.pool.release(pod)

    # ---- requests -----------------------------------------------------------------------------
    def _first_token(self, r: Request) -> None:
        pass

    def _stalled(self, r: Request) -> None:
        if r.stalled_at is not None:
            self.stalls.append((r.stalled_at, r))

    def _done(self, r: Request) -> None:
        if r.outcome is not None:
            return
        now = self.sim.env.now
        r.done = now
        r.outcome = "ok"
        st = self.stats
        st.ok += 1
        first = r.first_token if r.first_token is not None else now
        st.ttft.append(first - r.arrival)
        st.e2e.append(now - r.arrival)
        if r.output > 1:
            st.tpot.append((now - first) / (r.output - 1))
        st.output_tokens += r.output

    def pick(self, exclude: Optional[Pod] = None) -> Optional[Pod]:
        """The ready pod the balancer sends the next request to (not ``exclude``); None when no pod is ready."""
        pods = self.ready if exclude is None else [p for p in self.ready if p is not exclude]
        n = len(pods)
        if n == 0:
            return None
        if n == 1:
            return pods[0]
        if self.s.route.balancer == "lor":
            return min(pods, key=lambda p: (p.engine.in_flight, p.id))
        rnd = self.rnd
        i = rnd.randrange(n)
        j = rnd.randrange(n - 1)
        if j >= i:
            j += 1
        a, b = pods[i], pods[j]
        return a if a.engine.in_flight <= b.engine.in_flight else b

    def dispatch(self, r: Request) -> None:
        """Route ``r`` to a ready pod; one retry elsewhere on a 503 where the route retries it."""
        st = self.stats
        pod = self.pick()
        if pod is not None and pod.engine.submit(r):
            return
        if pod is not None and self.s.route.retry_on_503 and len(self.ready) > 1:
            st.retries += 1
            other = self.pick(exclude=pod)
            if other is not None and other.engine.submit(r):
                return
        r.outcome = "503"
        r.done = self.sim.env.now
        st.rejected_503 += 1

    def expire(self) -> None:
        """End and abort the requests past their deadlines (checked every TICK_SECONDS).

        A request that has sent nothing yet gets a 504. A streamed request has: vLLM answers 200 and its headers
        when it admits the stream, before any token (``_preflight``, vllm/entrypoints/generate/base/serving.py in
        0.33.0: "we return a success status before we actually start generating text"), so a timeout after that can
        only close the connection: the ALB idle timeout ("no data has been sent", the ELB ConnectionSettings) while it
        waits for its first token or sits preempted mid-way, or the Envoy route timeout, which resets a response
        already started (envoyproxy/envoy source/common/router/router.cc ``Filter::onUpstreamAbort``: "If we have not
        yet sent anything downstream, send a response with an appropriate status code. Otherwise just reset the
        ongoing response"). Those are cut streams."""
        now = self.sim.env.now
        fb, rt = self.fb, self.rt
        idle = self.s.route.alb_idle_seconds
        while fb and fb[0].arrival + self.fb_limit <= now:
            r = fb.popleft()
            if r.outcome is not None:
                continue
            if not r.streamed:
                self._timeout(r)
            elif r.first_token is None:
                self._cut(r, "alb_idle" if self.fb_limit >= idle else "route")
        if self.rt_limit is not None:
            while rt and rt[0].arrival + self.rt_limit <= now:
                r = rt.popleft()
                if r.outcome is None:
                    if r.streamed:
                        self._cut(r, "route")
                    else:
                        self._timeout(r)
        # The ALB closes a connection idle for its idle timeout, mid-stream too (Envoy's stream idle timeout is off
        # under Istio): a preempted stream still waiting for its recompute is cut.
        stalls = self.stalls
        while stalls and stalls[0][0] + idle <= now:
            at, r = stalls.popleft()
            if r.outcome is None and r.stalled_at == at:
                self._cut(r, "alb_idle")

    def _timeout(self, r: Request) -> None:
        r.outcome = "504"
        r.done = self.sim.env.now
        self.stats.timeouts_504 += 1
        if r.replica is not None:
            r.replica.abort(r)

    def _cut(self, r: Request, reason: str) -> None:
        """A stream the client saw start is closed before its end (``reason``: alb_idle, route or drain)."""
        r.outcome = "cut"
        r.done = self.sim.env.now
        st = self.stats
        st.cut += 1
        if reason == "alb_idle":
            st.cut_idle += 1
        elif reason == "route":
            st.cut_route += 1
        else:
            st.cut_drain += 1
        if r.replica is not None:
            r.replica.abort(r)

    # ---- autoscaling --------------------------------------------------------------------------
    def scrape(self) -> None:
        """One Prometheus scrape of every ready pod (or metrics-server's CPU sample)."""
        now = self.sim.env.now
        cpu = self.s.scaling.signal == "cpu"
        relist = self.s.scaling.relist_seconds
        for pod in self.ready:
            if cpu:
                value = self.cpu_utilisation(pod)
                self.peak_cpu = value if self.peak_cpu is None else max(self.peak_cpu, value)
            else:
                value = float(pod.engine.in_flight)
            if pod.seen_at is None:
                # The adapter serves a new series after its next relist; KEDA and metrics-server at once.
                pod.seen_at = now if relist is None else math.ceil(now / relist) * relist
            self.metric[pod.id] = value
        # The yardstick of "time to scale out": true in-flight per ready pod above the plan's target.
        if self.first_over is None and self.ready and self.sim.env.now > 0:
            load = sum(p.engine.in_flight for p in self.ready) / len(self.ready)
            if load > self.s.in_flight_target:
                self.first_over = now

    def cpu_utilisation(self, pod: Pod) -> float:
        """The pod's CPU since the last sample over its CPU request (what metrics-server reports to a CPU HPA).

        One core per GPU process for the share of the interval the engine stepped, plus the API server's
        ``CPU_SECONDS_PER_TOKEN`` per prompt token tokenized and output token sent."""
        rep = pod.engine
        interval = self.s.scaling.scrape_seconds
        busy, tokens = rep.busy_seconds, rep.api_tokens
        # A step's time lands when the step (or a run of decode steps) ends: at most the whole interval.
        stepping = min(1.0, (busy - pod.busy_prev) / interval)
        cores = stepping * self.s.gpus_per_pod + (tokens - pod.tokens_prev) / interval * CPU_SECONDS_PER_TOKEN
        pod.busy_prev, pod.tokens_prev = busy, tokens
        return cores / self.s.cpu_request

    def hpa_sync(self) -> None:
        """One HPA sync: desired replicas from the metric, then the behavior's window and policies."""
        sc = self.s.scaling
        if sc.signal == "fixed":
            return
        now = self.sim.env.now
        current = sum(1 for p in self.pods if p.state in ("pending", "starting", "ready"))
        values = [self.metric[p.id] for p in self.ready if p.id in self.metric and p.seen_at is not None and p.seen_at <= now]
        if not values:
            return
        desired = recommend(values, current, sc)
        self.recommendations.append((now, desired))
        if desired > current:
            desired = limit_up(current, desired, sc.up, self.changes, now)
        elif desired < current:
            desired = stabilized_down(self.recommendations, now, sc, current)
            if desired < current:
                desired = limit_down(current, desired, sc.down, self.changes, now)
        if desired != current:
            self.stats.scale_events.append((now, current, desired))
            self.changes.append((now, desired - current))
            self._apply(current, desired)

    def _apply(self, current: int, desired: int) -> None:
        if desired > current:
            for _ in range(desired - current):
                self.new_pod()
            return
        # The ReplicaSet removes pods not yet ready first, then the newest ready ones.
        order = sorted(
            (p for p in self.pods if p.state in ("pending", "starting", "ready")),
            key=lambda p: ({"pending": 0, "starting": 1, "ready": 2}[p.state], -(p.ready_at or p.created), -p.id),
        )
        for pod in order[: current - desired]:
            self.remove_pod(pod)


class Simulation:
    """A whole stack under its traffic, for ``duration`` simulated seconds."""

    def __init__(self, stack: StackSettings, workloads: dict[str, Workload], duration: float, seed: int, sample_seconds: float):
        self.env = simpy.Environment()
        self.stack = stack
        self.duration = duration
        self.sample_seconds = sample_seconds
        self._ids = 0
        self.node_ready_seconds = max((m.node_ready_seconds for m in stack.models), default=300.0)
        self.pools = {p.name: PoolRun(self, p) for p in stack.pools}
        self.models: dict[str, ModelRun] = {}
        for index, ms in enumerate(stack.models):
            self.models[ms.name] = ModelRun(self, ms, self.pools[ms.pool], np.random.default_rng([seed, 1000 + index]))
        self.workloads = workloads
        self.series: dict[str, dict[str, list[Any]]] = {name: {k: [] for k in SERIES} for name in self.models}

    def next_id(self) -> int:
        """A new id for a node, pod or request (deterministic: in creation order)."""
        self._ids += 1
        return self._ids

    def run(self) -> None:
        """Place the steady state, start every process and run to ``duration``."""
        env = self.env
        # Steady state at t=0: min replicas (or the fixed multi-node replica) ready, buffers placed.
        for run in self.models.values():
            for _ in range(run.s.scaling.min_replicas):
                pod = run.new_pod(at_start=True)
                if run.s.nodes_per_replica > 1:
                    # The other nodes of a multi-node replica are held whole.
                    for _ in range(run.s.nodes_per_replica - 1):
                        extra = run.pool.add_node(run.s.node_gpus, ready=True)
                        extra.free = 0
                        extra.pods.append(pod)
            run.desired = run.s.scaling.min_replicas
        for pool in self.pools.values():
            for _ in range(pool.s.buffer_pods):
                pod = Pod(self.next_id(), None, pool.s.buffer_gpus, 0.0, buffer=True)
                pool.buffer_pods.append(pod)
                node = pool.add_node(pool.s.buffer_node_gpus, ready=True)
                pool.bind(pod, node)
        for name, wl in self.workloads.items():
            env.process(self._arrivals(name, wl))
        env.process(self._ticks())
        for run in self.models.values():
            env.process(self._scraper(run))
            if run.s.scaling.signal != "fixed":
                env.process(self._hpa(run))
        env.process(self._sampler())
        env.run(until=self.duration)

    def _arrivals(self, name: str, wl: Workload) -> Process:
        env = self.env
        run = self.models[name]
        long_run = self.models.get(run.s.long_sibling) if run.s.long_sibling else None
        rows = zip(wl.times.tolist(), wl.prompt.tolist(), wl.output.tolist(), wl.streamed.tolist(), wl.long.tolist())
        for at, prompt, output, streamed, long in rows:
            if at >= self.duration:
                break
            if at > env.now:
                yield env.timeout(at - env.now)
            r = Request(self.next_id(), env.now, prompt, output, streamed, long)
            # The header route: a long-context request is the sibling's (its own InferenceService, its own row).
            target = long_run if (r.long and long_run is not None) else run
            target.stats.requests += 1
            target.fb.append(r)
            if target.rt_limit is not None:
                target.rt.append(r)
            target.dispatch(r)

    def _ticks(self) -> Process:
        while True:
            yield self.env.timeout(TICK_SECONDS)
            for run in self.models.values():
                run.expire()

    def _scraper(self, run: ModelRun) -> Process:
        period = run.s.scaling.scrape_seconds
        while True:
            run.scrape()
            yield self.env.timeout(period)

    def _hpa(self, run: ModelRun) -> Process:
        period = run.s.scaling.sync_seconds
        while True:
            yield self.env.timeout(period)
            run.hpa_sync()

    def _sampler(self) -> Process:
        env = self.env
        last = {name: (0, 0, 0, 0, 0) for name in self.models}
        while True:
            yield env.timeout(self.sample_seconds)
            for name, run in self.models.items():
                st = run.stats
                s = self.series[name]
                prev = last[name]
                now_counts = (st.requests, st.rejected_503, st.timeouts_504, st.cut, len(st.ttft))
                last[name] = now_counts
                kv = max((p.engine.kv_usage() for p in run.ready), default=0.0)
                run.peak_kv = max(run.peak_kv, max((p.replica.peak_kv for p in run.pods if p.replica), default=0.0))
                recent = st.ttft[prev[4] :]
                s["t"].append(env.now)
                s["arrivals_per_s"].append((now_counts[0] - prev[0]) / self.sample_seconds)
                s["replicas_ready"].append(len(run.ready))
                s["replicas"].append(sum(1 for p in run.pods if p.state in ("pending", "starting", "ready")))
                s["nodes"].append(run.pool.node_count())
                s["queue"].append(sum(len(p.engine.waiting) for p in run.ready))
                s["running"].append(sum(len(p.engine.running) for p in run.ready))
                s["kv_usage"].append(kv)
                s["ttft_p95_s"].append(float(np.percentile(recent, 95)) if recent else None)
                s["errors_503"].append(now_counts[1] - prev[1])
                s["errors_504"].append(now_counts[2] - prev[2])
                s["cut"].append(now_counts[3] - prev[3])


SERIES = (
    "t",
    "arrivals_per_s",
    "replicas_ready",
    "replicas",
    "nodes",
    "queue",
    "running",
    "kv_usage",
    "ttft_p95_s",
    "errors_503",
    "errors_504",
    "cut",
)
