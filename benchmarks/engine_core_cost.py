"""Measure, with vLLM's own code, the CPU time of vLLM V1's engine core on the host, piece by piece (issue 23, fidelity).

Run it in the private virtual environment benchmarks/api_server_cost.py describes (vLLM 0.11.0's wheel and the
packages of its time), NOT the project's:

    /tmp/apicost-venv/bin/python benchmarks/engine_core_cost.py

It writes benchmarks/data/engine_core_cost-<release>.json (``--out``). Every figure is CPU time of this one thread
(``time.process_time_ns``), in microseconds, on the machine that ran it; line numbers are vLLM 0.11.0's.

What runs is vLLM's own code: the V1 ``Scheduler`` (v1/core/sched/scheduler.py) with its ``KVCacheManager``
(v1/core/kv_cache_manager.py: prefix caching on, the default, hashing every full 16-token block with sha256, the
default ``prefix_caching_hash_algo``, config/cache.py 72), the engine core's add path and the output socket's encoder.
Configured with vLLM's own ``VllmConfig`` (config/vllm.py) from its ``SchedulerConfig``, ``CacheConfig`` and
``ParallelConfig`` and a ``KVCacheConfig`` of one full-attention group (v1/kv_cache_interface.py). Stubbed, and
nothing else:
- ``model_config``: a VllmConfig without a GPU platform takes none; the scheduler reads two attributes of it
  (``is_encoder_decoder`` at scheduler.py 63 and ``is_multimodal_model`` through compute_encoder_budget,
  v1/core/encoder_cache_manager.py 262 -> multimodal/registry.py 105): a text-only decoder's, False and False; and
  ``skip_tokenizer_init`` True, so the structured-output manager loads no tokenizer (it is for grammars only).
- the model runner, in ``decode_steps`` and ``bursts``: ``ModelRunnerOutput`` (v1/outputs.py 99) is built here as
  the GPU model runner returns it, one sampled token per scheduled request whose prompt is fully computed and none for
  a partial prefill chunk (v1/worker/gpu_model_runner.py 2111-2114 ``discard_sampled_tokens_req_indices``).
- the engine core object: ``EngineCore.preprocess_add_request`` (v1/engine/core.py 426-450) and
  ``EngineCore.add_request`` (217-243) are vLLM's functions called on a stand-in ``self`` carrying the attributes they
  read (the scheduler, the block hasher built as core.py 153-164 builds it, no multimodal cache, the structured-output
  manager).

Pieces, per added request (``add``): ``decode`` the EngineCoreRequest msgpack frames as the input socket thread decodes
them (core.py 874, v1/serial_utils.py MsgpackDecoder), ``preprocess`` preprocess_add_request (Request creation with
its block hasher: v1/request.py 28-123, v1/core/kv_cache_utils.py 576 ``get_request_block_hasher``), ``enqueue``
EngineCore.add_request -> Scheduler.add_request (scheduler.py 1097). The request is the one vllm bench serve's
openai-chat client sends after the API server's processing: temperature 0 (greedy), max_tokens the output length.

Per engine step (``decode_steps``: ``batch`` requests running, each decoding one token a step, prompts of 128 tokens
already computed; ``steps`` consecutive steps, so every request crosses a 16-token block boundary): ``schedule``
Scheduler.schedule (scheduler.py 179-627 with ``_update_after_schedule`` 629), ``update`` Scheduler.update_from_output
(861-1042, stats on as the API server runs it: ``log_stats``), ``encode`` the EngineCoreOutputs msgpack-encoded as the
output socket thread does (core.py 924-932, MsgpackEncoder), and ``broadcast`` the SchedulerOutput pickled as a
multi-GPU executor sends it to its workers (v1/executor/multiproc_executor.py 234 ``rpc_broadcast_mq.enqueue`` ->
distributed/device_communicators/shm_broadcast.py 492 ``pickle.dumps``; a one-GPU engine calls its worker in process
and pays none of this).

The model runner's host work a step (``runner_steps``, each batch in a process of its own): vLLM's CPUModelRunner
(v1/worker/cpu_model_runner.py: the GPU model runner's code on CPU tensors) over a real VllmConfig and ModelConfig of
a one-layer Qwen3 with dummy weights (``TINY_QWEN3``; its host work a step does not grow with the layers), its KV
cache initialised, driven by a real Scheduler over the same configuration: ``update_states``
GPUModelRunner._update_states (gpu_model_runner.py 526-702: the persistent batch's requests and block tables),
``prepare_inputs`` _prepare_inputs (923-1266: positions, token ids, slot mappings, the attention metadata), and
``bookkeeping`` _bookkeeping_sync (2094-2214: the sampled ids to lists and into the batch's token table) with the
ModelRunnerOutput execute_model builds (2426-2435). Not run: the forward pass and the sampler (a tensor of random ids
stands for the sampler's output), which are GPU work. Differences from a GPU: the platform is vLLM's CpuPlatform
(this wheel is CUDA's and there is no GPU), so the attention metadata is the CPU backend's (TorchSDPA,
v1/attention/backends/cpu_attn.py 325) where a GPU builds FlashAttention's, and the host-to-device copies are copies
in host memory; gpu_model_runner.py imports numba for the n-gram proposer (speculative decoding, unused), which is
given a stand-in module.

Bursts (``bursts``): ``requests`` requests arriving at once, each added through the add path, then the engine core's
loop (core.py 272-291 ``step``: schedule, the stand-in model runner, update_from_output; then the encoder) until all
have finished; the CPU per request of the whole burst and of each part, the number of steps, the median step.
``random128-4``: GPUStack's random 128-token prompts with 4-token answers; ``sharegpt200``: 200-token prompts and
200-token answers. The default limits are vLLM 0.11.0's for the API server on a GPU of 70 GiB or more other than an
A100 (engine/arg_utils.py 1605-1614: 8,192 batched tokens, 1,024 sequences) and on an A100 (1615-1624: 2,048 and 256).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.host import host  # noqa: E402  (the repository root first, as simulate_speed.py does)

DATA_DIR = ROOT / "benchmarks" / "data"
BLOCK_SIZE = 16  # CacheConfig's default block size on CUDA (platforms/cuda.py check_and_update_config)
EOS = 151645
BATCHES = (1, 64, 256, 1024)
# (name, requests, prompt tokens, output tokens); the limits: (name, max_num_batched_tokens, max_num_seqs).
BURSTS = (("random128-4", 1000, 128, 4), ("sharegpt200", 1000, 200, 200))
LIMITS = (("h100", 8192, 1024), ("a100", 2048, 256))


class _ModelConfig:
    """The ModelConfig attributes the scheduler reads for a text-only decoder (see the module docstring), and the one
    the structured-output manager reads to load a tokenizer for grammars (v1/structured_output/__init__.py 54): none is
    loaded, as no measured request asks for structured output."""

    is_encoder_decoder = False
    is_multimodal_model = False
    skip_tokenizer_init = True


class _Core:
    """The attributes EngineCore.preprocess_add_request and EngineCore.add_request read (core.py 153-164, 217-243)."""

    def __init__(self, scheduler: Any, block_hasher: Any, structured_output_manager: Any) -> None:
        self.scheduler = scheduler
        self.request_block_hasher = block_hasher
        self.structured_output_manager = structured_output_manager
        self.mm_receiver_cache = None


def build(max_batched: int, max_seqs: int, num_blocks: int = 200_000) -> _Core:
    """vLLM's scheduler and the engine core's add path over vLLM's own configuration classes."""
    from vllm.config import CacheConfig, DeviceConfig, ParallelConfig, SchedulerConfig, VllmConfig  # type: ignore[import-not-found]  # the venv's package
    from vllm.utils import get_hash_fn_by_name  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.core.sched.scheduler import Scheduler  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.structured_output import StructuredOutputManager  # type: ignore[import-not-found]  # the venv's package

    sched = SchedulerConfig(
        max_num_seqs=max_seqs, max_num_batched_tokens=max_batched, max_model_len=8192, enable_chunked_prefill=True
    )
    cache = CacheConfig(block_size=BLOCK_SIZE, enable_prefix_caching=True)
    cache.num_gpu_blocks = num_blocks
    vc = VllmConfig(
        scheduler_config=sched, cache_config=cache, parallel_config=ParallelConfig(), device_config=DeviceConfig(device="cpu")
    )
    object.__setattr__(vc, "model_config", _ModelConfig())
    spec = FullAttentionSpec(block_size=BLOCK_SIZE, num_kv_heads=8, head_size=128, dtype=__import__("torch").bfloat16)
    kv = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[], kv_cache_groups=[KVCacheGroupSpec(["layer.0"], spec)])
    som = StructuredOutputManager(vc)
    scheduler = Scheduler(vllm_config=vc, kv_cache_config=kv, structured_output_manager=som, log_stats=True)
    hash_fn = get_hash_fn_by_name(cache.prefix_caching_hash_algo)
    init_none_hash(hash_fn)
    return _Core(scheduler, get_request_block_hasher(BLOCK_SIZE, hash_fn), som)


def _frames(i: int, prompt: int, output: int, rng: random.Random) -> list:
    """An EngineCoreRequest as the API server's MsgpackEncoder frames it (core_client.py 856)."""
    from vllm.sampling_params import SamplingParams  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.engine import EngineCoreRequest  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.serial_utils import MsgpackEncoder  # type: ignore[import-not-found]  # the venv's package

    params = SamplingParams.from_optional(temperature=0.0, max_tokens=output)
    params.update_from_generation_config({}, EOS)
    req = EngineCoreRequest(
        request_id=f"r{i}",
        prompt_token_ids=[rng.randrange(0, 150000) for _ in range(prompt)],
        mm_features=None,
        sampling_params=params,
        pooling_params=None,
        eos_token_id=EOS,
        arrival_time=time.time(),
        lora_request=None,
        cache_salt=None,
        data_parallel_rank=None,
    )
    return [bytes(f) for f in MsgpackEncoder().encode(req)]


def add_all(core: _Core, frames: list) -> dict:
    """Each request through the input thread's decode, preprocess_add_request and add_request: CPU totals (us)."""
    from vllm.v1.engine import EngineCoreRequest
    from vllm.v1.engine.core import EngineCore  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.serial_utils import MsgpackDecoder

    decoder = MsgpackDecoder(EngineCoreRequest)
    tot = {"decode": 0, "preprocess": 0, "enqueue": 0}
    for f in frames:
        t0 = time.process_time_ns()
        request = decoder.decode(f)
        t1 = time.process_time_ns()
        req, wave = EngineCore.preprocess_add_request(core, request)  # vLLM's method on the stand-in self
        t2 = time.process_time_ns()
        EngineCore.add_request(core, req, wave)  # vLLM's method on the stand-in self
        t3 = time.process_time_ns()
        tot["decode"] += t1 - t0
        tot["preprocess"] += t2 - t1
        tot["enqueue"] += t3 - t2
    return {k: v / 1000.0 for k, v in tot.items()}


def _runner_output(so: Any, requests: dict, token: int) -> Any:
    """What the GPU model runner returns for ``so``: a token for each request whose prompt is computed."""
    from vllm.v1.outputs import ModelRunnerOutput  # type: ignore[import-not-found]  # the venv's package

    ids = list(so.num_scheduled_tokens)
    sampled = [[] if requests[r].num_computed_tokens < requests[r].num_prompt_tokens else [token] for r in ids]
    return ModelRunnerOutput(
        req_ids=ids,
        req_id_to_index={r: i for i, r in enumerate(ids)},
        sampled_token_ids=sampled,
        logprobs=None,
        prompt_logprobs_dict={},
        pooler_output=[],
    )


def step(core: _Core, encoder: Any, rng: random.Random) -> dict:
    """One engine-core step (core.py 283-288) and the output thread's encoding: CPU per part (ns)."""
    import pickle

    s = core.scheduler
    t0 = time.process_time_ns()
    so = s.schedule()
    t1 = time.process_time_ns()
    blob = pickle.dumps(so, protocol=pickle.HIGHEST_PROTOCOL)
    t2 = time.process_time_ns()
    mro = _runner_output(so, s.requests, rng.randrange(0, 150000))
    t3 = time.process_time_ns()
    outputs = s.update_from_output(so, mro)
    t4 = time.process_time_ns()
    for out in outputs.values():
        encoder.encode(out)
    t5 = time.process_time_ns()
    return {
        "schedule": t1 - t0,
        "broadcast": t2 - t1,
        "update": t4 - t3,
        "encode": t5 - t4,
        "scheduled": len(so.num_scheduled_tokens),
        "bytes": len(blob),
    }


def decode_steps(batch: int, steps: int, runs: int) -> dict:
    """``batch`` requests decoding together (their 128-token prompts computed first): medians over ``runs`` of the
    mean CPU per step of ``steps`` consecutive steps, in microseconds."""
    from vllm.v1.serial_utils import MsgpackEncoder

    per_run: dict[str, list] = {k: [] for k in ("schedule", "update", "encode", "broadcast")}
    for run in range(runs):
        core = build(8192, max(batch, 1))
        rng = random.Random(run)
        add_all(core, [_frames(i, 128, 100_000, rng) for i in range(batch)])
        enc = MsgpackEncoder()
        while any(r.num_computed_tokens < r.num_prompt_tokens for r in core.scheduler.requests.values()):
            step(core, enc, rng)
        for _ in range(3):  # warm
            step(core, enc, rng)
        gc.collect()
        got = [step(core, enc, rng) for _ in range(steps)]
        assert all(g["scheduled"] == batch for g in got)
        for k in per_run:
            per_run[k].append(statistics.fmean(g[k] for g in got) / 1000.0)
    out: dict[str, Any] = {k: round(statistics.median(v), 1) for k, v in per_run.items()}
    out.update(batch=batch, steps=steps, runs=runs)
    return out


def burst(name: str, n: int, prompt: int, output: int, limits: tuple) -> dict:
    """``n`` requests at once through the add path, then the engine core's loop until every one has finished."""
    from vllm.v1.serial_utils import MsgpackEncoder

    lname, max_batched, max_seqs = limits
    core = build(max_batched, max_seqs)
    rng = random.Random(1)
    frames = [_frames(i, prompt, output, rng) for i in range(n)]
    gc.collect()
    added = add_all(core, frames)
    enc = MsgpackEncoder()
    steps = []
    while core.scheduler.has_requests():
        steps.append(step(core, enc, rng))
    tot = {k: sum(s[k] for s in steps) / 1000.0 for k in ("schedule", "update", "encode", "broadcast")}
    per_step = [(s["schedule"] + s["update"] + s["encode"]) / 1000.0 for s in steps]
    return {
        "name": name,
        "limits": lname,
        "max_num_batched_tokens": max_batched,
        "max_num_seqs": max_seqs,
        "requests": n,
        "prompt": prompt,
        "output": output,
        "steps": len(steps),
        "add": {k: round(v / n, 1) for k, v in added.items()},
        "loop": {k: round(v / n, 1) for k, v in tot.items()},
        "median_step": round(statistics.median(per_step), 1),
    }


# A Qwen3 decoder of one small layer (the model runner's host work a step does not depend on the model's size: its
# attention metadata is built once per KV-cache group, not per layer), loaded with dummy weights on the CPU.
TINY_QWEN3 = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 1,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "hidden_act": "silu",
    "max_position_embeddings": 40960,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000,
    "vocab_size": 151936,
    "tie_word_embeddings": False,
    "bos_token_id": 151643,
    "eos_token_id": EOS,
    "dtype": "bfloat16",
}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_runner(work: Path, num_blocks: int) -> tuple:
    """vLLM's CPUModelRunner (v1/worker/cpu_model_runner.py: GPUModelRunner's code on CPU tensors) over a real
    VllmConfig, its KV cache initialised, and a real Scheduler over the same configuration."""
    import sys
    import types

    # gpu_model_runner.py imports the n-gram proposer (speculative decoding, unused here), which imports numba.
    nb: Any = types.ModuleType("numba")
    nb.get_num_threads, nb.set_num_threads, nb.prange = (lambda: 1), (lambda n: None), range
    nb.jit = nb.njit = lambda *a, **k: a[0] if a and callable(a[0]) else (lambda f: f)
    sys.modules.setdefault("numba", nb)
    import vllm.platforms as platforms  # type: ignore[import-not-found]  # the venv's package
    from vllm.platforms.cpu import CpuPlatform  # type: ignore[import-not-found]  # the venv's package

    platforms._current_platform = CpuPlatform()  # this wheel is CUDA's; no GPU here
    import torch  # type: ignore[import-not-found]  # the venv's package
    from vllm.config import (
        CacheConfig,
        DeviceConfig,
        LoadConfig,
        ModelConfig,
        ParallelConfig,
        SchedulerConfig,
        VllmConfig,
        set_current_vllm_config,
    )
    from vllm.distributed import init_distributed_environment, initialize_model_parallel  # type: ignore[import-not-found]  # the venv's package
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.kv_cache_interface import KVCacheConfig, KVCacheGroupSpec, KVCacheTensor
    from vllm.v1.structured_output import StructuredOutputManager
    from vllm.v1.worker.cpu_model_runner import CPUModelRunner  # type: ignore[import-not-found]  # the venv's package

    work.mkdir(parents=True, exist_ok=True)
    (work / "config.json").write_text(json.dumps(TINY_QWEN3))
    mc = ModelConfig(model=str(work), skip_tokenizer_init=True, max_model_len=8192, dtype="bfloat16")
    sched = SchedulerConfig(max_num_seqs=1024, max_num_batched_tokens=8192, max_model_len=8192, enable_chunked_prefill=True)
    cache = CacheConfig(block_size=BLOCK_SIZE, enable_prefix_caching=True)
    vc = VllmConfig(
        model_config=mc,
        scheduler_config=sched,
        cache_config=cache,
        parallel_config=ParallelConfig(),
        device_config=DeviceConfig(device="cpu"),
        load_config=LoadConfig(load_format="dummy"),
    )
    runner = CPUModelRunner(vc, torch.device("cpu"))
    with set_current_vllm_config(vc):
        init_distributed_environment(1, 0, f"tcp://127.0.0.1:{_free_port()}", 0, "gloo")
        initialize_model_parallel(1, 1)
        runner.load_model()
    specs = runner.get_kv_cache_spec()
    names = list(specs)
    spec = specs[names[0]]
    tensor = KVCacheTensor(size=spec.page_size_bytes * num_blocks, shared_by=names)
    kv = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[tensor], kv_cache_groups=[KVCacheGroupSpec(names, spec)])
    runner.initialize_kv_cache(kv)
    cache.num_gpu_blocks = num_blocks
    scheduler = Scheduler(
        vllm_config=vc, kv_cache_config=kv, structured_output_manager=StructuredOutputManager(vc), log_stats=True
    )
    return runner, scheduler


def _runner_step(runner: Any, scheduler: Any, hidden: Any) -> dict:
    """One step through the scheduler and the model runner's host work, the forward and the sampler left out."""
    import torch
    from vllm.v1.outputs import ModelRunnerOutput, SamplerOutput

    t0 = time.process_time_ns()
    so = scheduler.schedule()
    t1 = time.process_time_ns()
    with torch.inference_mode():
        runner._update_states(so)
        t2 = time.process_time_ns()
        runner._prepare_inputs(so)
        t3 = time.process_time_ns()
        ids = torch.randint(0, 150000, (runner.input_batch.num_reqs, 1), dtype=torch.int32)  # the sampler's output
        t4 = time.process_time_ns()
        bk = runner._bookkeeping_sync(so, SamplerOutput(ids, None), None, hidden, so.total_num_scheduled_tokens)
        mro = ModelRunnerOutput(
            req_ids=bk[4],
            req_id_to_index=bk[5],
            sampled_token_ids=bk[2],
            logprobs=bk[1],
            prompt_logprobs_dict=bk[3],
            pooler_output=[],
            num_nans_in_logits=bk[0],
        )
        t5 = time.process_time_ns()
    scheduler.update_from_output(so, mro)
    return {
        "update_states": t2 - t1,
        "prepare_inputs": t3 - t2,
        "bookkeeping": t5 - t4,
        "scheduled": len(so.num_scheduled_tokens),
        "schedule": t1 - t0,
    }


def runner_steps(batch: int, steps: int, work: Path) -> dict:
    """``batch`` requests decoding through vLLM's scheduler and model runner (their 128-token prompts computed first):
    the model runner's mean CPU per step over ``steps`` steps, in microseconds. Run in a process of its own
    (``--runner-batch``): it switches vLLM's platform to the CPU's."""
    import torch

    runner, scheduler = _cpu_runner(work, 20_000)
    core = _Core(scheduler, None, None)
    rng = random.Random(0)
    add = [_frames(i, 128, 100_000, rng) for i in range(batch)]
    from vllm.utils import get_hash_fn_by_name
    from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash

    hash_fn = get_hash_fn_by_name("sha256")
    init_none_hash(hash_fn)
    core.request_block_hasher = get_request_block_hasher(BLOCK_SIZE, hash_fn)
    core.structured_output_manager = scheduler.structured_output_manager
    add_all(core, add)
    hidden = torch.zeros(8192, TINY_QWEN3["hidden_size"], dtype=torch.bfloat16)
    while any(r.num_computed_tokens < r.num_prompt_tokens for r in scheduler.requests.values()):
        _runner_step(runner, scheduler, hidden)
    for _ in range(3):
        _runner_step(runner, scheduler, hidden)
    gc.collect()
    got = [_runner_step(runner, scheduler, hidden) for _ in range(steps)]
    assert all(g["scheduled"] == batch for g in got)
    out: dict[str, Any] = {
        k: round(statistics.fmean(g[k] for g in got) / 1000.0, 1) for k in ("update_states", "prepare_inputs", "bookkeeping")
    }
    out.update(batch=batch, steps=steps)
    return out


def summary(data: dict) -> dict:
    """The figures the simulator's constants are compared with, from the pieces of ``data`` (this script's output), in
    microseconds on the measuring machine: ``add_per_request`` (decode, preprocess and enqueue of one request) by
    prompt length; ``step`` by batch (schedule + update + encode of a decode step: the engine core's host work, in
    series with the GPU in 0.11.0's default synchronous loop) and ``step_per_request`` by batch (the same over the
    batch); ``runner_step`` by batch (the model runner's update_states + prepare_inputs + bookkeeping, also in
    series) and ``host_step_per_request`` (the engine core's and the model runner's over the batch);
    ``broadcast_per_request`` the multi-GPU executor's pickling a request at the largest batch;
    ``burst_per_request`` by burst and limits: the add path and the loop over the whole burst, per request."""
    rows = sorted(data["decode_steps"], key=lambda r: r["batch"])
    step = {str(r["batch"]): r["schedule"] + r["update"] + r["encode"] for r in rows}
    bursts = {
        f"{b['name']}/{b['limits']}": sum(b["add"].values()) + b["loop"]["schedule"] + b["loop"]["update"] + b["loop"]["encode"]
        for b in data["bursts"]
    }
    runner = {str(r["batch"]): r["update_states"] + r["prepare_inputs"] + r["bookkeeping"] for r in data["runner_steps"]}
    return _round(
        {
            "add_per_request": {k: sum(v.values()) for k, v in sorted(data["add"].items())},
            "step": step,
            "step_per_request": {k: v / int(k) for k, v in step.items()},
            "runner_step": runner,
            "host_step_per_request": {k: (v + runner[k]) / int(k) for k, v in step.items()},
            "broadcast_per_request": rows[-1]["broadcast"] / rows[-1]["batch"],
            "burst_per_request": bursts,
        }
    )


def _round(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _round(v) for k, v in obj.items()}
    return round(obj, 2) if isinstance(obj, float) else obj


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--steps", type=int, default=64, help="consecutive decode steps timed per run")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--adds", type=int, default=1000, help="requests through the add path per prompt length and run")
    ap.add_argument("--out", help="default: benchmarks/data/engine_core_cost-<the venv's vLLM version>.json")
    ap.add_argument("--work", default="/tmp/engine-core-cost-work", help="where the small model's config.json goes")
    ap.add_argument("--runner-batch", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.runner_batch:
        print(json.dumps(runner_steps(args.runner_batch, args.steps, Path(args.work))))
        return 0
    import msgspec  # type: ignore[import-not-found]  # the venv's package
    import vllm

    result: dict[str, Any] = {
        "vllm": vllm.__version__,
        "msgspec": msgspec.__version__,
        **host(),
        "unit": "microseconds of CPU (process_time) on the measuring machine",
        "add": {},
    }
    for prompt in (128, 200):
        runs = []
        for run in range(args.runs):
            core = build(8192, 1024)
            rng = random.Random(100 + run)
            frames = [_frames(i, prompt, 4, rng) for i in range(args.adds)]
            gc.collect()
            runs.append(add_all(core, frames))
        result["add"][str(prompt)] = {k: round(statistics.median(r[k] for r in runs) / args.adds, 2) for k in runs[0]}
        print("add", prompt, json.dumps(result["add"][str(prompt)]), flush=True)
    result["decode_steps"] = []
    for b in BATCHES:
        row = decode_steps(b, args.steps, args.runs)
        result["decode_steps"].append(row)
        print("decode", json.dumps(row), flush=True)
    result["runner_steps"] = []
    for b in BATCHES:
        cmd = [sys.executable, __file__, "--runner-batch", str(b), "--steps", str(args.steps), "--work", args.work]
        runs = [
            json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])
            for _ in range(args.runs)
        ]
        row = {k: statistics.median(r[k] for r in runs) for k in ("update_states", "prepare_inputs", "bookkeeping")}
        row.update(batch=b, steps=args.steps, runs=args.runs)
        result["runner_steps"].append(row)
        print("runner", json.dumps(row), flush=True)
    result["bursts"] = []
    for spec in BURSTS:
        for limits in LIMITS:
            row = burst(*spec, limits)
            result["bursts"].append(row)
            print("burst", json.dumps(row), flush=True)
    result["summary"] = summary(result)
    print("summary", json.dumps(result["summary"]))
    out = Path(args.out) if args.out else DATA_DIR / f"engine_core_cost-{vllm.__version__}.json"
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
