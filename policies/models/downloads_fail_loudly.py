"""S45: a model download in a pod's script fails when the server answers with an error.

``curl`` exits 0 on an HTTP error unless told ``-f``/``--fail`` ("Fail fast with no output at all on server errors
... Normally when an HTTP server fails to deliver a document, it returns an HTML document stating so ... and curl
passes this document on", curl 8.x man page, https://curl.se/docs/manpage.html#-f; ``--fail-with-body`` fails and
keeps the body). So ``curl -L URL -o /models/model.gguf`` with a gated repository (401), a moved file (404) or a
rate limit (429) writes the error page as the weights and the init container succeeds; the server then crash-loops
on a file it cannot parse. Where the script only downloads when the file is missing (``[ ! -f FILE ]``), the bad
file is kept across restarts until someone deletes it. Reviewers labelled it on held-out set 8 (nerc-project/
llm-on-nerc llama.cpp/standalone/02-llama-cpp-deployment.yaml). ``wget`` exits non-zero on a server error by default
(exit status 8, https://www.gnu.org/software/wget/manual/wget.html#Exit-Status) and is not reported.

Read in every container of a pod that runs a model server, and in any pod where the URL or the file names a model
(.gguf, .safetensors, .bin, .pt, huggingface.co). Advice: a later step of the script may check what it fetched.

A download whose failure the script swallows is the same fault one level up: a shell runs on after a failed command
unless ``set -e`` (``-e`` among its flags, ``set -o errexit``) is in force, and the script's exit status is its last
command's (POSIX Shell Command Language 2.8.2 "Exit Status for Commands", and ``set -e``: "When this option is on, when
any command fails ... the shell shall immediately exit"). So an init container or a Job whose script downloads a model
(a download form of the table below: ``ollama pull`` or a curl to Ollama's ``/api/pull``, ``hf download``/
``huggingface-cli download``, a curl/wget of a model file, a Python ``hf_hub_download``/``snapshot_download``) and then
runs another command (``echo "done"``) with neither ``set -e`` nor ``&&``/``||`` after the download ends with status 0:
the Job completes, or the server starts, without the model (spent set 21, megghaana/How-to-Deploy-an-Open-Source-LLM-
on-Kubernetes ollama-deployment.yaml at c5380b75b0c1f7d1a263d2743aa8ad0bf5ea4f41: Job ollama-pull-mistral). Read in
init containers and in pods that run to completion (restartPolicy Never or OnFailure), where the exit status is the
signal; a script that tests ``$?`` is not judged.

Ollama's ``/api/pull`` streams its progress by default and reports a failed pull in the body: the handler starts the
streamed answer (HTTP 200) and sends ``{"error": ...}`` down it, and answers with an error status only when the request
says ``"stream": false`` (ollama/ollama v0.32.15 server/routes.go:1133-1160, PullHandler: ``ch <- gin.H{"error": ...}``
then ``streamResponse`` unless ``req.Stream`` is false). So a curl to ``/api/pull`` without ``"stream": false`` exits 0
on a failed pull even with ``-f`` and ``set -e``, and the Job or init container succeeds without the model (spent set
35 Laszlo-Lazuer/deployable-offline-local-llm k8s/ollama.yaml@2f451df0, Job ollama-pull-model, label filed NONE).

Every pod form that runs such a script is read (kube.pod_specs: Deployments, Jobs, LWS, Ray groups, KServe, operator
CRs): init containers and pods that run to completion; a container's ``lifecycle.postStart`` exec hook (the kubelet
kills the container when the hook fails, so its exit status is the signal; a hook that swallows a failed pull leaves
the server running without the model); and a long-running container that serves no model (a puller beside the server)
whose script ends by blocking (``sleep infinity``, ``tail -f``, ``wait``), so a swallowed failure is never retried (a
``while``/``until`` loop that repeats the download is not judged). A swallowed Ollama pull that only ``sleep N`` waits
for the server before is told so (a server slower than N fails it: "could not connect"), and a model server's own
script that pulls in the foreground after only ``sleep N`` and then keeps serving (``ollama serve & sleep 3; ollama
pull mistral; wait``) with no set -e is reported too.

A download may follow variable assignments (``OLLAMA_HOST=http://ollama:11434 ollama pull "$model"``: the words name=value
before the command name are no command, POSIX Shell Command Language 2.9.1; spent set 51 HaxxonHax/ollama-k8s-RPi
pull-ollama-models-job.yaml@61b9bbcf), and ``ollama run MODEL`` pulls a missing model as ``ollama pull`` does. A download
put in the background with ``&`` is swallowed in a script whose status is the signal, set -e or not: "the exit status of
an asynchronous list shall be zero" (POSIX 2.9.3.1) unless a checked ``wait`` collects it (spent set 90
barbaria888/KubeOps-AI k8s/ollama.yaml@3a157731, postStart ``sleep 5 && ollama pull tinyllama:latest &``).
"""

from __future__ import annotations

import posixpath
import re
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_list, container_label, containers, get, pod_specs
from policies.models.pull_script_waits import (
    HOW,
    SHEBANG_ERREXIT,
    SUCCEEDS,
    in_retry_loop,
    sleep_only_wait,
    swallow_message,
)
from policies.reading.downloaders import CALL_ROWS, ROWS
from policies.reading.mounted_scripts import mounted_script_files
from policies.reading.serving import model_servers
from policies.reading.shell_commands import CLOSERS as _CLOSERS
from policies.reading.shell_commands import script_commands as _script_commands
from policies.reading.shell_commands import unwrapped as _unwrapped
from policies.reading.shell_commands import wrapped as _wrapped
from policies.reading.shell_words import split_shell
from policies.reading.vllm_args import command_tokens, is_shell_operator

_OUTPUT_LONG = ("--output", "--remote-name", "--remote-name-all")
_FAIL_LONG = ("--fail", "--fail-with-body")
_SHORT = re.compile(r"^-[A-Za-z0-9#]+$")
_MODEL_FILE = re.compile(r"huggingface\.co/|\.(gguf|safetensors|bin|pt|pth|onnx|ggml)(\?|$|[\"'])", re.IGNORECASE)
_EXISTS_TEST = re.compile(r"^-[fes]$")


def _curl_runs(tokens: list[str]) -> list[tuple[list[str], bool]]:
    """(arguments, output redirected to a file) of every curl command in a token list."""
    runs = []
    for i, token in enumerate(tokens):
        if posixpath.basename(token) != "curl":
            continue
        rest = tokens[i + 1 :]
        end = next((j for j, t in enumerate(rest) if is_shell_operator(t)), len(rest))
        # Output thrown away (`> /dev/null`, a readiness poll) writes no model.
        redirected = end < len(rest) and rest[end] in (">", ">>") and rest[end + 1 : end + 2] != ["/dev/null"]
        runs.append((rest[:end], redirected))
    return runs


def _writes_file(args: list[str], redirected: bool) -> Optional[str]:
    """What the curl run writes to: the -o/--output value, "the remote name" for -O, or None (stdout, a pipe)."""
    for i, token in enumerate(args):
        long, _, value = token.partition("=")
        if long in _OUTPUT_LONG:
            return value or (args[i + 1] if long == "--output" and i + 1 < len(args) else "its remote name")
        if _SHORT.match(token):
            letters = token[1:]
            if letters.endswith("o") and i + 1 < len(args):
                return args[i + 1]
            if "O" in letters:
                return "its remote name"
    return "a redirected file" if redirected else None


def _fails(args: list[str]) -> bool:
    return any(a.partition("=")[0] in _FAIL_LONG or (_SHORT.match(a) and "f" in a[1:]) for a in args)


# Download forms a script's command may take, as data: (command words matched on the file name of the first, what the
# rest must show, or "" for any). The Hugging Face CLI's words come from the downloaders table.
_DOWNLOAD_COMMANDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("ollama", "pull"), ""),
    (("ollama", "run"), ""),
    *((words, "") for row in ROWS for words in row.commands),
    (("curl",), "model"),
    (("wget",), "model"),
    *(((python,), "call") for python in ("python", "python3")),
)
_OLLAMA_PULL_API = re.compile(r"/api/pull\b")
_CALLS = re.compile(r"\b(" + "|".join(f for row in CALL_ROWS for f in row.functions) + r")\s*\(")
_ERREXIT = re.compile(r"^-[a-zA-Z]*e[a-zA-Z]*$")


def _download_form(command: list[str]) -> bool:
    """True when one command of a script is a model download of _DOWNLOAD_COMMANDS."""
    command = _wrapped(command)
    for words, needs in _DOWNLOAD_COMMANDS:
        if not command or posixpath.basename(command[0]) != words[0] or command[1 : len(words)] != list(words[1:]):
            continue
        text = " ".join(command[len(words) :])
        if needs == "" or (needs == "call" and _CALLS.search(text)):
            return True
        if needs == "model" and (_OLLAMA_PULL_API.search(text) or _MODEL_FILE.search(text)):
            return True
    return False


def _errexit(container: dict, tokens: list[str]) -> bool:
    """True when the shell stops at a failed command: ``sh -e``/``-ec``/``-o errexit`` or ``set -e``/``set -o errexit``
    in the script."""
    head = [str(t) for key in ("command", "args") for t in as_list(container.get(key))][:4]
    if any(_ERREXIT.match(t) for t in head[1:3]) or head[1:3] == ["-o", "errexit"]:
        return True
    for i, token in enumerate(tokens[:-1]):
        if token == "set" and (_ERREXIT.match(tokens[i + 1]) or tokens[i + 1 : i + 3] == ["-o", "errexit"]):
            return True
    return False


def _runs_after(rest: list[tuple[list[str], str]]) -> bool:
    """True when a simple command runs after a download in the same flow: the closing words of a compound command
    are passed over, and an ``else``/``elif`` branch (which does not run after the download's branch) is skipped to its
    ``fi``."""
    depth = 0
    for command, _ in rest:
        word = command[0] if command else ""
        if depth:
            depth += 1 if word in ("if", "case") else -1 if word in ("fi", "esac") else 0
            continue
        if word in ("else", "elif"):
            depth = 1
        elif command and word not in _CLOSERS and word != "":
            return True
    return False


# A fallback after ``||`` that always succeeds: the AND-OR list then ends with status 0, and ``set -e`` ignores a
# command that fails before ``||`` (POSIX Shell Command Language, ``set -e``: "except ... any command of an AND-OR list
# other than the last").
_NO_OPS = ("echo", "true", ":", "printf")


def _checks_later(rest: list[tuple[list[str], str]]) -> bool:
    """True when a later command looks at what was downloaded: ``ollama list``/``ollama show`` or a file test."""
    for command, _ in rest:
        words = _wrapped(command[1:] if command[:1] in (["if"], ["elif"], ["while"], ["until"]) else command)
        if words[:1] == ["!"]:
            words = words[1:]
        if words[:1] == ["ollama"] and words[1:2] in (["list"], ["show"]):
            return True
        if words[:1] in (["["], ["test"], ["[["]) and any(_EXISTS_TEST.match(w) for w in words[1:]):
            return True
    return False


def _shown(command: list[str]) -> str:
    command = _wrapped(command)
    url = next((t for t in command if "://" in t), None)
    return " ".join([t for t in command[:3] if not t.startswith("-")][:2] if url is None else [command[0], url])


def _swallowed(container: dict) -> Optional[tuple[str, str]]:
    """(the download, its no-op fallback or "") of the first download of the container's shell script whose failure
    the script swallows: another command follows it with no ``set -e`` and no ``&&``/``||`` after it, or ``||`` hands
    its failure to a command that always succeeds (``|| echo``, ``|| true``) and nothing later checks the model. None
    otherwise (or when the script reads ``$?``)."""
    tokens, script = command_tokens(container)
    return _swallowed_tokens(tokens, _errexit(container, tokens)) if script else None


def _swallowed_tokens(tokens: list[str], errexit: bool) -> Optional[tuple[str, str]]:
    """_swallowed of a split script (``errexit``: set -e is in force)."""
    if any("$?" in t for t in tokens):
        return None
    raw = _script_commands(tokens)
    commands = [(_unwrapped(c), op) for c, op in raw]
    for i, (command, op) in enumerate(commands):
        if not _download_form(command):
            continue
        fallback = raw[i + 1] if op == "||" and i + 1 < len(raw) else None
        if (
            fallback
            and fallback[0][:1]
            and fallback[0][0] in _NO_OPS
            and fallback[1] != "&&"
            and not _checks_later(commands[i + 2 :])
        ):
            return _shown(command), fallback[0][0]
        if op == "&":
            # Backgrounded: the shell never sees its status, set -e or not (POSIX 2.9.3.1 Asynchronous Lists: "the
            # exit status of an asynchronous list shall be zero"), unless a checked `wait` collects it.
            if not _checks_later(commands[i + 1 :]) and not _wait_checked(raw[i + 1 :]):
                return _shown(command), "&"
            continue
        if not errexit and op not in ("&&", "||", "|") and _runs_after(commands[i + 1 :]):
            return _shown(command), ""
    return None


def _swallowed_downloads(resource: Resource, streamed: set[int]) -> list[str]:
    """Advice for each init container, or container of a pod that runs to completion, whose script swallows a
    download's failure (module docstring); a container ``_streamed_pulls`` reports is left to it."""
    messages = []
    for path, container, leaves in _finishing_containers(resource):
        if id(container) in streamed:
            continue
        swallowed = _swallowed(container)
        if swallowed is None:
            continue
        if leaves == _KEEPS_RUNNING and _repeated(container):
            continue  # a loop that runs the download again (a sync loop) is no one-shot pull
        messages.append(
            swallow_message(container_label(path, container), "the script", swallowed, leaves, _only_slept(container))
        )
    return messages


def _mounted_swallowed(resource: Resource) -> list[str]:
    """Advice for each init container, or container of a pod that runs to completion, that runs a ConfigMap script
    of the files (mounted_script_files: ``command: [sh, /scripts/pull.sh]``) whose download's failure the script
    swallows: the script is the container's start as much as an inline ``sh -c`` is."""
    messages = []
    for path, podspec in pod_specs(resource):
        if not as_list(podspec.get("volumes")):
            continue
        completes = podspec.get("restartPolicy") in ("Never", "OnFailure")
        for key in ("initContainers", "containers"):
            for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
                if key == "containers" and not completes or container.get("restartPolicy") == "Always":
                    continue
                for file, text in mounted_script_files(podspec, container).items():
                    if not any(hint in text for hint in _DOWNLOAD_HINTS):
                        continue
                    tokens = split_shell(text)
                    errexit = _errexit(container, tokens) or bool(SHEBANG_ERREXIT.match(text))
                    swallowed = _swallowed_tokens(tokens, errexit)
                    if swallowed is not None:
                        label = container_label(path, container)
                        slept = _only_slept_tokens(tokens)
                        messages.append(swallow_message(label, f"the script {file}", swallowed, _SUCCEEDS, slept))
    return messages


def _wait_checked(rest: list[tuple[list[str], str]]) -> bool:
    """True when a later ``wait`` has its status looked at: ``if wait ...``/``if ! wait``, or ``wait ... ||``/``&&``."""
    for command, op in rest:
        words = [w for w in command if w != "!"]
        if "wait" in words[:3] and (words[:1] in (["if"], ["while"], ["until"]) or op in ("&&", "||")):
            return True
    return False


def unchecked_serving_pull(tokens: list[str], errexit: bool) -> Optional[tuple[str, str]]:
    """(the pull, how) of a model server's script (split ``tokens``; ``errexit``: set -e in force) that lets a failed
    pull pass while the server runs on: "background" for a pull beside the server in the background (``ollama pull
    llama3.2 &``: set -e never sees its status, only a checked ``wait`` does); "slept" for one in the foreground after
    only ``sleep`` waited for the server, "foreground" for one after a poll, each with no set -e and no ``&&``/``||``
    after it, in a script that then keeps serving (``wait``). None where something later checks the model (``ollama
    list``/``ollama show``, a file test), the script reads ``$?``, or a loop runs the pull again."""
    if any("$?" in t for t in tokens):
        return None
    raw = _script_commands(tokens)
    commands = [(_unwrapped(c), op) for c, op in raw]
    for i, (command, op) in enumerate(commands):
        if not _download_form(command):
            continue
        if _checks_later(commands[i + 1 :]) or op in ("&&", "||", "|"):
            return None
        if op == "&":
            return None if _wait_checked(raw[i + 1 :]) else (_shown(command), "background")
        # A pull in the foreground of the server's script: the server keeps running whatever the pull's status, so
        # with no set -e a failed pull (a slow start after a fixed `sleep N`, a registry error, a full disk) runs on to
        # `wait`, serving no model, and nothing restarts the container (spent set 100 Babas10/developer-hub-env
        # k8s/ollama/deployment.yaml: an until-loop on `ollama list`, then `ollama pull qwen2.5:1.5b`, `echo`, `wait`).
        if errexit or in_retry_loop(commands[:i]) or not _keeps_running(tokens):
            return None
        return _shown(command), "slept" if sleep_only_wait(commands[:i]) else "foreground"
    return None


def _only_slept(container: dict) -> str:
    """A note for a swallowed Ollama pull that only `sleep N` waits for the server before, or ""."""
    tokens, script = command_tokens(container)
    return _only_slept_tokens(tokens) if script else ""


def _only_slept_tokens(tokens: list[str]) -> str:
    """_only_slept of a split script."""
    commands = [(_unwrapped(c), op) for c, op in _script_commands(tokens)]
    for i, (command, _) in enumerate(commands):
        words = _wrapped(command)
        if words[:2] in (["ollama", "pull"], ["ollama", "run"]) or (
            words[:1] == ["curl"] and any(_OLLAMA_PULL_API.search(w) for w in words)
        ):
            if sleep_only_wait(commands[:i]):
                return ", and `sleep` is all that waits for the server before the pull, so a slow start fails it too"
            return ""
    return ""


def _serving_pulls(resource: Resource) -> list[str]:
    """Advice for a model server whose own script pulls its model beside the server and lets a failed pull pass: the
    server keeps running with no model, and every request for it fails (spent set 55 MardiantoS/chat-ai-k8s-ollama
    k8s/backend/ollama-deployment.yaml: `ollama pull llama3.2 &`, a loop while the PID lives, then "Model download
    completed!" whatever the pull's status). The script is the container's own command line or a ConfigMap script it
    mounts and runs (policies/reading/mounted_scripts.py; spent set 102 rgratis/ai-dev-environment
    k8s/ollama/configmap.yaml entrypoint.sh: `ollama serve &`, `sleep 10`, a pull per line of a model list, `wait`)."""
    from policies.reading.ollama_pulls import pulls_while_serving

    messages: list[str] = []
    for server in model_servers(resource):
        if not pulls_while_serving(server.container, server.podspec):
            continue
        for where, tokens, errexit, _ in server_scripts(server.container, server.podspec):
            unchecked = unchecked_serving_pull(tokens, errexit)
            if unchecked is None:
                continue
            pull, how = unchecked
            messages.append(
                unproven(
                    f"{server.label}: {where} runs `{pull}` beside the server {HOW[how]}, and nothing later checks the "
                    f"model (ollama show, ollama list): a failed pull leaves the server running with no model, and every "
                    f"request for it fails; check the pull (`ollama pull MODEL || exit 1`, `wait $pid || exit 1`) so the "
                    f"container restarts, or pull in an init container"
                )
            )
            break
    return messages


def server_scripts(container: dict, podspec: dict) -> list[tuple[str, list[str], bool, str]]:
    """(how the message names it, split tokens, set -e in force, the ConfigMap text or "") of a server container's own
    script and of each ConfigMap script it mounts and runs."""
    found = []
    tokens, script = command_tokens(container)
    if script:
        found.append(("the script", tokens, _errexit(container, tokens), ""))
    for file, text in mounted_script_files(podspec, container).items():
        if "pull" not in text and "run" not in text:
            continue
        split = split_shell(text)
        found.append((f"the script {file}", split, _errexit(container, split) or bool(SHEBANG_ERREXIT.match(text)), text))
    return found


_SUCCEEDS = SUCCEEDS
_HOOK_SUCCEEDS = "the hook succeeds and the container runs on without the model"
_KEEPS_RUNNING = "the container keeps running (its script blocks at the end) and nothing pulls the model again"


def _hook(container: dict) -> Optional[dict]:
    """A container's postStart exec hook as a container of its own (its command, the container's environment): the
    kubelet runs it beside the container's start and kills the container when it fails ("If a PostStart hook fails, it
    kills the Container", kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/), so its exit status is the
    signal, as an init container's is."""
    command = get(container, "lifecycle", "postStart", "exec", "command")
    if not isinstance(command, list) or not command:
        return None
    hook = {"name": f"{container.get('name')} lifecycle.postStart", "command": command}
    hook.update({k: container[k] for k in ("env", "envFrom") if k in container})
    return hook


def _finishing_containers(resource: Resource) -> list[tuple[str, dict, str]]:
    """(pod path, container, what a swallowed failure leaves) for each script whose exit status is the only signal of
    its download: an init container (not a restartPolicy: Always sidecar), any container of a pod that runs to
    completion, a postStart hook of any container, and a long-running container that serves no model (a puller
    beside the server) whose script blocks at its end (``sleep infinity``, ``tail -f``, ``wait``)."""
    servers = {id(s.container) for s in model_servers(resource)}
    found = []
    for path, podspec in pod_specs(resource):
        completes = podspec.get("restartPolicy") in ("Never", "OnFailure")
        for key in ("initContainers", "containers"):
            for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
                if (hook := _hook(container)) is not None:
                    found.append((path, hook, _HOOK_SUCCEEDS))
                sidecar = key == "containers" and not completes or container.get("restartPolicy") == "Always"
                if not sidecar:
                    found.append((path, container, _SUCCEEDS))
                elif id(container) not in servers and _may_download(container) and _keeps_running(command_tokens(container)[0]):
                    found.append((path, container, _KEEPS_RUNNING))
    return found


_DOWNLOAD_HINTS = ("pull", "download", "curl", "wget", "http")


def _may_download(container: dict) -> bool:
    """False when a container's written command line holds none of the words every download form holds: its tokens
    (command_tokens) are then not worked out for the puller reading (most long-running containers)."""
    text = " ".join(str(t) for key in ("command", "args") for t in as_list(container.get(key))).lower()
    return any(hint in text for hint in _DOWNLOAD_HINTS)


def _keeps_running(tokens: list[str]) -> bool:
    """True when a script ends by blocking: ``sleep infinity`` (or a day or more), ``tail -f``, a final ``wait``, or a
    ``while true`` loop."""
    for i, token in enumerate(tokens):
        following = tokens[i + 1 : i + 3]
        if token == "sleep" and following and (following[0] in ("infinity", "inf") or _LONG_SLEEP.match(following[0])):
            return True
        if token == "tail" and "-f" in following or token == "while" and following[:1] in (["true"], [":"]):
            return True
    last = [t for t in tokens if t and not is_shell_operator(t)][-1:]
    return last == ["wait"]


def _repeated(container: dict) -> bool:
    """True when a download of the container's script sits inside a ``while``/``until`` loop's body (a loop that runs
    it again, not a readiness poll before it)."""
    tokens, script = command_tokens(container)
    if not script:
        return False
    depth = 0
    for command, _ in _script_commands(tokens):
        word = command[0] if command else ""
        if word in ("while", "until"):
            depth += 1
        elif word == "done":
            depth = max(depth - 1, 0)
        elif depth and (_download_form(_unwrapped(command)) or any(_OLLAMA_PULL_API.search(t) for t in command)):
            return True
    return False


_LONG_SLEEP = re.compile(r"^(?:\d{5,}|\d+[dh])$")


_STREAM_OFF = re.compile(r"[\"']?stream[\"']?\s*:\s*false", re.IGNORECASE)
_DATA = ("-d", "--data", "--data-raw", "--data-binary", "--json")


def _streamed_pull(args: list[str]) -> Optional[str]:
    """The URL of a curl call to Ollama's /api/pull whose body does not turn streaming off, or None."""
    url = next((a for a in args if _OLLAMA_PULL_API.search(a) and "://" in a), None)
    if url is None:
        return None
    bodies = [args[i + 1] for i, a in enumerate(args[:-1]) if a in _DATA]
    bodies += [a.split("=", 1)[1] for a in args if a.startswith(tuple(f"{d}=" for d in _DATA if d.startswith("--")))]
    return None if any(_STREAM_OFF.search(b) for b in bodies) else url


def _streamed_pulls(resource: Resource) -> tuple[list[str], set[int]]:
    """Advice for each init container, or container of a pod that runs to completion, that pulls through a streamed
    /api/pull (module docstring), and the ids of those containers."""
    messages, seen = [], set()
    for path, container, leaves in _finishing_containers(resource):
        tokens, _ = command_tokens(container)
        urls = [u for args, _ in _curl_runs(tokens) if (u := _streamed_pull(args))]
        if not urls or leaves == _KEEPS_RUNNING and _repeated(container):
            continue
        seen.add(id(container))
        messages.append(
            f"{container_label(path, container)}: curl {urls[0]} streams the pull's progress with HTTP 200 and "
            'reports a failed pull in the body ({"error": ...}), so curl exits 0 even with -f and set -e, '
            f'and {leaves}; send {{"stream": false}} (Ollama then answers an '
            "error status) with curl -f, or check the model afterwards (/api/show, ollama list)"
        )
    return messages, seen


def _tests_existence(tokens: list[str]) -> bool:
    """True when the script tests a file's existence (``[ ! -f F ]``, ``test -s F``): an option of ``[``/``test``, not
    curl's ``-s``."""
    for i, token in enumerate(tokens):
        if token in ("[", "[[", "test"):
            rest = tokens[i + 1 : i + 3]
            if any(_EXISTS_TEST.match(t) for t in (rest[1:] if rest[:1] == ["!"] else rest[:1])):
                return True
    return False


def _check(resource: Resource, config: dict) -> list[str]:
    serves = bool(model_servers(resource))
    streamed, pulled = _streamed_pulls(resource)
    messages = streamed + _swallowed_downloads(resource, pulled) + _mounted_swallowed(resource) + _serving_pulls(resource)
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            tokens, _ = command_tokens(container)
            if "curl" not in " ".join(tokens):
                continue
            checks_existence = _tests_existence(tokens)
            for args, redirected in _curl_runs(tokens):
                target = _writes_file(args, redirected)
                if target is None or _fails(args):
                    continue
                url = next((a for a in args if a.startswith(("http://", "https://"))), "")
                if not (serves or _MODEL_FILE.search(url) or _MODEL_FILE.search(target)):
                    continue
                kept = (
                    " and the script downloads only when the file is missing, so the bad file stays across restarts"
                    if checks_existence
                    else ""
                )
                messages.append(
                    f"{container_label(path, container)}: curl {url or '(URL)'} writes {target} without -f/--fail: an "
                    f"HTTP error (401 on a gated model, 404, 429) exits 0 with the error page saved as the model{kept}; "
                    "add --fail (or -fL) so the container fails and retries"
                )
    return messages


POLICY = Policy(
    name="model-download-fails-loudly",
    description=(
        "A curl that downloads a model in a pod's script is told --fail (-f), so an HTTP error fails the container "
        "instead of saving the error page as the weights (wget fails by default)."
    ),
    rationale=(
        "curl passes an HTTP error document on and exits 0 unless -f/--fail is given (curl man page, --fail); the "
        "server then crash-loops on a file it cannot parse, and an existence check keeps the bad file."
    ),
    catalog="S45",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Use `curl -fL --retry 5 -o FILE.partial URL && mv FILE.partial FILE` (fail on HTTP errors, write under a "
        "temporary name so a broken download is never taken for the model), or a downloader that verifies what it "
        "fetched (`hf download` with a revision)."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
