"""`python -m stacks size`: the capacity plan of one model on one GPU type.

Exits 0 with ``fits`` true or false once the plan is computed (a model that does not fit is an
answer, not an error), and 2 for invalid flags, naming the flag and the rule.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from components.capacity.architecture import ArchitectureError
from components.capacity.gpus import UnknownGpu, find_gpu
from components.capacity.memory import EngineArgs, plan_memory
from components.capacity.models import UnknownModel, find_model, load_model_config
from components.errors import ConfigError, Problem
from stacks.report import memory_breakdown

# vLLM 0.33's choices (config/cache.py CacheDType, config/model.py dtype).
_KV_DTYPES = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla")
_DTYPES = ("auto", "bfloat16", "float16", "half", "float", "float32")


def add_size_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `size` (DESIGN.md command-line contract)."""
    p.add_argument("--model", help="catalogue id or Hugging Face id of a catalogue model")
    p.add_argument("--model-config", help="path of a Hugging Face config.json (for models outside the catalogue)")
    p.add_argument("--weights-gib", type=_number("--weights-gib"), help="whole checkpoint size in GiB (with --model-config)")
    p.add_argument("--gpu", help="GPU type: H100, H200, B200, A100-40GB, A100-80GB, L40S, L4, A10G, ...")
    p.add_argument("--gpu-memory-gib", type=_number("--gpu-memory-gib"), help="total memory the device reports, GiB")
    p.add_argument("--tensor-parallel-size", type=_integer("--tensor-parallel-size"), default=1)
    p.add_argument("--pipeline-parallel-size", type=_integer("--pipeline-parallel-size"), default=1)
    p.add_argument("--gpu-memory-utilization", type=_fraction("--gpu-memory-utilization"), default=None,
                   help="fraction of total GPU memory (default: the release's, 0.92 from vLLM 0.20, 0.90 before)")
    p.add_argument("--max-model-len", type=_integer("--max-model-len"), help="default: the model's max_position_embeddings")
    p.add_argument("--max-num-seqs", type=_integer("--max-num-seqs"), help="default: vLLM's hardware default")
    p.add_argument("--max-num-batched-tokens", type=_integer("--max-num-batched-tokens"), help="default: vLLM's hardware default")
    p.add_argument("--block-size", type=_integer("--block-size"), default=16)
    p.add_argument("--dtype", choices=_DTYPES, default="auto")
    p.add_argument("--kv-cache-dtype", choices=_KV_DTYPES, default="auto")
    p.add_argument("--quantization", type=_method, default=None,
                   help="vLLM quantization method (fp8, awq_marlin, gptq_marlin, mxfp4, ...); a pre-quantized checkpoint is sized by its own bytes")
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs (nothing reserved for them)")
    p.add_argument("--vllm-version", type=_version, default=None,
                   help="vLLM release whose accounting to follow, e.g. 0.33.0 (default: unknown, the most conservative)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")


def _typed(flag: str, convert: Callable[[str], Any], check: Callable[[Any], bool], rule: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} = {text!r}: {rule}") from None
        if not check(value):
            raise argparse.ArgumentTypeError(f"{flag} = {text!r}: {rule}")
        return value

    return parse


def _integer(flag: str):
    return _typed(flag, int, lambda v: v > 0, "must be a whole number > 0")


def _number(flag: str):
    return _typed(flag, float, lambda v: 0 < v < 1e6, "must be a number > 0")


def _fraction(flag: str):
    return _typed(flag, float, lambda v: 0 < v <= 1, "must be a fraction in (0, 1]")


def _method(text: str) -> str:
    import re

    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,39}", text):
        raise argparse.ArgumentTypeError(f"--quantization = {text!r}: must be a vLLM quantization method name such as fp8")
    return text


def _version(text: str) -> str:
    from components.capacity.memory import accounting_for

    if accounting_for(text) is None:
        raise argparse.ArgumentTypeError(f"--vllm-version = {text!r}: must be a release number such as 0.33.0")
    return text


def _load_model(args: argparse.Namespace):
    if args.model_config:
        if args.weights_gib is None:
            raise ConfigError([Problem("--weights-gib", "is required with --model-config (the whole checkpoint's size in GiB)", has_value=False)])
        path = Path(args.model_config)
        try:
            return load_model_config(path, args.weights_gib, name=args.model or path.stem)
        except ArchitectureError as exc:
            raise ConfigError([Problem("--model-config", str(exc), args.model_config)]) from None
    if not args.model:
        raise ConfigError([Problem("--model", "is required (or --model-config with --weights-gib)", has_value=False)])
    try:
        model = find_model(args.model)
    except UnknownModel as exc:
        raise ConfigError([Problem("--model", str(exc), args.model)]) from None
    if args.weights_gib is not None:
        model = model.with_checkpoint_gib(args.weights_gib)
    return model


def run_size(args: argparse.Namespace) -> int:
    """Compute and print the plan; 0 once computed, ConfigError for bad input."""
    model = _load_model(args)
    if not args.gpu and args.gpu_memory_gib is None:
        raise ConfigError([Problem("--gpu", "is required (or --gpu-memory-gib)", has_value=False)])
    try:
        gpu = find_gpu(args.gpu or "custom", args.gpu_memory_gib)
    except UnknownGpu as exc:
        raise ConfigError([Problem("--gpu", str(exc), args.gpu)]) from None
    engine = EngineArgs(
        tensor_parallel_size=args.tensor_parallel_size,
        pipeline_parallel_size=args.pipeline_parallel_size,
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=args.max_model_len,
        max_num_seqs=args.max_num_seqs,
        max_num_batched_tokens=args.max_num_batched_tokens,
        block_size=args.block_size,
        dtype=args.dtype,
        kv_cache_dtype=args.kv_cache_dtype,
        quantization=args.quantization,
        enforce_eager=args.enforce_eager,
        vllm_version=args.vllm_version,
    )
    plan = plan_memory(model.arch, model.checkpoint_bytes, gpu, engine)
    figures = {"model": model.hf_id, **plan.as_dict()}
    if args.json:
        sys.stdout.write(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(render_size(figures))
    return 0


def render_size(m: dict) -> str:
    """Readable form: the budget breakdown, KV tokens and concurrency, the verdict."""
    head = (
        f"{m['model']} on {m['gpus_per_replica']}x {m['gpu']} ({m['gpu_memory_gib']:.2f} GiB each), "
        f"maxNumSeqs {m['max_num_seqs']}, maxNumBatchedTokens {m['max_num_batched_tokens']}"
    )
    verdict = f"{'fits' if m['fits'] else 'DOES NOT FIT'}: {m['reason']}"
    notes = [f"note: {n}" for n in m.get("notes", [])]
    return "\n".join([head, *memory_breakdown(m), verdict, *notes]) + "\n"
