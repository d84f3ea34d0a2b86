"""G48: a postStart hook that calls the pod's own server waits for it (advice).

The kubelet runs a container's ``lifecycle.postStart`` handler right after the runtime starts the container, beside
its entrypoint, and kills the container when the handler fails: kubernetes v1.23.13
pkg/kubelet/kuberuntime/kuberuntime_container.go ``startContainer`` "Step 4: execute the post start hook" records
``FailedPostStartHook``, calls ``killContainer`` and returns ``ErrPostStartHook`` (the same in later releases); the
pod restarts the container under its restart policy. A hook that talks to the server the pod is still starting
therefore races it:

* ``ollama run|pull|show|...`` in the hook: every such CLI command first checks the server (ollama v0.32.15
  cmd/cmd.go:2079-2093 ``checkServerHeartbeat``, the ``PreRunE`` of ``run`` at :2347 and ``pull`` at :2382) and, on
  Linux, fails at once when nothing listens ("could not connect to ollama server, run 'ollama serve' to start it",
  cmd/start_default.go:12-14; v0.5.4 cmd/cmd.go:1240-1254 likewise);
* ``curl``/``wget`` to ``localhost``/``127.0.0.1`` on a port a container of the pod serves: connection refused
  until the server listens (curl retries a refused connection only with ``--retry-connrefused``);
* an ``httpGet`` hook on such a port.

Sets 16, 17, 18 and 20 (heissanjay/ollama-eks-depl, heena675/Ollama-K8s-manifests, yuxiaojian/ollama-k8s,
phucly01/ollama-k8s) label this. Advice: whether the server wins the race is timing, not the file. Silent where the
hook waits (an ``until``/``while`` loop, a ``for`` loop that sleeps or breaks, ``--retry-connrefused``, ``wait-for``; a fixed ``sleep N`` before the
call is no wait, since the server may not be up after N s: spent set 64 barbaria888/Ollama-Chatbot-deployment
k8s/ollama-deployment.yaml, ``sleep 10`` then ``ollama pull tinyllama`` under a 250m CPU limit, brief pods49),
backgrounds its work, ignores
the result (``|| true``, a later command that decides the exit status), or where an Ollama client's ``OLLAMA_HOST``
names another host; an init container's pull (no hook) is not read here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, container_label, containers, get, pod_specs
from policies.reading.engines import env_values
from policies.reading.serving import container_argv

# Ollama CLI commands whose PreRunE is checkServerHeartbeat (ollama v0.32.15 cmd/cmd.go:2310-2405).
_OLLAMA_CLIENT = re.compile(r"(?:^|[\s;&|(/])ollama\s+(run|pull|show|stop|push|create|cp|rm|list|ls|ps)\b")
_HTTP_CLIENT = re.compile(r"\b(?:curl|wget)\b")
_LOCAL_URL = re.compile(r"(?:https?://)?\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):(\d{2,5})\b")
# A wait that ends when the server answers: a loop (until, while, for ... in: a retry), a retrying client, a wait-for
# helper. A fixed `sleep N` before the call is no wait: when the server is not up after N s the call still fails (spent
# set 64 barbaria888/Ollama-Chatbot-deployment: `sleep 10` then `ollama pull tinyllama` under a 250m CPU limit).
_WAITS = re.compile(r"\buntil\b|\bwhile\b|--retry-connrefused|\bwait[-_]for\b|\bnc\s+-z\b|\btimeout\s+\d+\s|\bretry\b")
# A `for` loop retries when it sleeps or breaks out (for i in 1 2 3; do ollama pull x && break; sleep 5; done); one over
# the models to pull (for model in $MODELS; do ollama run $model; done) does not wait.
_RETRY_FOR = re.compile(r"\bfor\s+\w+\s+in\b.*?\b(?:sleep|break)\b", re.S)
_FIXED_SLEEP = re.compile(r"\bsleep\s+(\d+)")
_BACKGROUND = re.compile(r"(?<![&|])&\s*(?:$|\n|;|\))|\bnohup\b|\bset\s+\+e\b")
_IGNORED = re.compile(r"\|\|")
_FAILS_FAST = re.compile(r"\bset\s+-[a-z]*e|\bset\s+-o\s+errexit\b")
_PORT_FLAG = re.compile(r"^--port(?:=(\d+))?$")
_OLLAMA_PORT = 11434
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "")


def _statements(script: str) -> list[str]:
    """The script's simple statements in order (split on newlines and ``;``; loop/branch keywords dropped)."""
    out = []
    for part in re.split(r"[;\n]", script):
        part = re.sub(r"^\s*(?:do|then|else)\s+", "", part).strip()
        if part and part not in ("done", "fi", "esac", "do", "then", "else"):
            out.append(part)
    return out


def _decides_exit(script: str, pattern: re.Pattern) -> bool:
    """True when a statement matching ``pattern`` can decide the hook's exit status: it is the script's last
    statement, or the shell stops at the first failure (``set -e``)."""
    statements = _statements(script)
    if not statements:
        return False
    if _FAILS_FAST.search(script):
        return any(pattern.search(s) for s in statements)
    return bool(pattern.search(statements[-1])) and not _IGNORED.search(statements[-1])


def _served_ports(podspec: Mapping) -> set[int]:
    """The ports the pod's containers serve: declared containerPorts, ``--port N`` in their argv, and Ollama's
    11434 where a container runs it."""
    ports: set[int] = set()
    for container in containers(podspec):
        for port in as_list(container.get("ports")):
            number = as_int(as_dict(port).get("containerPort"))
            ports.update({number} if number else set())
        argv = container_argv(container)
        for i, token in enumerate(argv):
            found = _PORT_FLAG.match(token)
            value = found.group(1) if found and found.group(1) else (argv[i + 1] if found and i + 1 < len(argv) else None)
            number = as_int(value) if value is not None else None
            ports.update({number} if number else set())
        if _runs_ollama(container):
            ports.add(_OLLAMA_PORT)
    return ports


def _runs_ollama(container: Mapping) -> bool:
    image = str(container.get("image") or "")
    return "ollama" in image.rsplit("/", 1)[-1].split(":")[0] or "ollama serve" in " ".join(container_argv(container))


def _remote_ollama(container: Mapping) -> bool:
    """True when the container's OLLAMA_HOST names another host (its CLI then talks to that server)."""
    host = env_values(container).get("OLLAMA_HOST")
    if host is None:
        return False
    bare = re.sub(r"^https?://", "", host.strip()).split(":")[0]
    return bare not in _LOCAL_HOSTS


def _exec_race(container: Mapping, podspec: Mapping, script: str) -> str | None:
    """What the exec hook calls before the server may listen, or None when it waits or cannot fail on it."""
    if _WAITS.search(script) or _RETRY_FOR.search(script) or _BACKGROUND.search(script):
        return None
    ollama = _OLLAMA_CLIENT.search(script)
    if ollama and not _remote_ollama(container) and any(_runs_ollama(c) for c in containers(podspec)):
        if _decides_exit(script, _OLLAMA_CLIENT):
            return f"`ollama {ollama.group(1)}`, which fails at once while the Ollama server is not listening yet"
    served = _served_ports(podspec)
    for match in _LOCAL_URL.finditer(script):
        port = int(match.group(1))
        if port in served and _HTTP_CLIENT.search(script) and _decides_exit(script, _LOCAL_URL):
            return f"a request to {match.group(0)}, refused while the server on port {port} is not listening yet"
    return None


def _http_race(hook: Mapping, container: Mapping, podspec: Mapping) -> str | None:
    port = get(hook, "httpGet", "port")
    number = as_int(port)
    if number is None and isinstance(port, str):
        named = {as_dict(p).get("name"): as_int(as_dict(p).get("containerPort")) for p in as_list(container.get("ports"))}
        number = named.get(port)
    host = str(get(hook, "httpGet", "host") or "")
    if number is not None and host in _LOCAL_HOSTS and number in _served_ports(podspec):
        return f"an HTTP GET on port {number}, refused while the server there is not listening yet"
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            hook = as_dict(get(container, "lifecycle", "postStart"))
            if not hook:
                continue
            command = [str(t) for t in as_list(get(hook, "exec", "command"))]
            race = _exec_race(container, podspec, " ".join(command)) if command else _http_race(hook, container, podspec)
            if race is None:
                continue
            slept = _FIXED_SLEEP.search(" ".join(command))
            wait = f"after a fixed sleep {slept.group(1)} with no retry" if slept else "with no wait or retry"
            messages.append(
                unproven(
                    f"{container_label(path, container)}: lifecycle.postStart runs {race}, {wait}; "
                    "the kubelet runs the hook beside the entrypoint and kills the container when it fails "
                    "(FailedPostStartHook), so the pod restarts until the server wins the race; wait in the hook "
                    "(until curl -sf http://localhost:PORT/; do sleep 2; done) or load the model in an init container"
                )
            )
    return messages


POLICY = Policy(
    name="post-start-hook-waits",
    description="A postStart hook that calls the pod's own server (ollama run/pull, curl localhost:PORT) waits for it.",
    catalog="G48",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Wait for the server inside the hook (until curl -sf http://localhost:PORT/; do sleep 2; done; then pull), "
        "or pull the model in an init container (ollama serve & ... ollama pull) or a Job after readiness."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The kubelet kills a container whose postStart handler fails (kubernetes v1.23.13 "
        "pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer step 4: FailedPostStartHook, killContainer, "
        "ErrPostStartHook), and the handler runs beside the entrypoint, so a hook that calls the server the "
        "entrypoint is still starting fails whenever it wins the race: Ollama's CLI checks the server first and "
        "exits on Linux when nothing listens (ollama v0.32.15 cmd/cmd.go:2079-2093, cmd/start_default.go:12-14), "
        "curl's connection is refused. Advice: the outcome is timing."
    ),
)
