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

Published sizes (brief cpumem52): a library reference the table gives a download size for (``phi3``, ``phi3:mini``,
``llama2:13b``: the row's ``files``, as ollama/ollama README.md prints them) is sized by that figure, not the estimate.
Such weights above the limit on a server of the published ollama/ollama image at a release tag from v0.2.0 to before
v0.30.0 is a load that cannot succeed, so it blocks: from v0.13.0 Ollama reads the container's cgroup limit as the
system's memory (discover/cpu_linux.go:14-20,64-74 ``getCPUMemByCgroups`` reads /sys/fs/cgroup/memory.max and
memory.current) and refuses a model whose CPU part exceeds it ("model requires more system memory ... than is
available", llm/server.go:984-991@v0.13.0, 604e43b2; verifyLayout, the same at v0.24.0); before, v0.2.0 on, the runner
reads a CPU model into its memory with mmap off (ollama_weights.py's reading) and is OOM-killed. From v0.30.0 every GGML
model runs in llama-server (9db4bdba "use llama-server exclusively for GGML models"), mmap'd unless the request turns it
off (llm/llama_server.go:355-358@v0.30.0), and that refusal is gone: the mapped weights are reclaimable page cache
(llm/llama_server.go:2651-2658@v0.32.15), so on v0.30.0 and later, and on the latest tag or no tag (a v0.32 release
today), the same shortfall is advice (review53). The figure is rounded to 0.1 GB, so 0.05 GB is taken off before
comparing. Spent set 102 LHedi22/cyber-ids@32953fa4 k8s/ollama-deployment.yaml: phi3:mini (2.3GB) at 2Gi on
ollama/ollama:latest (advice since review53). A pull of the server's API (``curl .../api/pull -d '{"name":
"phi3:mini"}'``) counts as a pull.

The KV cache comes on top (advice): a row's ``kv`` (KiB per token at f16) times Ollama's default context, 2048 tokens to
v0.6.6 and 4096 from v0.6.7 (envconfig/config.go:172@v0.6.6 88738b35, @v0.6.7; OLLAMA_CONTEXT_LENGTH), 4096 with no GPU
at v0.32.15 (server/routes.go:2050-2057), times OLLAMA_NUM_PARALLEL when the pod sets it, halved or quartered by
OLLAMA_KV_CACHE_TYPE q8_0/q4_0 (envconfig/config.go:171@v0.9.0): weights below the limit but weights plus that cache
above it are advised (spent set 98 ifwatts/llm_chess_bot: llama2 7b at 4Gi, 3.8GB + 2 GiB at 4096 tokens).

A case G46 (container-can-start, ``oversized_pulls``) already reports, an Ollama tag whose proven floor exceeds the
limit it writes on a pod with no GPU in any form, is not repeated here. A limit the server does not write but a
LimitRange of the files fills in (``policies.reading.limit_ranges.filled_by``) is judged the same way.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from components.images import image_tag, is_published
from components.ollama_library import FAMILIES, library_name, published_size
from policies.framework import unproven
from policies.kube import as_int, as_quantity, get
from policies.reading.engines import env_values, table_servers
from policies.reading.limit_ranges import filled_by
from policies.reading.ollama_pulls import api_pulls, pod_pulls
from policies.reading.ollama_weights import BITS, assigned_gpu, selects_gpu_nodes, weights_floor
from policies.reading.serving import container_argv

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
    published = published_size(model)
    if published is not None:
        return published[2]
    name, tag = parsed
    if tag and tag != "latest":
        return name_estimate(f":{tag}")
    family = FAMILIES.get(name)
    if family is None or family.latest is None:
        return None
    return name_estimate(f":{family.latest}")


def _models(server: Any) -> list[tuple[str, Optional[float]]]:
    if server.engine == "ollama":
        pulls = pod_pulls(server.podspec)
        pulls += [m for m in api_pulls(server.podspec) if m not in pulls]
        return [(m, ollama_estimate(m)) for m in pulls]
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


# ollama/ollama release tags from v0.2.0 to before v0.30.0 prove the load fails (module docstring: refused from v0.13.0,
# OOM-killed before with mmap off; llama-server mmaps the weights from v0.30.0).
_RELEASE = re.compile(r"^v?([0-9]{1,9})\.([0-9]{1,9})\.[0-9]{1,9}$")  # ASCII, at most 9 a part: int() refuses 4,300+
_PROVEN_RELEASES = ((0, 2), (0, 30))
# The KV cache's size per element by OLLAMA_KV_CACHE_TYPE, against f16 (ggml q8_0 34 bytes per 32, q4_0 18 per 32).
_KV_TYPES = {"f16": 1.0, "q8_0": 34 / 64, "q4_0": 18 / 64}


def _release(image: str) -> Optional[tuple[int, int]]:
    """(major, minor) of a published ollama/ollama image's tag, (99, 0) for latest or no tag, None otherwise."""
    if not is_published(image, ("ollama/ollama",)):
        return None
    tag = image_tag(image)
    if tag in (None, "latest"):
        return (99, 0)
    found = _RELEASE.match(tag or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def _kv_bytes(server: Any, model: str) -> Optional[float]:
    """The KV cache an Ollama server allocates for ``model`` at its default context (module docstring), None when the
    table gives no figure or the server's settings are not literal."""
    published = published_size(model)
    kib = dict(published[0].kv).get(published[1]) if published is not None else None
    if kib is None:
        return None
    env = env_values(server.container)
    release = _release(str(server.container.get("image") or ""))
    default = 2048 if release is not None and release < (0, 6) else 4096
    context = as_int(env["OLLAMA_CONTEXT_LENGTH"]) if "OLLAMA_CONTEXT_LENGTH" in env else default
    parallel = as_int(env["OLLAMA_NUM_PARALLEL"]) if "OLLAMA_NUM_PARALLEL" in env else 1
    factor = _KV_TYPES.get(str(env.get("OLLAMA_KV_CACHE_TYPE") or "f16").strip().lower())
    if not context or not parallel or factor is None or context <= 0 or parallel <= 0:
        return None
    if release == (0, 6) and "OLLAMA_CONTEXT_LENGTH" not in env:
        return None  # v0.6.0-v0.6.6 default 2048, v0.6.7 on 4096: the patch release decides
    return kib * 1024 * context * parallel * factor


def _proven(server: Any, model: str, limit: float, source: str, by_node: bool) -> bool:
    """True when the published download alone exceeds a limit the server writes, on the published image at a release
    that refuses or OOM-kills such a load (module docstring)."""
    published = published_size(model)
    release = _release(str(server.container.get("image") or ""))
    low, high = _PROVEN_RELEASES
    if server.engine != "ollama" or published is None or source or by_node or release is None:
        return False
    if not low <= release < high:
        return False
    return published[2] - 0.05e9 > limit


# OLLAMA_HOST naming another host (env or an inline assignment): the container is a client of that server.
_REMOTE_HOST = re.compile(r"^(?!(?:0\.0\.0\.0|127\.0\.0\.1|localhost|\[?::\]?)(?::|/|$))[A-Za-z0-9]")
_SCHEME = re.compile(r"^https?://")
_SERVE = re.compile(r"\bollama\s+serve\b")
_INLINE_HOST = re.compile(r"\bOLLAMA_HOST=[\"']?([^\s\"';]+)")


def _client(server: Any) -> bool:
    """True for a container of the Ollama image that talks to another host's server (OLLAMA_HOST names it, in its
    env or inline in its script) and starts none itself: a pull job's container (spent sets 58, 85), not a server."""
    argv = " ".join(container_argv(server.container))
    if _SERVE.search(argv):
        return False
    hosts = [str(env_values(server.container).get("OLLAMA_HOST") or ""), *_INLINE_HOST.findall(argv)]
    return any(_REMOTE_HOST.match(_SCHEME.sub("", h.strip())) for h in hosts)


_RUN_TO_COMPLETION = ("kubernetes:batch/v1:Job", "kubernetes:batch/v1:CronJob", "kubernetes:batch/v1beta1:CronJob")


def _held(by_node: bool) -> str:
    if by_node:
        return (
            "holds no GPU of its own (it only selects or tolerates GPU nodes, and no nvidia.com/gpu is counted for "
            "it: unless the node's runtime hands it the GPUs anyway, it computes on the CPU)"
        )
    return "holds no GPU"


def cpu_model_shortfalls(resource: Any) -> list[str]:
    """A finding for each CPU model server whose memory limit (its own, else the one a LimitRange of the files fills
    in) is below the weights of a model it loads (blocking where proven, module docstring), and advice where the
    weights fit but not with the KV cache of Ollama's default context."""
    found: list[str] = []
    for server in table_servers(resource):
        if server.engine not in _CPU_ENGINES or assigned_gpu(server.podspec):
            continue
        if server.engine == "ollama" and _client(server):
            continue
        # A pod that only selects or tolerates GPU nodes holds no GPU of its own: the scheduler counts none for it.
        by_node = selects_gpu_nodes(server.podspec)
        written, source = get(server.container, "resources", "limits", "memory"), ""
        if written is None and (filled := filled_by(resource, "limits", "memory")) is not None:
            written, source = filled[0], f" (filled in by LimitRange {filled[1]}'s default)"
        limit = as_quantity(written)
        if limit is None:
            continue
        engine = server.row.display if server.row else server.engine
        for model, size in _models(server):
            if size is None:
                continue
            if size <= limit:
                kv = _kv_bytes(server, model) if server.engine == "ollama" else None
                if kv is not None and size + kv > limit:
                    found.append(
                        unproven(
                            f"{server.label}: this {engine} server {_held(by_node)} and loads {model}, whose weights "
                            f"(about {size / 2**30:.1f} GiB as published) fit its memory limit {written}{source}, but "
                            f"not with the KV cache Ollama allocates at its default context (about {kv / 2**30:.1f} GiB "
                            f"more): the load is refused or OOM-killed, or the runner thrashes; raise the memory limit "
                            f"above both, or set a smaller OLLAMA_CONTEXT_LENGTH or a smaller model"
                        )
                    )
                continue
            # A run-to-completion pod (a Job's) need not load what it pulls: not proven.
            proven = _proven(server, model, limit, source, by_node) and resource.type not in _RUN_TO_COMPLETION
            if not proven and server.engine == "ollama" and not by_node and not source and (weights_floor(model) or 0) > limit:
                continue  # G46 reports it (container-can-start)
            how = "as published" if published_size(model) is not None else "estimated from its name"
            if proven:
                message = (
                    f"{server.label}: this {engine} server holds no GPU and loads {model}, a {size / 1e9:.1f} GB "
                    f"download ({size / 2**30:.2f} GiB, as the Ollama library publishes it), above its memory limit "
                    f"{written}: Ollama v0.13.0 to v0.24 reads the container's limit and refuses the model, earlier "
                    f"releases read it into memory and are OOM-killed, so it is never served; raise the memory limit "
                    f"above the model plus its context cache, or load a smaller model"
                )
            else:
                message = (
                    f"{server.label}: this {engine} server {_held(by_node)} "
                    f"and loads {model}, whose weights alone are about {size / 2**30:.1f} GiB ({how}), "
                    f"but its memory limit is {written}{source}: a CPU server holds the weights in its own "
                    f"memory, so the load is OOM-killed or refused and the model never served; raise the memory limit "
                    f"above the model plus its context cache, or load a smaller model"
                )
            found.append(message if proven else unproven(message))
    return found
