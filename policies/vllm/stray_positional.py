"""A bare word right after ``--model``'s value on a vLLM line (``--model Qwen/Qwen3-0.6B auto --port 8000``).

``--model`` takes one value (0.34.0 vllm/engine/arg_utils.py:976, a ``str`` field: nargs None), so the next word is a
positional argument. From 0.11.1 ``vllm serve`` moves --model's value to the front of the line (0.34.0
vllm/utils/argparse_utils.py:336-353, "Move <model> to the front"), that value becomes the one optional ``model_tag``
(nargs "?") and the stray word is left over: argparse exits with "unrecognized arguments: WORD". Where the line is args
alone to the image's entrypoint, an older image's ``python -m vllm.entrypoints.openai.api_server`` may read it
otherwise, and a moving tag's release is not named: advice there (as S38's model-tag rows).
"""

from __future__ import annotations

from typing import Optional

from policies.framework import unproven
from policies.reading.vllm_args import VllmServer, is_shell_operator, serve_model_tag, vllm_command_line


def stray_word(line: list[str]) -> Optional[tuple[str, str]]:
    """(model, word) when the token right after --model's value is a bare word (no option, variable, shell operator
    or ``--``), else None."""
    for i, token in enumerate(line):
        if token == "--model" and i + 2 < len(line):
            model, word = line[i + 1], line[i + 2]
        elif token.startswith("--model=") and i + 1 < len(line):
            model, word = token.partition("=")[2], line[i + 1]
        else:
            continue
        if model.startswith("-") or not word or word.startswith("-") or "$" in word or is_shell_operator(word):
            return None
        return model, word
    return None


def stray_positional(server: VllmServer, regime: tuple[Optional[str], str], serve_written: bool) -> Optional[str]:
    """S38's finding on a stray word after --model's value; ``regime`` is flags_exist._tag_regime's (the image's
    release and how its parser treats a positional with --model), ``serve_written`` whether the line runs
    ``vllm serve`` itself."""
    if server.runtime_merged or serve_model_tag(server.container) is not None:
        return None  # a positional before --model is the model-tag row's
    found = stray_word(vllm_command_line(server.container) or [])
    if found is None:
        return None
    model, word = found
    kind, release = regime
    message = (
        f"--model {model} {word}: --model takes one value, so {word} is a stray positional argument; `vllm serve` "
        f"(0.11.1 and later) moves --model's value to the front as the model tag and argparse exits with "
        f"'unrecognized arguments: {word}' before serving (vllm/utils/argparse_utils.py, 0.34.0 :336-353); remove {word}"
    )
    if kind == "unrecognized" and serve_written:
        return f"{message} (vLLM {release})"
    return unproven(message)
