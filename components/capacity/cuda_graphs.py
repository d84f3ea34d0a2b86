"""Which GPU model runner a vLLM release starts for a model, and the CUDA graph memory it reserves or captures.

components.capacity.memory charges what these return: the graph pool reserved before the KV cache
(cuda_graph_bytes), the compile peak of a cold start (cold_compile_bytes), and the graphs captured
after the KV cache (cuda_graph_pool_bytes, in _after_kv_shortfall).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from ..capacity.accounting import Accounting, EngineArgs, Gpu, batch_defaults_for, parse_release
from ..capacity.architecture import GIB, Architecture

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


def cuda_graph_bytes(
    arch: Architecture,
    args: EngineArgs,
    acc: Accounting,
    gpu: Optional[Gpu] = None,
    seqs: Optional[int] = None,
    tokens: Optional[int] = None,
) -> float:
    """The CUDA graph memory reserved before sizing the KV cache: vLLM's estimate, where the runner subtracts one."""
    if not model_runner(arch, args.vllm_version, acc).reserves_graphs:
        return 0.0
    return _graph_estimate(arch, args, gpu, seqs, tokens)


def _graph_estimate(
    arch: Architecture, args: EngineArgs, gpu: Optional[Gpu], seqs: Optional[int], tokens: Optional[int]
) -> float:
    if seqs is None or tokens is None:
        hw_tokens, hw_seqs = batch_defaults_for(gpu, args.vllm_version) if gpu is not None else (8192, 1024)
        seqs, tokens = seqs or args.max_num_seqs or hw_seqs, tokens or args.max_num_batched_tokens or hw_tokens
    return cuda_graph_pool_bytes(arch, args, seqs, tokens, gpu)


def cold_compile_bytes(
    arch: Architecture,
    args: EngineArgs,
    acc: Accounting,
    gpu: Optional[Gpu] = None,
    seqs: Optional[int] = None,
    tokens: Optional[int] = None,
) -> float:
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
