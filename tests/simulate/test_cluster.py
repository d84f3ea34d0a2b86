"""The loop around the replicas: the HPA's signal, windows and policies; Karpenter's nodes and buffers; timeouts; drains."""

from __future__ import annotations

import numpy as np

from components.simulate.cluster import Simulation
from components.simulate.engine import Request
from components.traffic.workload import Workload
from tests.simulate.helpers import DOWN, model, replace, stack


def _load(rate_until: list[tuple[float, float, float]], prompt=200, output=400, seed=0, streamed=True) -> Workload:
    """Poisson arrivals: (start, end, rate) pieces; every request streamed, none, or (``"alternate"``) every other one."""
    rng = np.random.default_rng(seed)
    times = []
    for start, end, rate in rate_until:
        n = rng.poisson(rate * (end - start))
        times.extend(rng.uniform(start, end, n))
    t = np.sort(np.asarray(times))
    n = len(t)
    flags = np.arange(n) % 2 == 0 if streamed == "alternate" else np.full(n, bool(streamed))
    return Workload(t, np.full(n, prompt), np.full(n, output), flags, np.zeros(n, dtype=bool))


def _run(st, loads, duration, seed=0):
    sim = Simulation(st, loads, duration, seed, 15.0)
    sim.run()
    return sim


def test_scale_up_follows_the_pods_and_percent_policies_per_period():
    # 8 s per request at 0.02 s/step and 400 tokens; 20 req/s needs ~160 in flight = 20 pods at target 8.
    st = stack(model(max_replicas=30, start=5, node_ready=0, pull=0))
    sim = _run(st, {"m": _load([(0, 400, 20)])}, 400)
    ups = [(t, a, b) for t, a, b in sim.models["m"].stats.scale_events if b > a]
    assert ups, "no scale-up"
    for _, a, b in ups:
        # Max(100% of the pods at the period start, 4 pods) within any 15 s period.
        assert b <= max(2 * a, a + 4)
    # Syncs happen on the 15 s period only.
    assert all(t % 15 == 0 for t, _, _ in sim.models["m"].stats.scale_events)


def test_scale_down_waits_for_the_stabilization_window_then_one_pod_per_minute():
    st = stack(model(min_replicas=1, max_replicas=10, start=5, node_ready=0, pull=0))
    sim = _run(st, {"m": _load([(0, 300, 10)])}, 1500)
    events = sim.models["m"].stats.scale_events
    downs = [(t, a, b) for t, a, b in events if b < a]
    assert downs
    last_up = max(t for t, a, b in events if b > a)
    # Load stops at 300 s; in-flight requests end some seconds later: the first scale-down comes a window after.
    assert downs[0][0] >= 300 + 300 - 15
    assert all(a - b == 1 for _, a, b in downs)  # Min(10%, 1 pod) per 60 s = 1 pod
    gaps = [t2 - t1 for (t1, _, _), (t2, _, _) in zip(downs, downs[1:])]
    assert all(g >= 60 for g in gaps)
    assert last_up < downs[0][0]


def test_the_adapter_relist_delays_a_new_pods_signal():
    st = stack(model(start=5, node_ready=0, pull=0, relist=300.0, max_replicas=30))
    fast = stack(model(start=5, node_ready=0, pull=0, relist=None, max_replicas=30))
    load = {"m": _load([(0, 600, 20)])}
    slow_run, fast_run = _run(st, load, 600), _run(fast, load, 600)
    # Pods born after t=0 only count after the relist at 300 s: fewer scale-ups before it.
    slow_before = sum(1 for t, a, b in slow_run.models["m"].stats.scale_events if b > a and t < 300)
    fast_before = sum(1 for t, a, b in fast_run.models["m"].stats.scale_events if b > a and t < 300)
    assert slow_before < fast_before


def test_a_pending_pod_lands_on_the_buffer_node_at_once_and_the_buffer_reprovisions():
    m = model(min_replicas=1, max_replicas=2, start=100, node_ready=300, pull=300)
    with_buffer = _run(stack(m, buffer_pods=1), {"m": _load([(0, 1500, 5)])}, 1500)
    without = _run(stack(m), {"m": _load([(0, 1500, 5)])}, 1500)
    b_ready = with_buffer.models["m"].stats.ready_events[0]
    n_ready = without.models["m"].stats.ready_events[0]
    first_up = with_buffer.models["m"].stats.scale_events[0][0]
    assert b_ready - first_up == 100  # container start only: the node is up and holds the image
    assert n_ready - without.models["m"].stats.scale_events[0][0] == 300 + 300 + 100  # node, image, container
    pool = with_buffer.pools["p"]
    assert len([n for n in pool.nodes if not n.gone]) == 3  # the serving node, the taken buffer node, a new buffer node
    assert pool.buffer_pods[0].state == "placed"


def test_gpu_limit_caps_the_pool():
    m = model(min_replicas=1, max_replicas=10, start=10, node_ready=10, pull=10)
    sim = _run(stack(m, gpu_limit=3), {"m": _load([(0, 900, 30)])}, 900)
    assert max(sim.series["m"]["replicas_ready"]) == 3
    assert sum(n.gpus for n in sim.pools["p"].nodes if not n.gone) <= 3


def test_past_the_alb_idle_timeout_a_plain_request_is_a_504_and_a_stream_is_cut():
    # One slot, 8 s a request, 2 req/s: the queue grows past the ALB's 30 s. A plain request has sent nothing: the
    # ALB answers 504. A stream had its 200 and headers when vLLM admitted it (_preflight, before any token), so the
    # ALB can only close the connection: a cut stream. Both leave the engine.
    m = model(min_replicas=1, max_replicas=1, seqs=1, queue=None)
    m = replace(m, route=replace(m.route, alb_idle_seconds=30.0, route_timeout_seconds=None))
    load = _load([(0, 60, 2)], prompt=100, output=400, streamed="alternate")
    sim = _run(stack(m), {"m": load}, 200)
    run = sim.models["m"]
    st = run.stats
    assert st.timeouts_504 > 0 and st.cut > 0
    assert st.cut == st.cut_idle and st.cut_route == st.cut_drain == 0
    # Every request is accounted for exactly once.
    assert st.ok + st.timeouts_504 + st.rejected_503 + st.cut == st.requests
    assert all(p.engine.in_flight <= 1 for p in run.ready)  # the timed-out ones were aborted, not left queued


def test_past_the_route_timeout_a_plain_request_is_a_504_and_a_stream_is_reset():
    # Envoy's route timeout: a 504 before any byte, a reset once the response started (router.cc onUpstreamAbort).
    m = model(min_replicas=1, max_replicas=1, seqs=1, queue=None)
    m = replace(m, route=replace(m.route, alb_idle_seconds=600.0, route_timeout_seconds=20.0))
    load = _load([(0, 60, 2)], prompt=100, output=400, streamed="alternate")
    st = _run(stack(m), {"m": load}, 200).models["m"].stats
    assert st.timeouts_504 > 0 and st.cut > 0
    assert st.cut == st.cut_route and st.cut_idle == st.cut_drain == 0
    assert st.ok + st.timeouts_504 + st.rejected_503 + st.cut == st.requests


def test_a_drain_shorter_than_the_streams_cuts_them_and_a_long_one_does_not():
    def run(drain):
        m = model(min_replicas=1, max_replicas=4, start=5, node_ready=0, pull=0, drain=drain, step=0.05)
        # A burst scales out, then the load drops: scale-in removes pods with long streams in flight.
        return _run(stack(m), {"m": _load([(0, 200, 6), (200, 1500, 0.12)], output=1000)}, 1500).models["m"].stats

    short, long = run(0.0), run(600.0)
    assert short.in_flight_at_scale_in > 0
    assert short.cut == short.in_flight_at_scale_in
    assert long.cut == 0


def _two_pods(retry: bool):
    m = model(min_replicas=2, max_replicas=2, seqs=1, queue=1)
    m = replace(m, route=replace(m.route, retry_on_503=retry))
    sim = Simulation(stack(m), {}, 0.001, 0, 15.0)
    sim.run()
    run = sim.models["m"]
    full, free = run.ready
    full.replica.queue_cap = 0  # this pod answers 503 to everything
    # The balancer picks the full pod first (Envoy's two random choices can); a retry must go elsewhere.
    run.pick = lambda exclude=None: full if exclude is None else free
    return run, free


def test_a_503_is_retried_once_on_another_pod():
    run, free = _two_pods(retry=True)
    r = Request(1, 0.0, 10, 10, True)
    run.dispatch(r)
    assert r.replica is free.replica and r.outcome is None
    assert run.stats.retries == 1 and run.stats.rejected_503 == 0


def test_without_the_retry_the_503_reaches_the_client():
    run, _ = _two_pods(retry=False)
    r = Request(1, 0.0, 10, 10, True)
    run.dispatch(r)
    assert r.outcome == "503" and run.stats.retries == 0 and run.stats.rejected_503 == 1


def test_the_seed_defaults_drain_cuts_a_stream_on_scale_in_and_the_derived_drain_does_not():
    from components.simulate.settings import seed_defaults

    derived = model(min_replicas=1, max_replicas=4, start=5, node_ready=0, pull=0, drain=615.0, step=0.05)
    # The defaults' drain window, on the same scaling so both runs scale in at the same moments.
    defaults = replace(derived, drain_seconds=seed_defaults(stack(derived), {}).models[0].drain_seconds)
    load = {"m": _load([(0, 200, 6), (200, 1500, 0.12)], output=1000)}
    d = _run(stack(derived), load, 1500).models["m"].stats
    s = _run(stack(defaults), load, 1500).models["m"].stats
    assert d.scale_events == s.scale_events and any(b < a for _, a, b in s.scale_events)
    # Streams of 1000 tokens at 50 ms a step run 50 s: longer than the defaults' 0 s window, shorter than 615 s.
    assert s.cut > 0 and s.cut == s.cut_drain == s.in_flight_at_scale_in
    assert d.in_flight_at_scale_in > 0 and d.cut == 0


def test_a_stream_idle_past_the_alb_idle_timeout_is_cut_mid_way():
    m = model(min_replicas=1, max_replicas=1)
    m = replace(m, route=replace(m.route, alb_idle_seconds=60.0))
    sim = Simulation(stack(m), {}, 0.001, 0, 15.0)
    sim.run()
    run = sim.models["m"]
    streams = []
    for rid in (1, 2, 3):
        r = Request(rid, 0.0, 10, 100, True)
        r.first_token, r.stalled_at = 0.5, 1.0  # sent its first token, then preempted at t=1
        run._stalled(r)
        streams.append(r)
    idle, resumed, again = streams
    resumed.stalled_at = None  # its recompute sent a token at once
    sim.env.run(until=30.0)
    again.stalled_at = 30.0  # resumed, then preempted again at t=30: idle only since then
    run._stalled(again)
    sim.env.run(until=62.0)
    assert idle.outcome == "cut" and resumed.outcome is None and again.outcome is None
    assert run.stats.cut == run.stats.cut_idle == 1
    sim.env.run(until=92.0)
    assert again.outcome == "cut" and run.stats.cut_idle == 2


def _cpu_pod(busy: float, tokens: int, *, gpus=1, cpu_request=2.0):
    from components.simulate.cluster import Pod

    m = replace(model(signal="cpu", target=0.8, gpus=gpus), cpu_request=cpu_request)
    sim = Simulation(stack(m), {}, 0.001, 0, 15.0)
    run = sim.models["m"]
    rep = type("Rep", (), {"busy_seconds": busy, "api_tokens": tokens})()
    pod = Pod(99, run, gpus, 0.0)
    pod.replica = rep
    return run, pod


def test_the_cpu_model_grows_with_token_throughput_over_the_cpu_request():
    from components.simulate.settings import CPU_SECONDS_PER_TOKEN

    # 15 s of metrics-server interval: half of it stepping (one GPU process, one core), 1000 tokens/s.
    run, pod = _cpu_pod(7.5, 15_000, cpu_request=2.0)
    assert abs(run.cpu_utilisation(pod) - (0.5 + 1000 * CPU_SECONDS_PER_TOKEN) / 2.0) < 1e-9
    values = []
    for tokens_per_s in (0, 1000, 10_000, 50_000):
        run, pod = _cpu_pod(15.0, 15 * tokens_per_s, gpus=4, cpu_request=8.0)
        values.append(run.cpu_utilisation(pod))
    assert values == sorted(values) and values[-1] > values[0]
    # The next sample counts only what happened since this one.
    run, pod = _cpu_pod(15.0, 15_000)
    run.cpu_utilisation(pod)
    assert run.cpu_utilisation(pod) == 0.0


def test_the_cpu_hpa_scales_out_and_in_when_the_pod_requests_little_cpu_and_never_when_it_requests_much():
    def run(cpu_request):
        m = replace(
            model(
                signal="cpu",
                target=0.8,
                min_replicas=1,
                max_replicas=6,
                start=5,
                node_ready=0,
                pull=0,
                queue=None,
                down=replace(DOWN, stabilization_seconds=60),
            ),
            cpu_request=cpu_request,
        )
        return _run(stack(m), {"m": _load([(0, 300, 8), (300, 900, 0.05)])}, 900).models["m"]

    small, large = run(1.0), run(16.0)
    # One stepping core is 100% of a 1-core request: over 80%, so it scales out under load and back in when idle.
    assert any(b > a for _, a, b in small.stats.scale_events) and any(b < a for _, a, b in small.stats.scale_events)
    assert small.peak_cpu > 0.8
    assert large.stats.scale_events == [] and large.peak_cpu < 0.8


def test_long_context_requests_go_to_the_sibling():
    short = replace(model("m", min_replicas=1, max_replicas=1), long_sibling="m-long")
    long = model("m-long", min_replicas=1, max_replicas=1)
    load = _load([(0, 60, 5)])
    flags = np.zeros(len(load), dtype=bool)
    flags[::4] = True
    load = Workload(load.times, load.prompt, load.output, load.streamed, flags)
    sim = _run(stack(short, long), {"m": load}, 120)
    assert sim.models["m-long"].stats.requests == int(flags.sum())
    assert sim.models["m"].stats.requests == len(load) - int(flags.sum())
