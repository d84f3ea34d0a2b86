"""The context window each model server of a workload serves per request, as its manifest states it.

Per engine of the table (components/serving_engines.toml): the row's ``max-model-len`` setting as the container writes it
(vLLM ``--max-model-len``, SGLang ``--context-length``, TGI ``--max-total-tokens``/``MAX_TOTAL_TOKENS``, llama.cpp
``--ctx-size``/``-c``/``LLAMA_ARG_CTX_SIZE``, Ollama ``OLLAMA_CONTEXT_LENGTH``, LocalAI ``--context-size``/
``CONTEXT_SIZE``), a whole literal only; where it is unset, the default the engine's context table gives at the release
the publisher's image tag names (Ollama: 2,048 tokens up to 0.6.6, 4,096 from 0.6.7, fitted to the GPUs' memory from
0.15.5: components/engine_context.py). A moving tag, another image or a default that is no figure gives nothing: the
served window is then unknown and no finding rests on it.

llama.cpp splits ``--ctx-size`` over the slots an explicit ``-np``/``--parallel`` N (or LLAMA_ARG_N_PARALLEL) asks for:
each request gets at most ctx / N (b3753 to b6500 n_ctx_slot = n_ctx / n_parallel; b8914 n_ctx_seq, both padded up to
256: the engine table's llama-cpp context source). With ``--kv-unified`` (or -np auto, b8914's default) a slot may take
the whole context at b8914, so the whole ``--ctx-size`` is the bound read there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from components.engine_context import engine_context
from components.engine_env import image_release
from policies.kube import memoized
from policies.reading.container_env import env_values
from policies.reading.engines import table_servers
from policies.reading.vllm_args import vllm_servers


@dataclass(frozen=True)
class Served:
    """One server's context window: ``tokens``, how the manifest sets it (for messages) and the engine's row name."""

    tokens: int
    how: str
    engine: str
    label: str


def whole(value: Any) -> Optional[int]:
    """A positive whole number written as a literal (ASCII digits, at most 12), else None."""
    text = str(value).strip().strip("\"'") if value is not None and not isinstance(value, bool) else ""
    return int(text) if 0 < len(text) <= 12 and text.isascii() and text.isdigit() and int(text) > 0 else None


def served_contexts(resource: Any) -> list[Served]:
    """Every model server of ``resource`` whose served context its manifest states (module docstring)."""
    return list(memoized(resource, "served_contexts", _served))


def _served(resource: Any) -> list[Served]:
    found = []
    for server in vllm_servers(resource):
        tokens = whole(server.args.get("max-model-len"))
        if tokens is not None:
            found.append(Served(tokens, f"vLLM --max-model-len {tokens}", "vllm", server.label))
    for one in table_servers(resource):
        row, facts = one.row, engine_context(one.engine)
        if row is None or facts is None:
            continue
        value = one.args.get("max-model-len")
        tokens = whole(value)
        if tokens is not None and one.engine == "llama-cpp":
            tokens, split = _per_slot(one.args, tokens)
            if split:
                found.append(Served(tokens, f"{row.display} {one.flag('max-model-len')} {split}", one.engine, one.label))
                continue
        if tokens is not None:
            env = env_values(one.container)
            named = next((n for n in row.env.get("max-model-len", ()) if n in env and whole(env[n]) == tokens), None)
            how = f"{row.display} {named}={tokens}" if named else f"{row.display} {one.flag('max-model-len')} {tokens}"
            found.append(Served(tokens, how, one.engine, one.label))
        elif value is None:
            image = one.container.get("image")
            release = image_release(image, row)
            tokens = facts.default_at(release)
            if tokens is not None:
                unset = str(row.shown.get("max-model-len", "its context setting")).removeprefix("env ")
                how = f"{row.display} {release}'s default with {unset} unset"
                found.append(Served(tokens, how, one.engine, one.label))
    return found


def _pad(tokens: int) -> int:
    return -(-tokens // 256) * 256


def _per_slot(args: dict, tokens: int) -> tuple[int, str]:
    """(the context one llama.cpp request gets, how the split reads or "") for a server of ``--ctx-size`` ``tokens``: the
    context over an explicit slot count above one without a unified KV cache (module docstring), padded as b8914 pads
    it (the larger bound), else the whole context."""
    slots = whole(next((args[k] for k in ("parallel", "np", "n-parallel") if k in args), None))
    unified = any(
        k in args and str(args[k] or "1").strip().lower() not in ("0", "false", "off", "no") for k in ("kv-unified", "kvu")
    )
    if slots is None or slots < 2 or unified:
        return tokens, ""
    per = _pad(_pad(tokens) // slots)
    return per, f"{tokens} over --parallel {slots} slots"
