"""G104 (start-script-runs-server): a container's start script reaches its server, and the server's exit ends it.

Two forms of a ``sh -c`` script that keeps a container alive without its server:

* **A block before the server.** A top-level ``sleep inf`` / ``sleep infinity`` or ``tail -f /dev/null`` never returns
  (GNU coreutils v9.5 doc/coreutils.texi:19029-19033, "one could sleep indefinitely like: sleep inf"; src/sleep.c:122
  reads the interval with cl_strtod, which takes ``inf``), so no command after it runs. Where a later command starts
  a serving engine (components/serving_engines.toml ``commands``/``modules``: ``vllm serve``, ``python -m
  sglang.launch_server``, ``text-generation-launcher``, ...) the server never starts: the pod runs, listens on
  nothing and is never Ready (spent set 50 surajssd/llm-k8s configs/deepseek-v2.5-lmcache/k8s/lws.yaml: the LWS
  leader runs ``multi-node-serving.sh leader ...; sleep inf; vllm serve deepseek-ai/DeepSeek-V2.5 ...``, labelled
  none, blocking). Mandatory there; advice where what follows is no engine the table knows.
* **A sleep that outlives the server.** A model server started by the script and followed by ``|| sleep infinity``
  (or ``; sleep infinity`` / ``tail -f /dev/null`` as the script's end) keeps the container running after the server
  exits or crashes: with no livenessProbe nothing restarts it, and the pod stays NotReady with no server (spent set 67
  NursultanMakhambet/ml-ai-platform sglang/deployment.yaml: ``python3 -m sglang.launch_server ... || sleep
  infinity``, a TCP readiness probe and no liveness probe, labelled none). Advice: a debugging hold, meant or not.

Read: the containers of every pod template the pack reads (policies/kube.py pod_specs), not init containers (an init
container that blocks is another fault). Not judged: a script with compound commands (if, while, until, for, case, a
function, a trap, a brace or subshell group) before the block, a backgrounded block (``sleep inf &``), a block reached
only after ``&&``/``||``, a block under ``timeout``, a script holding a here-document (its lines are text).
"""

from __future__ import annotations

import posixpath
import re
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_list, container_label, get, pod_specs
from policies.reading.serving import engine_table, model_servers
from policies.reading.shell_commands import script_commands, wrapped
from policies.reading.vllm_args import command_tokens

_FOREVER = ("inf", "infinity")
_COMPOUND = frozenset({"if", "while", "until", "for", "case", "function", "trap", "{", "(", "select"})
_HINT = re.compile(r"\bsleep\s+inf|\btail\s+-f\s+/dev/null")


def _blocks(words: list[str]) -> Optional[str]:
    """The blocking command (``sleep inf``, ``tail -f /dev/null``) a command is, or None."""
    if words[:1] == ["sleep"] and len(words) == 2 and words[1].lower() in _FOREVER:
        return f"sleep {words[1]}"
    if words[:1] == ["tail"] and words[1:] == ["-f", "/dev/null"]:
        return "tail -f /dev/null"
    return None


def _starts_engine(words: list[str]) -> Optional[str]:
    """The engine a command starts (its command words or ``python -m`` module in the engine table), or None."""
    for engine in engine_table():
        for i, token in enumerate(words):
            base = posixpath.basename(token)
            if any(base == w[0] and words[i + 1 : i + len(w)] == list(w[1:]) for w in engine.commands):
                return engine.name
            if token == "-m" or i and words[i - 1] == "-m":
                if any(token.startswith(module) for module in engine.modules):
                    return engine.name
    return None


def _shown(words: list[str]) -> str:
    return " ".join(words[:3]) + (" ..." if len(words) > 3 else "")


def _blocked(commands: list[tuple[list[str], str]]) -> Optional[tuple[str, list[str], Optional[str]]]:
    """(the block, the first command after it, the engine a later command starts) of a script whose top-level block
    comes before other commands; None otherwise."""
    for b, (command, op) in enumerate(commands):
        words = wrapped(command)
        if words[:1] and words[0] in _COMPOUND or any(w in _COMPOUND for w in command[:1]):
            return None
        block = _blocks(words)
        if block is None:
            continue
        if any(posixpath.basename(w) == "timeout" for w in command[: len(command) - len(words)]):
            return None  # `timeout 10 sleep inf` returns once its limit passes (review51a)
        if op == "&" or (b and commands[b - 1][1] not in (";", "")):
            return None
        later = [wrapped(c) for c, _ in commands[b + 1 :]]
        later = [w for w in later if w]
        if not later:
            return None
        engine = next((e for w in later if (e := _starts_engine(w))), None)
        return block, later[0], engine
    return None


def _outlived(commands: list[tuple[list[str], str]]) -> Optional[tuple[str, str]]:
    """(the server command, the block) where a command that starts an engine is followed by ``|| BLOCK`` or, as the
    script's end, ``; BLOCK``; None otherwise."""
    for i, (command, op) in enumerate(commands[:-1]):
        words = wrapped(command)
        if not words or _starts_engine(words) is None:
            continue
        nxt, nxt_op = commands[i + 1]
        block = _blocks(wrapped(nxt))
        last = i + 1 == len(commands) - 1 and nxt_op in ("", ";")
        if block is not None and last and op in ("||", ";", ""):
            return _shown(words), block
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    servers = {id(s.container) for s in model_servers(resource)}
    for path, podspec in pod_specs(resource):
        for container in (c for c in as_list(podspec.get("containers")) if isinstance(c, dict)):
            text = " ".join(str(t) for key in ("command", "args") for t in as_list(container.get(key)))
            if not _HINT.search(text):
                continue
            tokens, script = command_tokens(container)
            if not script:
                continue
            commands = script_commands(tokens)
            label = container_label(path, container)
            # a here-document's lines are text, not commands (`cat <<EOF > hold.sh` / `sleep inf` / `EOF`): the
            # command reader does not tell them apart, so a script holding one is not judged for a block (review51a)
            blocked = None if "<<" in text else _blocked(commands)
            if blocked is not None:
                block, after, engine = blocked
                if engine is not None:
                    messages.append(
                        f"{label}: the script blocks at `{block}`, which never returns (GNU coreutils: 'sleep inf' sleeps "
                        f"indefinitely), before the command that starts the {engine} server, so the server never starts: "
                        f"the pod runs, listens on nothing and is never Ready; drop the block (or put it after the server "
                        f"as a fallback) so the script reaches the server"
                    )
                else:
                    messages.append(
                        unproven(
                            f"{label}: the script blocks at `{block}`, which never returns, so the commands after it "
                            f"(`{_shown(after)}`) never run; drop the block or move it to the end"
                        )
                    )
                continue
            outlived = _outlived(commands) if id(container) in servers else None
            if outlived is not None and not get(container, "livenessProbe"):
                server, block = outlived
                messages.append(
                    unproven(
                        f"{label}: the script runs `{server}` and then `{block}` when it ends, so a server that exits or "
                        f"crashes leaves the container running with no server; with no livenessProbe nothing restarts "
                        f"it and the pod stays NotReady; let the server's exit end the container (`exec` the server, "
                        f"drop the sleep) or add a livenessProbe on its health endpoint"
                    )
                )
    return messages


POLICY = Policy(
    name="start-script-runs-server",
    description=(
        "A container's start script reaches the command that starts its server (no `sleep inf` before it) and lets "
        "the server's exit end the container (no `|| sleep infinity` after it without a liveness probe)."
    ),
    catalog="G104",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Start the server as the script's last command, ideally with `exec` (`exec vllm serve ...`), and drop "
        "`sleep inf` / `tail -f /dev/null`; keep a debugging hold out of the serving manifest, or give the container a "
        "livenessProbe so a dead server is restarted."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "`sleep inf` never returns (GNU coreutils v9.5 doc/coreutils.texi:19029-19033; src/sleep.c:122 parses the "
        "interval with cl_strtod, which takes inf), so a command after it never runs; a server followed by "
        "`|| sleep infinity` leaves the container alive when the server dies, and only a livenessProbe restarts it."
    ),
)
