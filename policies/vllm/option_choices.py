"""S38: an option of vLLM whose value must be a name the release registers: ``--reasoning-parser``.

vLLM builds ``--reasoning-parser``'s choices from the parsers ``vllm/reasoning/`` registers (0.8.5.post1
vllm/engine/arg_utils.py:496-499 ``choices=list(ReasoningParserManager.reasoning_parsers)``), so argparse exits with
"invalid choice" on any other name before a weight is loaded (set 45: Nikhil-Kasam/agenticjobsearchlocal
vllm-deployment.yaml, ``--reasoning-parser=qwen3`` on vllm/vllm-openai:v0.8.5.post1, whose release registers only
deepseek_r1 and granite). Which names each release registers is components/vllm_reasoning_parsers.json, read from
the wheels (tools/read_vllm_reasoning_parsers.py).

- mandatory where the image is vLLM's own at a release read whose argparse takes the names as choices (the table's
  ``argparse_choices``: 0.8.x to 0.10.x among others) and the name is not registered there;
- advisory where the release looks the name up only when it starts (0.7.x: OpenAIServingChat raises TypeError "has not
  been registered", vllm/entrypoints/openai/serving_chat.py:85-92 at 0.7.3; 0.34.0: ReasoningParserManager
  .get_reasoning_parser raises KeyError, vllm/reasoning/abs_reasoning_parsers.py:262-276, from
  vllm/config/reasoning.py:83-85), and where the release lies between two releases read that both lack it;
- silent where the image names no release read or bounded, where ``--reasoning-parser-plugin`` registers parsers of
  its own, and for a value holding a variable.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Optional

import components
from components.engine_options import version_key
from policies.framework import Unproven, unproven
from policies.reading.vllm_args import parse_vllm_args

# Beside components/'s modules in a checkout and in the installed llm_serving package alike.
TABLE = Path(components.__file__).resolve().with_name("vllm_reasoning_parsers.json")


@cache
def _table() -> dict[str, frozenset[str]]:
    data = json.loads(TABLE.read_text())
    return {release: frozenset(names) for release, names in data["releases"].items()}


@cache
def _choices() -> frozenset[str]:
    """The releases whose argparse takes the registered names as the option's choices."""
    data = json.loads(TABLE.read_text())
    return frozenset(r for r, p in data["provenance"].items() if p.get("argparse_choices"))


def _bounds(release: str) -> tuple[str, ...]:
    """The release itself when it was read, else the two releases read around it, else ()."""
    table = _table()
    if release in table:
        return (release,)
    key = version_key(release)
    ordered = sorted(table, key=version_key)
    before = [r for r in ordered if version_key(r) < key]
    after = [r for r in ordered if version_key(r) > key]
    return (before[-1], after[0]) if before and after else ()


def reasoning_parser_refused(tokens: list[str], release: Optional[str], image: str) -> Optional[str | Unproven]:
    """A finding for a ``--reasoning-parser`` name the image's vLLM release does not register, or None."""
    args = parse_vllm_args(tokens)
    name = args.get("reasoning-parser")
    if not release or not name or name.lower() == "none" or "$" in name or "{" in name or "reasoning-parser-plugin" in args:
        return None
    bounds = _bounds(release)
    table = _table()
    if not bounds or any(name in table[b] or not table[b] for b in bounds):
        return None  # registered, or a release with no parser registry (the option itself is S38's flag check)
    having = [r for r in sorted(table, key=version_key) if name in table[r]]
    since = f"registered from vLLM {having[0]} on" if having else "registered by no vLLM release read"
    offered = ", ".join(sorted(table[bounds[0]]))
    read = f"vLLM {release}" if bounds == (release,) else f"vLLM {release} (nor {bounds[0]} and {bounds[1]} around it)"
    proven = bounds == (release,) and release in _choices()
    if not proven and version_key(release) < (0, 8, 3) and "enable-reasoning" not in args:
        return None  # before 0.8.3 the chat endpoint looks the parser up only with --enable-reasoning
    how = (
        'its argument parser takes only these names as choices and exits with "invalid choice"'
        if proven
        else "the server looks the name up among these when it starts the engine or the chat endpoint and fails there"
    )
    message = (
        f"--reasoning-parser {name}: {read}, the release of image {image}, registers only {offered} "
        f"(components/vllm_reasoning_parsers.json, read from its wheel), so {how} and the server never serves "
        f"({name} is {since}); use a registered name or a release that has it"
    )
    return message if proven else unproven(message)
