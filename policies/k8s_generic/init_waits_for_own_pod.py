"""G99 (init-waits-for-own-pod): an init container does not loop until its own pod's app container answers.

A pod's init containers run, in order, before any of its app containers is started: "Init containers are executed in
order prior to containers being started" (kubernetes/api core/v1/types.go:4098@v0.34.0, PodSpec.InitContainers). Only
an init container with ``restartPolicy: Always`` (a native sidecar) keeps running beside the next ones
(types.go:2972-2987@v0.34.0, Container.RestartPolicy). So an init container whose script loops until a port on the pod's
own loopback answers, where only an app container of the same pod would listen, waits for a process that cannot start
before it exits: the pod stays in ``Init:0/N`` forever and serves nothing.

Spent set 85 jader-germano/portfolio-v2@b830b6ca21bb96e4bfbd35afe78b23dd42f102d9 k8s/ollama-deployment.yaml (labelled
none, blocking): init container pull-model runs ``until curl -s http://localhost:11434/api/tags; do sleep 5; done``
while ollama/ollama is the pod's app container on containerPort 11434.

Read: every pod template the project reads (policies/kube.py pod_specs: Deployments, StatefulSets, Jobs, LWS,
RayCluster groups, KServe, operator CRs), an init container's ``sh -c`` script (command and args); a loop ``until
CHECK; do ...; done`` or ``while ! CHECK; do ...; done`` whose CHECK is one ``curl``/``wget``/``nc`` call to
``localhost``/``127.0.0.1``/``0.0.0.0`` on a port an app container of the pod serves (a containerPort, or the engine
table's port for a model server there, or Ollama's 11434). Blocking: the loop's only exit is that call's success.
Silent where the loop can end otherwise (``break``, ``exit``, ``return``, a counter test, ``timeout``), the script
backgrounds a process (it may start the server itself), a native sidecar declares that port or declares none (it may
listen there), or the pod is on the host network (the node's loopback: another process may answer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, container_label, containers, pod_specs
from policies.reading.serving import container_argv, engine_row, model_servers
from policies.reading.shell_words import shell_script, split_shell

_CLIENTS = frozenset({"curl", "wget", "nc", "ncat", "netcat"})
_LOOPBACK = r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])"
_URL_PORT = re.compile(rf"^(?:https?://)?{_LOOPBACK}:(\d{{2,5}})(?:/|$)")
_HOST = re.compile(rf"^{_LOOPBACK}$")
_ESCAPES = frozenset({"break", "exit", "return", "timeout", "kill"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})
_OLLAMA_PORT = 11434


def _loop_checks(words: list[str]) -> list[tuple[list[str], list[str]]]:
    """(check words, body words) of each ``until CHECK; do BODY; done`` and ``while ! CHECK; do BODY; done``."""
    found = []
    for i, word in enumerate(words):
        if word not in ("until", "while") or (i and words[i - 1] not in (";", "&&", "||", "then", "do", "else", "{", "(")):
            continue
        try:
            do = words.index("do", i)
        except ValueError:
            continue
        check = words[i + 1 : do]
        while check and check[-1] == ";":
            check.pop()
        if word == "while":
            if check[:1] != ["!"]:
                continue
            check = check[1:]
        depth, end = 1, None
        for j in range(do + 1, len(words)):
            if words[j] == "do":
                depth += 1
            elif words[j] == "done":
                depth -= 1
                if depth == 0:
                    end = j
                    break
        if end is None:
            continue
        found.append((check, words[do + 1 : end]))
    return found


def _check_port(check: list[str]) -> Optional[int]:
    """The loopback port one simple client command (curl/wget/nc) asks, else None (several commands, a test)."""
    words = [w for w in check if not w.startswith(">") and not re.match(r"^\d?>", w) and w not in ("/dev/null",)]
    if not words or any(w in _SEPARATORS or w in ("[", "[[", "test") for w in words):
        return None
    if words[0].rsplit("/", 1)[-1] not in _CLIENTS:
        return None
    for k, word in enumerate(words[1:], start=1):
        url = _URL_PORT.match(word)
        if url:
            return int(url.group(1))
        if _HOST.match(word) and k + 1 < len(words):
            return as_int(words[k + 1])
    return None


def _served(podspec: Mapping) -> dict[int, str]:
    """Port -> the app container serving it: declared containerPorts, Ollama's 11434, a table engine's port."""
    ports: dict[int, str] = {}
    for container in containers(podspec):
        name = str(container.get("name") or "<unnamed>")
        for port in as_list(container.get("ports")):
            number = as_int(as_dict(port).get("containerPort"))
            if number:
                ports.setdefault(number, name)
        image = str(container.get("image") or "")
        if "ollama" in image.rsplit("/", 1)[-1].split(":")[0]:
            ports.setdefault(_OLLAMA_PORT, name)
    return ports


def _sidecar_may_serve(podspec: Mapping, port: int) -> bool:
    for init in as_list(podspec.get("initContainers")):
        if isinstance(init, dict) and init.get("restartPolicy") == "Always":
            declared = [as_int(as_dict(p).get("containerPort")) for p in as_list(init.get("ports"))]
            if not declared or port in declared:
                return True
    return False


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    servers = None
    for path, podspec in pod_specs(resource):
        inits = [c for c in as_list(podspec.get("initContainers")) if isinstance(c, dict)]
        if not inits or podspec.get("hostNetwork") is True:
            continue
        for init in inits:
            if init.get("restartPolicy") == "Always":
                continue
            script = shell_script(container_argv(init))
            if not script or ("until" not in script and "while" not in script):
                continue
            words = split_shell(script)
            if "&" in words or "nohup" in words or "timeout" in words:
                continue
            for check, body in _loop_checks(words):
                port = _check_port(check)
                if port is None or any(w in _ESCAPES for w in body):
                    continue
                served = _served(podspec)
                if port not in served:
                    if servers is None:
                        servers = model_servers(resource)
                    for server in servers:
                        row = engine_row(server.engine)
                        if server.podspec is podspec and row is not None and row.port == port:
                            served[port] = str(server.container.get("name") or "<unnamed>")
                if port not in served or _sidecar_may_serve(podspec, port):
                    continue
                messages.append(
                    f"{container_label(path, init)}: the init container loops until port {port} on the pod's own "
                    f"loopback answers ({' '.join(check)}), and the only exit of the loop is that answer; but app "
                    f"container {served[port]}, which serves port {port}, starts only after every init container has "
                    f"completed, so the pod stays in Init forever and never serves; run the step as a native sidecar "
                    f"(restartPolicy: Always), in the app container after its server starts, or in a Job"
                )
                break
    return messages


POLICY = Policy(
    name="init-waits-for-own-pod",
    description=(
        "An init container (not a native sidecar) does not loop until a port of its own pod answers that only an app "
        "container of that pod serves: app containers start after every init container completes."
    ),
    catalog="G99",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Move the wait-and-pull step to a native sidecar (initContainers entry with restartPolicy: Always), to the app "
        "container's own script after it starts the server, or to a Job that calls the Service."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Init containers are executed in order before the pod's containers are started (kubernetes/api "
        "core/v1/types.go:4098@v0.34.0); only one with restartPolicy Always runs beside the next "
        "(types.go:2972-2987@v0.34.0). A loop whose only exit is an answer from a port only an app container of the "
        "same pod serves never ends."
    ),
)
