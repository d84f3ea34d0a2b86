"""Karpenter's side of the simulation: a pool's GPU nodes, the pods placed on them and its warm buffer.

A pending serving pod preempts a buffer pod on a ready node at once (the buffer pod goes pending and
Karpenter provisions a node for it), or binds to a free slot, or waits for a new node (launch and
join); ``limits.nvidia.com/gpu`` caps the pool; an empty node goes after ``consolidateAfter``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Generator, Optional, Protocol

import simpy

from .engine import Replica
from .settings import ModelSettings, PoolSettings


class ServedModel(Protocol):
    """What a pool asks of the model a serving pod belongs to (components/simulate/cluster.py ModelRun)."""

    s: ModelSettings

    def start(self, pod: Pod, node: Node) -> Generator[simpy.Event, Any, None]:
        """Start the pod's engine on its node (a simulation process)."""
        ...


class Cluster(Protocol):
    """What a pool asks of the simulation it runs in (components/simulate/cluster.py Simulation)."""

    env: simpy.Environment
    node_ready_seconds: float

    def next_id(self) -> int:
        """A new id for a node or pod."""
        ...


class Node:
    """One GPU node of a pool."""

    __slots__ = ("id", "gpus", "free", "ready_at", "ready", "pods", "empty_since", "gone", "image")

    def __init__(self, nid: int, gpus: int, ready_at: float, ready: bool, image: bool):
        self.id = nid
        self.gpus = gpus
        self.free = gpus
        self.ready_at = ready_at
        self.ready = ready
        self.pods: list[Pod] = []
        self.empty_since: Optional[float] = None
        self.gone = False
        self.image = image  # the vLLM image is on the node (pre-pulled or pulled once)


class Pod:
    """A serving pod or a buffer placeholder."""

    __slots__ = (
        "id",
        "model",
        "gpus",
        "state",
        "node",
        "replica",
        "created",
        "ready_at",
        "seen_at",
        "buffer",
        "busy_prev",
        "tokens_prev",
    )

    def __init__(self, pid: int, model: Optional[ServedModel], gpus: int, created: float, buffer: bool = False):
        self.id = pid
        self.model = model
        self.gpus = gpus
        self.state = "pending"  # pending, placed (a buffer pod on a node), starting, ready, draining, gone
        self.node: Optional[Node] = None
        self.replica: Optional[Replica] = None
        self.created = created
        self.ready_at: Optional[float] = None
        self.seen_at: Optional[float] = None  # when the metrics pipeline first serves its series
        self.buffer = buffer
        self.busy_prev = 0.0
        self.tokens_prev = 0

    @property
    def engine(self) -> Replica:
        """The pod's engine (a ready or draining serving pod has one)."""
        if self.replica is None:
            raise RuntimeError(f"pod {self.id} ({self.state}) has no engine")
        return self.replica


class PoolRun:
    """A pool's nodes, pending pods and buffer."""

    def __init__(self, sim: Cluster, ps: PoolSettings):
        self.sim = sim
        self.s = ps
        self.nodes: list[Node] = []
        self.pending: deque[Pod] = deque()
        self.buffer_pods: list[Pod] = []

    def gpus(self) -> int:
        """GPUs of the pool's nodes, launched or ready."""
        return sum(n.gpus for n in self.nodes if not n.gone)

    def node_count(self) -> int:
        """Ready nodes of the pool."""
        return sum(1 for n in self.nodes if not n.gone and n.ready)

    def add_node(self, gpus: int, ready: bool) -> Node:
        """A node of ``gpus`` GPUs: ready now (the steady state at t=0) or launched now and ready after its join time."""
        env = self.sim.env
        node = Node(self.sim.next_id(), gpus, env.now if ready else env.now + self.sim.node_ready_seconds, ready, ready)
        self.nodes.append(node)
        if not ready:
            env.process(self._join(node))
        return node

    def _join(self, node: Node) -> Generator[simpy.Event, None, None]:
        yield self.sim.env.timeout(node.ready_at - self.sim.env.now)
        node.ready = True
        self.schedule()

    def bind(self, pod: Pod, node: Node) -> None:
        """Place ``pod`` on ``node``; a serving pod starts its container."""
        node.free -= pod.gpus
        node.pods.append(pod)
        node.empty_since = None
        pod.node = node
        if pod.model is None:
            pod.state = "placed"
        else:
            pod.state = "starting"
            self.sim.env.process(pod.model.start(pod, node))

    def release(self, pod: Pod) -> None:
        """Take ``pod`` off its node; an emptied node is consolidated after ``consolidateAfter``."""
        node = pod.node
        if node is None:
            return
        node.free += pod.gpus
        node.pods.remove(pod)
        pod.node = None
        if not node.pods:
            node.empty_since = self.sim.env.now
            self.sim.env.process(self._consolidate(node, node.empty_since))
        self.schedule()

    def _consolidate(self, node: Node, since: float) -> Generator[simpy.Event, None, None]:
        yield self.sim.env.timeout(self.s.consolidate_after_seconds)
        if not node.gone and not node.pods and node.empty_since == since and not self.pending:
            node.gone = True

    def submit(self, pod: Pod) -> None:
        """Queue ``pod`` for scheduling (serving pods ahead of buffer pods) and schedule."""
        if pod.buffer:
            self.pending.append(pod)
        else:
            # Serving pods outrank the buffer's negative priority.
            index = sum(1 for p in self.pending if not p.buffer)
            self.pending.insert(index, pod)
        self.schedule()

    def schedule(self) -> None:
        """Bind what can be bound; preempt buffers for serving pods; launch nodes for the rest (under the GPU limit)."""
        still: deque[Pod] = deque()
        reserved: dict[int, int] = {}  # node id -> GPUs promised to pods still waiting for it
        while self.pending:
            pod = self.pending.popleft()
            if pod.state == "gone":
                continue
            live = [n for n in self.nodes if not n.gone]
            ready = [n for n in live if n.ready and n.free >= pod.gpus]
            if ready:
                self.bind(pod, min(ready, key=lambda n: (n.free, n.id)))
                continue
            if not pod.buffer and self._preempt_buffer_for(pod):
                continue
            # A node on its way with room not yet promised.
            coming = [n for n in live if not n.ready and n.free - reserved.get(n.id, 0) >= pod.gpus]
            if coming:
                reserved[coming[0].id] = reserved.get(coming[0].id, 0) + pod.gpus
                still.append(pod)
                continue
            size = pod.model.s.node_gpus if pod.model is not None else self.s.buffer_node_gpus
            if self.gpus() + size <= self.s.gpu_limit:
                node = self.add_node(size, ready=False)
                reserved[node.id] = pod.gpus
            still.append(pod)
        self.pending = still

    def _preempt_buffer_for(self, pod: Pod) -> bool:
        """Bind ``pod`` where a placed buffer pod on a ready node frees enough GPUs; False when none does."""
        for victim in self.buffer_pods:
            node = victim.node
            if victim.state == "placed" and node is not None and node.ready and node.free + victim.gpus >= pod.gpus:
                self.release_buffer(victim, node)
                self.bind(pod, node)
                return True
        return False

    def release_buffer(self, victim: Pod, node: Node) -> None:
        """Preempt a placed buffer pod (terminationGracePeriodSeconds 0): it goes pending again."""
        node.free += victim.gpus
        node.pods.remove(victim)
        victim.node = None
        victim.state = "pending"
        self.pending.append(victim)
