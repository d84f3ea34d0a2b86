"""G10: a CPU-only model server (Ollama, llama.cpp, LocalAI) whose memory limit is below the weights it loads (advice).

A server with no GPU in any form (``policies.reading.ollama_weights.holds_gpu``) holds its model's weights in host
memory, inside the container's memory limit: Ollama reads a CPU model into memory (ollama/ollama v0.5.4
llm/server.go:247-255, mmap off for CPU loads), and llama.cpp's mmap'd GGUF pages are page cache charged to the
container's cgroup, so a limit below the weights is OOM-killed at load or thrashes; the Ollama library's pages say
7b models generally require at least 8GB of RAM (components/ollama_library.toml, the mistral row's source).

The model a pod loads: Ollama's pulls (``ollama pull|run NAME`` in any container, postStart hook or mounted script:
``policies.reading.ollama_pulls.pod_pulls``), llama.cpp's and LocalAI's model setting (``-m``/``--model``,
``--hf-repo``/``--hf-file``, LLAMA_ARG_MODEL, LocalAI's positional model: the engine table's ``model`` spelling,
``policies.reading.engines.table_servers``). Its size is an estimate: the parameter count the Ollama tag or the GGUF
file/repository name gives (``7b``, ``0.5B``), else the size the bare Ollama name pulls (the library table's
``latest``), times the bits per weight of the quantization it names (ggml's block layouts, as G46 reads them), or 4.5
bits when none is named (the 4-bit builds Ollama pulls by default, Q4_K_M and Q4_0, store 4.5 bits per weight: ggml
block_q4_K 144 bytes per 256 weights, block_q4_0 18 per 32; llama.cpp's ``--hf-repo`` without a quant picks
Q4_K_M). A model the names cannot size is left alone. The weights alone are compared with the limit (the KV cache and
the runtime come on top): advice, as the estimate is not the file.

A case G46 (container-can-start, ``oversized_pulls``) already reports, an Ollama tag whose proven floor exceeds the
limit, is not repeated here.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from components.ollama_library import FAMILIES, library_name
from policies.framework import unproven
from policies.kube import as_quantity, get
from policies.reading.engines import table_servers
from policies.reading.ollama_pulls import pod_pulls
from policies.reading.ollama_weights import BITS, holds_gpu, weights_floor

_CPU_ENGINES = ("ollama", "llama-cpp", "localai")
# A parameter count in a name: 7b, 0.5B, 135m, between separators (mistral-7b-instruct, Qwen2.5-0.5B-Instruct-GGUF).
_COUNT = re.compile(r"(?:^|[-_.:/ ])(\d+(?:\.\d+)?)([bBmM])(?=$|[-_.:/ ])")
# A ggml quantization in a file or tag name (Q4_K_M, q8_0, IQ2_XS, F16, BF16), between separators.
_QUANT = re.compile(r"(?:^|[-_.:/ ])(i?q\d(?:_[a-z0-9]+)*|bf16|fp?16|fp?32)(?=$|[-.:/ ]|\.gguf)", re.IGNORECASE)
_DEFAULT_BITS = 4.5


def _bits(quant: Optional[str]) -> Optional[float]:
    """Bits per weight of a quantization name, the 4-bit default when none is named, None for one not in the table."""
    if quant is None:
        return _DEFAULT_BITS
    quant = quant.lower()
    return next((b for name, b in BITS.items() if quant.startswith(name)), None)


def name_estimate(name: str) -> Optional[float]:
    """Bytes of weights a GGUF file or repository name (``mistral-7b-instruct-v0.2.Q4_K_M.gguf``,
    ``Qwen/Qwen2.5-0.5B-Instruct-GGUF:q8_0``) implies, or None when it names no count or an unknown quantization."""
    counts = _COUNT.findall(name)
    if not counts or len({c for c in counts}) > 1:  # none, or two different counts (8x7b forms): not sized
        return None
    number, unit = counts[0]
    quants = _QUANT.findall(name)
    bits = _bits(quants[-1] if quants else None)
    if bits is None:
        return None
    return float(number) * (1e9 if unit.lower() == "b" else 1e6) * bits / 8


def ollama_estimate(model: str) -> Optional[float]:
    """Bytes of weights an Ollama model reference pulls: its tag's count and quantization, else the library table's
    size for the bare name (tag latest), at 4.5 bits; None when neither says."""
    parsed = library_name(model)
    if parsed is None:
        return None
    name, tag = parsed
    if tag and tag != "latest":
        return name_estimate(f":{tag}")
    family = FAMILIES.get(name)
    if family is None or family.latest is None:
        return None
    return name_estimate(f":{family.latest}")


def _models(server: Any) -> list[tuple[str, Optional[float]]]:
    if server.engine == "ollama":
        return [(m, ollama_estimate(m)) for m in pod_pulls(server.podspec)]
    model = server.model
    if not isinstance(model, str) or not model or "$" in model:
        return []
    named = model
    file = server.args.get("hf-file") or server.args.get("hff")
    if isinstance(file, str) and file:
        named = f"{model}/{file}"
    if server.engine == "localai" and not named.lower().split("?")[0].endswith(".gguf"):
        return []  # a gallery name: its size is the gallery's
    return [(model, name_estimate(named))]


def cpu_model_shortfalls(resource: Any) -> list[str]:
    """Advice for each CPU model server whose memory limit is below the estimated weights of a model it loads."""
    found: list[str] = []
    for server in table_servers(resource):
        if server.engine not in _CPU_ENGINES or holds_gpu(server.podspec):
            continue
        written = get(server.container, "resources", "limits", "memory")
        limit = as_quantity(written)
        if limit is None:
            continue
        for model, size in _models(server):
            if size is None or size <= limit:
                continue
            if server.engine == "ollama" and (weights_floor(model) or 0) > limit:
                continue  # G46 reports it (container-can-start)
            found.append(
                unproven(
                    f"{server.label}: this {server.row.display if server.row else server.engine} server holds no GPU "
                    f"and loads {model}, whose weights alone are about {size / 2**30:.1f} GiB (estimated from its "
                    f"name), but its memory limit is {written}: a CPU server holds the weights in its own memory, so "
                    f"the load is OOM-killed or refused and the model never served; raise the memory limit above the "
                    f"model plus its context cache, or load a smaller model"
                )
            )
    return found
