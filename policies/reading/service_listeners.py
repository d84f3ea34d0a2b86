"""What a Service port reaches on the model-server pods it selects: the ports each engine listens on (S51, G42).

A numeric targetPort is sent to as is, and a named one resolves through the pods' declared container ports; the
declaration is informational (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports):
only the process decides what listens. An engine listens on its port setting (the literal value, else the engine
table's default, components/serving_engines.toml ``port`` with its source) and serves its metrics there where the row
says so (vLLM: ``metrics_port`` = ``port``); a Service port whose target is neither reaches nothing in a pod that runs
only the engine. Unknown (None) where something the files do not show may add a listener: a shell starting more than
one command, a sidecar, a variable or config file, an image's own entrypoint, an engine with a metrics port of its own.
Where only a shell script hides the engine's listeners, a number no command, argument or variable of the pod names (and
no envFrom or mounted config file may set) is reported for an engine that serves its metrics on its API port (spent set
80 skamalj/azure-terraform stacks/vLLM/vllm-api-deployment.yaml: a `ray start ... && vllm serve --port 8000` script,
Service port vllm-metrics 9090; vLLM v0.11.0 serves /metrics on its API port).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from components.serving_engines import Engine
from policies.kube import as_dict, as_list, get, is_custom_type, name_of, port_number, split_type
from policies.reading.engine_flags import runs_engine_image
from policies.reading.engines import table_args
from policies.reading.serving import (
    ModelServer,
    engine_command_line,
    engine_row,
    model_servers,
    namespace_of,
    selector_matches,
    template_labels,
)
from policies.reading.shell_words import sole_command
from policies.reading.vllm_args import parse_vllm_args, positional_tokens, vllm_command_line

# Workloads whose pod template shows the whole command line and environment (a LeaderWorkerSet's too).
OWN_COMMAND_LINE = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod", "LeaderWorkerSet"})


def command_line_workloads(resources: list[Any]) -> list[Any]:
    """The run's workloads whose pods' command lines the files show whole (OWN_COMMAND_LINE, not an operator's CR)."""
    return [r for r in resources if split_type(r.type)[1] in OWN_COMMAND_LINE and not is_custom_type(r.type)]


# A process the files do not show may listen beside the engine: a shell that starts more than the server (a Ray head
# beside vLLM), or another container of the pod (a sidecar, an init container that keeps running).
SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "/bin/sh", "/bin/bash", "/bin/ash", "/bin/dash", "/usr/bin/bash"})


def host_port(value: str) -> tuple[str, Optional[int]]:
    """The host and port of a host setting: ``0.0.0.0``, ``127.0.0.1:11434``, ``http://[::1]:8080/``."""
    text = value.strip().strip("\"'")
    text = text.split("://", 1)[-1].split("/", 1)[0]
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        tail = rest.lstrip(":")
    elif text.count(":") == 1:
        host, _, tail = text.partition(":")
    else:
        host, tail = text, ""
    return host, port_number(tail)


def settings(server: ModelServer, row: Engine) -> Optional[tuple[dict, list[str]]]:
    """The server's settings in vLLM's names and its command line, or None when the container does not show it."""
    if row.name == "vllm":
        line = vllm_command_line(server.container)
        return (parse_vllm_args(line), line) if line is not None else None
    line = engine_command_line(server.container, row)
    return (table_args(server.container, row, line), line) if line is not None else None


def loose(line: list[str]) -> bool:
    """A variable the shell splits into options (``$EXTRA_ARGS``, ``"$@"``) may carry the host or port setting."""
    return any("$@" in t or "$*" in t for t in line) or any("$" in t and i for i, t in positional_tokens(line))


def _env_names(server: ModelServer) -> set[str]:
    return {str(as_dict(e).get("name")) for e in as_list(server.container.get("env"))}


def listens_on(server: ModelServer, row: Engine) -> Optional[set[int]]:
    """The ports a model server listens on: its port setting (literal, else the engine's default) and the engine's
    metrics port; None where something the files do not show may add one (a shell, a variable, a config file, an
    entrypoint of another image), or the engine's row serves metrics on a port of its own (another listener)."""
    if row.metrics_port != row.port or not row.flags.get("port") or not row.port:
        # another listener for metrics, a port setting the table does not spell (TGI's image sets PORT), or a server
        # with no default HTTP port and another listener of its own (OVMS: REST on --rest_port, gRPC on --port)
        return None
    words = [str(t) for t in as_list(server.container.get("command")) + as_list(server.container.get("args"))]
    if any(w in SHELLS or w == "-c" for w in words) and not sole_command(words):
        return None  # a script that runs one simple command (`sh -c "exec vllm serve ..."`) starts no other listener
    found = settings(server, row)
    if found is None or (not server.container.get("command") and not runs_engine_image(server.container, row)):
        return None
    args, line = found
    # A variable in a shell's line may split into more options; run without a shell (the exec form), a placeholder or
    # $(VAR) stays one argument, the value of its option (`--model ${MODEL}`), and moves no port: read the port itself.
    scripted = any(w in SHELLS or w == "-c" for w in words)
    if "uds" in args or "config" in args or loose(line) or (scripted and any("$" in t for t in line)):
        return None
    if row.env.get("port") and (server.container.get("envFrom") or any(e in _env_names(server) for e in row.env["port"])):
        return None
    raw = args.get("port")
    if raw is None and isinstance(args.get("host"), str):
        raw = host_port(args["host"])[1]
    if raw is None and row.env.get("port"):
        return None  # the image's own environment may set it
    number = port_number(str(raw)) if raw is not None else row.port
    return {number} if number is not None else None


@dataclass(frozen=True)
class UnservedPort:
    """A Service port (``name`` as the Service names it, None when unnamed) that reaches nothing on the pods of
    ``workload``, and why, as S51 says it."""

    name: Optional[str]
    workload: Any
    message: str


def _same_namespace(a: Any, b: Any) -> bool:
    """Two objects of one namespace, an omitted namespace meeting any (the client's default, unknown here)."""
    first, second = namespace_of(a), namespace_of(b)
    return first is None or second is None or first == second


def unserved_ports(service: Any, workloads: list[Any]) -> list[UnservedPort]:
    """What a Service's ports send to where nothing listens, on the pods of the files' workloads it selects."""
    selector = get(service.props, "spec", "selector")
    if not isinstance(selector, Mapping) or not selector or service.template or service.patch:
        return []
    out: list[UnservedPort] = []
    for resource in workloads:
        if not _same_namespace(resource, service) or resource.template or resource.patch or resource.base:
            continue
        servers = model_servers(resource)
        workload = f"{get(resource.props, 'kind')}/{get(resource.props, 'metadata', 'name')}"
        for path, podspec in {s.path: s.podspec for s in servers}.items():
            if not any(selector_matches(selector, labels, plain=True) for labels in template_labels(resource, path)):
                continue
            mine = [s for s in servers if s.podspec is podspec]
            containers = [as_dict(c) for c in as_list(podspec.get("containers"))]
            sidecars = [c for c in as_list(podspec.get("initContainers")) if as_dict(c).get("restartPolicy") == "Always"]
            declared = {
                name_of(p): p.get("containerPort")
                for c in [*containers, *map(as_dict, sidecars)]
                for p in map(as_dict, as_list(c.get("ports")))
            }
            rows = [(s, engine_row(s.engine)) for s in mine]
            ports = [listens_on(s, r) if r is not None else None for s, r in rows]
            known = len(mine) == len(containers) and not sidecars and all(p is not None for p in ports)
            listening = set().union(*(p for p in ports if p is not None))
            # A shell script the engine's ports cannot be read through (listens_on None): a number no container of the
            # pod names anywhere is still served by nothing the files show, where the engine serves its metrics on its
            # own API port (vLLM) and nothing else (envFrom, a mounted file) may set a port.
            scripted = (
                not known
                and len(mine) == len(containers)
                and not sidecars
                and all(r is not None and r.metrics_port == r.port for _, r in rows)
                and _closed(podspec, containers)
                and all(_shell(s.container) for s in mine)
            )
            for entry in map(as_dict, as_list(get(service.props, "spec", "ports"))):
                name = entry.get("name") if isinstance(entry.get("name"), str) else None
                target = entry.get("targetPort", entry.get("port"))
                via = ""
                if isinstance(target, str) and not target.isdigit():
                    if "$" in target or "{" in target:
                        continue
                    if target not in declared:
                        out.append(
                            UnservedPort(
                                name,
                                resource,
                                f"port {entry.get('port')} targets the named port {target}, which no container of {workload} declares, so the Service has no endpoint on it",
                            )
                        )
                        continue
                    # A declared name resolves to its number, which the process, not the declaration, must serve.
                    via = f" (the containerPort named {target})"
                    target = declared[target]
                number = port_number(target)
                if scripted and number is not None and not via and number not in {r.port for _, r in rows if r}:
                    if not _names_number(containers, number):
                        names = " and ".join(sorted({r.display for _, r in rows if r is not None}))
                        out.append(
                            UnservedPort(
                                name,
                                resource,
                                f"port {entry.get('port')} targets {number} on the pods of {workload}, a number no command, argument or variable of the pod names, while {names} serves its API and its metrics on its own port: nothing the files show listens on {number}, so connections to it are refused unless a program the script starts listens there by default; target the server's port",
                            )
                        )
                    continue
                if known and number is not None and number not in listening:
                    shown = ", ".join(str(p) for p in sorted(listening))
                    names = " and ".join(sorted({r.display for _, r in rows if r is not None}))
                    out.append(
                        UnservedPort(
                            name,
                            resource,
                            f"port {entry.get('port')} targets {number}{via} on the pods of {workload}, where {names} listens on {shown} only (its metrics too) and no other container runs, so connections to it are refused (a containerPort declares nothing; the server's port setting decides); target {shown}",
                        )
                    )
    return out


def _shell(container: Mapping) -> bool:
    """True when the container's command line is a shell script (``bash -c "... && vllm serve ..."``)."""
    words = [str(t) for t in as_list(container.get("command")) + as_list(container.get("args"))]
    return any(w in SHELLS or w == "-c" for w in words)


def _closed(podspec: Mapping, containers: list[dict]) -> bool:
    """True when nothing outside the containers' own lines may set a port: no envFrom, no ConfigMap or Secret volume
    mounted (a config file), no projected volume."""
    volumes = {name_of(v): as_dict(v) for v in as_list(podspec.get("volumes"))}
    for c in containers:
        if c.get("envFrom"):
            return False
        for mount in map(as_dict, as_list(c.get("volumeMounts"))):
            name = mount.get("name")
            volume = volumes.get(name, {}) if isinstance(name, str) else {}  # else no volume's (S26 refuses it)
            if any(k in volume for k in ("configMap", "secret", "projected")):
                return False
    return True


def _names_number(containers: list[dict], number: int) -> bool:
    """True when a container's command, args, env values or hooks name ``number`` (a word of digits of that value)."""
    text = " ".join(
        str(v)
        for c in containers
        for v in (c.get("command"), c.get("args"), c.get("env"), c.get("lifecycle"), c.get("workingDir"))
        if v is not None
    )
    return re.search(rf"(?<![0-9]){number}(?![0-9])", text) is not None
