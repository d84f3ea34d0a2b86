"""S1: keep vLLM's `--gpu-memory-utilization` inside a safe band.

Too high and the rest of the device cannot hold what vLLM does not budget for (CUDA graphs in
older releases, other processes, NCCL buffers): the engine OOMs at startup or under load
(https://docs.vllm.ai/en/latest/configuration/conserving_memory.html). Too low and little or no KV cache is left: "No available memory
for the cache blocks. Try increasing `gpu_memory_utilization`" (vllm-project/vllm#2248). Above the band with
`--enforce-eager` (no CUDA graphs) is advice: what else shares the GPU is not in the files.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_float, fmt_number
from policies.reading.engines import table_servers
from policies.reading.serving import engine_configs, ray_serve_app_vllm_args
from policies.reading.vllm_args import set_at_run_time
from policies.vllm.engine_defaults import default_utilization, release_image

FLAG = "gpu-memory-utilization"

_TOO_HIGH = "CUDA graphs, NCCL buffers and other processes need the rest of the GPU, or the engine runs out of memory"
_TOO_LOW = 'too little is left for the KV cache: "No available memory for the cache blocks" (vllm-project/vllm#2248)'


def _check(resource: Resource, config: dict) -> list[str]:
    low, high = float(config["min"]), float(config["max"])
    messages = []
    for engine in engine_configs(resource):
        name = "gpu_memory_utilization" if engine.extra else f"--{FLAG}"
        if FLAG in engine.args:
            raw = engine.args[FLAG]
            shown = f"{name}={raw}" if raw is not None else f"{name} (no value)"
            value = as_float(raw)
            if value is None:
                if not set_at_run_time(raw):  # $(GPU_MEMORY_UTILIZATION) from a ConfigMap: a value, just not here
                    messages.append(f"{engine.label}: {shown} is not a number")
                continue
        else:
            # Unset: the release's default applies (vllm-gpu-memory-utilization-explicit says so too).
            default, release = default_utilization(*release_image(engine))
            value = float(default.split(" ")[-1])  # "0.92", or "0.9 or 0.92" when the image names no release
            shown = f"{name} is not set, so vLLM uses its default {default} ({release}), which"
        if value > high:
            message = f"{engine.label}: {shown} is above the maximum {fmt_number(high)}; {_TOO_HIGH}"
            # --enforce-eager captures no CUDA graphs, the largest part vLLM does not budget; what is left (NCCL
            # buffers, other processes) the files cannot size, so the finding is advice (KServe v0.20.0's own dp-ep
            # P/D samples run DeepSeek-R1 at 0.97-0.99 with --enforce-eager, docs/samples/llmisvc/dp-ep/).
            messages.append(unproven(message) if "enforce-eager" in engine.args else message)
        elif value < low:
            # Too little for the KV cache only if the model leaves too little: the capacity plan's S2 (max-model-len fits
            # the KV cache) judges that where it can size the model; the band alone proves nothing. Advice.
            messages.append(unproven(f"{engine.label}: {shown} is below the minimum {fmt_number(low)}; {_TOO_LOW}"))
    # Custom vLLM Serve applications that hand their args to vLLM's CLI parser (GKE's Ray Serve sample and its
    # derivatives): only an explicit value is read (the app's vLLM release, from its runtime_env, is not the image's).
    for label, flags in ray_serve_app_vllm_args(resource):
        value = as_float(flags.get(FLAG))
        shown = f"{label}: {FLAG}={flags.get(FLAG)} (vLLM's --{FLAG})"
        if value is None:
            continue
        if value > high:
            messages.append(f"{shown} is above the maximum {fmt_number(high)}; {_TOO_HIGH}")
        elif value < low:
            messages.append(unproven(f"{shown} is below the minimum {fmt_number(low)}; {_TOO_LOW}"))
    # Every other engine of the table whose memory fraction is of the GPU's total memory (SGLang's
    # --mem-fraction-static, TGI's --cuda-memory-fraction): an explicit value above the band leaves no room for
    # what the engine does not budget (CUDA graphs, NCCL, other processes). Below the band it only means fewer KV
    # tokens for engines whose default is chosen per GPU, so only the maximum applies to them.
    for server in table_servers(resource):
        row = server.row
        if row is None or row.memory_fraction_of != "total" or FLAG not in server.args:
            continue
        value = as_float(server.args[FLAG])
        shown = f"{row.spelling(FLAG)}={server.args[FLAG]}"
        if value is None:
            if not set_at_run_time(server.args[FLAG]):
                messages.append(f"{server.label}: {shown} is not a number")
        elif value > high:
            messages.append(f"{server.label}: {shown} is above the maximum {fmt_number(high)}; {_TOO_HIGH}")
    return messages


POLICY = Policy(
    name="vllm-gpu-memory-utilization-bounds",
    description="vLLM's --gpu-memory-utilization must lie within a configured band (default 0.80 to 0.95).",
    catalog="S1",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set --gpu-memory-utilization explicitly on the vLLM container, between `min` and `max` "
        "(default 0.80-0.95). Lower it if a sidecar shares the GPU or startup OOMs during CUDA-graph "
        "capture; raise it if vLLM reports no memory for KV cache blocks. Size it with "
        "`python -m stacks size` rather than by trial and error."
    ),
    config_schema={
        "min": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 1,
            "default": 0.80,
            "description": "Lowest allowed fraction of GPU memory for vLLM (default 0.80).",
        },
        "max": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 1,
            "default": 0.95,
            "description": "Highest allowed fraction of GPU memory for vLLM (default 0.95).",
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM pre-allocates total GPU memory x gpu_memory_utilization and fills what the weights, activations and "
        "CUDA graphs leave with KV cache (https://docs.vllm.ai/en/latest/configuration/conserving_memory.html). "
        "Close to 1.0 nothing is left for CUDA graph capture, NCCL buffers or a second process and the engine OOMs; "
        'too low and "No available memory for the cache blocks" (https://github.com/vllm-project/vllm/issues/2248). '
        "Read from vLLM containers, from Ray Serve LLM engine_kwargs, and from the args of custom vLLM Serve "
        "applications that pass them to vLLM's CLI parser (GKE's Ray Serve sample)."
    ),
)
