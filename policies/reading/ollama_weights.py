"""G46: an Ollama model pulled by a CPU pod whose weights alone exceed the server container's memory limit.

The size is a lower bound read from the Ollama tag (``llama3.3:70b-instruct-q2_K``): the parameter count the tag names
(``70b``, ``0.5b``, ``135m``) x 0.9 (tags round the count up: llama2's ``7b`` is 6.7B) x the bits per weight of the
smallest block the tag's quantization stores (ggml's block layouts, ggml-org/llama.cpp ggml/src/ggml-common.h:
block_q2_K 84 bytes per 256 weights = 2.625 bits, q3_K 110/256, q4_K 144/256, q5_K 176/256, q6_K 210/256, q4_0 18/32,
q4_1 20/32, q5_0 22/32, q5_1 24/32, q8_0 34/32; f16/bf16 16, f32 32); a tag naming no quantization is the library's
default, read as 4 bits (every default build is 4-bit or wider). A tag naming neither a count nor a known
quantization (``phi3:mini``, ``8x7b``, ``iq2_xs``) is not sized.

Ollama v0.2.0 to v0.24.x load a model on the CPU with mmap off ("For CPU loads we want the memory to be allocated, not
FS cache", ollama/ollama v0.5.4 llm/server.go:247-255, the same condition at every tag from v0.2.0 to v0.24.0): the
runner reads the weights into the container's memory, so a model larger than its limit is OOM-killed at load (and
the free-memory check reads the node's /proc/meminfo, discover/gpu_linux.go:57-80, so it does not refuse first). That
is proven where the image is ollama/ollama at a tag naming such a release and the pod holds no GPU; any other tag (latest, a later release
whose loader was not read here) is advice. A pod with a GPU may offload layers to it: not judged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from components.images import image_tag, is_published, names_image
from policies.framework import unproven
from policies.kube import as_dict, as_list, as_quantity, container_label, containers, get
from policies.reading.accelerators import claims_devices, requests_accelerator
from policies.reading.engines import env_values
from policies.reading.gpu_pools import node_label_keys
from policies.reading.ollama_pulls import pod_pulls
from policies.reading.serving import container_argv, engine_row

# Bits per weight of each ggml quantization's block (module docstring), by the tag's spelling (lower case, prefix).
BITS = {
    "q2_k": 2.625,
    "q3_k": 3.4375,
    "q4_k": 4.5,
    "q5_k": 5.5,
    "q6_k": 6.5625,
    "q4_0": 4.5,
    "q4_1": 5.0,
    "q5_0": 5.5,
    "q5_1": 6.0,
    "q8_0": 8.5,
    "f16": 16.0,
    "fp16": 16.0,
    "bf16": 16.0,
    "f32": 32.0,
    "fp32": 32.0,
}
_DEFAULT_BITS = 4.0
_COUNT = re.compile(r"^(\d+(?:\.\d+)?)([bm])$")
_QUANT_LIKE = re.compile(r"^(?:i?q\d|fp?\d|bf\d|int\d|mxfp)")
# ollama/ollama tags whose CPU loads run with --no-mmap (module docstring).
_NO_MMAP = re.compile(r"^v?0\.(?:[2-9]|1\d|2[0-4])\.\d+$")


def weights_floor(model: str) -> Optional[float]:
    """A lower bound of the model's weights in bytes from its Ollama tag, or None when the tag does not say."""
    tag = model.rpartition("/")[2].partition(":")[2].lower()
    count, bits = None, None
    for token in tag.split("-"):
        if (found := _COUNT.match(token)) is not None:
            count = float(found.group(1)) * (1e9 if found.group(2) == "b" else 1e6)
        elif _QUANT_LIKE.match(token):
            bits = next((b for name, b in BITS.items() if token.startswith(name)), 0.0)
    if count is None or bits == 0.0:
        return None
    return count * 0.9 * (bits or _DEFAULT_BITS) / 8


def _servers(podspec: Mapping) -> list[dict]:
    """The pod's containers that run `ollama serve` (the Ollama image with no command of its own, or the command)."""
    row = engine_row("ollama")
    images = row.images if row is not None else ("ollama/ollama",)
    found = []
    for container in containers(podspec):
        argv = " ".join(container_argv(container))
        image = str(container.get("image") or "").lower()
        if re.search(r"\bollama\s+serve\b", argv) or (not container.get("command") and names_image(image, images)):
            found.append(container)
    return found


def holds_gpu(podspec: Mapping) -> bool:
    """True when the pod may reach a GPU in any form: an accelerator resource, a DRA claim (resourceClaims or
    resources.claims), a runtime class, NVIDIA's device variable, or a GPU node it selects or tolerates (the
    ollama/ollama image sets NVIDIA_VISIBLE_DEVICES=all itself, v0.5.4 Dockerfile:196-197, so on a node whose
    default runtime is NVIDIA's the pod sees the GPUs and the CPU path, v0.5.4 llm/server.go:247-255, is not taken)."""
    if assigned_gpu(podspec):
        return True
    return selects_gpu_nodes(podspec)


def assigned_gpu(podspec: Mapping) -> bool:
    """True when the pod is handed a GPU by what it states: an accelerator resource, a DRA claim, a runtime class, or
    NVIDIA's device variable set by the pod itself."""
    if requests_accelerator(podspec) or claims_devices(podspec) or podspec.get("runtimeClassName"):
        return True
    return any("NVIDIA_VISIBLE_DEVICES" in env_values(c) for c in containers(podspec, init=True))


def selects_gpu_nodes(podspec: Mapping) -> bool:
    """True when the pod selects or tolerates nodes by a GPU or accelerator label or taint key."""
    words = [*node_label_keys(dict(podspec)), *(f"{k}={v}" for k, v in as_dict(podspec.get("nodeSelector")).items())]
    words += [str(as_dict(t).get("key") or "") for t in as_list(podspec.get("tolerations"))]
    return any("gpu" in w.lower() or "accelerator" in w.lower() for w in words)


def oversized_pulls(path: str, podspec: Mapping) -> list[str]:
    """A finding for each model the pod pulls whose weights exceed every Ollama server container's memory limit."""
    models = pod_pulls(podspec)
    servers = _servers(podspec) if models and not holds_gpu(podspec) else []
    limits = [as_quantity(get(c, "resources", "limits", "memory")) for c in servers]
    if not servers or any(limit is None for limit in limits):
        return []
    limit = max(x for x in limits if x is not None)
    server = servers[limits.index(limit)]
    tag = image_tag(str(server.get("image") or ""))
    messages = []
    for model in models:
        floor = weights_floor(model)
        if floor is None or floor <= limit:
            continue
        message = (
            f"{container_label(path, server)}: the pod pulls the Ollama model {model}, whose weights alone are at "
            f"least {floor / 2**30:.1f} GiB, but the server is limited to {get(server, 'resources', 'limits', 'memory')} "
            f"and holds no GPU: Ollama loads CPU models into memory (mmap off), so the load is refused (when the node's "
            f"free memory is short) or its runner OOM-killed, and the model is never served; raise the memory limit above the model or pull a smaller one"
        )
        official = is_published(str(server.get("image") or ""), ("ollama/ollama",))
        proven = official and tag is not None and _NO_MMAP.match(tag) is not None
        messages.append(message if proven else unproven(message))
    return messages
