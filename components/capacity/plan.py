"""The capacity plan of one served model: the single source of every derived number.

From a model's stack config and its GPU pool this module picks the GPU and the node, runs the
vLLM memory model, and derives what the builders must agree on: max_num_seqs,
max_num_batched_tokens, the HPA target, the queue budget, GPUs per replica (TP x PP), the pod's
CPU/memory/shm/ephemeral-storage, the startup budget, and the timeout chain (components/timeouts.py:
every timeout, keep-alive and drain number). Each derived value carries the reason it has that value,
naming the vLLM release whose defaults and flags apply (components/vllm_flags.py), for the plan report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

from ..capacity.accounting import image_flashinfer_sampler
from ..capacity.architecture import ArchitectureError
from ..capacity.batch import declared_sizes, settle_max_num_seqs
from ..capacity.cold_start import FLOOR_S, SAFETY, Part, StartupBudget, startup_budget
from ..capacity.gpus import INSTANCES, instance_gpu
from ..capacity.layout import Layout, cold_start_seconds, plan_layout
from ..capacity.memory import EngineArgs, Gpu, MemoryPlan, plan_memory
from ..capacity.models import CatalogModel, UnknownModel, find_model, load_model_config
from ..capacity.ray_image import ray_image_problems
from ..capacity.startup import field_path
from ..config import GpuPoolConfig, ModelConfig, StackConfig
from ..config.placement import gpus_per_node, spans_nodes
from ..errors import ConfigError, Problem
from ..images import vllm_release
from ..timeouts import TimeoutChain, shared_alb_idle, timeout_chain
from ..vllm_flags import Release, UnsupportedRelease, batch_defaults, missing_rule, optional_flag, release_of

# Share of a node's vCPU and memory a serving pod may request: the rest is left for the kubelet,
# system reservations and daemonsets (device plugin, CNI, log and metric agents).
NODE_SHARE = 0.8
# Scale out before the batch is full: the HPA aims at this share of max_num_seqs in flight.
HPA_TARGET_SHARE = 0.8
STARTUP_PROBE_PERIOD_SECONDS = 10


@dataclass(frozen=True)
class Derivation:
    """One derived setting, its value and why it has that value."""

    setting: str
    value: Any
    reason: str


@dataclass(frozen=True)
class Resources:
    """What one replica's pod requests (requests equal limits for memory and GPUs)."""

    gpus: int
    cpu: int
    memory_gib: int
    shm_gib: int
    ephemeral_storage_gib: int


@dataclass(frozen=True)
class ServingPlan:
    """Everything derived for one model; builders read only from here."""

    name: str
    model_id: str
    model: CatalogModel
    gpu: Gpu
    node_instance_type: str
    memory: MemoryPlan
    max_num_seqs: int
    max_num_batched_tokens: int
    # None where the release has no --max-num-queued-reqs and the stack did not ask for it.
    max_num_queued_reqs: Optional[int]
    target_in_flight_per_pod: int
    resources: Resources
    startup_failure_threshold: int
    startup_period_seconds: int
    release: Release
    timeouts: TimeoutChain
    derivations: tuple[Derivation, ...]
    # Multi-node models (distributed: {backend: ray}): nodes, GPUs per node, pipeline stages.
    layout: Optional[Layout] = None
    # What the Ray head pod requests (no GPU); None for single-node models.
    head_resources: Optional[Resources] = None
    # The startup budget with its parts (components/capacity/cold_start.py).
    startup: Optional[StartupBudget] = None

    @property
    def pre_stop_seconds(self) -> int:
        """The preStop sleep (from the timeout chain)."""
        return self.timeouts.pre_stop_seconds

    @property
    def termination_grace_seconds(self) -> int:
        """terminationGracePeriodSeconds (from the timeout chain)."""
        return self.timeouts.termination_grace_seconds

    def report(self) -> dict:
        """JSON-ready figures for the plan report."""
        return {
            "name": self.name,
            "model": self.model_id,
            "gpu": self.gpu.name,
            "node": self.node_instance_type,
            "gpus_per_replica": self.memory.gpus_per_replica,
            "gpus_per_pod": self.resources.gpus,
            **{k: v for k, v in self.memory.as_dict().items() if k not in ("gpu", "gpus_per_replica")},
            "max_num_queued_reqs": self.max_num_queued_reqs,
            "target_in_flight_per_pod": self.target_in_flight_per_pod,
            "resources": {
                "cpu": self.resources.cpu,
                "memory_gib": self.resources.memory_gib,
                "shm_gib": self.resources.shm_gib,
                "ephemeral_storage_gib": self.resources.ephemeral_storage_gib,
            },
            "termination_grace_seconds": self.termination_grace_seconds,
            "vllm_release": self.release.version,
            "timeouts": self.timeouts.as_dict(),
            "startup_budget_seconds": self.startup_failure_threshold * self.startup_period_seconds,
            **({"startup": self.startup.report()} if self.startup is not None else {}),
            "derived": [{"setting": d.setting, "value": d.value, "reason": d.reason} for d in self.derivations],
            **({"layout": self.layout.report()} if self.layout is not None else {}),
            **(
                {
                    "head_resources": {
                        "cpu": self.head_resources.cpu,
                        "memory_gib": self.head_resources.memory_gib,
                        "shm_gib": self.head_resources.shm_gib,
                    }
                }
                if self.head_resources is not None
                else {}
            ),
        }


def resolve_model(m: ModelConfig, path: str, base_dir: Optional[Path]) -> CatalogModel:
    """The catalogue entry of ``m.model``, or the architecture the stack gives for it."""
    if m.architecture is not None:
        cfg_path = Path(m.architecture.config_path)
        if not cfg_path.is_absolute() and base_dir is not None:
            cfg_path = base_dir / cfg_path
        try:
            return load_model_config(cfg_path, m.architecture.weights_gib, name=m.model)
        except ArchitectureError as exc:
            raise ConfigError([Problem(f"{path}.architecture.configPath", str(exc), m.architecture.config_path)]) from None
    try:
        return find_model(m.model, m.revision)
    except UnknownModel as exc:
        raise ConfigError([Problem(f"{path}.model", f"{exc}; or set {path}.architecture", m.model)]) from None


def node_for(pool: GpuPoolConfig, gpus: int) -> str:
    """The smallest instance type of the pool with at least ``gpus`` GPUs (fewest GPUs, then vCPUs)."""
    fitting = [t for t in pool.instance_types if INSTANCES[t].gpu_count >= gpus]
    return min(fitting, key=lambda t: (INSTANCES[t].gpu_count, INSTANCES[t].vcpu, t))


def engine_args(m: ModelConfig, max_num_seqs: Optional[int], max_num_batched_tokens: Optional[int]) -> EngineArgs:
    """The memory-relevant vLLM flags of a model config (the sampler's from the image: image_flashinfer_sampler)."""
    e = m.engine
    return EngineArgs(
        tensor_parallel_size=e.tensor_parallel_size,
        pipeline_parallel_size=e.pipeline_parallel_size,
        gpu_memory_utilization=e.gpu_memory_utilization,
        max_model_len=e.max_model_len,
        max_num_seqs=max_num_seqs,
        max_num_batched_tokens=max_num_batched_tokens,
        block_size=e.block_size,
        dtype=e.dtype,
        kv_cache_dtype=e.kv_cache_dtype,
        quantization=e.quantization,
        enforce_eager=e.enforce_eager,
        vllm_version=vllm_release(m.image),
        flashinfer_sampler=image_flashinfer_sampler(m.image),
    )


def plan_model(m: ModelConfig, pool: GpuPoolConfig, path: str = "models[0]", base_dir: Optional[Path] = None) -> ServingPlan:
    """Derive the serving plan of one model on its pool."""
    model = resolve_model(m, path, base_dir)
    gpus = m.engine.tensor_parallel_size * m.engine.pipeline_parallel_size
    multi_node = spans_nodes(m)
    # A multi-node engine's pods each take one full node; a single-node replica takes TP x PP GPUs.
    pod_gpus = gpus_per_node(pool) if multi_node else gpus
    node = node_for(pool, pod_gpus)
    gpu, node_gpus = instance_gpu(node)
    release = _release(m, path)
    vllm = f"vLLM {release.version}" if release.exact else f"vLLM {release.version} ({release.note})"
    derivations: list[Derivation] = []
    tokens, seqs, memory = _batch(m, model, gpu, release, vllm, path, derivations, base_dir)
    queued, target = _queue_and_target(m, seqs, release, path, derivations)
    resources = _resources(model, memory, node, pod_gpus, node_gpus, m.source.type)
    layout, head = None, None
    if multi_node:
        layout = _layout(m, pool, model, gpu, engine_args(m, seqs, tokens), memory, path)
        head = _head_resources(node)
        startup = _multi_node_startup(m, model, layout, derivations)
    else:
        startup = _single_node_startup(m, model, gpus, derivations)
    budget = startup.seconds
    chain = model_chain(m, release, startup_budget_seconds=budget)
    if not chain.server_drain:
        derivations.append(
            Derivation(
                "shutdownTimeout",
                None,
                f"{optional_flag('--shutdown-timeout', release)}; "
                f"the preStop sleep ({chain.pre_stop_seconds}s) carries the drain instead",
            )
        )
    derivations.append(
        Derivation(
            "terminationGracePeriodSeconds",
            chain.termination_grace_seconds,
            f"timeout chain: preStop {chain.pre_stop_seconds}s + {vllm} drain {chain.shutdown_timeout_seconds}s + "
            f"shutdown margin, covering maxRequestSeconds {m.slo.max_request_seconds:g}s",
        )
    )
    return ServingPlan(
        name=m.name,
        model_id=m.model,
        model=model,
        gpu=gpu,
        node_instance_type=node,
        memory=memory,
        max_num_seqs=seqs,
        max_num_batched_tokens=tokens,
        max_num_queued_reqs=queued,
        target_in_flight_per_pod=target,
        resources=resources,
        startup_failure_threshold=math.ceil(budget / STARTUP_PROBE_PERIOD_SECONDS),
        startup_period_seconds=STARTUP_PROBE_PERIOD_SECONDS,
        release=release,
        timeouts=chain,
        derivations=tuple(derivations),
        layout=layout,
        head_resources=head,
        startup=startup,
    )


def _release(m: ModelConfig, path: str) -> Release:
    """The vLLM release of the model's image, refused where it lacks a setting the stack needs."""
    try:
        release = release_of(m.image)
    except UnsupportedRelease as exc:
        raise ConfigError([Problem(f"{path}.image", str(exc), m.image)]) from None
    problems: list[Problem] = []
    # A setting the stack asks for explicitly must exist in the release; a derived one is dropped.
    if m.engine.max_num_queued_reqs is not None and not release.has("--max-num-queued-reqs"):
        problems.append(
            Problem(
                f"{path}.engine.maxNumQueuedReqs", missing_rule("--max-num-queued-reqs", release), m.engine.max_num_queued_reqs
            )
        )
    if not release.has("VLLM_HTTP_TIMEOUT_KEEP_ALIVE"):
        # No alternative: the keep-alive is a constant 5 s, below any proxy's idle timeout (502s).
        problems.append(
            Problem(
                f"{path}.image",
                missing_rule("VLLM_HTTP_TIMEOUT_KEEP_ALIVE", release)
                + "; its keep-alive is fixed at 5 s, below the ALB idle timeout, which gives 502s",
                m.image,
            )
        )
    problems += ray_image_problems(m, path, release)
    if problems:
        raise ConfigError(problems)
    return release


def _batch(
    m: ModelConfig,
    model: CatalogModel,
    gpu: Gpu,
    release: Release,
    vllm: str,
    path: str,
    derivations: list[Derivation],
    base_dir: Optional[Path] = None,
) -> tuple[int, int, MemoryPlan]:
    """max_num_batched_tokens, max_num_seqs (the stack's, or derived from the KV cache) and the memory plan at them."""
    hw_tokens, hw_seqs, tier = batch_defaults(gpu.memory_gib, gpu.name, release.version)
    tokens = m.engine.max_num_batched_tokens
    if tokens is None:
        tokens = hw_tokens
        derivations.append(
            Derivation("maxNumBatchedTokens", tokens, f"{vllm}'s default for {gpu.name} ({gpu.memory_gib:.0f} GiB, {tier})")
        )
    if m.engine.max_num_seqs is not None and m.engine.max_num_seqs > tokens:
        raise ConfigError(
            [
                Problem(
                    f"{path}.engine.maxNumSeqs",
                    f"exceeds maxNumBatchedTokens ({tokens:,}); vLLM requires max_num_batched_tokens >= max_num_seqs",
                    m.engine.max_num_seqs,
                )
            ]
        )
    typical = m.traffic.typical_request_tokens or min(2048, m.engine.max_model_len)
    seqs = m.engine.max_num_seqs
    if seqs is None:
        sizes = declared_sizes(m, path, base_dir) if m.traffic.typical_request_tokens is None else None
        # The sampler's warm-up grows with max_num_seqs, so size the cache at the hardware
        # default first, then settle on the smaller count (which only frees memory).
        first = plan_memory(model.arch, model.checkpoint_bytes, gpu, engine_args(m, hw_seqs, tokens))
        seqs, reason = settle_max_num_seqs(
            first.kv_cache_tokens, typical, hw_seqs, tokens, f"{vllm}'s default for {gpu.name} ({tier})", sizes
        )
        derivations.append(Derivation("maxNumSeqs", seqs, reason))
    memory = plan_memory(model.arch, model.checkpoint_bytes, gpu, engine_args(m, seqs, tokens))
    if memory.startup_rule:  # a setting vLLM refuses before sizing memory: name the stack file's field
        memory = replace(memory, reason=f"{field_path(memory.startup_rule, path)}: {memory.reason}")
    return tokens, seqs, memory


def _queue_and_target(
    m: ModelConfig, seqs: int, release: Release, path: str, derivations: list[Derivation]
) -> tuple[Optional[int], int]:
    """The admission queue (--max-num-queued-reqs; None without admission control) and the HPA's per-pod target."""
    queued = m.engine.max_num_queued_reqs
    no_admission = optional_flag("--max-num-queued-reqs", release)
    if queued is None and no_admission:
        derivations.append(
            Derivation(
                "maxNumQueuedReqs",
                None,
                f"{no_admission}: requests wait in the engine's unbounded queue and the TTFT SLO relies on scaling alone",
            )
        )
    elif queued is None:
        slo = m.slo.time_to_first_token_seconds
        queued = max(1, math.floor(seqs * slo / m.traffic.typical_request_seconds))
        derivations.append(
            Derivation(
                "maxNumQueuedReqs",
                queued,
                f"{seqs} slots free at {seqs}/{m.traffic.typical_request_seconds:g}s; a queued request must start within the "
                f"{slo:g}s TTFT SLO, so at most {queued} wait (more get 503 and retry elsewhere)",
            )
        )
    # What one replica can hold: its batch plus its admission queue (beyond that vLLM answers 503).
    # A per-pod target above it is an average the pods can never reach, so the HPA would never scale out.
    # Without admission control (a release before --max-num-queued-reqs) the queue is unbounded.
    holds = seqs + queued if queued is not None else None
    target = m.autoscaling.target_in_flight_per_pod
    if target is not None and holds is not None and target > holds:
        raise ConfigError(
            [
                Problem(
                    f"{path}.autoscaling.targetInFlightPerPod",
                    f"exceeds what one replica can hold: maxNumSeqs {seqs} + maxNumQueuedReqs {queued} = {holds} requests in flight; "
                    f"the per-pod average can never reach it, so the model would never scale out (use at most {holds})",
                    target,
                )
            ]
        )
    if target is None:
        target = max(1, math.floor(seqs * HPA_TARGET_SHARE))
        derivations.append(
            Derivation(
                "autoscaling.targetInFlightPerPod",
                target,
                f"{HPA_TARGET_SHARE:.0%} of maxNumSeqs {seqs}: scale out before requests queue",
            )
        )
    return queued, target


def _single_node_startup(m: ModelConfig, model: CatalogModel, gpus: int, derivations: list[Derivation]) -> StartupBudget:
    """A replica's startup budget: its parts for the model's source (capacity/cold_start.py), or the stack's."""
    startup = startup_budget(m.source.type, model.checkpoint_gib, gpus, m.engine.enforce_eager, m.startup.budget_seconds)
    if startup.derived:
        derivations.append(
            Derivation(
                "startup.budgetSeconds",
                startup.seconds,
                f"weights from {m.source.type}: "
                + " + ".join(f"{p.name} {p.seconds}s" for p in startup.parts)
                + f" = {startup.sum_seconds}s, x {SAFETY:g} margin, at least {FLOOR_S}s",
            )
        )
    return startup


def _layout(
    m: ModelConfig, pool: GpuPoolConfig, model: CatalogModel, gpu: Gpu, args: EngineArgs, memory: MemoryPlan, path: str
) -> Layout:
    """A multi-node engine's nodes and stages (capacity/layout.py), refused with the layout's problems."""
    layout, problems = plan_layout(m, pool, model, gpu, args, memory, path)
    if problems or layout is None:
        raise ConfigError(problems)
    return layout


def _multi_node_startup(m: ModelConfig, model: CatalogModel, layout: Layout, derivations: list[Derivation]) -> StartupBudget:
    """A multi-node replica's budget: its cold start (layout.cold_start_seconds), at least the stack's budget.

    Each node loads only its stage, which the per-replica parts of cold_start.py do not model.
    """
    configured = m.startup.budget_seconds or FLOOR_S
    budget = configured
    cold = cold_start_seconds(model)
    if cold > budget:
        budget = cold
        derivations.append(
            Derivation(
                "startup.budgetSeconds",
                budget,
                f"a {layout.nodes}-node cold start: nodes join, pull the image, each downloads the "
                f"{model.checkpoint_gib:,.0f} GiB checkpoint and loads its stage, then compiles "
                f"(above the {configured}s of one replica)",
            )
        )
    return StartupBudget(
        m.source.type,
        (Part("multi-node cold start", budget, "components/capacity/layout.py cold_start_seconds"),),
        budget,
        derived=False,
    )


def model_chain(
    m: ModelConfig, release: Release, shared_alb_idle_seconds: Optional[int] = None, *, startup_budget_seconds: int
) -> TimeoutChain:
    """The timeout chain of one model on its vLLM release (behind an ALB shared at that idle timeout), for the
    startup budget the plan settled on (the stack's, derived from the model source, or a multi-node cold start)."""
    return timeout_chain(
        m.slo.max_request_seconds,
        m.slo.time_to_first_token_seconds,
        streaming=m.slo.streaming,
        startup_budget_seconds=startup_budget_seconds,
        server_drain=release.has("--shutdown-timeout"),
        shared_alb_idle_seconds=shared_alb_idle_seconds,
    )


def _resources(
    model: CatalogModel, memory: MemoryPlan, node: str, gpus: int, node_gpus: int, source: str = "huggingface"
) -> Resources:
    inst = INSTANCES[node]
    share = gpus / node_gpus
    cpu = max(2, math.floor(inst.vcpu * share * NODE_SHARE))
    mem = max(8, math.floor(inst.memory_gib * share * NODE_SHARE))
    # NCCL puts its inter-GPU buffers in /dev/shm; one GPU still uses it for the engine's IPC.
    # The memory emptyDir counts against the memory limit, so it stays a quarter of it at most.
    shm = min(max(1, mem // 4), 2 + 4 * (gpus - 1))
    # The Hugging Face download lands in the pod's ephemeral storage, plus compile caches and logs; a
    # streamed (S3) or node-cached model writes only the caches.
    ephemeral = (math.ceil(model.checkpoint_gib * 1.1) if source == "huggingface" else 0) + 10
    return Resources(gpus=gpus, cpu=cpu, memory_gib=mem, shm_gib=shm, ephemeral_storage_gib=ephemeral)


# The Ray head of a multi-node engine runs vLLM's API server and engine core (scheduler,
# tokenizer, Ray driver) without a GPU. It shares a worker's node: the workers request
# NODE_SHARE of it, so the head takes at most half of what is left.
HEAD_CPU_MAX = 8
HEAD_MEMORY_GIB_MAX = 64


def _head_resources(node: str) -> Resources:
    inst = INSTANCES[node]
    spare = 1 - NODE_SHARE
    cpu = max(2, min(HEAD_CPU_MAX, math.floor(inst.vcpu * spare / 2)))
    mem = max(8, min(HEAD_MEMORY_GIB_MAX, math.floor(inst.memory_gib * spare / 2)))
    # Ray's object store lives in /dev/shm; a memory emptyDir counts against the memory limit.
    return Resources(gpus=0, cpu=cpu, memory_gib=mem, shm_gib=max(1, mem // 4), ephemeral_storage_gib=10)


def plan_stack(cfg: StackConfig, base_dir: Optional[Path] = None) -> dict[str, ServingPlan]:
    """Plans of every model in the stack, keyed by model name (stack order)."""
    pools = {p.name: p for p in cfg.gpu_pools}
    problems: list[Problem] = []
    plans: dict[str, ServingPlan] = {}
    # A long-context sibling's problems are reported at its model's longContext.
    for path, m in zip(cfg.model_paths(), cfg.models, strict=True):
        try:
            plans[m.name] = plan_model(m, pools[m.pool], path, base_dir)
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError(problems)
    # One ALB fronts every model (components/ingress.py): its idle timeout is the largest any model
    # needs, and each model's keep-alives must outgrow that shared value, not its own.
    shared = shared_alb_idle([p.timeouts for p in plans.values()])
    by_name = {m.name: m for m in cfg.models}
    return {
        name: replace(
            p, timeouts=model_chain(by_name[name], p.release, shared, startup_budget_seconds=p.timeouts.startup_budget_seconds)
        )
        for name, p in plans.items()
    }
