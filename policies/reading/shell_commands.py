"""A split shell script's simple commands, and the words that come before the command proper.

``script_commands`` cuts the tokens of a ``sh -c`` script (policies/reading/vllm_args.command_tokens) into its simple
commands, each with the operator that ends it (``;``, ``&&``, ``||``, ``|``, ``&``); redirections stay in the command.
``unwrapped`` drops the compound-command words before a command (``then``, ``do``, ``{``, ``!``, ``(``) and ``wrapped``
the prefixes that run the command after them: variable assignments (``OLLAMA_HOST=http://ollama:11434 ollama pull m``:
POSIX Shell Command Language 2.9.1 "Simple Commands", the words of the form name=value before the command name) and
wrappers (``timeout 600 ollama pull m``, ``nohup``, ``exec``). Read by S45 (policies/models/downloads_fail_loudly.py,
pull_waits_for_server.py) and G46 (policies/reading/unmounted_programs.py, with RUN_OPENERS).
"""

from __future__ import annotations

import posixpath
import re

from policies.reading.vllm_args import is_shell_operator

# Commands that run the command after their own options and operands: `timeout 600 ollama pull M` is a download.
WRAPPERS = {"timeout": 1, "nohup": 0, "time": 0, "exec": 0, "command": 0, "env": 0}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Shell words that open or continue a compound command: the command proper follows them.
OPENERS = ("then", "do", "{", "!", "(")
# With the words that open a branch or a condition (``else /x``, ``if /x; then``): every word after which the shell runs
# the next word as a command, for a reader that does not follow the branches (G46's program paths). S45's readers keep
# ``else``/``elif`` in the command: they skip that branch (downloads_fail_loudly._runs_after).
RUN_OPENERS = (*OPENERS, "else", "elif", "if", "while", "until")
CLOSERS = ("fi", "done", "esac", "}", ")")


def wrapped(command: list[str]) -> list[str]:
    """A command without the assignments and wrappers before it (``X=1 timeout -s KILL 600 ollama pull m`` is
    ``ollama pull m``)."""
    i = 0
    while i < len(command):
        word = command[i]
        if _ASSIGNMENT.match(word):
            i += 1
            continue
        operands = WRAPPERS.get(posixpath.basename(word))
        if operands is None:
            break
        i += 1
        while i < len(command) and command[i].startswith("-"):
            i += 2 if command[i] in ("-s", "-k", "--signal", "--kill-after") else 1
        i += operands
    return command[i:]


def unwrapped(command: list[str], openers: tuple[str, ...] = OPENERS) -> list[str]:
    """A command without the compound-command words before it (``then curl ...`` is ``curl ...``)."""
    i = 0
    while i < len(command) and command[i] in openers:
        i += 1
    return command[i:]


def script_commands(tokens: list[str]) -> list[tuple[list[str], str]]:
    """A split script's simple commands, each with the operator that ends it (redirections stay in the command)."""
    commands: list[tuple[list[str], str]] = []
    current: list[str] = []
    for i, token in enumerate(tokens):
        redirects = token.lstrip("0123456789&") in (">", ">>", "<", ">&", "<<")
        if is_shell_operator(token) and not redirects and not (i and tokens[i - 1] in (">", ">>", "<", ">&")):
            commands.append((current, token))
            current = []
        else:
            current.append(token)
    commands.append((current, ""))
    return [(c, op) for c, op in commands if c or op in ("&&", "||")]
