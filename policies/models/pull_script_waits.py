"""S45's readings of a pull script that need no pod: how a script waits for its server before a pull (a poll, only
``sleep N``, a loop over a model list), whether a loop runs the pull again, and the advice for a swallowed download.
Read by policies/models/downloads_fail_loudly.py (model-download-fails-loudly) and script_map_pulls.py
(script-map-pull-checked). A shell runs on after a failed command unless set -e is in force (POSIX Shell Command
Language 2.8.2 and ``set -e``); the Ollama CLI checks the server once before each client verb (ollama v0.32.15
cmd/cmd.go:2079-2091), so ``sleep N`` is a guess at the server's start.
"""

from __future__ import annotations

import re

from policies.reading.shell_commands import unwrapped as _unwrapped
from policies.reading.shell_commands import wrapped as _wrapped

SUCCEEDS = "the container succeeds without the model"


def swallow_message(label: str, where: str, swallowed: tuple[str, str], leaves: str, slept: str) -> str:
    """The advice for a download whose failure ``where`` (a script) swallows (``_swallowed``)."""
    download, fallback = swallowed
    if fallback == "&":
        return (
            f"{label}: {where} runs `{download}` in the background (`&`) and nothing "
            f"collects its exit status (a checked `wait $!`) or checks the model afterwards, so a failed download "
            f"is silent: {leaves}{slept}; run it in the foreground with `|| exit 1` (or "
            "`wait $! || exit 1`)"
        )
    if fallback:
        return (
            f"{label}: {where} answers a failed `{download}` with "
            f"`|| {fallback}`, which succeeds (set -e does not stop a command before ||), and nothing "
            f"later checks the model: "
            f"{'the container succeeds without it and the server starts with no model' if leaves == SUCCEEDS else leaves}"
            "; end the fallback with `exit 1` (`|| { echo ...; exit 1; }`)"
        )
    return (
        f"{label}: {where} runs on after `{download}` with no set -e "
        f"and no && or || after it, so a failed download still ends with the last command's status (0): "
        f"{leaves}{slept}; add `set -e` (or `sh -ec`), or `|| exit 1` after the download"
    )


# Loop conditions that only walk a list (``while read -r model``) or spin (``while true``): no wait for the server.
_WALKS = (["read"], ["true"], [":"])


def in_retry_loop(before: list[tuple[list[str], str]]) -> bool:
    """True when the next command sits in the body of a ``while``/``until`` loop that is no walk over a list
    (``while read -r model``): a loop that runs the pull again until it succeeds, or a sync loop."""
    stack: list[bool] = []
    for command, _ in before:
        word = command[0] if command else ""
        if word in ("while", "until"):
            condition = _wrapped(_unwrapped(command[1:]))
            stack.append(word == "until" or condition[:1] != ["read"])
        elif word == "done" and stack:
            stack.pop()
    return any(stack)


def sleep_only_wait(before: list[tuple[list[str], str]]) -> bool:
    """True when the commands before a pull wait for the server only by sleeping: a ``sleep`` and no poll (an
    ``until`` loop, a ``while`` loop whose condition is not ``read``/``true``, a curl/wget/nc call, ``ollama
    list``/``ollama ps``). A ``while read -r model`` loop over a model list is no wait."""
    if not any(c[:1] == ["sleep"] for c, _ in before):
        return False
    for command, _ in before:
        word = command[0] if command else ""
        if word in ("until", "while"):
            condition = _wrapped(_unwrapped(command[1:]))
            if word == "until" or condition[:1] not in _WALKS:
                return False
            continue
        words = _wrapped(command)
        if words[:1] in (["curl"], ["wget"], ["nc"]) or words[:2] in (["ollama", "list"], ["ollama", "ps"]):
            return False
    return True


HOW = {
    "background": "in the background, and nothing collects its exit status (a checked `wait $pid`)",
    "slept": "after only `sleep` waited for the server (a slower start fails it), with no set -e and no && or || "
    "after it, and the script runs on",
    "foreground": "with no set -e and no && or || after it, so a failed pull (a registry error, a full disk, a "
    "server that stopped answering) is swallowed and the script runs on",
}
# `#!/bin/sh -e`: the script's own interpreter line turns errexit on.
SHEBANG_ERREXIT = re.compile(r"^#!\S+(?:\s+\S+)*?\s+-[a-zA-Z]*e[a-zA-Z]*(?:\s|$)")
