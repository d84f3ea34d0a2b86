"""A probe another container of the same pod runs against a model server's port.

Containers of a pod share one network namespace (https://kubernetes.io/docs/concepts/workloads/pods/#pod-networking:
"Within a Pod, containers share an IP address and port space, and can find each other via localhost"), so a
sidecar's ``httpGet`` or ``tcpSocket`` probe on the server's port, or an ``exec`` probe that curls or wgets
``localhost:PORT``, asks the server itself. A pod is Ready only when every container is (pod conditions, "Ready: the
Pod is able to serve requests"), so a sidecar's readinessProbe on the server's port keeps the whole pod out of the
Service until the server answers: the trap of spent set 39 arunudaiyar/openweb-ollama-k8s ollama-deploy.yaml@8534948
(Ollama with no probes, its curl sidecar probing :11434). Used by G4 (serving-readiness-probe) and S16.

``inert_exec``: an ``exec`` probe whose command cannot fail for a server that does not answer: it only imports
modules in a fresh interpreter (``python -c "import piano; print('ok')"``), or runs ``true``, ``:``, ``exit 0`` or
``echo``. The kubelet counts exit status 0 as success
(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/: "If the command succeeds, it
returns 0"), and such a command succeeds whether or not the container's server listens, so the pod is Ready as if it had
no readinessProbe (G4; spent set 118 ayutaz/project-sid k8s/llm-gateway.yaml, labelled G4). A command that reads a file
(``cat /tmp/ready``, ``test -f``) is a readiness signal the app writes, and one that opens a socket or URL asks the
server: neither is inert.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from policies.kube import as_dict, as_list

_LOCAL_URL = re.compile(r"(?:https?://)?(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0):(\d{2,5})\b")
_LOCAL_HOSTS = {"", "localhost", "127.0.0.1", "::1"}


def _port(container: Mapping, value: object) -> Optional[int]:
    """A probe's port: a number, or a name resolved through the probing container's own ports (as the kubelet does)."""
    if isinstance(value, str) and not value.isdigit():
        named = [p for p in as_list(container.get("ports")) if isinstance(p, dict) and p.get("name") == value]
        value = named[0].get("containerPort") if named else None
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def probe_ports(container: Mapping, probe: object) -> set[int]:
    """The ports of the pod a probe asks: an httpGet or tcpSocket port on the pod's own address, or the local
    ports an exec probe's command names (curl/wget localhost:PORT)."""
    probe = as_dict(probe)
    found: set[int] = set()
    for handler in ("httpGet", "tcpSocket", "grpc"):
        action = as_dict(probe.get(handler))
        if action and str(action.get("host") or "").strip() in _LOCAL_HOSTS:
            if (port := _port(container, action.get("port"))) is not None:
                found.add(port)
    command = as_list(as_dict(probe.get("exec")).get("command"))
    for word in command:
        if isinstance(word, str):
            found.update(int(p) for p in _LOCAL_URL.findall(word))
    return found


def sidecar_probe(podspec: Mapping, server: Mapping, kind: str, ports: Iterable[int]) -> Optional[str]:
    """The name of another container of the pod whose ``kind`` probe (readinessProbe, startupProbe) asks one of
    ``ports`` of the server, or None."""
    wanted = {p for p in ports if isinstance(p, int)}
    for key in ("containers", "initContainers"):
        for other in as_list(podspec.get(key)):
            if not isinstance(other, dict) or other is server:
                continue
            if key == "initContainers" and other.get("restartPolicy") != "Always":
                continue  # a plain init container has finished before the server starts
            if probe_ports(other, other.get(kind)) & wanted:
                return str(other.get("name") or "a sidecar")
    return None


def at_port(row: Any) -> str:
    """Where a message sends a probe of the engine ``row``: " (port N unless moved)", or, for an engine with no default
    HTTP port (OpenVINO Model Server serves REST only on --rest_port, default 0: review56d, the messages said port 0),
    the setting that gives one."""
    if row.port:
        return f" (port {row.port} unless moved)"
    return f" (on the port {row.spelling('port')} gives: it has no default, and without it {row.display} serves no HTTP)"


def server_ports(container: Mapping, default: Optional[int]) -> set[int]:
    """The ports a server may listen on, as the manifest says: its declared containerPorts and its engine's port."""
    ports = [p.get("containerPort") for p in as_list(container.get("ports")) if isinstance(p, dict)]
    found = {p for p in ports if isinstance(p, int) and not isinstance(p, bool)}
    return found | ({default} if isinstance(default, int) else set())


_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh"})
_IMPORT_ONLY = re.compile(r"^(import [\w., ]+|from [\w.]+ import [\w., *()]+|print\([^()]*\)|pass)?$")
_NO_OP = frozenset({"true", ":", "exit 0", "exit"})


def _inert_script(script: str) -> bool:
    text = script.strip()
    return text in _NO_OP or (text.startswith("echo ") and not any(c in text for c in "|;&$`<>"))


def _inert_python(code: str) -> bool:
    statements = [s.strip() for s in re.split(r"[;\n]", code)]
    return any(s.startswith(("import ", "from ")) for s in statements) and all(_IMPORT_ONLY.match(s) for s in statements)


def inert_exec(probe: object) -> Optional[str]:
    """The command of an exec probe that succeeds whether or not the container's server answers (module docstring),
    shown as written; None for any other probe."""
    command = as_dict(as_dict(probe).get("exec")).get("command")
    argv = [a for a in as_list(command) if isinstance(a, str)]
    if not argv or len(argv) != len(as_list(command)):
        return None
    program = argv[0].rsplit("/", 1)[-1]
    shown = " ".join(argv)
    if program in ("true", "echo") or (program in _SHELLS and len(argv) == 3 and argv[1] == "-c" and _inert_script(argv[2])):
        return shown
    if _PYTHON.match(program) and len(argv) == 3 and argv[1] == "-c" and _inert_python(argv[2]):
        return shown
    return None
