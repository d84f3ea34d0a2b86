"""G10: a CPU-only model server (Ollama, llama.cpp, LocalAI) whose memory limit is below the weights it loads (advice).

A server handed no GPU (``policies.reading.ollama_weights.assigned_gpu``: no accelerator resource, DRA claim, runtime
class or NVIDIA_VISIBLE_DEVICES of its own; a pod that only selects or tolerates GPU nodes is said so, as the scheduler
counts no GPU for it: spent set 69 HealthFlowEgy/hfcx-ai-claims k8s/ollama.yaml) holds its model's weights in host
memory, inside the container's memory limit: Ollama reads a CPU model into memory (ollama/ollama v0.5.4
llm/server.go:247-255, mmap off for CPU loads), and llama.cpp's mmap'd GGUF pages are page cache charged to the
container's cgroup, so a limit below the weights is OOM-killed at load or thrashes; the Ollama library's pages say
7b models generally require at least 8GB of RAM (components/ollama_library.toml, the mistral row's source).

The model a pod loads: Ollama's pulls (``ollama pull|run NAME`` in any container, postStart hook or mounted script:
``policies.reading.ollama_pulls.pod_pulls``), llama.cpp's and LocalAI's model setting (``-m``/``--model``,
``--hf-repo``/``--hf-file``, LLAMA_ARG_MODEL, LocalAI's positional model: the engine table's ``model`` spelling,
``policies.reading.engines.table_servers``); an Ollama model of another namespace (``alibayram/medgemma:27b``,
``hf.co/owner/Repo-7B-GGUF:Q4_K_M``) by the count its tag, else its name, gives. Its size is an estimate: the parameter count the Ollama tag or the GGUF
file/repository name gives (``7b``, ``0.5B``), else the size the bare Ollama name pulls (the library table's
``latest``), times the bits per weight of the quantization it names (ggml's block layouts, as G46 reads them), or 4.5
bits when none is named (the 4-bit builds Ollama pulls by default, Q4_K_M and Q4_0, store 4.5 bits per weight: ggml
block_q4_K 144 bytes per 256 weights, block_q4_0 18 per 32; llama.cpp's ``--hf-repo`` without a quant picks
Q4_K_M). A model the names cannot size is left alone. The weights alone are compared with the limit (the KV cache and
the runtime come on top): advice, as the estimate is not the file.

A case G46 (container-can-start, ``oversized_pulls``) already reports, an Ollama tag whose proven floor exceeds the
limit it writes on a pod with no GPU in any form, is not repeated here. A limit the server does not write but a
LimitRange of the files fills in (``policies.reading.limit_ranges.filled_by``) is judged the same way.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from components.ollama_library import FAMILIES, library_name
from policies.framework import unproven
from policies.kube import as_quantity, get
from policies.reading.engines import table_servers
from policies.reading.limit_ranges import filled_by
from policies.reading.ollama_pulls import pod_pulls
from policies.reading.ollama_weights import BITS, assigned_gpu, selects_gpu_nodes, weights_floor

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


# A model of another namespace than the library's: ``owner/name[:tag]`` or a registry's ``hf.co/owner/repo[:quant]``.
_NAMESPACED = re.compile(r"^(?:[a-z0-9.-]+\.[a-z]+/)?[\w.-]+/[\w.-]+(?::[\w.-]+)?$", re.IGNORECASE)


def _namespaced_estimate(model: str) -> Optional[float]:
    """Bytes of weights a model of another namespace pulls (``alibayram/medgemma:27b``,
    ``hf.co/bartowski/Qwen2.5-7B-Instruct-GGUF:Q4_K_M``): the count its tag names, else the one its name does, at the
    quantization the tag names or the 4.5-bit default; None when no single count is named."""
    model = model.strip().strip("\"'")
    if "$" in model or "@" in model or not _NAMESPACED.match(model):
        return None
    path, _, tag = model.partition(":")
    if tag and tag != "latest" and _COUNT.search(f":{tag}"):
        return name_estimate(f":{tag}")
    return name_estimate(f"{path.rsplit('/', 1)[-1]}:{tag}" if tag else path.rsplit("/", 1)[-1])


def ollama_estimate(model: str) -> Optional[float]:
    """Bytes of weights an Ollama model reference pulls: its tag's count and quantization, else the library table's
    size for the bare name (tag latest), at 4.5 bits; a model of another namespace by the count its tag or name
    gives; None when none says."""
    parsed = library_name(model)
    if parsed is None:
        return _namespaced_estimate(model)
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
    """Advice for each CPU model server whose memory limit (its own, else the one a LimitRange of the files fills in)
    is below the estimated weights of a model it loads."""
    found: list[str] = []
    for server in table_servers(resource):
        if server.engine not in _CPU_ENGINES or assigned_gpu(server.podspec):
            continue
        # A pod that only selects or tolerates GPU nodes holds no GPU of its own: the scheduler counts none for it.
        by_node = selects_gpu_nodes(server.podspec)
        written, source = get(server.container, "resources", "limits", "memory"), ""
        if written is None and (filled := filled_by(resource, "limits", "memory")) is not None:
            written, source = filled[0], f" (filled in by LimitRange {filled[1]}'s default)"
        limit = as_quantity(written)
        if limit is None:
            continue
        for model, size in _models(server):
            if size is None or size <= limit:
                continue
            if server.engine == "ollama" and not by_node and not source and (weights_floor(model) or 0) > limit:
                continue  # G46 reports it (container-can-start)
            held = (
                "holds no GPU of its own (it only selects or tolerates GPU nodes, and no nvidia.com/gpu is counted for "
                "it: unless the node's runtime hands it the GPUs anyway, it computes on the CPU)"
                if by_node
                else "holds no GPU"
            )
            found.append(
                unproven(
                    f"{server.label}: this {server.row.display if server.row else server.engine} server {held} "
                    f"and loads {model}, whose weights alone are about {size / 2**30:.1f} GiB (estimated from its "
                    f"name), but its memory limit is {written}{source}: a CPU server holds the weights in its own "
                    f"memory, so the load is OOM-killed or refused and the model never served; raise the memory limit "
                    f"above the model plus its context cache, or load a smaller model"
                )
            )
    return found
