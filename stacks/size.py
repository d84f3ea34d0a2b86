"""`python -m stacks size`: the capacity plan of one model on one GPU type.

Exit codes (the command-line contract, docs/cli.md), so that scripts gate on it as they gate on `plan`:
0 the model fits; 1 it does not (the output still says why); 2 invalid flags, naming the flag,
the value and the rule. Every flag is bounded as the stack configuration bounds the same engine
field (components/config/models.py EngineConfig), so `size` never accepts what a stack would refuse.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, get_args

from components.capacity.accounting import image_flashinfer_sampler
from components.capacity.architecture import ArchitectureError
from components.capacity.batch import settle_max_num_seqs
from components.capacity.gpus import UnknownGpu, find_gpu
from components.capacity.memory import COMPILE_CACHES, EngineArgs, plan_memory
from components.capacity.models import UnknownModel, find_model, load_model_config
from components.config import BLOCK_SIZES, Dtype, EngineConfig, KvCacheDtype, ModelConfig, Quantization
from components.errors import ConfigError, Problem
from components.images import vllm_release
from stacks.report import memory_breakdown

EXIT_FITS, EXIT_DOES_NOT_FIT, EXIT_INVALID = 0, 1, 2

# What a stack deploys when it does not say: the release of ModelConfig's default image, the engine's
# default utilization (read from the config models, so `size` and `plan` cannot drift apart).
STACK_IMAGE: str = ModelConfig.model_fields["image"].default
STACK_RELEASE: str = vllm_release(STACK_IMAGE) or "0.33.0"
STACK_UTILIZATION: float = EngineConfig.model_fields["gpu_memory_utilization"].default


def _bounds(field: str) -> tuple[int, int]:
    """(lowest, highest) of an integer EngineConfig field: the stack's own bounds, read, not copied."""
    lo, hi = 1, 1 << 40
    for meta in EngineConfig.model_fields[field].metadata:
        if getattr(meta, "ge", None) is not None:
            lo = meta.ge
        if getattr(meta, "gt", None) is not None:
            lo = meta.gt + 1
        if getattr(meta, "le", None) is not None:
            hi = meta.le
    return lo, hi


def add_size_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `size` (the command-line contract, docs/cli.md)."""
    p.add_argument("--model", help="catalogue id or Hugging Face id of a catalogue model")
    p.add_argument("--model-config", help="path of a Hugging Face config.json (for models outside the catalogue)")
    p.add_argument("--weights-gib", type=_number("--weights-gib"), help="whole checkpoint size in GiB (with --model-config)")
    p.add_argument("--gpu", help="GPU type: H100, H200, B200, A100-40GB, A100-80GB, L40S, L4, A10G, ...")
    p.add_argument("--gpu-memory-gib", type=_number("--gpu-memory-gib"), help="total memory the device reports, GiB")
    p.add_argument(
        "--tensor-parallel-size", type=_integer("--tensor-parallel-size", "tensor_parallel_size"), default=1, help="default 1"
    )
    p.add_argument(
        "--pipeline-parallel-size",
        type=_integer("--pipeline-parallel-size", "pipeline_parallel_size"),
        default=1,
        help="default 1",
    )
    p.add_argument(
        "--gpu-memory-utilization",
        type=_fraction("--gpu-memory-utilization"),
        default=None,
        help=f"fraction of total GPU memory (default: the stacks' {STACK_UTILIZATION}; with --vllm-version, "
        "that release's own default, 0.92 from vLLM 0.20, 0.90 before)",
    )
    p.add_argument(
        "--max-model-len", type=_integer("--max-model-len", "max_model_len"), help="default: the model's max_position_embeddings"
    )
    p.add_argument(
        "--max-num-seqs",
        type=_integer("--max-num-seqs", "max_num_seqs"),
        help="default: derived from the KV cache as the stacks' capacity plan derives it; with --vllm-version, "
        "vLLM's hardware default",
    )
    p.add_argument(
        "--max-num-batched-tokens",
        type=_integer("--max-num-batched-tokens", "max_num_batched_tokens"),
        help="default: vLLM's hardware default",
    )
    p.add_argument(
        "--block-size",
        type=_choice("--block-size", BLOCK_SIZES),
        default=16,
        help=f"tokens per KV block, one of {', '.join(map(str, BLOCK_SIZES))} (default 16)",
    )
    p.add_argument(
        "--dtype",
        type=_choice("--dtype", get_args(Dtype)),
        default="auto",
        help=f"one of {', '.join(get_args(Dtype))} (default auto)",
    )
    p.add_argument(
        "--kv-cache-dtype",
        type=_choice("--kv-cache-dtype", get_args(KvCacheDtype)),
        default="auto",
        help=f"one of {', '.join(get_args(KvCacheDtype))} (default auto)",
    )
    p.add_argument(
        "--quantization",
        type=_choice("--quantization", get_args(Quantization)),
        default=None,
        help=f"one of {', '.join(get_args(Quantization))}; a pre-quantized checkpoint is sized by its own bytes",
    )
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs (nothing reserved for them)")
    _add_release_arguments(p)
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")


def _add_release_arguments(p: argparse.ArgumentParser) -> None:
    """The flags that say which vLLM install runs: its release, its image, its sampler, its compile cache."""
    p.add_argument(
        "--vllm-version",
        type=_version,
        default=None,
        help=f"vLLM release whose accounting and defaults to follow, 0.8.0 to 0.33.x, e.g. 0.33.0, or unknown "
        f"(the most conservative accounting of them all; default: {STACK_RELEASE}, the release the stacks deploy)",
    )
    p.add_argument(
        "--image",
        type=_image,
        default=None,
        help="the container image the server runs, e.g. vllm/vllm-openai:v0.10.2: its tag names the release (as a "
        "stack's image does; --vllm-version, if also given, must agree, or supplies the release of a tag that names "
        "none) and it decides --flashinfer-sampler",
    )
    p.add_argument(
        "--flashinfer-sampler",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether vLLM 0.9.0-0.11.0 samples top-k/top-p with FlashInfer, whose profile warm-up is smaller than the "
        "PyTorch sort's (default: yes for vLLM's own image, vllm/vllm-openai, of those releases, which installs "
        "FlashInfer; otherwise unknown, sized as the sort, the larger; a pip install has no FlashInfer)",
    )
    p.add_argument(
        "--compile-cache",
        type=_choice("--compile-cache", COMPILE_CACHES),
        default="cold",
        help="state of vLLM's torch.compile cache at start-up: cold (empty, as a new pod's; the default) or "
        "warm (an earlier start of the same configuration left it, e.g. VLLM_CACHE_ROOT on a volume)",
    )


def _typed(flag: str, convert: Callable[[str], Any], check: Callable[[Any], bool], rule: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{flag} = {text[:40]!r}: {rule}") from None
        if not check(value):
            raise argparse.ArgumentTypeError(f"{flag} = {text[:40]!r}: {rule}")
        return value

    return parse


def _whole(text: str) -> int:
    # Digits only and at most 12 of them: "1_0", " 8" and 400-digit numbers are refused before int()
    # (which would take the first two and spend time on the last).
    if not re.fullmatch(r"[0-9]{1,12}", text):
        raise ValueError(text)
    return int(text)


def _integer(flag: str, field: str):
    lo, hi = _bounds(field)
    return _typed(flag, _whole, lambda v: lo <= v <= hi, f"must be a whole number from {lo} to {hi:,}")


def _choice(flag: str, choices):
    def convert(text: str):
        for c in choices:
            if str(c) == text:
                return c
        raise ValueError(text)

    return _typed(flag, convert, lambda v: True, f"must be one of {', '.join(map(str, choices))}")


def _finite(text: str) -> float:
    if not re.fullmatch(r"[0-9]{1,7}(\.[0-9]{1,6})?|\.[0-9]{1,6}", text):
        raise ValueError(text)
    return float(text)


def _number(flag: str):
    return _typed(flag, _finite, lambda v: 0 < v < 1e6, "must be a number > 0 and below 1,000,000")


def _fraction(flag: str):
    return _typed(flag, _finite, lambda v: 0 < v <= 1, "must be a fraction in (0, 1]")


def _version(text: str) -> str:
    from components.capacity.memory import KNOWN_RELEASES, accounting_for, parse_release

    if text == "unknown":
        return text
    if parse_release(text) is None:
        raise argparse.ArgumentTypeError(f"--vllm-version = {text[:40]!r}: must be a release number such as 0.33.0, or unknown")
    if accounting_for(text) is None:
        raise argparse.ArgumentTypeError(
            f"--vllm-version = {text[:40]!r}: outside the releases the memory model was calibrated on ({KNOWN_RELEASES}); "
            f"give unknown to size with the most conservative accounting"
        )
    return text


def _image(text: str) -> str:
    # The stack configuration's rule for ModelConfig.image (components/config/models.py), so that `size --image`
    # takes what a stack takes.
    if len(text) > 255 or not re.fullmatch(r"[a-z0-9][a-z0-9._/:@-]*", text):
        raise argparse.ArgumentTypeError(f"--image = {text[:40]!r}: must be an image reference like {STACK_IMAGE}")
    return text


def _release(args: argparse.Namespace) -> str:
    """The release to size: the tag of --image, else --vllm-version ("unknown" when neither names one)."""
    named = vllm_release(args.image) if args.image else None
    if named is None:
        return args.vllm_version or "unknown"
    if args.vllm_version is not None and args.vllm_version.lstrip("v") != named:
        raise ConfigError(
            [Problem("--image", f"names vLLM {named} but --vllm-version is {args.vllm_version}; give one", args.image)]
        )
    try:
        return _version(named)
    except argparse.ArgumentTypeError:
        raise ConfigError(
            [Problem("--image", f"names vLLM {named}, outside the releases the memory model was calibrated on", args.image)]
        ) from None


def _load_model(args: argparse.Namespace):
    from stacks.models import LOCK_FILE, use_repo_lock

    use_repo_lock(LOCK_FILE)
    if args.model_config:
        if args.weights_gib is None:
            raise ConfigError(
                [
                    Problem(
                        "--weights-gib", "is required with --model-config (the whole checkpoint's size in GiB)", has_value=False
                    )
                ]
            )
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
    """Compute and print the plan; 0 when the model fits, 1 when it does not, ConfigError for bad input."""
    model = _load_model(args)
    if not args.gpu and args.gpu_memory_gib is None:
        raise ConfigError([Problem("--gpu", "is required (or --gpu-memory-gib)", has_value=False)])
    try:
        gpu = find_gpu(args.gpu or "custom", args.gpu_memory_gib)
    except UnknownGpu as exc:
        raise ConfigError([Problem("--gpu", str(exc), args.gpu)]) from None
    # Without --vllm-version, size what a stack would deploy: the stacks' release, their default
    # utilization and the max_num_seqs their capacity plan derives (so `size` reports `plan`'s figures).
    as_stacks = args.vllm_version is None and args.image is None
    version = STACK_RELEASE if as_stacks else _release(args)
    image = STACK_IMAGE if as_stacks else args.image
    flashinfer = args.flashinfer_sampler
    if flashinfer is None and image is not None:
        flashinfer = image_flashinfer_sampler(image, None if version == "unknown" else version)
    utilization = args.gpu_memory_utilization
    if utilization is None and as_stacks:
        utilization = STACK_UTILIZATION
    engine = EngineArgs(
        tensor_parallel_size=args.tensor_parallel_size,
        pipeline_parallel_size=args.pipeline_parallel_size,
        gpu_memory_utilization=utilization,
        max_model_len=args.max_model_len,
        max_num_seqs=args.max_num_seqs,
        max_num_batched_tokens=args.max_num_batched_tokens,
        block_size=args.block_size,
        dtype=args.dtype,
        kv_cache_dtype=args.kv_cache_dtype,
        quantization=args.quantization,
        enforce_eager=args.enforce_eager,
        vllm_version=None if version == "unknown" else version,
        compile_cache=args.compile_cache,
        flashinfer_sampler=flashinfer,
    )
    plan = plan_memory(model.arch, model.checkpoint_bytes, gpu, engine)
    derived = None
    if as_stacks and args.max_num_seqs is None and plan.fits:
        # (A model that does not fit keeps vLLM's default: there is no cache to derive a count from.)
        first = plan.as_dict()
        typical = min(2048, first["max_model_len"])
        seqs, why = settle_max_num_seqs(
            first["kv_cache_tokens"],
            typical,
            first["max_num_seqs"],
            first["max_num_batched_tokens"],
            f"vLLM {version}'s default for {gpu.name}",
        )
        plan = plan_memory(model.arch, model.checkpoint_bytes, gpu, replace(engine, max_num_seqs=seqs))
        derived = f"maxNumSeqs {seqs}, derived as the stacks' capacity plan derives it: {why}"
    if as_stacks:
        source = f"the release the stacks deploy, {STACK_IMAGE}; utilization {utilization:g}" + (
            " as given" if args.gpu_memory_utilization is not None else ", the stacks' default"
        )
    elif args.image and vllm_release(args.image):
        source = f"the tag of --image {args.image}"
    elif args.vllm_version is None:
        source = f"--image {args.image} names no vLLM release: the most conservative accounting"
    else:
        source = "--vllm-version"
    figures = {
        "model": model.hf_id,
        **plan.as_dict(),
        "vllm_version": version,
        "vllm_version_from": source,
        "flashinfer_sampler": flashinfer,
    }
    if derived:
        figures["max_num_seqs_derivation"] = derived
    if args.json:
        sys.stdout.write(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(render_size(figures))
    return EXIT_FITS if plan.fits else EXIT_DOES_NOT_FIT


def render_size(m: dict) -> str:
    """Readable form: the budget breakdown, KV tokens and concurrency, the verdict."""
    head = (
        f"{m['model']} on {m['gpus_per_replica']}x {m['gpu']} ({m['gpu_memory_gib']:.2f} GiB each), "
        f"maxNumSeqs {m['max_num_seqs']}, maxNumBatchedTokens {m['max_num_batched_tokens']}"
    )
    release = f"vLLM {m['vllm_version']}: {m['vllm_version_from']}" if m.get("vllm_version") else None
    verdict = f"{'fits' if m['fits'] else 'DOES NOT FIT'}: {m['reason']}"
    notes = [f"note: {n}" for n in m.get("notes", [])]
    derived = [m["max_num_seqs_derivation"]] if m.get("max_num_seqs_derivation") else []
    return "\n".join([head, *([release] if release else []), *derived, *memory_breakdown(m), verdict, *notes]) + "\n"
