"""Small hand-built replicas and stacks for the simulator's tests (no plan, no manifests)."""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import simpy

from components.simulate.engine import Replica, Request
from components.simulate.settings import (
    K8S_DEFAULT_DOWN,
    EngineLimits,
    ModelSettings,
    Policy,
    PoolSettings,
    Route,
    Rules,
    Scaling,
    StackSettings,
)


class FixedStep:
    """A roofline stand-in: every step takes ``seconds`` (records what it was asked)."""

    def __init__(self, seconds: float = 0.01):
        self.seconds = seconds
        self.calls: list[tuple[int, int]] = []

    def step_seconds(
        self, decodes, prefill_tokens, context_tokens, prefill_context=0.0, prefill_seqs=None, async_scheduling=False
    ):
        self.calls.append((decodes, prefill_tokens))
        return self.seconds


def replica(env, *, seqs=4, tokens=512, blocks=10_000, block=16, queue=None, step=0.01):
    """A replica with a fixed step time; finished requests land in ``replica.finished``."""
    done: list[Request] = []

    def on_done(r):
        if r.outcome is None:
            r.outcome = "ok"
            r.done = env.now
        done.append(r)

    rep = Replica(env, 1, FixedStep(step), seqs, tokens, blocks, block, queue, lambda r: None, on_done)
    rep.finished = done
    return rep


UP = Rules(0, "Max", (Policy("Percent", 100, 15), Policy("Pods", 4, 15)))
DOWN = Rules(300, "Min", (Policy("Percent", 10, 60), Policy("Pods", 1, 60)))


def model(
    name="m",
    *,
    min_replicas=1,
    max_replicas=8,
    target=8.0,
    seqs=8,
    queue=16,
    signal="in-flight",
    relist=None,
    start=100.0,
    node_ready=300.0,
    pull=300.0,
    gpus=1,
    node_gpus=1,
    step=0.02,
    drain=60.0,
    down=DOWN,
):
    """One model's settings on pool "p" with a fixed step time."""
    return ModelSettings(
        name=name,
        pool="p",
        gpus_per_pod=gpus,
        node_gpus=node_gpus,
        nodes_per_replica=1,
        roofline=FixedStep(step),
        engine=EngineLimits(seqs, 2048, queue, 100_000, 16, 8192),
        scaling=Scaling(signal, min_replicas, max_replicas, target, UP, down, 15.0, relist),
        route=Route(600.0, 300.0, True, "lor"),
        drain_seconds=drain,
        container_start_seconds=start,
        node_ready_seconds=node_ready,
        image_pull_seconds=pull,
        in_flight_target=int(target),
        ttft_slo_seconds=5.0,
        long_sibling=None,
    )


def stack(*models, gpu_limit=100, buffer_pods=0, buffer_gpus=1, consolidate=900.0):
    """A stack of ``models`` on one pool."""
    return StackSettings(
        tuple(models), (PoolSettings("p", gpu_limit, consolidate, buffer_pods, buffer_gpus, buffer_gpus),), "test"
    )


__all__ = ["FixedStep", "replica", "model", "stack", "replace", "simpy", "Request", "K8S_DEFAULT_DOWN"]


@functools.lru_cache(maxsize=None)
def load_benchmark(name: str) -> ModuleType:
    """benchmarks/<name>.py as a module (the benchmarks are scripts, not a package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_fidelity() -> ModuleType:
    """benchmarks/fidelity.py as a module: the replay the fidelity tests read."""
    return load_benchmark("fidelity")
