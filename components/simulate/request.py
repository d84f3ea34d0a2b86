"""One request to a simulated replica and what happened to it (components/simulate/engine.py moves it along)."""

from __future__ import annotations

from typing import Optional, Protocol


class Serving(Protocol):
    """The replica a request is on, as the request and the cluster see it (components/simulate/engine.py Replica)."""

    def abort(self, req: Request) -> None:
        """Drop the request from the replica (its client went away, or the pod is draining)."""
        ...


class Request:
    """One request and what happened to it (times in simulated seconds)."""

    __slots__ = (
        "id",
        "arrival",
        "prompt",
        "output",
        "streamed",
        "long",
        "first_token",
        "done",
        "outcome",
        "prefill_left",
        "cached",
        "gen",
        "dec0",
        "gen0",
        "base_ctx",
        "replica",
        "finish_step",
        "retried",
        "preemptions",
        "abort_pending",
        "stalled_at",
        "queued",
        "refound",
    )

    def __init__(self, rid: int, arrival: float, prompt: int, output: int, streamed: bool, long: bool = False):
        self.id = rid
        self.arrival = arrival
        self.prompt = prompt
        self.output = output
        self.streamed = streamed
        self.long = long
        self.first_token: Optional[float] = None
        self.done: Optional[float] = None
        # None while in flight; then "ok", "503", "504", "cut".
        self.outcome: Optional[str] = None
        self.prefill_left = prompt
        self.cached = 0
        self.gen = 0
        self.dec0 = 0
        self.gen0 = 0
        self.base_ctx = 0
        self.replica: Optional[Serving] = None
        self.finish_step: Optional[int] = None
        self.retried = False
        self.preemptions = 0
        self.abort_pending = False
        # When a stream that had sent tokens was preempted: it sends nothing until its recompute ends.
        self.stalled_at: Optional[float] = None
        # When it last joined the scheduler's waiting queue (async scheduling plans steps ahead of that).
        self.queued = 0.0
        # Preempted with prefix caching: (its full blocks left cached, when eviction reaches them: kv_refound.mark).
        self.refound: Optional[tuple[int, float]] = None
