"""Step time of one vLLM engine step from a roofline of the GPU.

One step of vLLM's scheduler runs every scheduled token through the model once: the decode
tokens of running requests and the prefill chunks of new ones (chunked prefill). Its time is
the larger of

* memory: this rank's weights plus the KV cache the step reads, over the HBM bandwidth (the dense weights at the
  GPU's measured weight-streaming rate where one is cited: dense_read_bytes_s);
* compute: 2 x active parameters x tokens plus attention FLOPs, over the dense tensor peak;

plus two all-reduces per layer over the tensor-parallel group (NVLink or PCIe: a latency and
bytes over bandwidth), plus a fixed per-step host overhead (scheduling, sampling, detokenizing).
Pipeline parallelism runs PP micro-batches through PP stages: a token of every request is ready
after PP stage times of a micro-batch of n / PP requests, plus the hops between the stages.

Mixture-of-experts models read only the experts their tokens are routed to (weights_read), run the
routed experts' FLOPs at MOE_FLOP_EFFICIENCY with the down GEMM slowed when TP leaves its K short
(expert_compute_seconds, expert_pipeline_bytes: down_gemm_penalty), and pay a fixed fused-MoE latency per MoE layer
(moe_kernel_seconds). Block-scaled FP8 checkpoints compute at the BF16 peak (gemm_peak_tflops), and through Marlin's
weight-only GEMM on GPUs without FP8 tensor cores (weight_only_seconds); at decode sizes their linear GEMMs take the
blockwise kernel's K walk (block_fp8_seconds, block_fp8.py); MLA (DeepSeek) counts its projections, its decompressed
prefill heads and its absorbed decode attention.

The GPU facts come from the hardware records (components/hardware.toml: each GPU's
``performance`` datasheet peaks and its ``interconnect``); the
efficiencies below turn peaks into achieved rates. They are calibrated on the calibration half of
the published points in benchmarks/fidelity.py (the other half is held out; its errors are
reported separately there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..capacity.architecture import Architecture
from ..hardware import GPUS
from .block_fp8 import block_fp8_floor_seconds, block_fp8_linear_shapes

# Calibrated constants: the best of `python benchmarks/fidelity.py --calibrate` (a grid over the calibration half of
# benchmarks/data/fidelity_points.json; docs/simulate.md "Fidelity").
# Achieved share of the datasheet bandwidth for the reads no published measurement covers: the KV cache, the routed
# experts, the logits, and the dense weights of a GPU whose hardware.toml row has no hbm_achieved_gb_s (the dense weights
# of the others stream at that measured rate: Roofline.dense_read_bytes_s).
HBM_EFFICIENCY = 0.70
FLOP_EFFICIENCY = 0.80  # achieved share of the GPU's measured GEMM rate (hardware.toml) in prefill GEMMs and attention
MOE_FLOP_EFFICIENCY = 0.20  # the same for the routed experts' grouped GEMMs (fused MoE kernels)
# Fixed time per engine step beyond the GPU's work and the per-request host work (calibrated). Measured with vLLM
# 0.11.0's own code on a CPU (benchmarks/engine_core_cost.py, benchmarks/data/engine_core_cost-0.11.0.json), the host's
# fixed work is a tenth of it: a decode step of one request costs 0.2 ms on this project's build machine, the engine
# core's schedule(), update_from_output() and output encoding 29 us (v1/core/sched/scheduler.py 179-627, 861-1042;
# v1/engine/core.py 924-932) and the model runner's _update_states, _prepare_inputs and _bookkeeping_sync 167 us
# (v1/worker/gpu_model_runner.py 526, 923, 2094; run on CPU tensors). What the 2 ms stands for is GPU-side (launches,
# the sampler, the device-to-host copy of the sampled ids), which was not measured: no GPU.
STEP_OVERHEAD_S = 0.002
# A fused-MoE layer's latency beyond the expert bytes it reads and the FLOPs it does, per step: routing (the router
# GEMM, top-k), moe_align_block_size's sort of tokens by expert, the two grouped GEMM launches, the activation and the
# weighted sum (vLLM 0.11.0 model_executor/layers/fused_moe/fused_moe.py fused_experts_impl). vLLM's own kernel
# benchmark puts it at tens of microseconds: benchmark_moe.py on an H100, Mixtral-8x7B TP2 (E=8, N=7168) at batch 1
# takes 144 us where its two experts' 352 MB need 105 us at 3.35 TB/s (vllm-project/vllm#24700, Sept 2025, the
# tuned-config column). Calibrated (benchmarks/fidelity.py CONSTANTS).
MOE_LAYER_SECONDS = 0.00002
# The K a fused-MoE tile spends filling and draining its software pipeline: num_stages x BLOCK_SIZE_K of vLLM 0.11.0's
# tuned configs at prefill sizes (fused_moe/configs/E=128,N=192,device_name=NVIDIA_A100-SXM4-80GB.json and
# ..._H100_80GB_HBM3.json at 1024-4096 tokens: BLOCK_SIZE_K 64, num_stages 3): num_stages - 1 loads before the first
# MMA, about one step of epilogue. Read from the configs, not calibrated.
MOE_PIPELINE_K = 192
# Engine-core host work per scheduled request (scheduling, input prep, output bookkeeping): fixed at 20 us by
# GPUStack's --async-scheduling A/B runs (benchmarks/fidelity.py CONSTANTS). Measured with vLLM 0.11.0's own code
# (benchmarks/engine_core_cost.py), the host's work is 13-15 us a running request a step on this project's build
# machine at batches of 64-1,024: the engine core's 7.1-7.8 (schedule() about 5 with the KV cache manager's
# allocate_slots, update_from_output() 2-2.5, the output's encoding 0.1; scheduler.py 179-627, 861-1042, core.py
# 924-932) and the model runner's 5.3-8.2 (gpu_model_runner.py _update_states 526, _prepare_inputs 923,
# _bookkeeping_sync 2094: 4.1 at batch 1,024, the sampled ids into the batch's token table). On hosts 1.7x faster
# (GPUStack's are at least that: benchmarks/api_server_cost.py) that is 7.7-9 us, so this figure is 1.3-1.5x the
# measured work here and 2.2-2.6x there; the sampler's host side and the GPU's per-request work are not measured. A
# multi-GPU executor's pickling of the scheduler's output to its workers adds 0.13 us (multiproc_executor.py 234).
PER_SEQ_OVERHEAD_S = 0.00002
# (V1 detokenizes in the API server process: v1/engine/async_llm.py 457 output_processor.process_outputs, which
# calls each request's detokenizer, output_processor.py 435; engine.py API_TOKEN_SECONDS charges that.)
# Bytes of HBM traffic per (sampled request x vocabulary entry) on the greedy path of vLLM's V1 sampler: the LM head
# writes bf16 logits (2), ``logits.to(torch.float32)`` reads them and writes fp32 (2 + 4), ``argmax`` reads fp32 (4).
LOGITS_BYTES_PER_ENTRY = 12
# The same for requests that sample (temperature > 0 with top-k/top-p), vLLM 0.18.0/0.19.0's V1 sampler on a batch of 8 or
# more (Roofline.logits_seconds lists the passes): the LM head's write 2, fp32 cast 2 + 4, temperature in place 4 + 4,
# the Triton top-k/top-p kernel's three full-row reads and its masked write 3 x 4 + 4, softmax two reads and a write
# 8 + 4, the exponential draws' write 4, their division in place 8 + 4, the argmax 4.
SAMPLED_LOGITS_BYTES_PER_ENTRY = 64
# One all-reduce's fixed cost (launch and synchronisation) by the link between the tensor-parallel ranks:
# * nvlink, pcie: the GPU's own link (hardware.toml ``interconnect``), where vLLM's custom all-reduce or NCCL's P2P
#   transport reach the peer GPUs' memory directly. nvlink: vLLM's custom all-reduce of 512 B-32 KB on H100 took
#   8.7-11.8 us at TP 2/4/8 (sgl-project/sglang pull 2904, "vllm" table, eager). pcie: not measured here (uncited).
# * host: the GPUs cannot reach each other's memory (the CUDA driver reports no peer access). vLLM then disables its
#   custom all-reduce (vLLM 0.10.1.1 vllm/distributed/device_communicators/custom_all_reduce.py 30-37 _can_p2p asks
#   torch.cuda.can_device_access_peer, 146-150 warn "Custom allreduce is disabled because your platform lacks GPU P2P
#   capability or P2P test failed") and every all-reduce goes to NCCL (cuda_communicator.py all_reduce),
#   which without peer access stages the data through host memory (its SHM transport), over each GPU's PCIe link.
#   35 us is what dennislee22/vLLM-benchmarking@b474d1e measured on such a node (A100 80GB, vLLM 0.10.1.1, whose
#   same-node TP2 logs print that warning): Qwen2-7B decoding one request took 11.76 ms per token at TP1 and 8.82 ms at
#   TP2 (README Tests 4 and 2, --num-prompts 1); with the step overhead o, TP1 = o + W/B and TP2 = o + W/2B + 2 x 28
#   layers x latency give (8.82 - 2.02 - 4.87) ms / 56 = 34.5 us (tests/simulate/test_roofline.py re-derives it).
ALLREDUCE_LATENCY_S = {"nvlink": 8e-6, "pcie": 30e-6, "host": 35e-6}
# The share of NVLink's bandwidth per direction an all-reduce's ring traffic achieves. vLLM 0.11.0 picks per size the
# fastest of its custom all-reduce, torch symmetric memory and NCCL (cuda_communicator.py all_reduce 121-159,
# all_reduce_utils.py CUSTOM_ALL_REDUCE_MAX_SIZES / SYMM_MEM_ALL_REDUCE_MAX_SIZES); the pull request that set those
# limits (vllm-project/vllm 24111, H100, TP6, bf16) measured the chosen one at 16 us for 1 MB and 31 us for 4 MB:
# 3 MiB more in 15 us is 210 GB/s of buffer, 2 x 5/6 of that (349 GB/s) per rank and direction: 78% of NVLink4's 450.
NVLINK_ALLREDUCE_EFFICIENCY = 0.78
# The host-staged link's all-reduce bus bandwidth (the ring traffic per rank and direction per second): each GPU writes
# its share to host memory and reads its peer's over its own PCIe Gen4 x16 link (32 GB/s each way by the datasheets).
# NCCL through host buffers achieves 18 GB/s bus bandwidth on PCIe Gen4 x16 GPUs (NVIDIA/nccl issue 1603, 4 x RTX 4090
# all_reduce_perf: "compared to SHM, got 18->22 BUSBW" with P2P; NVIDIA's reply: "we normally disable P2P and bounce the
# communication via Host (SHM) buffers instead").
HOST_LINK_BYTES_S = 18e9
# Pipeline stages hand activations over the node's network (EFA or TCP) once per micro-batch.
PP_HOP_S = 0.0003
# The GEMM rate of Marlin, vLLM's weight-only kernel, as a share of the GPU's BF16 datasheet peak, whatever the batch.
# vLLM 0.11.0 runs FP8 checkpoints on GPUs without FP8 tensor cores (compute capability below 8.9: the A100, A10G) through
# it: model_executor/layers/quantization/fp8.py 232-235 ``self.use_marlin = (not
# current_platform.has_device_capability(89) ...)`` ("For GPUs that lack FP8 hardware support, we can leverage the Marlin
# kernel for fast weight-only FP8 quantization"), apply_fp8_marlin_linear (utils/marlin_utils_fp8.py 37-75) calling
# ops.gptq_marlin_gemm with FP8 weights, dequantized to 16 bits in registers for 16-bit MMAs. Marlin is built for a few
# tokens at a time: "for batchsizes > 64, it will just run the batch 64 kernel repeatedly" (its author, efrantar, in
# IST-DASLab/marlin issue 2), so its rate stops growing there. Marlin's own bench.py (vllm-project/vllm PR 2497, comment
# of 2024-01-24) reached 139.7 TFLOP/s at batch 64 and 140.9-141.4 from 128 to 4,000 tokens, "slower than torch gemm"
# above 128 (speedup 0.60-0.74): 141.4 / 312 = 0.45 of the A100's BF16 peak. The GPU is not named; it is an A100: 1,158
# GB/s at batch 1 is beyond every other Ampere card's bandwidth (A10 600, RTX 3090 936, A6000 768 GB/s), and torch's GEMM
# at 141.4 / 0.60 = 236 TFLOP/s is beyond their 16-bit peaks with FP32 accumulation, while on a Hopper GPU it would
# have been several times Marlin's, not 1.7x. That was the int4 kernel of January 2024; 0.11.0's gptq_marlin_gemm is its
# generalisation to more weight types and keeps its partitioning constants (quantization/utils/marlin_utils.py 20-23
# GPTQ_MARLIN_TILE 16, GPTQ_MARLIN_MAX_PARALLEL 16, which sizes the workspace at 193). Read from the measurement, not
# calibrated; the Qwen3-32B-FP8 burst on an A100 (GPUStack) then replays at 303 ms TPOT against 311 published.
MARLIN_PEAK_SHARE = 0.45


class NoPerformanceFigures(ValueError):
    """The GPU has no throughput figures in the catalogue."""


@dataclass(frozen=True)
class Roofline:
    """Everything the step time of one replica depends on (per rank where it says so)."""

    weight_bytes: float  # this rank's weights
    kv_bytes_per_token: float  # this rank's KV bytes per cached token
    flops_per_token: float  # 2 x active parameters outside the routed experts and the LM head (whole model)
    attn_flops_per_token_ctx: float  # attention FLOPs per (new token x context token), whole model
    hidden_size: int
    layers: int
    tp: int
    pp: int
    hbm_bytes_s: float
    flops_s: float
    link: str
    link_bytes_s: float
    act_bytes: int
    # Mixture of experts: the routed experts' share of this rank's weight bytes, the experts per layer and per token,
    # and 2 x the routed-expert parameters a token passes through (whole model). Dense models: 0.
    expert_share: float = 0.0
    num_experts: int = 0
    experts_per_token: int = 0
    expert_flops_per_token: float = 0.0
    moe_layers: int = 0  # layers with routed experts (their fixed kernel latency: moe_kernel_seconds)
    expert_width: int = 0  # one routed expert's intermediate width on this rank (moe_intermediate_size / tp)
    # MLA's decode attention FLOPs per context token a step reads, whole model (0: not MLA, whose decode attention the
    # KV read bounds): attention_flops_per_token_ctx's decode counterpart (mla_decode_flops_per_ctx).
    decode_attn_flops_per_ctx: float = 0.0
    vocab_size: int = 0  # the LM head's rows: every scheduled request's logits span it
    sampled: bool = False  # the requests sample (top-k/top-p) rather than decode greedily (logits_seconds)
    # The measured dense GEMM rate (hardware.toml bf16/fp8_achieved_tflops) the dense and attention FLOPs run against
    # (dense_flops_s); 0: flops_s, the datasheet peak, which the routed experts' FLOPs keep (expert_compute_seconds).
    gemm_flops_s: float = 0.0
    # 2 x hidden x vocab: the LM head's FLOPs per row it computes. vLLM runs it only on each scheduled request's last
    # position (0.11.0 v1/worker/gpu_model_runner.py 1104 ``logits_indices = query_start_loc[1:] - 1``, 2330-2331
    # ``sample_hidden_states = hidden_states[logits_indices]; logits = self.model.compute_logits(...)``), not on every
    # prompt token of a prefill chunk.
    lm_head_flops: float = 0.0
    # The checkpoint's linear layers run vLLM's weight-only Marlin GEMM (FP8 weights without FP8 tensor cores:
    # roofline_for), whose rate stops at MARLIN_PEAK_SHARE of the peak (weight_only_seconds).
    weight_only: bool = False
    # Block-FP8 linear GEMMs on this rank as (N, K, count), whose K walk floors their decode time (block_fp8.py); ().
    block_fp8_gemms: tuple[tuple[int, int, int], ...] = ()
    # The measured rate at which this GPU streams dense weights in decode-sized GEMMs (hardware.toml hbm_achieved_gb_s,
    # bytes/s); 0: none cited, HBM_EFFICIENCY of hbm_bytes_s (dense_read_bytes_s).
    weight_stream_bytes_s: float = 0.0

    def dense_flops_s(self) -> float:
        """FLOP/s of the dense layers and attention before FLOP_EFFICIENCY: the GPU's measured GEMM rate.

        A benchmark GEMM saturates the tensor cores, so its rate carries what a saturated GPU loses to its datasheet
        (the clock it holds at its power limit, tile and wave quantization): MAMF table (hardware.toml [sources] mamf)
        H100 SXM 80%, A100 SXM 87%, RTX 4090 100%. The fused-MoE grouped GEMMs, at MOE_FLOP_EFFICIENCY (0.2) of the
        peak, are far from saturating it and keep the datasheet peak their efficiency was calibrated against."""
        return self.gemm_flops_s or self.flops_s

    def weight_only_seconds(self, linear_flops: float) -> float:
        """What running ``linear_flops`` of a rank's linear-layer FLOPs (attention projections, dense MLPs) through
        Marlin adds to the step, over the measured GEMM rate the dense FLOPs are charged at: Marlin's rate is at most
        MARLIN_PEAK_SHARE of the datasheet peak (0 unless ``weight_only``). The LM head stays 16-bit (a
        VocabParallelEmbedding, for which Fp8Config.get_quant_method, fp8.py 166-186, returns no method: it quantizes
        LinearBase and FusedMoE layers), as do attention's own FLOPs; the routed experts (fused_marlin_moe, fp8.py 1015-1031) are charged at
        MOE_FLOP_EFFICIENCY of the peak, already below Marlin's rate."""
        marlin = min(self.dense_flops_s(), MARLIN_PEAK_SHARE * self.flops_s)
        if not self.weight_only or not linear_flops or marlin >= self.dense_flops_s():
            return 0.0
        return linear_flops / (marlin * FLOP_EFFICIENCY) - linear_flops / (self.dense_flops_s() * FLOP_EFFICIENCY)

    def weights_read(self, tokens: float) -> float:
        """Weight bytes one step reads for ``tokens`` tokens: every dense weight, and of the routed experts only those
        some token is routed to. With each token choosing ``k`` of ``E`` experts uniformly, an expert is untouched by
        ``n`` tokens with probability (1 - k/E)^n, so the expected share read is 1 - (1 - k/E)^n."""
        if not self.num_experts or not self.experts_per_token:
            return self.weight_bytes
        touched = 1.0 - (1.0 - self.experts_per_token / self.num_experts) ** max(1.0, tokens)
        return self.weight_bytes * (1.0 - self.expert_share * (1.0 - touched))

    def comm_seconds(self, tokens: float) -> float:
        """Seconds one pipeline stage spends in tensor-parallel all-reduces for a micro-batch of ``tokens`` tokens.

        Every layer reduces its attention output and its MLP (or MoE) output across the TP ranks (vLLM's
        RowParallelLinear o_proj and down_proj, FusedMoE's reduce_results): two all-reduces of tokens x hidden
        activations (bf16) per layer of the stage."""
        if self.tp <= 1:
            return 0.0
        size = tokens * self.hidden_size * self.act_bytes
        return 2 * (self.layers / self.pp) * allreduce_seconds(size, self.tp, self.link, self.link_bytes_s)

    def expert_compute_seconds(self, expert_flops: float) -> float:
        """Seconds of a rank's routed-expert FLOPs: the grouped GEMMs at MOE_FLOP_EFFICIENCY of the peak, the second one
        (down, a third of the FLOPs) slower still when its K, the expert's width on this rank, is short.

        vLLM 0.11.0's fused MoE runs the gate/up GEMM over K = hidden_size and the down GEMM over K = the expert's
        intermediate width / TP (fused_moe.py fused_experts_impl: invoke_fused_moe_kernel on w1, then on w2 with the
        intermediate cache as A), each tile walking K in BLOCK_SIZE_K steps (line 429) through a software pipeline of
        num_stages loads (its tuned configs: BLOCK_SIZE_K 64-128 with 3 stages at prefill sizes). Tensor-parallel
        experts leave that loop a few steps long (Qwen3-235B at TP8: 1536 / 8 = 192 = 3 steps of 64), so the pipeline's
        fill is a large share of each tile: the down GEMM runs at W / (W + MOE_PIPELINE_K) of the rate of a long one."""
        if not expert_flops:
            return 0.0
        return expert_flops * (1 + self.down_gemm_penalty()) / (self.flops_s * MOE_FLOP_EFFICIENCY)

    def expert_pipeline_bytes(self, weights_read: float) -> float:
        """The extra bytes' worth of time the routed experts' down projection costs a step that reads ``weights_read``
        weight bytes (weights_read()): its third of the expert bytes streams through the same short K loop as its FLOPs
        (expert_compute_seconds), at W / (W + MOE_PIPELINE_K) of the rate."""
        if not self.num_experts:
            return 0.0
        return (weights_read - self.weight_bytes * (1.0 - self.expert_share)) * self.down_gemm_penalty()

    def down_gemm_penalty(self) -> float:
        """What the short-K down projection adds to the routed experts' work, as a share of it: a third of the work
        (the down GEMM's) at W / (W + MOE_PIPELINE_K) of the rate takes MOE_PIPELINE_K / W of that third again."""
        return MOE_PIPELINE_K / max(1, self.expert_width) / 3

    def block_fp8_seconds(self, tokens: float) -> float:
        """What a stage's block-FP8 linear GEMMs add to a micro-batch of ``tokens`` tokens beyond their bytes and
        FLOPs: a decode-sized blockwise GEMM takes its K walk (block_fp8.py, vLLM PR 23280's measurement)."""
        if not self.block_fp8_gemms:
            return 0.0
        flops_s = self.dense_flops_s() * FLOP_EFFICIENCY
        return block_fp8_floor_seconds(self.block_fp8_gemms, tokens, self.hbm_read_bytes_s(), flops_s) / self.pp

    def dense_read_bytes_s(self) -> float:
        """Bytes/s at which a step reads the dense weights (every weight but the routed experts): the GPU's measured
        weight-streaming rate where hardware.toml cites one (a decode-sized GEMM: on an H100 vLLM's own BF16 GEMM
        benchmark reads 89% of the datasheet, on an A100 torch's FP16 GEMM under Marlin's benchmark 69%), else the
        calibrated HBM_EFFICIENCY of the datasheet bandwidth."""
        return self.weight_stream_bytes_s or self.hbm_read_bytes_s()

    def hbm_read_bytes_s(self) -> float:
        """Bytes/s of the reads no measurement covers (KV cache, routed experts, logits): HBM_EFFICIENCY, calibrated,
        of the datasheet bandwidth."""
        return self.hbm_bytes_s * HBM_EFFICIENCY

    def memory_seconds(self, weights_read: float, kv_bytes: float) -> float:
        """Seconds a stage's reads take for a micro-batch reading ``weights_read`` weight bytes (weights_read()) and
        ``kv_bytes`` of KV cache: the dense weights (all of them for a dense model) at dense_read_bytes_s, the routed
        experts read, their down projection's pipeline bytes (expert_pipeline_bytes) and the KV at hbm_read_bytes_s."""
        dense = min(weights_read, self.weight_bytes * (1.0 - self.expert_share))
        other = weights_read - dense + kv_bytes + self.expert_pipeline_bytes(weights_read)
        return dense / self.dense_read_bytes_s() + other / self.hbm_read_bytes_s()

    def moe_kernel_seconds(self) -> float:
        """A stage's fixed latency of its fused-MoE layers per micro-batch: MOE_LAYER_SECONDS for each layer with routed
        experts, whatever the batch (0 for a dense model)."""
        return self.moe_layers / self.pp * MOE_LAYER_SECONDS

    def step_seconds(
        self,
        decodes: int,
        prefill_tokens: int,
        context_tokens: float,
        prefill_context: float = 0.0,
        prefill_seqs: Optional[int] = None,
        async_scheduling: bool = False,
    ) -> float:
        """Seconds of one engine step.

        ``decodes`` requests each add one token; ``prefill_tokens`` prompt tokens are computed in
        chunks; ``context_tokens`` is the KV the step reads (every scheduled request's cached
        tokens); ``prefill_context`` the sum over prefill chunks of chunk x its prefix (attention work);
        ``prefill_seqs`` the requests those chunks belong to (unset: one, when there are prefill tokens);
        ``async_scheduling`` whether the engine overlaps its host work with the GPU's (``step_host_seconds``).
        """
        tokens = decodes + prefill_tokens
        if tokens <= 0:
            return 0.0
        pp = self.pp
        # PP micro-batches: a stage's rank runs each of the PP micro-batches (1/PP of the batch) once per step.
        mb_tokens = tokens / pp
        kv = self.kv_bytes_per_token * context_tokens / pp  # per-GPU KV bytes already count only this stage's layers
        read = self.weights_read(mb_tokens)
        mem = self.memory_seconds(read, kv)
        attn = self.attn_flops_per_token_ctx * prefill_context + self.decode_attn_flops_per_ctx * context_tokens
        seqs = decodes + (prefill_seqs if prefill_seqs is not None else min(1, prefill_tokens))
        flops = (self.flops_per_token * mb_tokens + (self.lm_head_flops * seqs + attn) / pp) / (self.tp * pp)
        expert_flops = self.expert_flops_per_token * mb_tokens / (self.tp * pp)
        comp = flops / (self.dense_flops_s() * FLOP_EFFICIENCY) + self.expert_compute_seconds(expert_flops)
        comp += self.weight_only_seconds(self.flops_per_token * mb_tokens / (self.tp * pp))
        comm = self.comm_seconds(mb_tokens)
        hops = (pp - 1) * PP_HOP_S
        moe = self.moe_kernel_seconds() + self.block_fp8_seconds(mb_tokens)
        gpu = pp * (max(mem, comp) + comm + moe) + hops + self.logits_seconds(seqs)
        return self.step_host_seconds(gpu, seqs, async_scheduling)

    def step_host_seconds(self, gpu_seconds: float, seqs: int, async_scheduling: bool = False) -> float:
        """A step of ``gpu_seconds`` on the GPU and ``seqs`` scheduled requests, with the engine core's host work.

        ``PER_SEQ_OVERHEAD_S`` a scheduled request: ``schedule()``, the model runner's input preparation and
        ``update_from_output()`` are Python loops over the scheduled requests (vLLM 0.11.0 v1/engine/core.py 272-292
        ``step``). Without async scheduling (off by default through 0.11: config/scheduler.py 138) they run in turn
        with the GPU's work, so the times add. With it, the engine core keeps two batches in flight (executor
        ``max_concurrent_batches`` 2: executor/uniproc_executor.py 68-69, v1/executor/multiproc_executor.py 330-333)
        and ``step_with_batch_queue`` (core.py 300-350) schedules and prepares the next batch while the GPU runs this
        one ("Don't block on next worker response unless the queue is full"), so that work takes the longer of the two.
        From 0.14.0 the scheduler turns it on unless an option forbids it (benchmarks/fidelity.py release_frontend;
        0.33.0 config/vllm.py 1685-1719); benchmarks/data/fidelity_points.json records it per point.

        ``STEP_OVERHEAD_S`` stays in series either way: GPUStack's own A/B of ``--async-scheduling`` (vLLM 0.11.0, the
        1,000-request ShareGPT burst: gpt-oss-120b on one H100 14.84 -> 15.71 req/s, on one A100 11.58 -> 12.14,
        gpt-oss-20b on one H100 40.30 -> 46.74, on one A100 23.79 -> 26.66; gpustack/gpustack@47277d7
        docs/performance-lab/gpt-oss-*/{h100,a100}.md "Async scheduling in vLLM") gains what hiding the per-request
        work alone gives in the replay (+6%, +4%, +21%, +9%; tests/simulate/test_engine.py), where hiding the fixed
        part too would give +15%, +9%, +42%, +17%: what it stands for is not overlapped host work."""
        host = PER_SEQ_OVERHEAD_S * seqs
        return STEP_OVERHEAD_S + (max(gpu_seconds, host) if async_scheduling else gpu_seconds + host)

    def logits_seconds(self, seqs: int) -> float:
        """The GPU's time for the logits and the sampling of ``seqs`` scheduled requests (vLLM 0.11.0; sampled: 0.18/0.19).

        Every scheduled request, a decode or a prefill chunk, gets a row of logits over the vocabulary
        (v1/worker/gpu_model_runner.py 1104 ``logits_indices = query_start_loc[1:] - 1``, 2330-2331
        ``compute_logits(hidden_states[logits_indices])``); the sampler casts them to fp32 (v1/sample/sampler.py 86)
        and, for greedy requests, takes the argmax (140, 158-159). ``vllm bench serve`` asks for greedy decoding
        (benchmarks/serve.py 1246-1247, temperature 0.0), which clears top-k/top-p (sampling_params.py 353-357; each
        point's ``engine.sampling`` says so), so that is the path: ``LOGITS_BYTES_PER_ENTRY`` bytes per entry, at the
        decode bandwidth. Under tensor parallelism V1 all-gathers the logits (model_executor/layers/
        logits_processor.py 71-77, platforms/interface.py 476), so every rank samples the whole vocabulary.

        ``sampled``: from about 0.15 ``vllm bench serve`` sends no temperature, so the server samples with the model's
        generation_config defaults (the turboquant and kvcached points' ``engine.sampling``). vLLM 0.18.0/0.19.0's
        sampler then (v1/sample/sampler.py 90 fp32 cast, 141 temperature ``div_``, 161-187 the all-random branch)
        masks top-k/top-p with a Triton kernel for 8 or more rows (ops/topk_topp_sampler.py 251-252,
        ops/topk_topp_triton.py ``_topk_topp_kernel``: statistics, truncation and masking passes over the row; the
        FlashInfer sampler is opt-in there, lines 39-59), takes the softmax (111) and samples by dividing by
        exponential draws and taking the argmax (``random_sample`` 325-347): ``SAMPLED_LOGITS_BYTES_PER_ENTRY``.

        Checked and not charged: CUDA graphs. 0.11.0 captures decode batches up to min(2 x max_num_seqs, 512)
        (config/scheduler.py 222-227, config/__init__.py 590-596); a larger batch runs the compiled model without a
        graph, whose kernel launches the CPU issues ahead of the GPU, so they cost time only where they outlast the
        GPU's work: not a 14B model's step of 512 tokens or more (tens of ms on the GPU), perhaps a 0.6B model's
        (the kvcached points' 600-token steps); no cited per-launch cost, so no term.
        """
        per_entry = SAMPLED_LOGITS_BYTES_PER_ENTRY if self.sampled else LOGITS_BYTES_PER_ENTRY
        return seqs * self.vocab_size * per_entry / self.hbm_read_bytes_s()


def allreduce_seconds(size_bytes: float, tp: int, link: str, link_bytes_s: float) -> float:
    """One all-reduce of ``size_bytes`` over ``tp`` ranks: the link's fixed latency plus a ring's traffic, each rank
    sending (and receiving) 2 (tp - 1) / tp of the buffer over its link, at the bandwidth per direction it achieves
    (hardware.toml interconnect_gb_s is NVLink's per direction: A100 NVLink3 600 GB/s both ways = 300, H100/H200 450)."""
    if tp <= 1:
        return 0.0
    achieved = link_bytes_s * (NVLINK_ALLREDUCE_EFFICIENCY if link == "nvlink" else 1.0)
    return ALLREDUCE_LATENCY_S[link] + 2 * (tp - 1) / tp * size_bytes / achieved


def active_params(arch: Architecture) -> float:
    """Parameters each token passes through (experts: only those it is routed to), embeddings excluded, LM head included."""
    return dense_active_params(arch) + routed_expert_params(arch, arch.experts_per_token)


def dense_active_params(arch: Architecture) -> float:
    """The active parameters outside the routed experts: attention, the dense MLPs (a dense model's every layer; a
    DeepSeek MoE's first_k_dense_replace layers and its shared experts), the LM head."""
    mlp = 3 * arch.hidden_size * arch.intermediate_size
    if _is_moe(arch):
        shared = arch.shared_experts * 3 * arch.hidden_size * (arch.moe_intermediate_size or arch.intermediate_size)
        mlps = arch.first_dense_layers * mlp + _moe_layers(arch) * shared
    else:
        mlps = arch.num_layers * mlp
    return arch.num_layers * attention_params(arch) + mlps + arch.hidden_size * arch.vocab_size


def attention_params(arch: Architecture) -> float:
    """One layer's attention projections. MLA (DeepSeek-V2/V3; vLLM 0.11.0 model_executor/models/deepseek_v2.py
    DeepseekV2MLAAttention): the query through its low-rank q_a/q_b (or one q_proj), kv_a_proj_with_mqa to the latent and
    the rope key, kv_b_proj from the latent to every head's no-rope key and value, o_proj from the values. Otherwise
    Q, K, V and O of (grouped-query) attention."""
    h = arch.hidden_size
    if arch.is_mla and arch.qk_nope_head_dim and arch.v_head_dim:
        lora, rope, heads = arch.kv_lora_rank or 0, arch.qk_rope_head_dim or 0, arch.num_attention_heads
        q_out = heads * (arch.qk_nope_head_dim + rope)
        q = h * arch.q_lora_rank + arch.q_lora_rank * q_out if arch.q_lora_rank else h * q_out
        return q + h * (lora + rope) + lora * heads * (arch.qk_nope_head_dim + arch.v_head_dim) + heads * arch.v_head_dim * h
    q = arch.num_attention_heads * arch.head_dim
    kv = arch.num_kv_heads * arch.head_dim
    return h * (q + 2 * kv) + q * h


def attention_flops_per_token_ctx(arch: Architecture) -> float:
    """Prefill attention FLOPs per (new token x context token), whole model: QK^T and PV, 2 FLOPs a multiply-add.
    MLA's prefill decompresses the latent into per-head keys and values (vLLM 0.11.0 v1/attention/backends/mla/
    common.py _forward_prefill: kv_b_proj, then flash attention over qk_nope + rope wide keys and v_head_dim wide
    values), so its heads attend as multi-head attention of those widths, not of hidden_size / heads."""
    if arch.is_mla and arch.qk_nope_head_dim and arch.v_head_dim:
        qk = arch.qk_nope_head_dim + (arch.qk_rope_head_dim or 0)
        return 2 * arch.num_attention_heads * (qk + arch.v_head_dim) * arch.num_layers
    return 4 * arch.num_attention_heads * arch.head_dim * arch.num_layers


def mla_decode_flops_per_ctx(arch: Architecture) -> float:
    """MLA's decode attention FLOPs per context token, whole model (0 for other attention). Decode runs MLA absorbed
    (vLLM 0.11.0 v1/attention/backends/mla/common.py _forward_decode: W_UK folded into the query, W_UV applied after):
    every head attends over the cached latent itself, kv_lora_rank + rope wide for QK^T and kv_lora_rank wide for PV,
    so a context token costs 2 x heads x (2 kv_lora_rank + rope) FLOPs a layer: 128 heads' worth on DeepSeek-V3, about
    four times what its decompressed prefill heads (192 + 128) do. At TP8 (16 heads a rank) the latent's bytes still
    bound it; with fewer ranks the FLOPs do."""
    if not (arch.is_mla and arch.kv_lora_rank):
        return 0.0
    width = 2 * arch.kv_lora_rank + (arch.qk_rope_head_dim or 0)
    return 2 * arch.num_attention_heads * width * arch.num_layers


def routed_expert_params(arch: Architecture, experts: int) -> float:
    """Parameters of ``experts`` routed experts in every MoE layer (0 for a dense model)."""
    if not _is_moe(arch):
        return 0.0
    return _moe_layers(arch) * 3 * arch.hidden_size * (arch.moe_intermediate_size or arch.intermediate_size) * experts


def _moe_layers(arch: Architecture) -> int:
    """Layers with routed experts: all but DeepSeek's first_k_dense_replace dense ones."""
    return arch.num_layers - arch.first_dense_layers


def _is_moe(arch: Architecture) -> bool:
    return bool(arch.num_experts and arch.experts_per_token)


def gemm_peak_tflops(bf16_tflops: float, fp8_tflops: Optional[float], block_scaled: bool) -> float:
    """The tensor peak the step's GEMMs run against: FP8 weights on a GPU with FP8 tensor cores use its FP8 peak, unless
    they are block-scaled, which run at the BF16 peak.

    Block-scaled FP8 (a scale per 128 x 128 weight block and per 1 x 128 activation group: DeepSeek-V3/R1, Qwen3's -FP8
    checkpoints) cannot accumulate a whole dot product in the tensor cores: each 128-wide K step's partial product is
    rescaled and added on the CUDA cores. vLLM 0.11.0's fused MoE kernel does exactly that
    (model_executor/layers/fused_moe/fused_moe.py lines 443-452: ``accumulator += tl.dot(a, b) * a_scale[:, None] *
    b_scale[None, :]`` per K block, where per-tensor FP8 accumulates in ``tl.dot(a, b, acc=accumulator)``), and keeps
    DeepGEMM off for the narrow expert slices of TP serving (lines 1391-1399: "disable DeepGemm for small N (<= 512)";
    DeepSeek-R1 at TP8 has N = 2048 / 8 = 256, Qwen3-235B at TP4 384). vLLM's own measurement of its block-FP8 GEMM on
    an H100 (vllm-project/vllm#23939, DeepSeek-V3's N=2112 K=7168: 305-357 TFLOP/s against torch BF16's 704-718 at
    4,096-16,384 tokens) puts it at or below the BF16 rate, not at twice it.
    """
    if fp8_tflops and not block_scaled:
        return fp8_tflops
    return bf16_tflops


def roofline_for(
    arch: Architecture,
    gpu_name: str,
    weight_bytes_per_gpu: float,
    kv_bytes_per_token_per_gpu: float,
    tp: int,
    pp: int,
    fp8: bool = False,
    *,
    fp8_block_scaled: Optional[bool] = None,
    link: Optional[str] = None,
) -> Roofline:
    """The roofline of one replica: ``tp`` x ``pp`` GPUs of ``gpu_name``.

    ``fp8``: the weights are FP8; ``fp8_block_scaled``: with a scale per 128 x 128 block (None: as config.json's
    quantization_config.weight_block_size says), which runs at the BF16 peak (gemm_peak_tflops). ``link`` overrides
    the GPU's own interconnect where a run's ranks could not use it: "host" (no GPU peer access, NCCL through host
    memory; see ALLREDUCE_LATENCY_S)."""
    spec = GPUS.get(gpu_name)
    perf = spec.performance if spec is not None else None
    if spec is None or perf is None:
        raise NoPerformanceFigures(
            f"the GPU catalogue has no throughput figures for {gpu_name} (components/hardware.toml "
            f"[gpus.{gpu_name}.performance]); known: {', '.join(sorted(g.name for g in GPUS.values() if g.performance))}"
        )
    block = arch.weight_block_size is not None if fp8_block_scaled is None else fp8_block_scaled
    # vLLM runs FP8 weights through Marlin where the GPU lacks FP8 tensor cores (MARLIN_PEAK_SHARE).
    weight_only = fp8 and spec.compute_capability < (8, 9)
    peak = gemm_peak_tflops(perf.bf16_tflops, perf.fp8_tflops if fp8 else None, block)
    # The dense GEMMs run against the GPU's measured GEMM rate (hardware.toml *_achieved_tflops; the datasheet peak
    # where none is cited): FLOP_EFFICIENCY is then what LLM layers lose beyond a pure GEMM, one factor for every GPU.
    gemm = gemm_peak_tflops(perf.bf16_achieved, perf.fp8_achieved if fp8 else None, block)
    experts = routed_expert_params(arch, arch.num_experts)
    # The experts' share of the weights, by parameters (the embeddings counted once, as the LM head).
    share = experts / (experts + dense_active_params(arch) + arch.hidden_size * arch.vocab_size) if experts else 0.0
    return Roofline(
        weight_bytes=weight_bytes_per_gpu,
        kv_bytes_per_token=kv_bytes_per_token_per_gpu,
        flops_per_token=2 * (dense_active_params(arch) - arch.hidden_size * arch.vocab_size),
        lm_head_flops=2 * arch.hidden_size * arch.vocab_size,
        weight_only=weight_only,
        expert_flops_per_token=2 * routed_expert_params(arch, arch.experts_per_token),
        expert_share=share,
        num_experts=arch.num_experts if experts else 0,
        experts_per_token=arch.experts_per_token if experts else 0,
        moe_layers=_moe_layers(arch) if experts else 0,
        expert_width=(arch.moe_intermediate_size or arch.intermediate_size) // tp if experts else 0,
        attn_flops_per_token_ctx=attention_flops_per_token_ctx(arch),
        decode_attn_flops_per_ctx=mla_decode_flops_per_ctx(arch),
        hidden_size=arch.hidden_size,
        layers=arch.num_layers,
        tp=tp,
        pp=pp,
        hbm_bytes_s=perf.hbm_gb_s * 1e9,
        weight_stream_bytes_s=(perf.hbm_achieved_gb_s or 0.0) * 1e9,
        flops_s=peak * 1e12,
        gemm_flops_s=gemm * 1e12,
        link=link or spec.interconnect,
        link_bytes_s=_link_bytes_s(spec.interconnect, spec.interconnect_gb_s, link),
        act_bytes=2,
        vocab_size=arch.vocab_size,
        block_fp8_gemms=block_fp8_linear_shapes(arch, tp) if fp8 and block and not weight_only else (),
    )


def _link_bytes_s(interconnect: str, interconnect_gb_s: float, link: Optional[str]) -> float:
    """Bandwidth per direction of the link the TP ranks use: the GPU's own, or the host-staged path's achieved rate."""
    kind = link or interconnect
    if kind not in (interconnect, "host"):
        raise ValueError(f"link {link!r}: a replica's ranks use the GPU's own interconnect ({interconnect}) or 'host'")
    return min(HOST_LINK_BYTES_S, interconnect_gb_s * 1e9) if kind == "host" else interconnect_gb_s * 1e9
