"""The inputs of vLLM's memory accounting: the GPU, the engine flags, and what each range of releases charges.

components.capacity.memory sizes the KV cache from these; components.capacity.cuda_graphs and
components.capacity.vision read the release and the flags for the terms they derive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Optional

from ..images import image_repository, vllm_release


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

# vLLM 0.9.0-0.11.0 sample top-k/top-p with FlashInfer whenever it is importable (VLLM_USE_FLASHINFER_SAMPLER
# unset reads as on: v1/sample/ops/topk_topp_sampler.py TopKTopPSampler.__init__, 0.9.0 lines 32-49, 0.10.2 lines
# 42-60, 0.11.0 lines 39-57); 0.8.5 turns it off for FlashInfer >= 0.2.3 (lines 32-48), and from 0.11.1 it is opt-in
# (VLLM_USE_FLASHINFER_SAMPLER=1, 0.11.1 lines 34-46; vllm-project/vllm#26859), the same kernel call (line 286).
# The profile's sampler warm-up (_dummy_sampler_run: top_k = vocab - 1, top_p = 0.9; 0.11.0 gpu_model_runner.py
# lines 3202-3203) then holds the model-dtype logits, their float32 copy (sampler.py forward, 0.11.0 line 86;
# temperature divides it in place, line 137), and FlashInfer's top_k_top_p_sampling_from_logits (topk_topp_sampler.py
# 0.11.0 line 289), which masks the top-k into a new float32 tensor and takes its softmax into another (flashinfer
# sampling.py, filter_apply_order "top_k_first"): no sort, no int64 index tensor. 0.12-0.16 (opt-in too) are not
# read, so their sort charge stays.
FLASHINFER_SAMPLER_RELEASES = ((0, 9), (0, 11))
FLASHINFER_SAMPLER_FP32_COPIES = 3


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
    # Whether vLLM samples top-k/top-p with FlashInfer (its log: "Using FlashInfer for top-p & top-k
    # sampling."): 0.9.0-0.11.0 do wherever FlashInfer is installed, as in the vllm/vllm-openai images, and a pip
    # install without the [flashinfer] extra does not ("FlashInfer is not available. Falling back to the
    # PyTorch-native implementation"); from 0.11.1 only with VLLM_USE_FLASHINFER_SAMPLER=1. None: unknown, sized as
    # the PyTorch sort (the larger profile peak). Changes only 0.9-0.11 plans (profiled_sampler_bytes_per_logit).
    flashinfer_sampler: Optional[bool] = None

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


def profiled_sampler_bytes_per_logit(dtype_bytes: int, args: EngineArgs, acc: Accounting) -> float:
    """Bytes per (row x vocab) logit of the profile's sampler warm-up under ``acc`` for ``args``.

    The accounting's constant, except where ``args`` says a 0.9-0.11 release samples with FlashInfer: then the
    logits in the model dtype plus three float32 tensors (FLASHINFER_SAMPLER_RELEASES). An unknown release keeps the
    constant, as 0.12-0.16, which share the accounting, are not read.
    """
    release = parse_release(args.vllm_version)
    first, last = FLASHINFER_SAMPLER_RELEASES
    if args.flashinfer_sampler and release is not None and first <= release <= last:
        return float(dtype_bytes + 4 * FLASHINFER_SAMPLER_FP32_COPIES)
    return acc.sampler_bytes_per_logit


def flashinfer_sampler_by_default(version: Optional[str]) -> bool:
    """Whether ``version`` samples with FlashInfer wherever it is installed (0.9.0-0.11.0; opt-in from 0.11.1)."""
    release = parse_release(version)
    if release is None or not FLASHINFER_SAMPLER_RELEASES[0] <= release <= FLASHINFER_SAMPLER_RELEASES[1]:
        return False
    return release < (0, 11) or re.fullmatch(r"v?0\.11(\.0)?([^.\d].*)?", version or "") is not None


# vLLM's own image installs FlashInfer and its wheel does not. docker/Dockerfile installs it in the vllm-base stage
# that the vllm-openai target builds FROM ("# Install FlashInfer from source", ARG FLASHINFER_GIT_REF="v0.3.0", "Keep
# this in sync with "flashinfer" extra in setup.py": lines 375-378 of main in September 2025, between the 0.10.2 and
# 0.11.0 tags, as vllm-project/vllm#24868's diff quotes them; the tags' own file was not read, the repository being too
# large to fetch here); the wheel leaves it to that optional extra (setup.py extras_require "flashinfer",
# vllm-project/vllm#26306) until 0.11.1 made it a dependency and the sampler opt-in (vllm-project/vllm#26859).
# vllm-project/vllm#21768 finds it in the v0.10.0 image (/usr/local/lib/python3.12/dist-packages/flashinfer), and
# gpustack/gpustack#3656 shows it sampling in 0.11.0's profile run. Other images (lmcache/vllm-openai: "FlashInfer is
# not available", LMCache/LMCache#1384) and pip installs may lack it, so only the upstream repository counts.
UPSTREAM_IMAGE_REPOSITORY = "vllm/vllm-openai"
# Environment variables that turn the sampler off where it is installed: envs.py reads both with bool(int(...));
# VLLM_USE_FLASHINFER_SAMPLER=0 picks the PyTorch path in V1 (topk_topp_sampler.py, lines cited above), and
# VLLM_USE_V1=0 runs V0, whose sampler uses FlashInfer only when asked (the same file's comment on None).
FLASHINFER_SAMPLER_SWITCHES = ("VLLM_USE_FLASHINFER_SAMPLER", "VLLM_USE_V1")


def upstream_vllm_image(image: str) -> bool:
    """True for vLLM's own image, ``vllm/vllm-openai``, on Docker Hub or a mirror path ending in it
    (``docker.io/vllm/vllm-openai``, ``<account>.dkr.ecr.<region>.amazonaws.com/docker-hub/vllm/vllm-openai``)."""
    repository = image_repository(image)
    return repository == UPSTREAM_IMAGE_REPOSITORY or repository.endswith("/" + UPSTREAM_IMAGE_REPOSITORY)


def image_flashinfer_sampler(
    image: str, version: Optional[str] = None, env: Optional[Mapping[str, str]] = None
) -> Optional[bool]:
    """EngineArgs.flashinfer_sampler of a vLLM server in ``image``: the one rule the stacks' plan, the policies and
    ``size --image`` share.

    True when the image is vLLM's own (upstream_vllm_image, which installs FlashInfer) and its release samples with
    FlashInfer by default (flashinfer_sampler_by_default: 0.9.0-0.11.0); None otherwise, the PyTorch sort's larger
    charge, as another image may not install FlashInfer (UPSTREAM_IMAGE_REPOSITORY). ``version`` is the release
    whose accounting applies (default: the one the tag names); ``env`` the container's environment, where a switch
    (FLASHINFER_SAMPLER_SWITCHES) set to 0, or to a value the caller could not read (pass ""), leaves None.
    """
    release = vllm_release(image) if version is None else version
    if not upstream_vllm_image(image) or not flashinfer_sampler_by_default(release):
        return None
    for name in FLASHINFER_SAMPLER_SWITCHES:
        value = (env or {}).get(name)
        if value is None:
            continue
        try:
            if int(value) == 0:
                return None
        except ValueError:  # vLLM fails on it (bool(int(...))); nothing to size
            return None
    return True


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
