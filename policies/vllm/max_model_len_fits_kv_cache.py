"""S2: the model must fit, and a request of max_model_len must fit in the KV cache.

Only the memory: a setting vLLM refuses before it sizes any memory (tensor parallel size against the
heads, context against the model's limit, batch sizes, quantization, dtype on the GPU) is reported by
that rule's own row (components.capacity.startup, policies/vllm/startup_*.py), not here.

vLLM refuses to start otherwise: "The model's max seq len (N) is larger than the maximum number
of tokens that can be stored in KV cache (M)" (vllm-project/vllm#2418, #10517), or it finds no
memory for cache blocks at all; and it finds out minutes after a GPU node was bought. The plan
here is vLLM V1's own accounting (components.capacity.memory), from the container's flags, the
catalogue's model facts and the GPU the pod is pinned to.

Every other engine of the engine table is held to the part of that accounting that does not depend on the
engine: its weights, split over its tensor x pipeline parallel GPUs, must fit the share of each GPU its
memory-fraction setting gives it (components/serving_engines.toml memory_fraction_of: "total" a fraction of the
GPU, unset read as the whole GPU; "free" a fraction of what the weights leave, so the whole GPU). Above that the
engine cannot load the model (SGLang: "Not enough memory", TGI and TensorRT-LLM: CUDA out of memory while
loading). Only a sure refusal is reported: a server with online quantization (its weights shrink while loading),
an unknown model or GPU, or a row without a memory fraction is not judged; an unset parallel size is read as the
container's GPU limit (TGI shards over every GPU it sees), the most favourable reading.

A KubeAI Model on one of the chart's stock GPU profiles is sized as the vLLM server KubeAI renders for it
(policies/reading/kubeai_models.py: its URL as --model, its args, the profile's GPU and count, the chart's image).
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_float, gpu_count
from policies.reading.engines import EngineServer, table_servers
from policies.reading.kubeai_models import kubeai_vllm_servers
from policies.reading.serving import engine_configs
from policies.reading.vllm_args import parallel_size, served_model, vllm_servers
from policies.reading.vllm_capacity import gpu_type, release_note, server_plan, stamped_plan
from policies.reading.weights_anywhere import weights_anywhere
from policies.vllm.startup_rules import catalogue_model, refused, table_refused

GIB = 1024**3


# How far short of one request of max_model_len the KV cache must be for the estimate's error not to matter: the
# activation, non-torch and CUDA-graph charges are estimates (components/capacity, calibrated against real start-up
# logs), so a KV cache within this fraction of fitting may fit in the real engine.
_CLEAR_SHORTFALL = 0.8


def _uncalibrated(model: Any) -> str:
    """Why the accounting beyond the weights is not exact for this architecture ("" when it is): the charges are
    calibrated only on dense, unquantized, full-attention models (vLLM start-up logs quoted in vllm-project/vllm issues
    #10517, #15815 and others: Llama 3.1 8B, Qwen3 0.6B, Qwen2.5 32B). Hybrid attention (sliding-window layers beside full ones: gpt-oss, Gemma 2/3,
    config.json layer_types / sliding_window) is sized by vLLM's hybrid allocator, which shares one page size and
    block pool between the layer groups (vllm v1 core/kv_cache_utils.py), and a quantized checkpoint (MXFP4 experts,
    AWQ, GPTQ, FP8) changes the activation and kernel workspace the estimate charges."""
    arch = model.arch
    if arch.is_hybrid:
        return "sliding-window layers beside full attention"
    if arch.quant_method:
        return f"a {arch.quant_method} checkpoint"
    return ""


def _clear_failure(plan: Any, model: Any = None) -> bool:
    """True when the plan's failure does not hinge on the estimated charges: the weights alone exceed the budget, or
    the KV cache holds clearly less than one request of max_model_len on an architecture the accounting is calibrated
    for. A near miss, or a shortfall on an uncalibrated architecture (_uncalibrated), is reported as unproven."""
    if plan.weights_gib >= plan.budget_gib:
        return True
    if model is not None and _uncalibrated(model):
        return False
    if plan.kv_cache_gib <= 0:  # the charges after the weights overrun the budget: clearly only by a wide margin
        return plan.kv_cache_gib < -(1 - _CLEAR_SHORTFALL) * plan.budget_gib
    return plan.max_concurrency < _CLEAR_SHORTFALL


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    engines = {id(e.server): e for e in engine_configs(resource) if e.server is not None}
    for server in vllm_servers(resource) + kubeai_vllm_servers(resource):
        engine = engines.get(id(server))
        if engine is not None and refused(resource, engine):
            continue  # a start-up rule's own row reports it
        release = config.get("defaultVllmRelease", "")
        found = server_plan(resource, server, release)
        if found is None:
            # Not in the catalogue (a model given by its config.json): the plan stamped by the
            # components is the only one there is.
            stamped = stamped_plan(resource)
            if stamped and stamped.get("fits") is False and not stamped.get("startupRule"):
                messages.append(
                    f"{server.label}: {served_model(server) or 'the model'} does not start: {stamped.get('reason')} "
                    f"[capacity plan stamped by llm-serving, {stamped.get('kvCacheGib')} GiB KV per GPU]"
                )
            elif stamped is None and gpu_type(resource, server) is None:
                # No plan stamped and no GPU pinned: the weights must still fit some GPU (reading/weights_anywhere.py).
                why, sure = weights_anywhere(server)
                if why:
                    messages.append(why if sure else unproven(why))
            continue
        if found.plan.fits or found.plan.startup_rule:
            # A start-up rule's refusal is that rule's row to report, or was lifted where the plan cannot see it
            # (VLLM_ALLOW_LONG_MAX_MODEL_LEN, a rope-scaling override: policies/vllm/startup_rules.py).
            continue
        p = found.plan
        message = (
            f"{server.label}: {found.model_id} on {p.gpus_per_replica}x {p.gpu} ({p.gpu_memory_gib:.2f} GiB){release_note(server, release)} "
            f"does not start: "
            f"{p.reason} [budget {p.budget_gib:.2f} GiB = weights {p.weights_gib:.2f} + activation {p.activation_gib:.2f} "
            f"+ non-torch {p.non_torch_gib:.2f} + CUDA graphs {p.cuda_graph_gib:.2f} + KV {p.kv_cache_gib:.2f}]"
        )
        if (why := _uncalibrated(found.model)) and p.weights_gib < p.budget_gib:
            message += f" (an estimate: the accounting is not calibrated for {why})"
        messages.append(message if _clear_failure(p, found.model) else unproven(message))
    messages.extend(m for server in table_servers(resource) if (m := _table_weights(resource, server)))
    return messages


def _table_weights(resource: Resource, server: EngineServer) -> str:
    """Why a table engine's weights cannot fit its GPUs ("" when they can, or when it is not sure)."""
    row = server.row
    if row is None or row.memory_fraction_of not in ("total", "free") or "quantization" in server.args:
        return ""
    if table_refused(resource, server):
        return ""  # a start-up rule's own row reports it
    found = catalogue_model(resource, server.model)
    model = found[1] if found else None
    gpu = gpu_type(resource, server)
    tp, pp = parallel_size(server.args, "tensor-parallel-size"), parallel_size(server.args, "pipeline-parallel-size")
    if model is None or gpu is None or tp is None or pp is None:
        return ""
    if "tensor-parallel-size" not in server.args:
        tp = max(tp, gpu_count(server.container) or 1)
    shown = row.spelling("gpu-memory-utilization")
    fraction = 1.0
    if row.memory_fraction_of == "total" and "gpu-memory-utilization" in server.args:
        value = as_float(server.args["gpu-memory-utilization"])
        if value is None or not 0 < value <= 1:
            return ""  # out of range: S1's finding
        fraction = value
        share = f"{shown}={value:g} of"
    else:
        share = "all of"
    gpus = tp * pp
    per_gpu = model.checkpoint_bytes / GIB / gpus
    room = fraction * gpu.memory_gib
    if per_gpu <= room:
        return ""
    return (
        f"{server.label}: {model.hf_id} on {gpus}x {gpu.name} ({gpu.memory_gib:.2f} GiB) does not start: its weights "
        f"take {per_gpu:.2f} GiB per GPU ({model.checkpoint_gib:.2f} GiB over tensor parallel {tp} x pipeline "
        f"parallel {pp}), more than {share} the GPU's memory ({room:.2f} GiB), so {row.display} cannot load them; "
        f"raise {row.spelling('tensor-parallel-size')} (more GPUs per replica), serve a quantized checkpoint or use "
        f"a GPU with more memory"
    )


POLICY = Policy(
    name="vllm-max-model-len-fits-kv-cache",
    description="A vLLM server's weights must fit its GPUs and one request of --max-model-len must fit its KV cache.",
    catalog="S2",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Run `python -m stacks size --model <id> --gpu <type> --image <the container's image> ...` with the same flags "
        "(the image names the release, and for vLLM's own images of 0.9.0-0.11.0 the FlashInfer sampler the plan "
        "charges) and follow its reason: lower "
        "--max-model-len, raise --tensor-parallel-size (more GPUs per replica), use --kv-cache-dtype fp8, a quantized "
        "checkpoint, or a GPU with more memory."
    ),
    config_schema={
        "defaultVllmRelease": {
            "type": "string",
            "pattern": "^$|^[0-9]+[.][0-9]+([.][0-9]+)?$",
            "default": "",
            "description": (
                "The vLLM release assumed when an image tag names none (latest, a digest, a private build), "
                'e.g. "0.33.0". Default "": the most conservative accounting of the releases read. The message says which release it used.'
            ),
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM refuses to start when one sequence of max_model_len does not fit the KV cache: \"The model's max seq len (N) "
        'is larger than the maximum number of tokens that can be stored in KV cache (M)" '
        "(https://github.com/vllm-project/vllm/issues/2418), and finds out minutes after the GPU node was bought. The "
        "plan repeats vLLM's memory profiling (weights, activation peak, non-torch memory, CUDA graphs) before deploying."
    ),
)
