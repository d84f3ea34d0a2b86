"""G79: an exec probe, lifecycle hook or command runs a program its image ships.

The kubelet runs an ``exec`` probe or hook inside the container through the runtime (CRI ExecSync), and the runtime
resolves the command's first word on the image's PATH (runc v1.2.9 libcontainer/setns_init_linux.go:115
``exec.LookPath`` for a process exec'd into a running container, as probes and hooks are; standard_init_linux.go:208
for the container's own command). A program the image does not ship fails every
time: "executable file not found in $PATH" for a bare command, exit 127 for a word of an ``sh -c`` script. So:

* a **livenessProbe** or **startupProbe** fails every period, and the kubelet restarts the container in a loop;
* a **readinessProbe** fails every period: the pod is never Ready and its Service sends it nothing;
* a **postStart** hook fails, and the kubelet kills the container (FailedPostStartHook: kubernetes
  pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer step 4), which restarts in a loop;
* a container **command** that names such a program never starts (StartError, CrashLoopBackOff);
* a container **command** whose script waits in a loop on such a program (``until curl -f URL; do sleep 5; done``,
  ``while ! curl ...``) never gets past the wait: the condition exits 127 on every try (spent set 82
  afterdarksys/meowdel.ai k8s/ollama-deployment.yaml, a Job on ollama/ollama waiting with curl before ``ollama pull``);
  ``until ! X``, ``while X`` and a script that tests for programs (``command -v``) are not judged;
* a **preStop** hook fails and is only logged (FailedPreStopHook): the drain it meant to do does not happen (advice).

What each publisher's image ships is data (components/image_contents.toml, each row read from the image's Dockerfile
at its release tags by tools/read_image_contents.py): ollama/ollama is ``FROM ubuntu`` with only ca-certificates (and
GPU libraries) installed, so it has a shell but no ``curl``, ``wget`` or Python (ollama/ollama v0.32.15 Dockerfile
L296-320, and every release tag from v0.1.22). Mandatory for the publisher's own repository at a release the table
read; advice for ``latest``, an untagged or newer release, another flavour or a mirror path (a rebuild may add the
tool); silent for images the table has no row for, for programs it does not record, where a script runs the
program only conditionally (``if command -v curl; then ...``) or falls back (``curl ... || ollama list``), where the
pod adds the program itself (its command, or the handler's own script, installs a package providing it: the table's
[provides]; or it runs it by a path outside the standard PATH directories, or under a volume it mounts, as a static
curl an init container copies into an emptyDir; or the container sets its own PATH). A guard joined by ``&&``
(``command -v curl && curl ...``) and a ``|| exit 1`` fallback still fail where the program is absent: judged.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import Optional

from components.image_contents import Match, contents, provided_by
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_list, container_label, containers, decimal, get, pod_specs
from policies.reading.shell_words import shell_script, split_shell

# What a failure of each handler does (see the module docstring).
_OUTCOMES = {
    "livenessProbe": "the probe fails every period and the kubelet restarts the container in a loop",
    "startupProbe": "the probe fails every period and the kubelet restarts the container in a loop",
    "readinessProbe": "the probe fails every period, so the pod is never Ready and its Service sends it nothing",
    "postStart": "the hook fails and the kubelet kills the container (FailedPostStartHook), which restarts in a loop",
    "command": "the container never starts (StartError: executable file not found in $PATH)",
    "preStop": "the hook fails (FailedPreStopHook, only logged), so the drain it stands for never happens",
}
_SEPARATORS = frozenset({";", "&&", "|", "&", "(", ")", "{", "}", "!"})
# Words after which the next word is the program a statement runs.
_PREFIXES = frozenset({"exec", "nohup", "time", "then", "do", "else", "timeout", "env", "sudo"})
# Words that make what follows run only on a condition, or that give the script a fallback: not judged.
_CONDITIONAL = frozenset({"if", "elif", "||", "command", "which", "type", "hash", "case", "while", "until"})


# Programs that install packages, and the word after which their package names follow.
_INSTALLERS = {"apt-get": "install", "apt": "install", "yum": "install", "dnf": "install", "microdnf": "install"}
_INSTALLERS |= {"apk": "add", "pip": "install", "pip3": "install", "conda": "install", "mamba": "install"}
# The directories of a standard PATH (the base images' ENV PATH): a program named by a path elsewhere is the pod's own.
_PATH_DIRS = frozenset({"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"})
# Guards that test whether a program exists: `command -v curl && curl ...` fails where curl is absent.
_GUARDS = frozenset({"command", "which", "type", "hash"})


def _words(argv: list[str]) -> Optional[list[str]]:
    """The words of argv's ``sh -c`` script, with the forms that make a missing program fail rewritten to it: a guard
    joined by ``&&`` (``command -v curl >/dev/null && ...``: the guard's status is the failure) becomes the program it
    tests, and ``|| exit N`` (N not 0) or ``|| false`` is dropped (the status stays a failure). None for no script."""
    script = shell_script(argv)
    if script is None:
        return None
    words = split_shell(script)
    while words and words[-1] == ";":
        words.pop()
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "||" and words[i + 1 : i + 2] == ["false"]:
            i += 2
            continue
        if word == "||" and words[i + 1 : i + 2] == ["exit"] and words[i + 2 : i + 3] != ["0"]:
            i += 3 if decimal(words[i + 2] if i + 2 < len(words) else "") else 2
            continue
        if word in _GUARDS and (not out or out[-1] in _SEPARATORS or out[-1] == ";"):
            end = next((j for j in range(i + 1, len(words)) if words[j] in _SEPARATORS or words[j] in (";", "||")), len(words))
            names, k = [], i + 1
            while k < end:
                if set(words[k]) <= set("<>&|0123456789"):
                    k += 2  # a redirection and its target
                    continue
                if not words[k].startswith("-"):
                    names.append(words[k])
                k += 1
            if word != "command" or "-v" in words[i + 1 : end] or "-V" in words[i + 1 : end]:
                if words[end : end + 1] == ["&&"] and names:
                    out.append(names[0])
                    i = end
                    continue
                return words  # an `if`-less guard with a fallback: conditional, left to the caller to skip
        out.append(word)
        i += 1
    return out


def _programs(argv: list[str]) -> Iterator[tuple[str, bool]]:
    """(program, decisive) for each program an exec argv runs: argv[0], and for ``sh -c SCRIPT`` every command word
    of the script (nothing when the script runs its programs only conditionally or with a fallback). ``decisive``
    when the program's failure decides the exit status: argv[0] itself, or a command of the script's last statement
    (one not followed by ``;``, a newline or ``&``: a later statement's status would be the script's)."""
    if not argv or not isinstance(argv[0], str) or not argv[0]:
        return
    yield argv[0], True
    words = _words(argv)
    if words is None:
        return
    if any(w in _CONDITIONAL for w in words):
        return
    last = max((i for i, w in enumerate(words) if w in (";", "&")), default=-1)
    start = True
    for i, word in enumerate(words):
        if word in _SEPARATORS or word == ";":
            start = True
            continue
        if not start:
            continue
        if word in _PREFIXES or "=" in word.split("/", 1)[0] and not word.startswith("="):
            continue  # exec curl, VAR=value curl: the next word is the program
        if word.isdigit() and words[i - 1 : i] == ["timeout"]:
            continue
        start = False
        yield word, i > last


def _installed(argv: list[str]) -> set[str]:
    """The packages a ``sh -c`` script of argv installs (apt-get/apt/yum/dnf install, apk add, pip install), version
    pins (``curl=7.81.0-1``, ``x==1.0``) stripped."""
    script = shell_script(argv)
    if script is None or not any(name in script for name in _INSTALLERS):
        return set()
    words = split_shell(script)
    found: set[str] = set()
    for i, word in enumerate(words):
        verb = _INSTALLERS.get(posixpath.basename(word))
        if verb is None:
            continue
        j = i + 1
        while j < len(words) and words[j].startswith("-"):
            j += 1
        if words[j : j + 1] != [verb]:
            continue
        for package in words[j + 1 :]:
            if package in _SEPARATORS or package in (";", "||"):
                break
            if not package.startswith("-"):
                found.add(package.split("==", 1)[0].split("=", 1)[0].lower())
    return found


def _handlers(container: Mapping) -> Iterator[tuple[str, list[str]]]:
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        command = get(container, probe, "exec", "command")
        if command:
            yield probe, [str(t) for t in as_list(command)]
    for hook in ("postStart", "preStop"):
        command = get(container, "lifecycle", hook, "exec", "command")
        if command:
            yield hook, [str(t) for t in as_list(command)]
    command = container.get("command")
    if isinstance(command, list) and command:
        # `command: [sh, -c]` with the script in args: the runtime runs command + args.
        yield "command", [str(t) for t in command] + [str(t) for t in as_list(container.get("args"))]


def _own_paths(container: Mapping) -> tuple[str, ...]:
    """The directories the pod itself puts files in: the container's volume mount paths."""
    return tuple(
        str(m.get("mountPath")).rstrip("/") + "/"
        for m in as_list(container.get("volumeMounts"))
        if isinstance(m, dict) and isinstance(m.get("mountPath"), str) and m.get("mountPath")
    )


def _lacks(match: Match, program: str, container: Mapping, installed: set[str]) -> bool:
    """True when the image is known not to ship ``program`` and the pod does not add it (a package its scripts install,
    a file on a volume it mounts, a PATH of its own)."""
    mounts = _own_paths(container)
    name = posixpath.basename(program)
    if "/" in program:
        if posixpath.dirname(posixpath.normpath(program)) not in _PATH_DIRS or program.startswith(mounts):
            return False  # ./curl, /tools/curl: a file the pod brings, not the image's PATH
    elif any(isinstance(e, dict) and e.get("name") == "PATH" for e in as_list(container.get("env"))):
        return False  # the container's own PATH
    elif any(d + "/" in mounts for d in _PATH_DIRS):
        return False  # a volume over a PATH directory
    return match.row.program(name) is False and not any(provided_by(name, p) for p in installed)


def _missing(match: Match, argv: list[str], container: Mapping, installed: set[str]) -> Optional[tuple[str, bool]]:
    """(program, decisive) of the first program of argv the image is known not to ship (and the pod does not add)."""
    for program, decisive in _programs(argv):
        if "$" in program or "`" in program:
            return None  # a variable or substitution: the program is decided at run time
        if _lacks(match, program, container, installed):
            return posixpath.basename(program), decisive
    return None


# Statement starts after which `until`/`while` begins a loop.
_LOOP_STARTS = _SEPARATORS | {";", "do", "then", "else"}


def _endless_wait(match: Match, argv: list[str], container: Mapping, installed: set[str]) -> Optional[str]:
    """The program of a wait loop in argv's ``sh -c`` script whose condition runs a program the image lacks: ``until
    curl ...; do sleep 5; done`` (exit 127 every time, so the loop never ends) or ``while ! curl ...`` (the negation
    is always true). None otherwise; ``until ! X`` and ``while X`` end or never run, and are not judged."""
    script = shell_script(argv)
    if script is None or "until" not in script and "while" not in script:
        return None
    words = split_shell(script)
    if _GUARDS.intersection(words):
        return None  # the script tests for programs (`if command -v curl`): the loop may run only where it exists
    for i, word in enumerate(words):
        if word not in ("until", "while") or i and words[i - 1] not in _LOOP_STARTS:
            continue
        negated = words[i + 1 : i + 2] == ["!"]
        if negated != (word == "while"):
            continue
        program = words[i + 2 if negated else i + 1] if len(words) > i + (2 if negated else 1) else ""
        if program and "$" not in program and "`" not in program and _lacks(match, program, container, installed):
            return posixpath.basename(program)
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            match = contents(container.get("image"))
            if match is None:
                continue
            label = container_label(path, container)
            image = str(container.get("image")).strip()
            handlers = list(_handlers(container))
            # What the container's own command installs is there for its probes and hooks (and its later steps).
            installed = _installed(next((argv for where, argv in handlers if where == "command"), []))
            for where, argv in handlers:
                found = _missing(match, argv, container, installed | _installed(argv))
                if found is None:
                    waits = _endless_wait(match, argv, container, installed | _installed(argv)) if where == "command" else None
                    if waits is not None:
                        text = (
                            f"{label}: command waits in a loop on `{waits}`, which the {match.row.family} image {image} "
                            f"does not ship (components/image_contents.toml: {match.row.source.split(':', 1)[0]}), so the "
                            f"condition fails (exit 127) on every try and the loop never ends: the container never gets "
                            f"past its wait (a Job never completes, an init container holds the pod back); wait with a "
                            f"program the image has, or run the wait in an image that ships `{waits}`"
                        )
                        messages.append(text if match.proven else unproven(f"{text} ({match.why_not})"))
                    continue
                program, decisive = found
                if where == "command" and program != posixpath.basename(argv[0]):
                    decisive = False  # one step of the container's script fails; what it does next is the script's
                field = f"lifecycle.{where}" if where in ("postStart", "preStop") else where
                text = (
                    f"{label}: {field} runs `{program}`, which the {match.row.family} image {image} does not ship "
                    f"(components/image_contents.toml: {match.row.source.split(':', 1)[0]}), so {_OUTCOMES[where]}; "
                    f"probe with httpGet or tcpSocket, or with a program the image has"
                )
                if where == "preStop" or not match.proven or not decisive:
                    doubt = match.why_not or ("" if decisive else "a later statement of the script decides its status")
                    messages.append(unproven(text + (f" ({doubt})" if doubt else "")))
                else:
                    messages.append(text)
    return messages


POLICY = Policy(
    name="exec-tools-in-image",
    description=(
        "An exec probe, lifecycle hook or container command runs a program its image ships (no curl or wget in "
        "ollama/ollama), read from the publisher's Dockerfile, unless the pod installs it, mounts it or sets its PATH."
    ),
    catalog="G79",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Probe the server with httpGet (Ollama: path / on port 11434) or tcpSocket, or with a program the image "
        "ships (`ollama list`, `ollama --version`); install curl in an image of your own built FROM the publisher's; "
        "run HTTP clients in a sidecar that has them."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The runtime resolves an exec command's program on the image's PATH (runc v1.2.9 "
        "libcontainer/setns_init_linux.go:115 exec.LookPath for probes and hooks, standard_init_linux.go:208 for the "
        "container's command) and a shell exits 127 on a command it cannot find, so a "
        "probe or hook that runs a program the image lacks fails every time: liveness and startup probes restart the "
        "container in a loop, a readiness probe keeps the pod out of its Service, a failed postStart hook kills the "
        "container (kubernetes kuberuntime_container.go startContainer, FailedPostStartHook). What each image ships "
        "is components/image_contents.toml, read from the publisher's Dockerfile at its release tags "
        "(tools/read_image_contents.py); ollama/ollama v0.1.22-v0.32.15 is FROM ubuntu with only ca-certificates and GPU "
        "libraries installed (Dockerfile v0.32.15 L296-320). Advice where the tag is no release read, or a mirror."
    ),
)
