"""vLLM V1's GPU memory accounting, done before a GPU exists.

Per GPU (every TP/PP rank profiles its own device), vLLM sizes the KV cache as

    kv = total_memory x gpu_memory_utilization
         - weights            (this rank's share of the checkpoint, plus the rotary cache)
         - peak activation    (profile run: a forward pass of max_num_batched_tokens tokens, then
                               the sampler warm-up over min(max_num_seqs, tokens) rows x vocab)
         - non-torch memory   (CUDA context growth, cuBLAS/NCCL/all-reduce buffers; grows with TP)
         - CUDA graph memory  (estimated and reserved before the KV cache from vLLM 0.20 on, where
                               the release's model runner makes an estimate: model_runner())

(vllm-project/vllm vllm/v1/worker/gpu_worker.py
determine_available_memory, gpu_model_runner.py profile_run / _dummy_sampler_run). The KV cache
is then cut into blocks of ``block_size`` tokens whose size follows from the layers on this rank,
the KV heads on this rank (at least one: heads are replicated when TP exceeds them), head_dim
and the cache dtype (same note, sections 3-6).

What the profile run costs changed between releases, so the non-KV terms come from an
:class:`Accounting` per release range. The sampler warm-up dominates the activation peak: its
bytes per (row x vocab) logit were 38.3 on the PyTorch sort path (0.8, 0.11.1-0.16, and 0.9.0-0.11.0
without FlashInfer installed) and 14-15 on the FlashInfer/Triton path (0.17 on, and 0.9.0-0.11.0 where
FlashInfer is installed, as in the vllm/vllm-openai images: EngineArgs.flashinfer_sampler); CUDA graph
memory is reserved up front from 0.20 by the V1 runner, and by Model Runner V2 from 0.29 (V2, the
default for more and more models from 0.22, estimated 0 before). Which graphs are captured follows
from max_num_seqs and max_num_batched_tokens. After the KV cache is allocated, the graphs that were
not reserved and the sampler warm-up must fit in what the budget left (the warm-up OOM at high
utilization; _after_kv_shortfall). The constants were read from vLLM's source (the wheels of the
releases named, from PyPI) and fitted to the ``fit`` rows of
tests/capacity/data/vllm_startup_logs.csv; the calibration test reports the held-out rows. When
the release is unknown the plan takes whichever accounting leaves the smaller KV cache: predicting
less cache than vLLM finds costs some concurrency, predicting more costs an OOM at start-up.

Not modelled (each a known residual, not a fitted term):
- Model Runner V2's sampler profile up to 0.32 runs only the default pass, and the warm-up with
  every sampling feature runs after the KV cache (gpu/warmup.py warmup_kernels). A warm start in
  0.22-0.28 is charged that default pass (v2_profiled_sampler_bytes_per_logit); cold starts there,
  and 0.29-0.32, keep the one sampler constant, which with the compile stand-in is what their logs
  show, so a warm-up OOM caused by that difference alone is not predicted.
- The graph estimate's first capture and its many-experts part do not shrink with the largest
  captured batch, and V2 measures PIECEWISE graphs instead of extrapolating them: small
  max_num_seqs and V2 releases are charged somewhat more graph memory than vLLM reserves.
- Pipeline stages' own buffers (send/receive, intermediate tensors) are not charged: a later
  stage of a PP run can keep less KV cache than modelled. A plan with PP > 1 says so in its notes,
  as a plan of an MXFP4 checkpoint says how its load growth was taken (_residual_notes).
- vLLM's log line "... GiB for peak activation" holds the graph estimate it subtracted
  (gpu_worker.py: peak_activation_memory = transient_peak_headroom + estimate applied, 0.31.0
  lines 668-670, 0.33.0 lines 748-750); compare it with activation_gib + cuda_graph_gib.
- Model Runner V2's profile peak while torch.compile compiles on a cold cache (0.22-0.28,
  cold_compile_bytes) is charged at the size of the graph estimate, which the fit rows match; how
  it grows with the model is not derived. On a warm cache vLLM finds about that much more KV cache,
  and EngineArgs(compile_cache="warm") sizes such a start.
- Persistent workspaces allocated in the profile run (the MoE workspace, 0.33.0 gpu_worker.py
  _scoped_allocator_max_split) land in vLLM's "consumed" memory; the model charges them as
  activation. The sum is what sizes the KV cache; the split between the two is not exact.
- The Qwen2.5-VL encoder charge (vision_encoder_profile_bytes) is read from 0.20.0-0.33.0 and taken
  for older releases too (0.9.0.1's MLP keeps gate and up apart: 2 x hidden less per patch, so older
  releases are charged a little more); Qwen2-VL's is read from 0.13.0 and 0.20.0-0.32.0 (the same
  vision classes). With TP > 1 it is charged whole on every rank although qkv and the MLP's
  intermediate tensors are split (the safe side); limit_mm_per_prompt, mm_processor_kwargs
  (max_pixels), the checkpoint's preprocessor_config.json and --skip-mm-profiling are not inputs of the
  plan, so their defaults are taken: every modality at 999 items per prompt (a modality left out of
  --limit-mm-per-prompt keeps 999, so '{"image":1}' still profiles the dummy video where it is the
  larger item) and max_pixels 12,845,056. A checkpoint whose processor caps max_pixels lower is
  profiled on a smaller image than charged (the safe side).
- fp8 weights below compute capability 8.9 (Marlin weight-only FP8): the public starts of this kind keep
  0.5-0.7 GiB less KV cache than modelled (the unsafe side); what holds it is not derived, and the plan
  says so in its notes (_residual_notes).
- Speculative decoding (wider uniform decode batches), LoRA, encoder CUDA graphs and
  cudagraph_mode other than FULL_AND_PIECEWISE are not sized; Mamba/linear-attention state neither.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Optional

from ..capacity.accounting import (
    ACCOUNTINGS,
    COMPILE_CACHES,
    FAST_SAMPLER,
    FLASHINFER_SAMPLER_RELEASES,
    KNOWN_RELEASES,
    NEWEST_READ,
    RESERVED_GRAPHS,
    SORT_SAMPLER,
    Accounting,
    EngineArgs,
    Gpu,
    accounting_for,
    batch_defaults_for,
    flashinfer_sampler_by_default,
    hardware_batch_defaults,
    parse_release,
    profiled_sampler_bytes_per_logit,
)
from ..capacity.architecture import GIB, Architecture
from ..capacity.cuda_graphs import (
    cold_compile_bytes,
    cuda_graph_bytes,
    cuda_graph_pool_bytes,
    model_runner,
    v2_profiled_sampler_bytes_per_logit,
)
from ..capacity.kv_cache import KvLayout, kv_bytes_per_token_per_layer, kv_layout
from ..capacity.startup import ONLINE_QUANTIZATION, Settings, first_refusal
from ..capacity.vision import VISION_ENCODER_PROFILE_GIB, vision_encoder_profile_bytes

# The inputs (GPU, engine flags, accountings) live in components.capacity.accounting; callers have always
# imported them from here, which stays their public home too.
__all__ = [
    "ACCOUNTINGS",
    "COMPILE_CACHES",
    "FAST_SAMPLER",
    "KNOWN_RELEASES",
    "NEWEST_READ",
    "RESERVED_GRAPHS",
    "SORT_SAMPLER",
    "Accounting",
    "EngineArgs",
    "Gpu",
    "KvLayout",
    "MemoryPlan",
    "accounting_for",
    "activation_bytes",
    "batch_defaults_for",
    "hardware_batch_defaults",
    "kv_bytes_per_token_per_layer",
    "kv_layout",
    "non_torch_bytes",
    "parse_release",
    "plan_memory",
    "startup_context_bytes",
    "weights_per_gpu_bytes",
]

NON_TORCH_PCIE_TP_GIB = 0.35
# Memory the process holds before vLLM's start-up snapshot (CUDA context; NCCL communicators, which
# init_device sets up before the snapshot: 0.33.0 gpu_worker.py init_device). The gap of "free/total"
# in the 0.19 sweep: 0.51 GiB on one H100, 1.53-1.55 GiB per rank with TP 2-4 over NVLink; 0.49 GiB
# per rank on an L40S TP4 (0.10.2). It is not in the budget, so it comes out of the (1 - utilization)
# share in which CUDA graphs are captured after the KV cache is allocated.
STARTUP_CONTEXT_GIB = 0.5
STARTUP_CONTEXT_NVLINK_TP_GIB = 1.5

# MXFP4 experts are re-laid for the MoE kernel at load. With the Triton kernels (vLLM 0.12 on, Hopper:
# "Using Triton backend") gpt-oss-20b loads 13.47 GiB of a 12.8 GiB checkpoint and gpt-oss-120b
# 64.38 GiB of 60.8 (llm-d-benchmark logs; vllm#33155 on 0.14.1). Before, Hopper fell back to
# Marlin ("Weight-only FP4 compression will be used leveraging the Marlin kernel"), whose repack
# loads gpt-oss-120b at 65.97 GiB (vllm-project/vllm#23278, 0.10.1 on H100). Where the 0.11/0.12
# boundary falls exactly is not in a log we hold; an unknown release takes the larger growth.
MXFP4_LOAD_GROWTH = 1.06
MXFP4_MARLIN_LOAD_GROWTH = 1.088
MXFP4_TRITON_FROM = (0, 12)
# Native FP8 GEMMs need compute capability 8.9 (Ada, Hopper and on); below it vLLM runs fp8 weights through
# Marlin, weight-only (model_executor/layers/quantization/utils/marlin_utils_fp8.py
# prepare_fp8_layer_for_marlin, 0.28.0 lines 107-117).
FP8_NATIVE_FROM = (8, 9)


@dataclass(frozen=True)
class MemoryPlan:
    """Where each GPU's memory goes, and what that leaves for requests."""

    gpu: str
    gpu_memory_gib: float
    gpus_per_replica: int
    budget_gib: float
    weights_gib: float
    activation_gib: float
    non_torch_gib: float
    cuda_graph_gib: float
    kv_cache_gib: float
    kv_bytes_per_token: int
    block_bytes: int
    num_blocks: int
    kv_cache_tokens: int
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    max_concurrency: float
    fits: bool
    reason: str
    gpu_memory_utilization: float = 0.0
    accounting: str = ""
    notes: tuple[str, ...] = field(default=())
    # The start-up rule vLLM refuses these settings under (components.capacity.startup), "" when none does:
    # the policy row that reports the refusal. Not in as_dict (the reason says what failed).
    startup_rule: str = ""

    def as_dict(self) -> dict:
        """Plain, JSON-ready figures (rounded so that reports are stable)."""
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, float):
                out[key] = round(value, 2)
        out["notes"] = list(self.notes)
        del out["startup_rule"]
        return out


def weights_per_gpu_bytes(arch: Architecture, checkpoint_bytes: float, args: EngineArgs) -> float:
    """This rank's share of the weights in GPU memory.

    Linear layers and the vocab-parallel embedding/LM head are split over TP; PP stages hold
    their layers, and the first/last stage also the embedding/LM head. A 32-bit checkpoint is
    loaded in 16 bits by dtype "auto"; online quantization shrinks only the linear layers.
    """
    tp, pp = args.tensor_parallel_size, args.pipeline_parallel_size
    total = float(checkpoint_bytes)
    if arch.checkpoint_dtype == "float32" and args.dtype in ("auto", "bfloat16", "float16", "half"):
        total /= 2
    elif args.dtype in ("float32", "float") and arch.checkpoint_dtype in ("bfloat16", "float16"):
        total *= 2
    embed = min(float(arch.embedding_bytes() * (1 if arch.tie_word_embeddings else 2)), total)
    linear = total - embed
    if arch.quant_method == "mxfp4":
        # MXFP4 experts are padded and re-laid for the kernels at load (MXFP4_*_LOAD_GROWTH).
        release = parse_release(args.vllm_version)
        linear *= MXFP4_LOAD_GROWTH if release is not None and release >= MXFP4_TRITON_FROM else MXFP4_MARLIN_LOAD_GROWTH
    if args.quantization in ONLINE_QUANTIZATION and arch.quant_method is None:
        linear *= ONLINE_QUANTIZATION[args.quantization] / arch.dtype_bytes
    embed_stage = embed if pp == 1 else embed / (1 if arch.tie_word_embeddings else 2)
    rotary = arch.max_position_embeddings * arch.head_dim * arch.dtype_bytes
    return (linear / pp + embed_stage) / tp + rotary


def activation_bytes(
    arch: Architecture,
    tokens: int,
    seqs: int,
    tp: int,
    acc: Accounting,
    max_model_len: Optional[int] = None,
    version: Optional[str] = None,
    sampler_bytes_per_logit: Optional[float] = None,
) -> float:
    """Peak torch memory of the profile run above the weights.

    The forward pass of ``tokens`` frees its intermediates before the sampler warm-up, so the
    peak is the larger of the two; the batch's hidden states stay alive through sampling. Only
    min(max_num_seqs, tokens) rows reach the LM head and the sampler (never tokens x vocab).
    Fused MoE kernels add a workspace per routed token (not for MXFP4, whose kernels keep none);
    Qwen-VL models add their vision encoder's own profile run: derived for a Qwen2-VL or Qwen2.5-VL vision
    tower (vision_encoder_profile_bytes, which grows with max_model_len up to the longest dummy video), else
    the fixed VISION_ENCODER_PROFILE_GIB.
    """
    b = arch.dtype_bytes
    inter = arch.moe_intermediate_size * max(1, arch.experts_per_token) if arch.num_experts else arch.intermediate_size
    forward = tokens * (3 * inter / tp + 4 * arch.hidden_size) * b
    rows = min(seqs, tokens)
    per_logit = acc.sampler_bytes_per_logit if sampler_bytes_per_logit is None else sampler_bytes_per_logit
    sampler = per_logit * rows * arch.vocab_size + 2 * tokens * arch.hidden_size
    moe = 0.0
    if arch.num_experts and arch.quant_method != "mxfp4":
        moe = 2 * tokens * arch.experts_per_token * (3 * arch.moe_intermediate_size / tp + arch.hidden_size)
    text = max(forward, sampler) + moe
    if arch.vision is not None:
        # The encoder runs first, then the text forward with the dummy inputs and encoder outputs still held.
        peak, held = vision_encoder_profile_bytes(arch, max_model_len or arch.max_position_embeddings, tokens, seqs, version)
        return max(peak, text + held) + acc.activation_slack_gib * GIB
    vision = VISION_ENCODER_PROFILE_GIB * GIB if arch.has_dynamic_vision_encoder else 0.0
    return text + vision + acc.activation_slack_gib * GIB


def non_torch_bytes(tp: int, gpu: Gpu, acc: Accounting) -> float:
    """CUDA context growth and library workspaces; all-reduce buffers with TP > 1."""
    if tp <= 1:
        return acc.non_torch_single_gpu_gib * GIB
    if gpu.nvlink:
        return acc.non_torch_tensor_parallel_gib * GIB
    # PCIe TP (o16: L40S TP2 logged 0.30 GiB; fb01: L40S TP4 about as much).
    return NON_TORCH_PCIE_TP_GIB * GIB


def startup_context_bytes(tp: int, gpu: Gpu) -> float:
    """What the process holds on each GPU before vLLM's memory snapshot (outside the budget)."""
    return (STARTUP_CONTEXT_NVLINK_TP_GIB if tp > 1 and gpu.nvlink else STARTUP_CONTEXT_GIB) * GIB


def plan_memory(arch: Architecture, checkpoint_bytes: float, gpu: Gpu, args: EngineArgs) -> MemoryPlan:
    """Predict vLLM's per-GPU memory budget and the KV cache it leaves for ``arch`` on ``gpu``.

    With a known ``args.vllm_version`` that release's accounting is used; otherwise every
    accounting is tried and the one leaving the smallest KV cache wins (the safe side).
    """
    acc = accounting_for(args.vllm_version)
    if acc is not None:
        return _plan(arch, checkpoint_bytes, gpu, args, acc)
    plans = [_plan(arch, checkpoint_bytes, gpu, args, a) for a in ACCOUNTINGS]
    worst = min(plans, key=lambda p: (p.kv_cache_gib, p.kv_cache_tokens))
    refused = next((p for p in plans if not p.fits), None)
    if worst.fits and refused is not None:
        # Some release would not start (e.g. graphs captured after the KV cache): nor does "unknown".
        worst = replace(worst, fits=False, reason=refused.reason)
    if args.vllm_version and parse_release(args.vllm_version) is not None:
        note = (
            f"vLLM release {args.vllm_version} is outside the calibrated releases ({KNOWN_RELEASES}): "
            f"sized with the {worst.accounting} accounting, the most conservative"
        )
    else:
        note = f"vLLM release unknown: sized with the {worst.accounting} accounting, the most conservative"
    return replace(worst, notes=(note, *worst.notes))


def _plan(arch: Architecture, checkpoint_bytes: float, gpu: Gpu, args: EngineArgs, acc: Accounting) -> MemoryPlan:
    tp, pp = args.tensor_parallel_size, args.pipeline_parallel_size
    hw_tokens, hw_seqs = batch_defaults_for(gpu, args.vllm_version)
    max_model_len = args.max_model_len or arch.max_position_embeddings
    seqs = args.max_num_seqs or hw_seqs
    tokens = args.max_num_batched_tokens or hw_tokens
    utilization = args.gpu_memory_utilization if args.gpu_memory_utilization is not None else acc.default_utilization
    notes = _default_notes(args, gpu, acc, seqs, tokens, utilization)

    budget = gpu.memory_gib * GIB * utilization
    weights = weights_per_gpu_bytes(arch, checkpoint_bytes, args)
    # Model Runner V2's compile charge of a cold start (0.22-0.28); a warm start is charged neither it nor the
    # full-feature sampler pass, but what V2's profile runs (v2_profiled_sampler_bytes_per_logit).
    cold_charge = cold_compile_bytes(arch, replace(args, compile_cache="cold"), acc, gpu, seqs, tokens)
    warm = args.compile_cache == "warm"
    activation = activation_bytes(
        arch,
        tokens,
        seqs,
        tp,
        acc,
        max_model_len,
        args.vllm_version,
        sampler_bytes_per_logit=v2_profiled_sampler_bytes_per_logit(arch)
        if warm and cold_charge
        else profiled_sampler_bytes_per_logit(arch.dtype_bytes, args, acc),
    )
    non_torch = non_torch_bytes(tp, gpu, acc)
    graphs = cuda_graph_bytes(arch, args, acc, gpu, seqs, tokens)
    compile_peak = 0.0 if warm else cold_charge
    notes.extend(_compile_notes(arch, args, acc, cold_charge, compile_peak))
    activation += compile_peak
    kv = budget - weights - activation - non_torch - graphs
    notes.extend(_residual_notes(arch, args, gpu))
    notes.extend(_sampler_notes(arch, args, acc, min(seqs, tokens)))
    layout = kv_layout(arch, args, kv, max_model_len, tokens)

    settings = Settings(tp, max_model_len, seqs, tokens, args.quantization, args.dtype, gpu.name, gpu.compute_capability)
    refusal = first_refusal(arch, settings)
    if refusal is not None:
        fits, reason = False, refusal.message
    else:
        shortfall = _after_kv_shortfall(arch, args, gpu, acc, utilization, activation - compile_peak, graphs, seqs, tokens)
        fits, reason = _verdict(gpu, utilization, budget, weights, kv, layout, max_model_len, shortfall)

    return MemoryPlan(
        gpu=gpu.name,
        gpu_memory_gib=gpu.memory_gib,
        gpus_per_replica=tp * pp,
        budget_gib=budget / GIB,
        weights_gib=weights / GIB,
        activation_gib=activation / GIB,
        non_torch_gib=non_torch / GIB,
        cuda_graph_gib=graphs / GIB,
        # Negative when the budget is short (vLLM logs the same negative "Available KV cache memory").
        kv_cache_gib=kv / GIB,
        kv_bytes_per_token=int(layout.bytes_per_token),
        block_bytes=int(layout.block_bytes),
        num_blocks=layout.num_blocks,
        kv_cache_tokens=layout.tokens,
        max_model_len=max_model_len,
        max_num_seqs=seqs,
        max_num_batched_tokens=tokens,
        max_concurrency=layout.max_concurrency,
        fits=fits,
        reason=reason,
        gpu_memory_utilization=utilization,
        accounting=acc.releases,
        notes=tuple(notes),
        startup_rule=refusal.rule.name if refusal is not None else "",
    )


def _verdict(
    gpu: Gpu,
    utilization: float,
    budget: float,
    weights: float,
    kv: float,
    layout: KvLayout,
    max_model_len: int,
    shortfall: Optional[str],
) -> tuple[bool, str]:
    """Whether the model starts once vLLM's start-up rules pass, and why: weights, KV cache, then after the KV cache."""
    if weights >= budget:
        return False, (
            f"weights need {weights / GIB:.2f} GiB per GPU but {utilization:g} x {gpu.memory_gib:.2f} GiB "
            f"= {budget / GIB:.2f} GiB is the budget; raise tensorParallelSize, quantize, or use a bigger GPU"
        )
    if kv <= 0:
        return False, (
            f"no memory left for the KV cache ({kv / GIB:.2f} GiB after weights, activations, non-torch memory and CUDA graphs); "
            f"raise gpuMemoryUtilization or tensorParallelSize, lower maxNumBatchedTokens/maxNumSeqs, or use a bigger GPU"
        )
    if layout.max_concurrency < 1:
        return False, (
            f"maxModelLen {max_model_len:,} exceeds the KV cache ({layout.tokens:,} tokens, {kv / GIB:.2f} GiB per GPU); "
            f"lower maxModelLen, raise tensorParallelSize, use an fp8 KV cache, or a bigger GPU"
        )
    if shortfall is not None:
        return False, shortfall
    return True, f"{layout.max_concurrency:.2f} requests of {max_model_len:,} tokens fit in the KV cache"


def _compile_notes(arch: Architecture, args: EngineArgs, acc: Accounting, cold_charge: float, compile_peak: float) -> list[str]:
    """What the plan charged for torch.compile: nothing on a warm cache, Model Runner V2's compile peak on a cold one."""
    if args.compile_cache == "warm":
        return [
            "sized for a warm torch.compile cache (an earlier start of this configuration left its compiled "
            "artifacts in VLLM_CACHE_ROOT): "
            + (
                f"the {cold_charge / GIB:.2f} GiB a cold start peaks higher while compiling is not charged; a new "
                f"pod's cache is empty, so size cold unless the cache persists across restarts"
                if cold_charge
                else f"no compile charge applies to vLLM {args.vllm_version or acc.releases}'s "
                f"{model_runner(arch, args.vllm_version, acc).name} model runner here, so nothing changes"
            )
        ]
    if compile_peak:
        return [
            f"vLLM {args.vllm_version} runs Model Runner V2 for this model, which reserves no CUDA graph memory "
            f"(its estimate is 0 before 0.29) but peaks higher while it compiles the model on a cold cache: "
            f"{compile_peak / GIB:.2f} GiB of activation is charged for that"
        ]
    return []


def _residual_notes(arch: Architecture, args: EngineArgs, gpu: Gpu) -> list[str]:
    """The known residuals of this configuration that the figures do not carry (module docstring, "Not modelled")."""
    notes = []
    fp8 = args.quantization == "fp8" or arch.quant_method == "fp8"
    if fp8 and gpu.compute_capability is not None and gpu.compute_capability < FP8_NATIVE_FROM:
        cc = ".".join(map(str, gpu.compute_capability))
        notes.append(
            f"fp8 weights on {gpu.name} (compute capability {cc}, below 8.9) run as Marlin weight-only FP8 "
            f"(vLLM: 'Your GPU does not have native support for FP8 computation ... leveraging the Marlin "
            f"kernel'); public starts of this kind keep 0.5-0.7 GiB less KV cache than the plan (not "
            f"modelled); keep that headroom"
        )
    if args.pipeline_parallel_size > 1:
        notes.append(
            f"pipelineParallelSize {args.pipeline_parallel_size}: each stage's own buffers (send/receive, "
            f"intermediate tensors) are not charged, and vLLM keeps the smallest stage's block count, so a "
            f"later stage can hold somewhat less KV cache than this (0.6 GiB less in a public 4-stage log of "
            f"an FP8 MoE on vLLM 0.27); keep that much headroom over maxModelLen x the concurrency you need"
        )
    if arch.quant_method == "mxfp4":
        release = parse_release(args.vllm_version)
        triton = release is not None and release >= MXFP4_TRITON_FROM
        growth = MXFP4_LOAD_GROWTH if triton else MXFP4_MARLIN_LOAD_GROWTH
        kernel = (
            "for the Triton kernels of this release"
            if triton
            else "for Marlin's repack, the larger growth, taken before 0.12 and when the release is unknown"
        )
        notes.append(
            f"MXFP4 checkpoint: its experts are re-laid for the MoE kernel at load, charged as x{growth:g} on the "
            f"linear weights {kernel}; public logs load up to 0.7 GiB more per GPU with Marlin at "
            f"tensorParallelSize 4, where the repack pads further"
        )
    return notes


def _sampler_notes(arch: Architecture, args: EngineArgs, acc: Accounting, rows: int) -> list[str]:
    """Which sampler warm-up a 0.9-0.11 plan charged, where the image decides it (FLASHINFER_SAMPLER_RELEASES)."""
    release = parse_release(args.vllm_version)
    first, last = FLASHINFER_SAMPLER_RELEASES
    if release is None or not first <= release <= last or args.flashinfer_sampler is False:
        return []
    if args.flashinfer_sampler is None and not flashinfer_sampler_by_default(args.vllm_version):
        return []
    flashinfer = profiled_sampler_bytes_per_logit(arch.dtype_bytes, replace(args, flashinfer_sampler=True), acc)
    if args.flashinfer_sampler:
        return [
            f"sampler warm-up sized as FlashInfer's top-k/top-p over {rows:,} rows ({flashinfer:g} bytes per logit), "
            f"as vLLM {args.vllm_version} runs it where FlashInfer is installed (opt-in from 0.11.1)"
        ]
    saved = (acc.sampler_bytes_per_logit - flashinfer) * rows * arch.vocab_size
    return [
        f"vLLM {args.vllm_version} samples with FlashInfer where it is installed (the vllm/vllm-openai images ship it; "
        f"its log says 'Using FlashInfer for top-p & top-k sampling.'), whose warm-up over {rows:,} rows peaks "
        f"{saved / GIB:.2f} GiB lower; sized as the PyTorch sort of an install without it, the larger"
    ]


def _default_notes(args: EngineArgs, gpu: Gpu, acc: Accounting, seqs: int, tokens: int, utilization: float) -> list[str]:
    """Where each setting left to vLLM came from, naming the release whose default it is."""
    known = parse_release(args.vllm_version) is not None
    notes = []
    defaulted = [
        f"{name} {value:,}"
        for name, value, given in (
            ("maxNumBatchedTokens", tokens, args.max_num_batched_tokens),
            ("maxNumSeqs", seqs, args.max_num_seqs),
        )
        if given is None
    ]
    if defaulted:
        release = f"vLLM {args.vllm_version}" if known else f"vLLM {NEWEST_READ} (the newest release read; none was given)"
        notes.append(
            f"{' and '.join(defaulted)}: the OpenAI server's default{'s' if len(defaulted) > 1 else ''} of {release} "
            f"for a {gpu.memory_gib:.0f} GiB {gpu.name} (engine/arg_utils.py get_batch_defaults)"
        )
    if args.gpu_memory_utilization is None:
        release = f"vLLM {args.vllm_version}" if known else f"the vLLM {acc.releases} accounting"
        notes.append(f"gpuMemoryUtilization {utilization:g}: the default of {release} (config/cache.py)")
    return notes


def _after_kv_shortfall(
    arch: Architecture,
    args: EngineArgs,
    gpu: Gpu,
    acc: Accounting,
    utilization: float,
    activation: float,
    reserved_graphs: float,
    seqs: int,
    tokens: int,
) -> Optional[str]:
    """Why the start-up would run out of memory after the KV cache is allocated, if it would.

    Once the KV cache takes its share, what is left on the GPU is the (1 - utilization) share less
    what the process held before its snapshot, plus the profiled activation peak (freed after the
    profile run, 0.33.0 utils/mem_utils.py memory_profiling) and the CUDA graph reserve. In it vLLM
    then captures the CUDA graphs and warms up the sampler (gpu_worker.py compile_or_warm_up_model:
    the V1 runner runs _dummy_sampler_run over min(max_num_seqs, max_num_batched_tokens) rows after
    capture_model, "CUDA out of memory occurred when warming up sampler"; V2 runs warmup_kernels, then
    captures). Where no reserve was made (releases before 0.20, and Model Runner V2 in 0.23-0.28,
    vllm-project/vllm#49224), the graphs plus the sampler's peak must fit in what is left.
    """
    tp = args.tensor_parallel_size
    runner = model_runner(arch, args.vllm_version, acc)
    left = (1 - utilization) * gpu.memory_gib * GIB - startup_context_bytes(tp, gpu) + activation + reserved_graphs
    graphs = cuda_graph_pool_bytes(arch, args, seqs, tokens, gpu)
    sampler = profiled_sampler_bytes_per_logit(arch.dtype_bytes, args, acc) * min(seqs, tokens) * arch.vocab_size
    need = graphs + sampler
    if need <= left:
        return None
    release = f"vLLM {args.vllm_version}" if args.vllm_version else f"vLLM {acc.releases}"
    why = (
        "reserves no CUDA graph memory before the KV cache"
        if not runner.reserves_graphs
        else "reserves its CUDA graph estimate, but the warm-up needs more"
    )
    return (
        f"start-up would run out of memory after the KV cache is allocated: {release} ({runner.name} model runner) {why}, "
        f"so CUDA graph capture ({graphs / GIB:.2f} GiB) and the sampler warm-up over {min(seqs, tokens):,} requests "
        f"({sampler / GIB:.2f} GiB) must fit in the {left / GIB:.2f} GiB left outside it "
        f"(1 - gpuMemoryUtilization {utilization:g} of {gpu.memory_gib:.2f} GiB, less the CUDA context, plus the freed "
        f"activation peak); lower gpuMemoryUtilization or maxNumSeqs, or set enforceEager"
    )
