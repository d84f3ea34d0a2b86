"""S45: a script that starts a server in the background waits for it to answer before calling it, not a fixed sleep.

A pod script often starts the model server itself and then uses it: ``ollama serve & sleep 5 && ollama pull mistral``
in an init container that fills the model store, or ``ollama serve & sleep 3 && ollama run $MODEL && wait`` as the
server container's own command. ``sleep N`` is a guess at how long the server takes to listen; nothing checks it. The
Ollama CLI asks the server once and gives up at once when nothing listens: every client verb runs
``checkServerHeartbeat`` first, which on Linux answers a refused connection with "could not connect to ollama
server" and no retry (ollama/ollama v0.32.15 cmd/cmd.go:2079-2091, cmd/start_default.go:12-14); ``curl`` and ``wget``
fail at once on a refused connection too unless told ``--retry-connrefused``. So on a slow node (a cold store, a CPU
quota, a large model directory scanned at start) the call fails, and where the script lets that failure decide its
status (``&&`` to the end of the script, or the call as its last command, or ``set -e``):

* an init container fails and the kubelet restarts it with back-off: the pod stays in Init until a start wins the race;
* a container whose own script runs the server exits, taking the server with it, and restarts (CrashLoopBackOff);
* a pod that runs to completion fails (a Job retries it).

Spent sets 58 (kunalsingh286/k8s-llm-deployment-platform k8s/deployment.yaml, init container ``ollama serve & sleep 5
&& ollama pull ${MODEL_NAME}``), 88 (biswa123642/local-k8s-ai-agent k8s/ollama.yaml, ``ollama serve & sleep 5 &&
ollama pull mistral && pkill ollama``) and 84 (asifkhan03/ollamaverse K8S-Manifests/python/ollama-tinyllama.yaml,
``ollama serve & sleep 3 && ollama run $OLLAMA_MODEL && wait`` as the server's command). Advice: the files cannot show
how long the server takes to start.

Silent where the script waits for the server (an ``until``/``while`` loop, ``ollama list``/``ollama ps``, a curl or wget
poll, ``--retry-connrefused``; but a one-shot ``ollama list | grep -q M || ollama pull M`` waits for nothing: the pull
after ``||`` is the call, spent set 122 Ofor-David/gke-llm-platform@be324c9f k8s/charts/ollama/templates/deployment.yaml),
where something other than sleeping, echoing or assigning runs between the start and the call (not judged), and where the call's failure is swallowed (no set -e, a later command after ``;``): the download
forms of model-download-fails-loudly report those. A postStart hook's call is G48's (post-start-hook-waits).

Read in every pod template the pack reads (init containers, containers of pods that run to completion, server
containers), in the container's own command line and in a ConfigMap script of the files that it mounts and runs
(policies/reading/mounted_scripts.py: an entrypoint.sh beside the server image).
"""

from __future__ import annotations

import posixpath
import re
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_list, container_label, pod_specs
from policies.reading.mounted_scripts import mounted_script_files
from policies.reading.shell_commands import script_commands, unwrapped, wrapped
from policies.reading.shell_words import split_shell
from policies.reading.vllm_args import command_tokens

# A call to a server on the pod's own address.
_LOCAL_URL = re.compile(r"^(?:https?://)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::\d+)?(?:/|$)")
# Options that make curl or wget retry a refused connection: a wait of their own.
_RETRIES = ("--retry-connrefused", "--retry-all-errors", "--waitretry")
# Commands that may run between the start and the call without waiting for anything.
_IDLE = ("sleep", "echo", "printf", ":", "true", "export")
# Ollama verbs that only ask the server whether it is up (a poll when they run before the call).
_OLLAMA_POLLS = ("list", "ls", "ps", "--version", "-v", "serve")
_ERREXIT = re.compile(r"^-[a-zA-Z]*e[a-zA-Z]*$")


def _server(words: list[str]) -> Optional[str]:
    """ "ollama" for ``ollama serve``, "http" for any other backgrounded command (a server when the script then calls
    a local URL), None for nothing."""
    if not words:
        return None
    return "ollama" if posixpath.basename(words[0]) == "ollama" and words[1:2] == ["serve"] else "http"


def _call(words: list[str], server: str) -> Optional[str]:
    """How a command calls the backgrounded server (``ollama pull``, ``curl URL``), "" for a command that waits for it
    (a poll, a retrying curl), None for a command that does neither."""
    program = posixpath.basename(words[0]) if words else ""
    if program == "ollama" and server == "ollama":
        verb = words[1] if len(words) > 1 else ""
        return "" if verb in _OLLAMA_POLLS else f"ollama {verb}".strip()
    if program in ("curl", "wget"):
        url = next((w for w in words[1:] if _LOCAL_URL.match(w)), None)
        if url is None:
            return None
        return "" if any(w.startswith(_RETRIES) or w in ("--tries", "-t") for w in words) else f"{program} {url}"
    return None


def _errexit(container: dict, tokens: list[str]) -> bool:
    head = [str(t) for key in ("command", "args") for t in as_list(container.get(key))][:3]
    if any(_ERREXIT.match(t) for t in head[1:]):
        return True
    return any(
        t == "set" and (bool(_ERREXIT.match(tokens[i + 1])) or tokens[i + 1 : i + 3] == ["-o", "errexit"])
        for i, t in enumerate(tokens[:-1])
    )


def _raced(container: dict) -> Optional[tuple[str, str, str]]:
    """(the server start, the call, the sleeps before it) of a container's own script that calls its backgrounded
    server after only sleeping, where the call's failure decides the script's status; None otherwise."""
    text = " ".join(str(t) for key in ("command", "args") for t in as_list(container.get(key)))
    if "&" not in text:
        return None
    tokens, script = command_tokens(container)
    return _raced_tokens(tokens, _errexit(container, tokens)) if script else None


def _raced_tokens(tokens: list[str], errexit: bool) -> Optional[tuple[str, str, str]]:
    """_raced of a split script (``errexit``: set -e is in force)."""
    commands = [(unwrapped(c), op) for c, op in script_commands(tokens)]
    start = next((i for i, (c, op) in enumerate(commands) if op == "&" and _server(wrapped(c))), None)
    if start is None:
        return None
    server = _server(wrapped(commands[start][0])) or "http"
    sleeps: list[str] = []
    after = start + 1
    for j in range(start + 1, len(commands)):
        if j < after:
            continue  # the rest of a one-shot test (_tested)
        words = wrapped(commands[j][0])
        if not words:
            continue  # an assignment
        call = _call(words, server)
        if call == "" and (fallback := _tested(commands, j, server)) is not None:
            after = fallback
            continue
        if call == "":
            return None  # waits for the server
        if call is None:
            if words[0] not in _IDLE:
                return None  # a loop, a test or another step: not judged
            if words[0] == "sleep":
                sleeps.append(" ".join(words[:2]))
            continue
        return (_shown(commands[start][0]), call, ", ".join(sleeps)) if _decides(commands, j, errexit) else None
    return None


def _tested(commands: list[tuple[list[str], str]], j: int, server: str) -> Optional[int]:
    """The index of the fallback when commands[j] is a one-shot Ollama poll tested with ``||`` (``ollama list | grep -q
    M || ollama pull M``, Ofor-David/gke-llm-platform@be324c9f k8s/charts/ollama/templates/deployment.yaml): the poll
    asks once and fails when nothing listens yet, so the fallback runs at once against a server still starting; it
    waits for nothing. None for any other poll (a loop's, or one whose failure ends an ``&&`` chain: not judged)."""
    words = wrapped(commands[j][0])
    if server != "ollama" or words[1:2] not in (["list"], ["ls"], ["ps"]):
        return None
    k = j
    while commands[k][1] == "|" and k + 1 < len(commands):
        k += 1
    return k + 1 if commands[k][1] == "||" and k + 1 < len(commands) else None


def _mounted_raced(podspec: dict, container: dict) -> Optional[tuple[str, tuple[str, str, str]]]:
    """(the file, _raced) of a ConfigMap script of the files that the container mounts and runs (mounted_script_files:
    an entrypoint.sh beside the server image)."""
    for file, text in mounted_script_files(podspec, container).items():
        if "&" not in text:
            continue
        tokens = split_shell(text)
        raced = _raced_tokens(tokens, _errexit({}, tokens))
        if raced is not None:
            return file, raced
    return None


def _decides(commands: list[tuple[list[str], str]], j: int, errexit: bool) -> bool:
    """True when a failed call at commands[j] makes the script fail: ``&&`` from it to the script's last command, or a
    standalone call under set -e."""
    k = j
    while commands[k][1] == "&&" and k + 1 < len(commands):
        k += 1
    if k == len(commands) - 1 and commands[k][1] in ("", ";"):
        return True
    return commands[j][1] in ("", ";") and (j == 0 or commands[j - 1][1] not in ("&&", "||")) and errexit


def _shown(command: list[str]) -> str:
    return " ".join(wrapped(command)[:2])


_OUTCOMES = {
    "init": "the init container fails and the kubelet restarts it with back-off: the pod waits in Init until a start "
    "wins the race",
    "completes": "the pod fails (a Job retries it)",
    "serves": "the shell exits, taking the server with it, and the container restarts (CrashLoopBackOff while it loses)",
}
_WHY = {
    "ollama": "the Ollama CLI asks once and exits when nothing listens ('could not connect to ollama server', ollama "
    "v0.32.15 cmd/cmd.go:2079-2091)",
    "http": "curl and wget fail at once on a refused connection unless told --retry-connrefused",
}
_FIX = {
    "ollama": "`until ollama list >/dev/null 2>&1; do sleep 1; done`",
    "http": "`until curl -sf URL >/dev/null; do sleep 2; done`",
}


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec in pod_specs(resource):
        completes = podspec.get("restartPolicy") in ("Never", "OnFailure")
        for key in ("initContainers", "containers"):
            for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
                raced, where = _raced(container), "the script"
                if raced is None and (mounted := _mounted_raced(podspec, container)) is not None:
                    raced, where = mounted[1], f"the script {mounted[0]} it runs"
                if raced is None:
                    continue
                start, call, sleeps = raced
                sidecar = container.get("restartPolicy") == "Always"
                kind = "init" if key == "initContainers" and not sidecar else "completes" if completes else "serves"
                server = "ollama" if call.startswith("ollama") else "http"
                waited = f"only `{sleeps}`" if sleeps else "no wait at all"
                messages.append(
                    f"{container_label(path, container)}: {where} starts `{start}` in the background and runs "
                    f"`{call}` after {waited}, with no readiness check: {_WHY[server]}, so a start slower than that "
                    f"fails the call and {_OUTCOMES[kind]}; wait for the server to answer first ({_FIX[server]})"
                )
    return messages


POLICY = Policy(
    name="pull-waits-for-server",
    description=(
        "A pod script that starts the model server in the background (`ollama serve &`) waits for it to answer "
        "before pulling or calling it, instead of a fixed `sleep N`."
    ),
    rationale=(
        "The Ollama CLI checks the server once and exits when nothing listens (ollama v0.32.15 cmd/cmd.go:2079-2091, "
        "cmd/start_default.go:12-14), and curl fails at once on a refused connection: a server slower than the sleep "
        "fails the call, and where that decides the script's status the init container or server container restarts."
    ),
    catalog="S45",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Poll the server before using it: `ollama serve & until ollama list >/dev/null 2>&1; do sleep 1; done; "
        "ollama pull MODEL`, or for HTTP servers `until curl -sf http://localhost:PORT/health; do sleep 2; done`."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
