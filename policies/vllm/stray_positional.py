"""A bare word right after ``--model``'s value on a vLLM line (``--model Qwen/Qwen3-0.6B auto --port 8000``).

``--model`` takes one value (0.34.0 vllm/engine/arg_utils.py:976, a ``str`` field: nargs None), so the next word is a
positional argument. From 0.11.1 ``vllm serve`` moves --model's value to the front of the line (0.34.0
vllm/utils/argparse_utils.py:336-353, "Move <model> to the front"), that value becomes the one optional ``model_tag``
(nargs "?") and the stray word is left over: argparse exits with "unrecognized arguments: WORD". Where the line is args
alone to the image's entrypoint, an older image's ``python -m vllm.entrypoints.openai.api_server`` may read it
otherwise, and a moving tag's release is not named: advice there (as S38's model-tag rows).

``stray_after_command``: the same stray positional where ``args`` are appended to a ``command`` that is already a whole
``vllm serve TAG`` line, and the args begin with a bare word, typically a command line of their own written as args
(``python3 -m vllm.entrypoints.openai.api_server ...``). The kubelet appends args to the command; KServe's
LLMInferenceService presets keep their ``vllm serve /mnt/models --port 8000 ...`` command and append the user's args
as ``$@`` (kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-179, each preset flag with its value;
v0.16.0 and v0.17.0 name the command in ``command:`` and take the user's args the same way). ``vllm serve``'s only
positional is the model tag, already given, so argparse exits with "unrecognized arguments" at every release (set 42:
johnahull/llmd-gke pattern1/manifests/llmisvc-pattern1-tpu.yaml@b810339). Advice where the preset's
VLLM_ADDITIONAL_ARGS, set in the container's env, may end with an option the word is the value of; silent where its
words, as the preset's eval splits them (policies.vllm.option_values.additional_args, the same words S38's value
rules read before the args), do end with one (``--max-model-len`` then args ``[8192]``: review47c item 3).
"""

from __future__ import annotations

from typing import Optional

from components.engine_options import cli_options
from policies.framework import unproven
from policies.kube import as_list
from policies.reading.vllm_args import VllmServer, is_shell_operator, serve_model_tag, vllm_command_line
from policies.vllm.option_values import additional_args

_PROGRAM_WORDS = ("python", "python3", "vllm", "bash", "sh", "/bin/sh", "/bin/bash", "exec")


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
    """S38's finding on a stray word after --model's value; ``regime`` is serve_model_tag_release.tag_regime's (the image's
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


def _bare(word: str) -> bool:
    return bool(word) and not word.startswith("-") and "$" not in word and not is_shell_operator(word)


def stray_after_command(server: VllmServer, preset: bool) -> Optional[str]:
    """S38's finding on args that begin with a bare word after a command that is already a whole ``vllm serve TAG``
    line: KServe's preset command (``preset``), or a ``command`` ending at the tag (``[vllm, serve, MODEL]``)."""
    command, args = server.container.get("command"), server.container.get("args")
    if not isinstance(command, list) or not isinstance(args, list) or not args or not all(isinstance(a, str) for a in args):
        return None
    if not all(isinstance(c, str) for c in command) or not _bare(args[0]):
        return None
    tag = serve_model_tag(server.container)
    after = command[command.index("serve") + 1 :] if "serve" in command else None
    if not preset and (after is None or after != [tag] or not tag):
        return None
    words = []
    for word in args:
        if not _bare(word) and word != "-m":
            break
        words.append(word)
    shown = " ".join(words[:4])
    what = (
        "KServe keeps its preset's command `vllm serve /mnt/models --port 8000 ...` and appends the args after it "
        "(kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-179)"
        if preset
        else f"the kubelet appends args to the command `{' '.join(command)}`"
    )
    program = " (a command line of its own, written as args: set `command` to run it)" if words[0] in _PROGRAM_WORDS else ""
    message = (
        f"args begin with {shown}{program}, but {what}, so `vllm serve` gets {words[0]} as a second positional argument "
        f"after the model tag {tag} and argparse exits with 'unrecognized arguments: {' '.join(words)}' before serving; "
        f"pass only vLLM options in args"
    )
    env = server.container.get("env")
    extra = additional_args(server.container) if preset else []
    if extra and extra[-1].startswith("-") and not extra[-1].lstrip("-")[:1].isdigit() and "=" not in extra[-1]:
        if _may_take_value(extra[-1]):
            return None  # the preset's words come first: VLLM_ADDITIONAL_ARGS ending with an option takes args[0] as its value
    if preset and any(isinstance(e, dict) and e.get("name") == "VLLM_ADDITIONAL_ARGS" for e in as_list(env)):
        return unproven(f"{message} (VLLM_ADDITIONAL_ARGS, placed before them, may end with an option they are the value of)")
    return message


def _may_take_value(option: str) -> bool:
    """Whether some vLLM release read has `option` take a value (components/vllm_cli_flags.json); a flag every release
    reads as a switch (``--enforce-eager``) leaves the next word a positional."""
    table = cli_options()
    having = table.releases_with(option)
    return not having or any(table.takes_value(option, r) for r in having)
