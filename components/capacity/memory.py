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
bytes per (row x vocab) logit were 38.3 on the PyTorch sort path (default of 0.12-0.16, and of
0.10-0.11 wheels without FlashInfer) and 14-15 on the FlashInfer/Triton path (0.17 on); CUDA graph
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

import math
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Optional

from ..capacity.architecture import GIB, Architecture, LayerGroup


@dataclass(frozen=True)
class Accounting:
    """How one range of vLLM releases charges the memory that is not weights or KV cache."""

    releases: str
    sampler_bytes_per_logit: float
    reserves_cuda_graphs: bool
    non_torch_single_gpu_gib: float
    non_torch_tensor_parallel_gib: float  # per rank with TP > 1 on NVLink parts
    default_utilization: float
    # Allocator slack above the modelled tensors of the profile run.
    activation_slack_gib: float = 0.05


# 0.8-0.16: PyTorch top-k/top-p sort in the sampler warm-up (fits o26/o27 and the llm-d-benchmark
# H100 logs to 0.03 GiB); NCCL setup still inside the budget; graphs captured after the KV cache.
SORT_SAMPLER = Accounting("0.8-0.16", 38.3, False, 0.15, 0.60, 0.90)
# 0.17-0.19: FlashInfer/Triton sampler; graphs still not reserved (0.19 H100 sweep: TP1 rows
# within 0.1 GiB; TP > 1 adds about 2 GiB of non-torch memory per rank).
FAST_SAMPLER = Accounting("0.17-0.19", 14.9, False, 0.25, 2.0, 0.90)
# 0.20-0.33: the CUDA graph pool is estimated before the KV cache is sized and subtracted from it
# (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 1: envs.py of 0.20.0 and 0.33.0) wherever the
# release's model runner makes an estimate (model_runner() below); gpu_memory_utilization defaults to
# 0.92 (config/cache.py).
RESERVED_GRAPHS = replace(FAST_SAMPLER, releases="0.20-0.33", reserves_cuda_graphs=True, default_utilization=0.92)
ACCOUNTINGS = (SORT_SAMPLER, FAST_SAMPLER, RESERVED_GRAPHS)

NON_TORCH_PCIE_TP_GIB = 0.35
# The CUDA graph pool of one rank. vLLM's estimate (V1 runner: gpu_model_runner.py
# profile_cudagraph_memory, 0.33.0 line 6268; V2 runner: gpu/cudagraph_utils.py
# profile_cudagraph_memory, 0.33.0 line 922) captures the largest graphs of a mode and charges every
# further graph what the second one cost: first capture + (graphs - 1) x per graph, for PIECEWISE and
# FULL alike. A graph costs in proportion to the layers it records. The constants come from the 0.19
# sweep (fit rows), which all captured 51 PIECEWISE + 51 FULL graphs up to 512 tokens (max_num_seqs
# 1024; "Estimated FULL CUDA graph memory: 260.00 MiB first-capture + (51-1) x 6.00 MiB per-graph" for
# Llama-3.1-8B): 0.35 GiB for the first capture, 0.017 GiB per layer for the 100 further graphs, and
# 0.6 GiB more with 32 or more experts, whatever the graph count (estimates and pools: Llama-8B 0.84/0.91 GiB, PP2 0.54/0.65, PP4 0.49/0.51, Qwen2.5-72B TP2 1.63/1.61,
# gpt-oss-20b 1.30/1.84). How many graphs a configuration captures follows from max_num_seqs and
# max_num_batched_tokens (cudagraph_capture_sizes below).
CUDA_GRAPH_BASE_GIB = 0.35
CUDA_GRAPH_PER_LAYER_GIB = 0.017
CUDA_GRAPH_MANY_EXPERTS_GIB = 0.6
CUDA_GRAPH_FITTED_GRAPHS = 100
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
# The Qwen-VL vision encoder's profile run, where the model's vision tower is not one memory.py derives
# (Qwen3-VL, or a config.json without a Qwen2-VL/Qwen2.5-VL vision_config): the logs of
# Qwen3-VL-30B-A3B (RTX 3090 TP4, nk01) and Qwen2.5-VL-7B (L4, rh01) show 1.6-2.2 GiB above
# the text model's peak. Qwen2-VL's and Qwen2.5-VL's are derived instead (vision_encoder_profile_bytes).
VISION_ENCODER_PROFILE_GIB = 2.5
# Qwen2-VL/2.5-VL processing (vllm/model_executor/models/qwen2_vl.py _MAX_FRAMES_PER_VIDEO): the most
# frames of the dummy video, 14 in 0.11.0-0.33.0 (line 82 of 0.11.0, 115 of 0.13.0 and 0.20.0, 117 of
# 0.23.0, 120 of 0.33.0), 16 in 0.9.0.1 (line 82); the 0.10 releases, not read, take 16, the larger video.
QWEN_VL_MAX_FRAMES = 14
QWEN_VL_MAX_FRAMES_FROM = (0, 11)
QWEN_VL_MAX_FRAMES_BEFORE_011 = 16
# The largest aspect ratio the dummy image may have (qwen2_vl.py get_image_size_with_most_features).
QWEN_VL_MAX_ASPECT = 200
# The Qwen2-VL/2.5-VL vision attention's peak per patch, in multiples of the tower's hidden size, by how the
# release rotates q and k (qwen_vl_attention_peak_hidden): in the model dtype from 0.12 (11), in float32 after
# concatenating them (20, 0.11.0; the 0.10 releases, not read, are taken the same: the larger), in float32 one
# at a time (13, 0.9.0.1 and the releases before it).
QWEN_VL_ATTENTION_PEAK_HIDDEN = 11
QWEN_VL_FP32_ROTARY_ATTENTION_PEAK_HIDDEN = 20
QWEN_VL_SPLIT_ROTARY_ATTENTION_PEAK_HIDDEN = 13
FP8_DS_MLA_BYTES_PER_TOKEN = 656
# Native FP8 GEMMs need compute capability 8.9 (Ada, Hopper and on); below it vLLM runs fp8 weights through
# Marlin, weight-only (model_executor/layers/quantization/utils/marlin_utils_fp8.py
# prepare_fp8_layer_for_marlin, 0.28.0 lines 107-117).
FP8_NATIVE_FROM = (8, 9)

_KV_DTYPE_BYTES = {"fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1, "fp8_ds_mla": 1, "float": 4, "bfloat16": 2, "float16": 2, "half": 2, "float32": 4}
# Methods vLLM applies to a 16-bit checkpoint while loading it, with the bytes per linear-layer
# parameter they leave (embeddings stay 16-bit); the other methods need a checkpoint already
# quantized with them.
ONLINE_QUANTIZATION = {"fp8": 1.0, "bitsandbytes": 0.5}


@dataclass(frozen=True)
class Gpu:
    """A GPU type as vLLM sees it: its name and the total memory CUDA reports."""

    name: str
    memory_gib: float
    # NVLink-connected (SXM) parts: TP > 1 uses vLLM's custom all-reduce, whose buffers count
    # as non-torch memory; PCIe cards (L40S, L4, A10G, RTX) fall back to plain NCCL.
    nvlink: bool = False
    # (major, minor) from the GPU catalogue; None for a device given only by its memory.
    compute_capability: Optional[tuple[int, int]] = None


@dataclass(frozen=True)
class EngineArgs:
    """The vLLM flags that change memory. None means "vLLM's default for this GPU / model"."""

    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    # None: the release's default (0.92 from 0.20, config/cache.py; 0.90 before).
    gpu_memory_utilization: Optional[float] = None
    max_model_len: Optional[int] = None
    max_num_seqs: Optional[int] = None
    max_num_batched_tokens: Optional[int] = None
    block_size: int = 16
    dtype: str = "auto"
    kv_cache_dtype: str = "auto"
    quantization: Optional[str] = None
    enforce_eager: bool = False
    # The vLLM release ("0.33.0"); None: unknown, size with the most conservative accounting.
    vllm_version: Optional[str] = None
    # "cold": the start compiles the model (torch.compile's cache, VLLM_CACHE_ROOT, is empty, as a new
    # pod's is); "warm": it finds the compiled artifacts of an earlier start of the same configuration
    # (cold_compile_bytes is then not charged).
    compile_cache: str = "cold"

    def __post_init__(self) -> None:
        if self.compile_cache not in COMPILE_CACHES:
            raise ValueError(f"compile_cache = {self.compile_cache!r}: must be one of {', '.join(COMPILE_CACHES)}")


COMPILE_CACHES = ("cold", "warm")


# The releases the accountings were read from and calibrated on: V1 (the default engine from 0.8)
# up to the newest release the stacks deploy. Outside them the plan does not guess an accounting.
OLDEST_RELEASE, NEWEST_RELEASE = (0, 8), (0, 33)
NEWEST_READ = f"{NEWEST_RELEASE[0]}.{NEWEST_RELEASE[1]}.0"
KNOWN_RELEASES = f"{OLDEST_RELEASE[0]}.{OLDEST_RELEASE[1]} to {NEWEST_RELEASE[0]}.{NEWEST_RELEASE[1]}.x"


def parse_release(version: Optional[str]) -> Optional[tuple[int, int]]:
    """(major, minor) of a vLLM release string ("0.33.0", "v0.10.1.1", "0.29.1rc1.dev17+g..."); None when unreadable."""
    match = re.fullmatch(r"v?(\d{1,4})\.(\d{1,4})(\.\d{1,6}){0,2}([.+-]?[0-9A-Za-z][0-9A-Za-z.+-]{0,60})?", version or "")
    if not match:
        return None
    return int(match.group(1)), int(match.group(2))


def accounting_for(version: Optional[str]) -> Optional[Accounting]:
    """The accounting of a vLLM release ("0.33.0", "v0.10.1.1"); None when unreadable or outside 0.8-0.33."""
    release = parse_release(version)
    if release is None or not OLDEST_RELEASE <= release <= NEWEST_RELEASE:
        return None
    minor = release[1]
    if minor >= 20:
        return RESERVED_GRAPHS
    return FAST_SAMPLER if minor >= 17 else SORT_SAMPLER


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

    def as_dict(self) -> dict:
        """Plain, JSON-ready figures (rounded so that reports are stable)."""
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, float):
                out[key] = round(value, 2)
        out["notes"] = list(self.notes)
        return out


def hardware_batch_defaults(gpu: Gpu) -> tuple[int, int]:
    """vLLM 0.33's OpenAI-server defaults (max_num_batched_tokens, max_num_seqs) for a GPU.

    vllm-project/vllm v0.33.0 vllm/engine/arg_utils.py get_batch_defaults: >= 160 GiB
    16384/1024; >= 70 GiB and not A100 8192/1024; otherwise 2048/256.
    """
    return batch_defaults_for(gpu, NEWEST_READ)


def batch_defaults_for(gpu: Gpu, version: Optional[str]) -> tuple[int, int]:
    """The OpenAI-server defaults (max_num_batched_tokens, max_num_seqs) of ``version`` on ``gpu``.

    Release by release as components/vllm_flags.batch_defaults read them; an unknown or unreadable
    release takes the newest release read's (0.33's).
    """
    from ..vllm_flags import batch_defaults

    release = parse_release(version)
    text = f"{release[0]}.{release[1]}.0" if release is not None else NEWEST_READ
    tokens, seqs, _tier = batch_defaults(gpu.memory_gib, gpu.name, text)
    return tokens, seqs


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
    embed = arch.embedding_bytes() * (1 if arch.tie_word_embeddings else 2)
    embed = min(embed, total)
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


def kv_bytes_per_token_per_layer(arch: Architecture, args: EngineArgs) -> int:
    """Bytes one token occupies in one attention layer's KV cache on one rank."""
    kv_bytes = _kv_dtype_bytes(arch, args)
    if arch.is_mla and args.kv_cache_dtype == "fp8_ds_mla":
        # DeepSeek V3.2's sparse-attention cache: a fixed 656 bytes per token and layer
        # (vllm-project/vllm vllm/v1/worker/gpu_worker.py section 5).
        return FP8_DS_MLA_BYTES_PER_TOKEN
    if arch.is_mla:
        # One latent (kv_lora_rank + rope dims) shared by K and V, replicated on every TP rank.
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_bytes
    heads = max(1, arch.num_kv_heads // args.tensor_parallel_size)
    return 2 * heads * arch.head_dim * kv_bytes


def _kv_dtype_bytes(arch: Architecture, args: EngineArgs) -> int:
    if args.kv_cache_dtype != "auto":
        return _KV_DTYPE_BYTES[args.kv_cache_dtype]
    if args.dtype not in ("auto",):
        return _KV_DTYPE_BYTES.get(args.dtype, 2)
    return arch.dtype_bytes


def activation_bytes(arch: Architecture, tokens: int, seqs: int, tp: int, acc: Accounting,
                     max_model_len: Optional[int] = None, version: Optional[str] = None,
                     sampler_bytes_per_logit: Optional[float] = None) -> float:
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


def qwen_vl_dummy_patches(arch: Architecture, max_model_len: int, tokens: int, seqs: int, version: Optional[str] = None) -> int:
    """Vision patches of the dummy batch vLLM's profile run feeds a Qwen2-VL/2.5-VL encoder (0 without a vision tower).

    Qwen2.5-VL reuses Qwen2-VL's processing info and dummy inputs, so one count serves both. Read in vLLM
    0.23.0 (same code in 0.20.0-0.33.0):
    - v1/worker/gpu_model_runner.py profile_run (lines 6168-6240): one modality, the one with the most
      tokens per item (multimodal/encoder_budget.py get_modality_with_max_tokens, line 182; a tie goes to
      "video"), max_items_per_batch items of it.
    - model_executor/models/qwen2_vl.py: the image with the most features is max_pixels split into
      (patch x merge)^2 units in the factor pair closest to square with aspect <= 200
      (get_image_size_with_most_features, lines 965-1016); a video repeats it over as many frames as
      max_model_len holds, at most _MAX_FRAMES_PER_VIDEO, frames padded to temporal_patch_size
      (get_num_frames_with_most_features / _get_max_video_frames / _get_vision_info, lines 880-1093).
    - multimodal/encoder_budget.py _get_max_items (lines 140-180) with compute_mm_encoder_budget
      (v1/core/encoder_cache_manager.py lines 269-316): the encoder budget is max(max_num_batched_tokens,
      tokens per item) (config/scheduler.py lines 235-236), items = max(1, min(budget // tokens per item,
      max_num_seqs x min(999, max_model_len // tokens per item) or 1)); limit_mm_per_prompt defaults to 999
      per modality (config/multimodal.py lines 20 and 80-84).
    The same steps in 0.13.0: gpu_model_runner.py profile_run (lines 4424-4471) and _get_mm_dummy_batch
    (lines 3940-3967, seq_len = max_model_len, mm_counts {modality: 1}); v1/worker/utils.py MultiModalBudget
    (lines 25-113: get_modality_with_max_tokens, line 76, takes the first of equal maxima, "image", whose
    patches equal a one-frame video's; get_max_items, lines 85-113); v1/core/encoder_cache_manager.py
    compute_mm_encoder_budget (lines 302-349); qwen2_vl.py get_image_size_with_most_features (lines
    923-959, max_pixels = the image processor's max_pixels or size["longest_edge"]), _get_vision_info
    (lines 849-889) and get_num_frames_with_most_features (lines 991-1004); config/multimodal.py
    get_limit_per_prompt (lines 215-225): a modality --limit-mm-per-prompt does not name keeps 999.
    """
    vision = arch.vision
    if vision is None:
        return 0
    unit = vision.patch_size * vision.spatial_merge_size
    units = max(vision.max_pixels // (unit * unit), 1)
    for n in range(units, 0, -1):
        short = next(d for d in range(math.isqrt(n), 0, -1) if n % d == 0)
        if (n // short) / short <= QWEN_VL_MAX_ASPECT:
            units = short * (n // short)
            break
    tp_frames = vision.temporal_patch_size

    def video_tokens(frames: int) -> int:
        return max((frames + frames % tp_frames) // tp_frames, 1) * units

    release = parse_release(version)
    cap = QWEN_VL_MAX_FRAMES if release is None or release >= QWEN_VL_MAX_FRAMES_FROM else QWEN_VL_MAX_FRAMES_BEFORE_011
    frames = 1
    while frames < cap and video_tokens(frames + 1) <= max_model_len:
        frames += 1
    per_item = max(video_tokens(frames), units)  # the video; an image is one frame's worth
    budget = max(tokens, per_item)
    per_prompt = max(1, min(999, max_model_len // per_item))
    items = max(1, min(budget // per_item, seqs * per_prompt))
    return items * per_item * vision.spatial_merge_size ** 2


def vision_encoder_profile_bytes(arch: Architecture, max_model_len: int, tokens: int, seqs: int,
                                 version: Optional[str] = None) -> tuple[float, float]:
    """(peak, held): a Qwen2-VL/2.5-VL encoder's profile peak on vLLM's dummy batch, and what stays alive after it.

    Qwen2.5-VL, per patch, in the model dtype (vLLM 0.23.0; the same lines in 0.20.0-0.33.0):
    - the dummy pixel values, in_channels x temporal_patch_size x patch_size^2 values, cast to the model
      dtype by the processor (multimodal/processing/context.py line 234) and held by profile_run's
      batched_dummy_mm_inputs until the text dummy run ends (gpu_model_runner.py line 6210);
    - the vision block's peak (model_executor/models/qwen2_5_vl.py): in the MLP, the block input, the
      attention output, the out-of-place add-norm's two results (line 522; the native
      fused_add_rms_norm, vllm/ir/ops/layernorm.py line 40, returns new tensors), gate_up (2 x
      intermediate), its activation (intermediate) and down_proj's output (lines 340-344): 5 x hidden + 3 x
      intermediate; in the attention, the block input, norm1's output, qkv (3 x hidden), the contiguous
      q/k copy and its rotated copy (2 x hidden each, lines 411-458), the attention output and the
      projection: 11 x hidden. The larger of the two.
    Qwen2-VL (``vision.mlp == "quick_gelu"``), per patch (vLLM 0.13.0 model_executor/models/qwen2_vl.py;
    Qwen2VisionMLP, Qwen2VisionAttention and Qwen2VisionBlock are the same in 0.20.0-0.32.0, lines 243-443
    of 0.20.0, and the tower runs eagerly, without support_torch_compile):
    - the dummy pixel values as above (0.13.0 multimodal/processing.py line 1083 casts them to the model
      dtype), held by profile_run (gpu_model_runner.py lines 4460-4471);
    - in the MLP (Qwen2VisionBlock.forward line 454, Qwen2VisionMLP.forward lines 275-279): the block input,
      norm2's LayerNorm output (the module call's argument until the MLP returns), fc1's output
      (intermediate = int(embed_dim x mlp_ratio), line 419) and QuickGELU's x * sigmoid(1.702 x)
      (model_executor/layers/activation.py line 352): 1.702 x and its sigmoid live next to fc1's output,
      then the sigmoid and the product: 2 x hidden + 3 x intermediate. QuickGELU is a CustomOp, and a
      start that compiles with Inductor (the default; not enforce_eager) sets custom_ops to "none"
      (config/vllm.py lines 658-665; custom_op.py dispatch_forward lines 92-99), so this native path
      runs. With enforce_eager its CUDA kernel holds one intermediate less (forward_cuda, lines 354-357);
      the native peak is charged either way (the safe side);
    - in the attention (Qwen2VisionAttention.forward lines 363-400): the block input, norm1's output,
      qkv (3 x hidden; q, k, v are views), the concatenated q/k (line 380) and its rotated copy (lines
      381-385, ApplyRotaryEmb enforce-enabled: vllm_flash_attn's apply_rotary_emb, a new tensor), the
      flash-attention output (the ViT backend on compute capability >= 8, platforms/cuda.py lines
      382-393; attention/ops/vit_attn_wrappers.py reshapes without copies) and the projection:
      11 x hidden, as for Qwen2.5-VL.
    The larger of the two; for Qwen2-VL-7B (embed_dim 1,280, mlp_ratio 4) the MLP's 17,920 values. The
    attention's 11 x hidden is the one of 0.12 on; 0.11 rotates q and k in float32 and peaks at 20 x hidden,
    0.9 at 13 x hidden (qwen_vl_attention_peak_hidden), for both towers.
    The encoder outputs (merged tokens x out_hidden_size, the merger's output: vision_config hidden_size
    for Qwen2-VL) are cached through the text dummy run with the pixel values (gpu_model_runner.py lines
    6225-6240 of 0.23.0, 4469-4486 of 0.13.0): that is ``held``.
    """
    vision = arch.vision
    patches = qwen_vl_dummy_patches(arch, max_model_len, tokens, seqs, version)
    if vision is None or patches == 0:
        return 0.0, 0.0
    b = arch.dtype_bytes
    pixels = vision.in_channels * vision.temporal_patch_size * vision.patch_size ** 2
    h, inter = vision.hidden_size, vision.intermediate_size
    mlp = 2 * h + 3 * inter if vision.mlp == "quick_gelu" else 5 * h + 3 * inter
    block = max(mlp, qwen_vl_attention_peak_hidden(version) * h)
    outputs = patches // vision.spatial_merge_size ** 2 * vision.out_hidden_size
    return float(patches * (pixels + block) * b), float((patches * pixels + outputs) * b)


def qwen_vl_attention_peak_hidden(version: Optional[str]) -> int:
    """The Qwen2-VL/2.5-VL vision attention's peak per patch, in multiples of the tower's hidden size, for ``version``.

    Live in the attention call: the block input, norm1's output and qkv (5 x hidden), then per release
    - 0.12.0 on (qwen2_vl.py lines 280-287 and 388-398 of 0.12.0; 0.13.0 ApplyRotaryEmb, enforce-enabled, lines
      380-385; 0.20.0-0.33.0 likewise): q and k concatenated (2 x hidden; Qwen2.5-VL's reshape copies the
      same) and rotated in the model dtype into a new tensor (2 x hidden), then the attention output and the
      projection: 11 x hidden (the releases 0.14-0.19, between two readings, are taken the same);
    - 0.11.0 (qwen2_vl.py lines 275-284 apply_rotary_pos_emb_vision, 379-384; qwen2_5_vl.py lines 350-355):
      q, k and v copied contiguous (3 x hidden, line 350), q and k concatenated (2 x hidden), that cast to
      float32 (t.float(), 4 x hidden), vllm_flash_attn's rotary output in float32 (torch.empty_like of it,
      vllm_flash_attn/ops/triton/rotary.py line 188; 4 x hidden) and its cast back (type_as, 2 x hidden):
      20 x hidden, while the rotation runs (the 0.10 releases, not read, are taken the same: the larger);
    - 0.9.0.1 (qwen2_vl.py lines 231-240 and 319-323; qwen2_5_vl.py lines 297-301): the contiguous copies,
      then q and k rotated one at a time in float32 (2 + 2 + 1 x hidden each): 13 x hidden; the older
      releases are taken the same.
    An unknown release takes the largest, 20 (the safe side).
    """
    release = parse_release(version)
    if release is None or (0, 10) <= release < (0, 12):
        return QWEN_VL_FP32_ROTARY_ATTENTION_PEAK_HIDDEN
    if release < (0, 10):
        return QWEN_VL_SPLIT_ROTARY_ATTENTION_PEAK_HIDDEN
    return QWEN_VL_ATTENTION_PEAK_HIDDEN


def non_torch_bytes(tp: int, gpu: Gpu, acc: Accounting) -> float:
    """CUDA context growth and library workspaces; all-reduce buffers with TP > 1."""
    if tp <= 1:
        return acc.non_torch_single_gpu_gib * GIB
    if gpu.nvlink:
        return acc.non_torch_tensor_parallel_gib * GIB
    # PCIe TP (o16: L40S TP2 logged 0.30 GiB; fb01: L40S TP4 about as much).
    return NON_TORCH_PCIE_TP_GIB * GIB


@dataclass(frozen=True)
class Runner:
    """The GPU model runner a release picks for a model, and what it changes in the budget."""

    name: str  # "V1" (v1/worker/gpu_model_runner.py) or "V2" (v1/worker/gpu/model_runner.py)
    # The CUDA graph estimate is subtracted before the KV cache is sized.
    reserves_graphs: bool
    # The sampler warm-up with every sampling feature (top-k/top-p, penalties, logprobs) is inside
    # the profiled peak, not only in the memory left after the KV cache.
    sampler_warmup_profiled: bool = True


# Model Runner V2's default architectures (config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES and
# _is_default_v2_model_runner_model), by the config.json model_type that names them.
_V2_ARCHITECTURES_022 = frozenset({"qwen3"})  # 0.22.0: and neither MoE nor quantized
_V2_ARCHITECTURES_023 = frozenset({"llama", "mistral", "qwen3"})  # 0.23.0: likewise
_V2_ARCHITECTURES_024 = frozenset({"llama", "mistral", "qwen3", "deepseek_v2", "qwen2_moe", "granitemoe"})
_V2_MOE_ARCHITECTURES_025 = frozenset({"deepseek_v2", "qwen2_moe", "granitemoe", "deepseek_v4"})


def model_runner(arch: Architecture, version: Optional[str], acc: Accounting) -> Runner:
    """Which model runner vLLM ``version`` starts for ``arch``, read in each release's wheel.

    - 0.20-0.21: the V1 runner (envs.py: VLLM_USE_V2_MODEL_RUNNER defaults to "0" in 0.20.0 and
      0.21.0), which subtracts its CUDA graph estimate (gpu_worker.py determine_available_memory).
    - 0.22-0.28: Model Runner V2 by default for some models (config/vllm.py use_v2_model_runner and
      DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES: 0.22.0 Qwen3 neither MoE nor quantized; 0.23.0
      Llama/Mistral/Qwen3 likewise; 0.24.0 those and DeepSeek-V2/Qwen2-MoE/GraniteMoE, quantized or
      not; 0.25.0-0.28.0 every non-MoE model plus those MoE ones), whose profile_cudagraph_memory
      returns 0 ("It is TBD whether we keep this API", gpu/model_runner.py 0.21.0-0.28.0;
      vllm-project/vllm#49224): no CUDA graph memory is reserved for them. The others keep V1.
    - 0.29-0.33: V2 for every model it supports (0.29.0 config/vllm.py), with a real estimate
      (gpu/cudagraph_utils.py profile_cudagraph_memory, 0.29.0 on).
    - V2 up to 0.32 profiles only the sampler's default pass; the warm-up with every sampling
      feature (gpu/warmup.py warmup_kernels, SamplingParams.for_sampler_warmup) runs after the KV
      cache is allocated. 0.33.0 runs that pass in the profile (gpu/model_runner.py
      _dummy_sampler_run: "warmup_kernels (run after the KV cache is sized) pays for the fp32 logits
      pipeline, so the profiled peak must too").
    An unknown release of the 0.20-0.33 family is taken as one that reserves (the smaller KV cache).
    """
    if not acc.reserves_cuda_graphs:
        return Runner("V1", reserves_graphs=False)
    release = parse_release(version)
    minor = release[1] if release is not None and release[0] == 0 else None
    if minor is None or minor <= 21:
        return Runner("V1", reserves_graphs=True)
    moe = arch.num_experts > 0
    if minor <= 23:
        names = _V2_ARCHITECTURES_022 if minor == 22 else _V2_ARCHITECTURES_023
        v2 = arch.model_type in names and not moe and arch.quant_method is None
    elif minor == 24:
        v2 = arch.model_type in _V2_ARCHITECTURES_024
    elif minor <= 28:
        v2 = not moe or arch.model_type in _V2_MOE_ARCHITECTURES_025
    else:
        return Runner("V2", reserves_graphs=True, sampler_warmup_profiled=minor >= 33)
    return Runner("V2", reserves_graphs=False, sampler_warmup_profiled=False) if v2 else Runner("V1", reserves_graphs=True)


def cudagraph_capture_sizes(max_num_seqs: int, max_num_batched_tokens: int, gpu: Optional[Gpu] = None) -> list[int]:
    """The batch sizes vLLM captures CUDA graphs for, by default (0.33.0 config/vllm.py _set_cudagraph_sizes).

    The largest is min(2 x max_num_seqs, 512 (1024 on data-center Blackwell: compute capability 10.x,
    config/vllm.py:2463-2465 is_device_capability_family(100)), max_num_batched_tokens);
    the sizes are 1, 2, 4, then steps of 8 below 256 and of 16 from 256, plus max_num_seqs (the widest
    uniform decode batch) and max_num_batched_tokens when they fit. The 0.19 sweep's logs ("(51-1)"
    graphs at max_num_seqs 1024) follow the same rule.
    """
    ceiling = 1024 if gpu is not None and gpu.compute_capability is not None and gpu.compute_capability[0] == 10 else 512
    largest = min(2 * max_num_seqs, ceiling, max_num_batched_tokens)
    sizes = {s for s in (1, 2, 4) if s <= largest}
    sizes.update(range(8, min(largest + 1, 256), 8))
    sizes.update(range(256, largest + 1, 16))
    sizes.update(s for s in (max_num_batched_tokens, max_num_seqs) if s <= largest)
    return sorted(sizes)


def cuda_graph_pool_bytes(arch: Architecture, args: EngineArgs, seqs: int, tokens: int, gpu: Optional[Gpu] = None) -> float:
    """vLLM's estimate of one rank's CUDA graph pool (0 with enforce_eager).

    FULL_AND_PIECEWISE (the default cudagraph_mode) captures a PIECEWISE graph per capture size and a
    FULL decode graph per size up to max_num_seqs (v1/cudagraph_dispatcher.py
    initialize_cudagraph_keys, 0.33.0 lines 164-230).
    """
    if args.enforce_eager:
        return 0.0
    sizes = cudagraph_capture_sizes(seqs, tokens, gpu)
    full = [s for s in sizes if s <= seqs]
    further = (len(sizes) - 1) + max(len(full) - 1, 0)
    layers = math.ceil(arch.num_layers / args.pipeline_parallel_size)
    # Not scaled with the largest batch: no fit row shows how it scales, and whole is the safe side.
    many_experts = CUDA_GRAPH_MANY_EXPERTS_GIB if arch.num_experts >= 32 else 0.0
    return (CUDA_GRAPH_BASE_GIB + many_experts + CUDA_GRAPH_PER_LAYER_GIB * layers * further / CUDA_GRAPH_FITTED_GRAPHS) * GIB


def cuda_graph_bytes(arch: Architecture, args: EngineArgs, acc: Accounting, gpu: Optional[Gpu] = None,
                     seqs: Optional[int] = None, tokens: Optional[int] = None) -> float:
    """The CUDA graph memory reserved before sizing the KV cache: vLLM's estimate, where the runner subtracts one."""
    if not model_runner(arch, args.vllm_version, acc).reserves_graphs:
        return 0.0
    return _graph_estimate(arch, args, gpu, seqs, tokens)


def _graph_estimate(arch: Architecture, args: EngineArgs, gpu: Optional[Gpu], seqs: Optional[int], tokens: Optional[int]) -> float:
    if seqs is None or tokens is None:
        hw_tokens, hw_seqs = batch_defaults_for(gpu, args.vllm_version) if gpu is not None else (8192, 1024)
        seqs, tokens = seqs or args.max_num_seqs or hw_seqs, tokens or args.max_num_batched_tokens or hw_tokens
    return cuda_graph_pool_bytes(arch, args, seqs, tokens, gpu)


def cold_compile_bytes(arch: Architecture, args: EngineArgs, acc: Accounting, gpu: Optional[Gpu] = None,
                       seqs: Optional[int] = None, tokens: Optional[int] = None) -> float:
    """Model Runner V2's profile peak on a cold torch.compile cache, above the modelled one (0.22-0.28).

    V2 reserves no CUDA graph memory in 0.22-0.28 (model_runner()), yet its logs on a first start
    report a KV cache as small as if it had: Qwen3-14B on 0.28.0 (fit rows nm02, nm04: L40S and L4)
    comes out 0.9 GiB below budget - weights - the modelled peak - non-torch, within 0.05 GiB of the
    graph estimate. The same worker restarted with a warm compile cache logs a peak activation of
    0.19 GiB for Qwen3-8B on 0.27.1 and 7,248 more KV tokens (fit row nm24; about 1 GiB), so the
    difference is the profile run compiling the model (Inductor) inside the measured peak. Its size
    is not derived from the source: the graph estimate stands in for it, as the fit rows allow (the
    safe side for a pod whose compile cache is empty, as a new pod's is). It is transient, so it is
    not counted as memory left for the graphs captured after the KV cache (_after_kv_shortfall).
    With ``args.compile_cache == "warm"`` (a start that finds an earlier start's compiled artifacts)
    nothing is charged, and the profile's sampler is charged as what V2 runs there, its default
    pass (v2_profiled_sampler_bytes_per_logit): the full-feature sampler constant, which the cold
    fit rows were matched with, is part of what stands in for the compile peak on a cold start.
    """
    runner = model_runner(arch, args.vllm_version, acc)
    if runner.reserves_graphs or not acc.reserves_cuda_graphs or args.compile_cache == "warm":
        return 0.0
    return _graph_estimate(arch, args, gpu, seqs, tokens)


def v2_profiled_sampler_bytes_per_logit(arch: Architecture) -> float:
    """Bytes per (row x vocab) logit of Model Runner V2's profiled sampler pass, up to 0.32: the logits alone.

    The profile run samples its dummy batch with the default pass only: no dummy request needs logits
    processing, so apply_sampling_params returns the logits as computed (model dtype) without the float32
    copy, and gumbel_sample keeps per-block maxima only (0.28.0 v1/worker/gpu/model_runner.py
    _dummy_sampler_run lines 771-782, "the sampler may skip top_k, top_p, and logprobs"; sample/sampler.py
    lines 192-196 and 283-294; sample/gumbel.py lines 252-254). The full-feature warm-up runs after the KV
    cache (_after_kv_shortfall). vLLM logs a peak activation of 0.19 GiB for a warm Qwen3-8B start on 0.27.1,
    the size of its forward pass (fit row nm24).
    """
    return float(arch.dtype_bytes)


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
        note = (f"vLLM release {args.vllm_version} is outside the calibrated releases ({KNOWN_RELEASES}): "
                f"sized with the {worst.accounting} accounting, the most conservative")
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
    activation = activation_bytes(arch, tokens, seqs, tp, acc, max_model_len, args.vllm_version,
                                  sampler_bytes_per_logit=v2_profiled_sampler_bytes_per_logit(arch) if warm and cold_charge else None)
    non_torch = non_torch_bytes(tp, gpu, acc)
    graphs = cuda_graph_bytes(arch, args, acc, gpu, seqs, tokens)
    compile_peak = 0.0 if warm else cold_charge
    if warm:
        notes.append("sized for a warm torch.compile cache (an earlier start of this configuration left its compiled "
                     "artifacts in VLLM_CACHE_ROOT): " + (
                         f"the {cold_charge / GIB:.2f} GiB a cold start peaks higher while compiling is not charged; a new "
                         f"pod's cache is empty, so size cold unless the cache persists across restarts" if cold_charge else
                         f"no compile charge applies to vLLM {args.vllm_version or acc.releases}'s "
                         f"{model_runner(arch, args.vllm_version, acc).name} model runner here, so nothing changes"))
    elif compile_peak:
        notes.append(f"vLLM {args.vllm_version} runs Model Runner V2 for this model, which reserves no CUDA graph memory "
                     f"(its estimate is 0 before 0.29) but peaks higher while it compiles the model on a cold cache: "
                     f"{compile_peak / GIB:.2f} GiB of activation is charged for that")
    activation += compile_peak
    kv = budget - weights - activation - non_torch - graphs
    notes.extend(_residual_notes(arch, args, gpu))

    layout = kv_layout(arch, args, kv, max_model_len, tokens)
    block_bytes, num_blocks, kv_tokens, max_concurrency = layout.block_bytes, layout.num_blocks, layout.tokens, layout.max_concurrency
    bytes_per_token = layout.bytes_per_token

    refusal = _startup_refusal(arch, args, max_model_len, seqs, tokens)
    if refusal:
        fits, reason = False, refusal
    elif weights >= budget:
        fits, reason = False, (
            f"weights need {weights / GIB:.2f} GiB per GPU but {utilization:g} x {gpu.memory_gib:.2f} GiB "
            f"= {budget / GIB:.2f} GiB is the budget; raise tensorParallelSize, quantize, or use a bigger GPU"
        )
    elif kv <= 0:
        fits, reason = False, (
            f"no memory left for the KV cache ({kv / GIB:.2f} GiB after weights, activations, non-torch memory and CUDA graphs); "
            f"raise gpuMemoryUtilization or tensorParallelSize, lower maxNumBatchedTokens/maxNumSeqs, or use a bigger GPU"
        )
    elif max_concurrency < 1:
        fits, reason = False, (
            f"maxModelLen {max_model_len:,} exceeds the KV cache ({kv_tokens:,} tokens, {kv / GIB:.2f} GiB per GPU); "
            f"lower maxModelLen, raise tensorParallelSize, use an fp8 KV cache, or a bigger GPU"
        )
    elif (shortfall := _after_kv_shortfall(arch, args, gpu, acc, utilization, activation - compile_peak, graphs, seqs, tokens)) is not None:
        fits, reason = False, shortfall
    else:
        fits, reason = True, f"{max_concurrency:.2f} requests of {max_model_len:,} tokens fit in the KV cache"

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
        kv_bytes_per_token=int(bytes_per_token),
        block_bytes=int(block_bytes),
        num_blocks=num_blocks,
        kv_cache_tokens=kv_tokens,
        max_model_len=max_model_len,
        max_num_seqs=seqs,
        max_num_batched_tokens=tokens,
        max_concurrency=max_concurrency,
        fits=fits,
        reason=reason,
        gpu_memory_utilization=utilization,
        accounting=acc.releases,
        notes=tuple(notes),
    )


def _residual_notes(arch: Architecture, args: EngineArgs, gpu: Gpu) -> list[str]:
    """The known residuals of this configuration that the figures do not carry (module docstring, "Not modelled")."""
    notes = []
    fp8 = args.quantization == "fp8" or arch.quant_method == "fp8"
    if fp8 and gpu.compute_capability is not None and gpu.compute_capability < FP8_NATIVE_FROM:
        cc = ".".join(map(str, gpu.compute_capability))
        notes.append(f"fp8 weights on {gpu.name} (compute capability {cc}, below 8.9) run as Marlin weight-only FP8 "
                     f"(vLLM: 'Your GPU does not have native support for FP8 computation ... leveraging the Marlin "
                     f"kernel'); public starts of this kind keep 0.5-0.7 GiB less KV cache than the plan (not "
                     f"modelled); keep that headroom")
    if args.pipeline_parallel_size > 1:
        notes.append(f"pipelineParallelSize {args.pipeline_parallel_size}: each stage's own buffers (send/receive, "
                     f"intermediate tensors) are not charged, and vLLM keeps the smallest stage's block count, so a "
                     f"later stage can hold somewhat less KV cache than this (0.6 GiB less in a public 4-stage log of "
                     f"an FP8 MoE on vLLM 0.27); keep that much headroom over maxModelLen x the concurrency you need")
    if arch.quant_method == "mxfp4":
        release = parse_release(args.vllm_version)
        triton = release is not None and release >= MXFP4_TRITON_FROM
        growth = MXFP4_LOAD_GROWTH if triton else MXFP4_MARLIN_LOAD_GROWTH
        kernel = ("for the Triton kernels of this release" if triton else
                  "for Marlin's repack, the larger growth, taken before 0.12 and when the release is unknown")
        notes.append(f"MXFP4 checkpoint: its experts are re-laid for the MoE kernel at load, charged as x{growth:g} on the "
                     f"linear weights {kernel}; public logs load up to 0.7 GiB more per GPU with Marlin at "
                     f"tensorParallelSize 4, where the repack pads further")
    return notes


def _default_notes(args: EngineArgs, gpu: Gpu, acc: Accounting, seqs: int, tokens: int, utilization: float) -> list[str]:
    """Where each setting left to vLLM came from, naming the release whose default it is."""
    known = parse_release(args.vllm_version) is not None
    notes = []
    defaulted = [f"{name} {value:,}" for name, value, given in (
        ("maxNumBatchedTokens", tokens, args.max_num_batched_tokens), ("maxNumSeqs", seqs, args.max_num_seqs)) if given is None]
    if defaulted:
        release = f"vLLM {args.vllm_version}" if known else f"vLLM {NEWEST_READ} (the newest release read; none was given)"
        notes.append(f"{' and '.join(defaulted)}: the OpenAI server's default{'s' if len(defaulted) > 1 else ''} of {release} "
                     f"for a {gpu.memory_gib:.0f} GiB {gpu.name} (engine/arg_utils.py get_batch_defaults)")
    if args.gpu_memory_utilization is None:
        release = f"vLLM {args.vllm_version}" if known else f"the vLLM {acc.releases} accounting"
        notes.append(f"gpuMemoryUtilization {utilization:g}: the default of {release} (config/cache.py)")
    return notes


def _after_kv_shortfall(arch: Architecture, args: EngineArgs, gpu: Gpu, acc: Accounting, utilization: float,
                        activation: float, reserved_graphs: float, seqs: int, tokens: int) -> Optional[str]:
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
    sampler = acc.sampler_bytes_per_logit * min(seqs, tokens) * arch.vocab_size
    need = graphs + sampler
    if need <= left:
        return None
    release = f"vLLM {args.vllm_version}" if args.vllm_version else f"vLLM {acc.releases}"
    why = ("reserves no CUDA graph memory before the KV cache" if not runner.reserves_graphs
           else "reserves its CUDA graph estimate, but the warm-up needs more")
    return (
        f"start-up would run out of memory after the KV cache is allocated: {release} ({runner.name} model runner) {why}, "
        f"so CUDA graph capture ({graphs / GIB:.2f} GiB) and the sampler warm-up over {min(seqs, tokens):,} requests "
        f"({sampler / GIB:.2f} GiB) must fit in the {left / GIB:.2f} GiB left outside it "
        f"(1 - gpuMemoryUtilization {utilization:g} of {gpu.memory_gib:.2f} GiB, less the CUDA context, plus the freed "
        f"activation peak); lower gpuMemoryUtilization or maxNumSeqs, or set enforceEager"
    )


@dataclass(frozen=True)
class KvLayout:
    """How a per-GPU KV budget is cut into blocks, and what that holds."""

    bytes_per_token: int
    block_bytes: int
    num_blocks: int
    tokens: int
    max_concurrency: float
    # Block ids per token position: one per attention-type group of the hybrid allocator.
    groups: int = 1


def kv_layout(arch: Architecture, args: EngineArgs, kv_bytes: float, max_model_len: int, batched_tokens: int) -> KvLayout:
    """Blocks, tokens and concurrency at ``max_model_len`` that ``kv_bytes`` per GPU hold.

    vLLM's hybrid allocator (kv_cache_utils._get_kv_cache_config_uniform_page_size) cuts every
    attention type into groups of the smallest type's layer count; one block id then holds a
    page in each of group_size tensors, and a request takes blocks in every group it touches.
    """
    per_layer = kv_bytes_per_token_per_layer(arch, args)
    groups = _rank_groups(arch, args.pipeline_parallel_size)
    group_size = min(g.layers for g in groups)
    tensors_per_group = [math.ceil(g.layers / group_size) for g in groups]
    num_groups = sum(tensors_per_group)
    block_bytes = args.block_size * per_layer * group_size
    num_blocks = int(kv_bytes // block_bytes) if kv_bytes > 0 else 0
    tokens = (num_blocks // num_groups) * args.block_size
    per_request = sum(n * _blocks_needed(g, max_model_len, batched_tokens, args.block_size) for g, n in zip(groups, tensors_per_group, strict=True))
    return KvLayout(
        bytes_per_token=int(sum(g.layers for g in groups) * per_layer),
        block_bytes=int(block_bytes),
        num_blocks=num_blocks,
        tokens=tokens,
        max_concurrency=num_blocks / per_request if per_request else 0.0,
        groups=num_groups,
    )


def _startup_refusal(arch: Architecture, args: EngineArgs, max_model_len: int, seqs: int, tokens: int) -> Optional[str]:
    """Why vLLM would refuse these settings before sizing any memory, if it would."""
    tp = args.tensor_parallel_size
    if tokens < seqs:
        return (f"maxNumBatchedTokens {tokens:,} is below maxNumSeqs {seqs:,}; vLLM's scheduler config refuses it "
                f"(SchedulerConfig: max_num_batched_tokens must be >= max_num_seqs)")
    if arch.num_attention_heads % tp:
        return (f"tensorParallelSize {tp} does not divide the model's {arch.num_attention_heads} attention heads; "
                f"vLLM refuses to start (use a divisor)")
    if not arch.is_mla and arch.num_kv_heads % tp and tp % arch.num_kv_heads:
        return (f"tensorParallelSize {tp} and the model's {arch.num_kv_heads} KV heads do not divide one another; "
                f"vLLM refuses to start")
    if arch.max_model_len_limit and max_model_len > arch.max_model_len_limit:
        return (f"maxModelLen {max_model_len:,} exceeds the model's maximum of {arch.max_model_len_limit:,} tokens; "
                f"vLLM refuses it (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); lower maxModelLen")
    if args.quantization and arch.quant_method is None and args.quantization not in ONLINE_QUANTIZATION:
        return (f"--quantization {args.quantization} needs a checkpoint quantized with it, and this one is "
                f"{arch.checkpoint_dtype}; use a pre-quantized checkpoint or --quantization fp8")
    return None


def _rank_groups(arch: Architecture, pp: int) -> list[LayerGroup]:
    """Layer groups on the busiest pipeline stage (layers split as evenly as vLLM splits them)."""
    return [LayerGroup(math.ceil(g.layers / pp), g.window) for g in arch.layer_groups]


def _blocks_needed(group: LayerGroup, max_model_len: int, batched_tokens: int, block_size: int) -> int:
    """Blocks a request at max_model_len keeps in one group.

    A sliding-window group keeps only the window plus the tokens of one step, and one block
    more for the window's unaligned edge (SlidingWindowSpec.max_memory_usage_bytes).
    """
    if group.window is None:
        return math.ceil(max_model_len / block_size)
    return math.ceil(min(group.window - 1 + batched_tokens, max_model_len) / block_size) + 1
