"""G10: a vLLM server on the CPU whose memory limit is below its weights plus the KV cache space its CPU backend
reserves (advice).

vLLM's CPU backend (a CPU build: the vllm/vllm-openai-cpu image, a ``-cpu`` tag; or ``--device cpu`` on a 0.6.x or earlier GPU build,
whose wheel ships the CPU executor) keeps its KV
cache in host memory, sized by VLLM_CPU_KVCACHE_SPACE in GiB, 4 GiB when the variable is unset or 0 (vllm 0.6.4.post1
wheel vllm/executor/cpu_executor.py:345-351 "not set, using 4 by default", vllm/envs.py:316-317; ``--device cpu``
selects that executor on any build, vllm/config.py:1190-1211 DeviceConfig, vllm/engine/async_llm_engine.py:628-630),
and the worker allocates it as CPU tensors (vllm/worker/cpu_worker.py:80), inside the container's memory limit with
the weights. The weights are estimated from the parameter count the model's name gives (``TinyLlama-1.1B``) at 2 bytes
each (the CPU backend runs bfloat16, casting float16 to it, cpu_executor.py ``_verify_and_get_model_config``; 4 for
``--dtype float32``); a name naming a quantization (AWQ, GPTQ, int8, fp8, GGUF, bnb) or no count is not sized. Advice,
as the estimate is not the checkpoint and the allocation is touched as it fills: spent set 100
salonich/aranya-cluster@939cfe9f apps/vllm/deployment.yaml (TinyLlama 1.1B, --device=cpu, no
VLLM_CPU_KVCACHE_SPACE, a 3Gi limit).
"""

from __future__ import annotations

import re
from typing import Any, Optional

from components.images import image_tag
from policies.framework import unproven
from policies.kube import as_int, as_quantity, get
from policies.reading.engines import env_values
from policies.reading.ollama_weights import assigned_gpu
from policies.reading.vllm_args import served_model, vllm_servers

# A parameter count in a model name (TinyLlama-1.1B-Chat, Qwen2.5-0.5B-Instruct), between separators.
_COUNT = re.compile(r"(?:^|[-_./])(\d+(?:\.\d+)?)([bBmM])(?=$|[-_./])")
_QUANTIZED = re.compile(r"awq|gptq|int[48]|w[48]a|fp8|gguf|bnb|[48]bit|quant", re.IGNORECASE)
_CPU_IMAGE = re.compile(r"(?:^|/)vllm[-_/]?(?:openai-)?cpu|[:-]cpu(?:$|[-.])", re.IGNORECASE)
_OLD_RELEASE = re.compile(r"^v?0\.[0-6]\.")
_GiB = 2**30


def _on_cpu(server: Any) -> bool:
    """A CPU build (any device setting but another one), or ``--device cpu`` on a GPU build of a release whose wheel
    ships the CPU executor and reads it (0.6.x and before, as read at 0.6.4.post1); a later GPU build given
    ``--device cpu`` does not start at all (G13 says so), so its memory is not judged."""
    device = server.args.get("device")
    image = str(server.container.get("image") or "")
    if assigned_gpu(server.podspec):
        return False
    if _CPU_IMAGE.search(image) is not None:
        return device in (None, "auto", "cpu")
    return device == "cpu" and _OLD_RELEASE.match(image_tag(image) or "") is not None


def _weights(model: str, dtype: Optional[str]) -> Optional[float]:
    """Bytes of a model's weights at the CPU backend's dtype, from the count its name gives; None when not sized."""
    if _QUANTIZED.search(model):
        return None
    counts = {c for c in _COUNT.findall(model.rsplit("/", 1)[-1])}
    if len(counts) != 1:
        return None
    number, unit = counts.pop()
    width = 4 if (dtype or "").lower() in ("float32", "float") else 2
    return float(number) * (1e9 if unit.lower() == "b" else 1e6) * width


def vllm_cpu_shortfalls(resource: Any) -> list[str]:
    """Advice for each vLLM server on the CPU whose memory limit is below its weights plus its KV cache space."""
    found: list[str] = []
    for server in vllm_servers(resource):
        if server.runtime_merged or not _on_cpu(server):
            continue
        written = get(server.container, "resources", "limits", "memory")
        limit = as_quantity(written)
        model = served_model(server)
        if limit is None or not isinstance(model, str) or "$" in model:
            continue
        weights = _weights(model, server.args.get("dtype"))
        env = env_values(server.container)
        space = as_int(env["VLLM_CPU_KVCACHE_SPACE"]) if "VLLM_CPU_KVCACHE_SPACE" in env else 0
        if weights is None or space is None or space < 0:
            continue
        kv = (space or 4) * _GiB
        if weights + kv <= limit:
            continue
        said = f"VLLM_CPU_KVCACHE_SPACE={space}" if space else "VLLM_CPU_KVCACHE_SPACE unset: 4 GiB by default"
        found.append(
            unproven(
                f"{server.label}: this vLLM server runs on the CPU and loads {model}, about {weights / _GiB:.1f} GiB "
                f"of weights (estimated from its name), and its CPU backend keeps a KV cache of {kv / _GiB:.0f} GiB "
                f"in host memory ({said}), but its memory limit is {written}: it is OOM-killed at load or as the "
                f"cache fills; raise the limit above both, or set VLLM_CPU_KVCACHE_SPACE to what the limit leaves"
            )
        )
    return found
