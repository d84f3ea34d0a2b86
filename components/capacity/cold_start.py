"""The startup-probe budget of a serving replica, from where its weights come from.

Pure. The budget the startupProbe must allow is what happens after the container starts:
process start, fetching the weights (Hugging Face download, S3 stream, or nothing for a
node-local cache), loading them onto the GPUs, and the engine's compile / CUDA-graph /
profiling phase. Node launch, device-plugin registration and the image pull happen before the
container starts; they are the scale-out lead time (shown beside the budget, and what the warm
buffer and the image pre-pull remove). Figures are from public reports (each ``basis`` names the row of the project's cold-start
survey, whose sources are: run-ai/runai-model-streamer docs/src/benchmarks.md @1e56c33e for the
load rates, vllm-project/vllm PR #11005 and issue #20264 for compile and CUDA-graph times);
where the survey only gives an estimate, it says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..capacity.layout import IMAGE_PULL_SECONDS, NODE_READY_SECONDS

GIB = 2**30
# No measured Hub download was found: an estimate of 1-3 min for 16 GB, taken at its slow end, 16 GB in 180 s.
HF_DOWNLOAD_GIB_S = 16e9 / GIB / 180
# run-ai/runai-model-streamer docs/src/benchmarks.md @1e56c33: Llama-3-8B (15 GB) read by vLLM's default safetensors loader from gp3 EBS in 47.99 s.
GP3_LOAD_GIB_S = 15e9 / GIB / 47.99
# Same benchmark: the same 15 GB streamed from S3 by the Run:ai streamer at concurrency 16 in 8.45 s (4.88 s at 32).
S3_STREAM_GIB_S = 15e9 / GIB / 8.45
# anyscale/ai-infra-cookbook PR #57: vLLM's safetensors loader reads about 1.5 GB/s from local NVMe.
NVME_LOAD_GIB_S = 1.5e9 / GIB
# vllm-project/vllm issue #20264: about 30 s of a pod's start "isn't logged" (imports, CUDA init); issue #44881:
# container init 16 s.
PROCESS_START_S = 30
# vllm-project/vllm PR #11005 and issue #20264, run-ai/runai-model-streamer issue #67,
# gateway-api-inference-extension PR #550, and an estimate from them: torch.compile + CUDA graphs + profiling take 30-90 s cold on one GPU, 1-3 min for
# 70B-class TP groups; about 10-15 s with --enforce-eager.
ENGINE_INIT_S = {"single": 90, "parallel": 180, "eager": 15}
# Margin on top of the sum: the figures are medians of single reports, not bounds (my choice).
SAFETY = 1.5
# Never below S16's default minimum (policies/vllm/startup_probe_budget.py), so the pack accepts it.
FLOOR_S = 600
RUNAI_CONCURRENCY = 16  # the concurrency the Run:ai benchmark's S3 figure was measured at


@dataclass(frozen=True)
class Part:
    """One phase of a replica's start: its seconds and the figure it rests on."""

    name: str
    seconds: int
    basis: str


@dataclass(frozen=True)
class StartupBudget:
    """The startup budget of one replica with its parts."""

    source: str
    parts: tuple[Part, ...]
    seconds: int  # what the startupProbe allows
    derived: bool  # False when the stack set startup.budgetSeconds

    @property
    def sum_seconds(self) -> int:
        """The parts added up, before the margin and the floor."""
        return sum(p.seconds for p in self.parts)

    def report(self) -> dict:
        """JSON-ready: source, parts, margin, floor and the budget."""
        return {
            "source": self.source,
            "parts": [{"name": p.name, "seconds": p.seconds, "basis": p.basis} for p in self.parts],
            "sum_seconds": self.sum_seconds,
            "safety": SAFETY,
            "floor_seconds": FLOOR_S,
            "budget_seconds": self.seconds,
            "derived": self.derived,
        }


def startup_parts(source: str, checkpoint_gib: float, gpus: int, enforce_eager: bool) -> tuple[Part, ...]:
    """The phases between container start and a ready engine for weights from ``source``."""
    parts = [Part("process start", PROCESS_START_S, "vllm-project/vllm issues #20264, #44881")]
    if source == "huggingface":
        parts.append(
            Part(
                "download from Hugging Face",
                math.ceil(checkpoint_gib / HF_DOWNLOAD_GIB_S),
                "an estimate, no measured source: 16 GB in 1-3 min",
            )
        )
        parts.append(
            Part(
                "load from disk",
                math.ceil(checkpoint_gib / GP3_LOAD_GIB_S),
                "run-ai/runai-model-streamer docs/src/benchmarks.md @1e56c33 (gp3, safetensors loader)",
            )
        )
    elif source == "s3":
        parts.append(
            Part(
                "stream from S3 (Run:ai streamer)",
                math.ceil(checkpoint_gib / S3_STREAM_GIB_S),
                "run-ai/runai-model-streamer docs/src/benchmarks.md @1e56c33 (S3, concurrency 16)",
            )
        )
    else:
        parts.append(
            Part(
                "load from node NVMe cache",
                math.ceil(checkpoint_gib / NVME_LOAD_GIB_S),
                "anyscale/ai-infra-cookbook PR #57 (NVMe, safetensors loader)",
            )
        )
    kind = "eager" if enforce_eager else ("parallel" if gpus > 1 else "single")
    parts.append(
        Part(
            "compile, CUDA graphs, profiling",
            ENGINE_INIT_S[kind],
            "vllm-project/vllm PR #11005 and issue #20264, run-ai/runai-model-streamer issue #67, gateway-api-inference-extension PR #550 (an estimate from them)",
        )
    )
    return tuple(parts)


def startup_budget(source: str, checkpoint_gib: float, gpus: int, enforce_eager: bool, configured: int | None) -> StartupBudget:
    """The budget: the configured one, or the parts x SAFETY rounded up to 10 s, at least FLOOR_S."""
    parts = startup_parts(source, checkpoint_gib, gpus, enforce_eager)
    if configured is not None:
        return StartupBudget(source, parts, configured, derived=False)
    total = sum(p.seconds for p in parts) * SAFETY
    return StartupBudget(source, parts, max(FLOOR_S, int(math.ceil(total / 10) * 10)), derived=True)


def cache_size_gib(checkpoint_gib: float) -> int:
    """What a LocalModelCache reserves for a checkpoint (its ``modelSize``, GiB): the files plus 10%, rounded up."""
    return int(checkpoint_gib * 1.1) + 1


def cache_fill_seconds(cache_gib: float) -> int:
    """How long KServe's node agent's download Job takes to fill a new node's cache of ``cache_gib``: the Hugging
    Face download estimate above (HF_DOWNLOAD_GIB_S). The model's pod waits for it (builders/model_source.py
    cache_wait) before its own startup begins."""
    return math.ceil(cache_gib / HF_DOWNLOAD_GIB_S)


@dataclass(frozen=True)
class ColdReady:
    """From a new pod's creation to its readiness when it needs a new node: what a Deployment's progress deadline
    and ``pulumi up``'s wait must cover (a pod's creation is the last progress a Deployment records before the pod
    becomes ready)."""

    node_launch: int
    image_pull: int
    cache_fill: int
    startup_budget: int

    @property
    def seconds(self) -> int:
        """The four parts added up."""
        return self.node_launch + self.image_pull + self.cache_fill + self.startup_budget

    def report(self) -> dict:
        """JSON-ready parts and total (the derived Deployment's summary and the plan's report)."""
        return {
            "nodeLaunchSeconds": self.node_launch,
            "imagePullSeconds": self.image_pull,
            "cacheFillSeconds": self.cache_fill,
            "startupBudgetSeconds": self.startup_budget,
            "seconds": self.seconds,
        }


def cold_ready(startup_budget: int, cache_gib: float | None) -> ColdReady:
    """A pod's cold path: node launch + image pull (capacity/layout.py's estimates) + its node cache's fill when it
    reads a LocalModelCache (``cache_gib``, else None) + its startup-probe budget."""
    fill = cache_fill_seconds(cache_gib) if cache_gib is not None else 0
    return ColdReady(NODE_READY_SECONDS, IMAGE_PULL_SECONDS, fill, startup_budget)
