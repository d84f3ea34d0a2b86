"""S51: a model server listens on the pod's address where its probes and its Service reach it.

The kubelet sends httpGet, tcpSocket and grpc probes to the pod IP (unless the probe names a ``host``), and a
Service's endpoints are the pod IPs: a server bound to 127.0.0.1 refuses both, so the pod is never Ready (a
readinessProbe), is restarted for ever (a livenessProbe), or serves no request through its Service. Where each engine
binds with its host setting unset is the engine table's ``listens`` (components/serving_engines.toml, cited at the
row's release): vLLM and TGI bind every address; SGLang (``--host`` default 127.0.0.1), the llama.cpp server
(``--host`` 127.0.0.1) and Ollama (OLLAMA_HOST 127.0.0.1:11434) bind loopback. llama.cpp's server images and
ollama/ollama set that setting to every address in their environment (``images_listen_all``), so their default holds
only where the binary runs in another image.

Blocking when the manifest shows the whole command line and environment (a core workload or a LeaderWorkerSet), a
probe without ``host`` or a Service among the objects checked targets the server's port, and either the host setting
says loopback (``--host 127.0.0.1``, ``OLLAMA_HOST=localhost``) or it is unset on an engine no environment variable can
move (SGLang). Advice where an image's own environment or entrypoint (args alone to an image the row does not name),
an ``envFrom``, a ``--config`` file or a variable split into options may set the host, and where TGI's loopback
comes from HOSTNAME alone (the runtime sets HOSTNAME to the pod name too). TGI binds 0.0.0.0 for a hostname that
is no IP address (``host_ip_only``: v3.3.7 router/src/server.rs:1906-1911), so only an IP literal counts there. Silent where nothing outside the pod reaches the port (a sidecar proxy forwarding to it).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Optional

from components.images import names_image
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, is_custom_type, metadata_name, port_number, split_type
from policies.reading.engine_flags import rebuilt_image
from policies.reading.route_path import service_selectors
from policies.reading.service_listeners import (
    OWN_COMMAND_LINE,
    command_line_workloads,
    host_port,
    loose,
    settings,
    unserved_ports,
)
from policies.reading.serving import (
    ModelServer,
    engine_row,
    model_servers,
    namespace_of,
    selector_matches,
    template_labels,
)

_OWN_COMMAND_LINE = OWN_COMMAND_LINE
_PROBES = ("readinessProbe", "livenessProbe", "startupProbe")
_SERVICE_TYPE = ("", "Service")


def loopback(host: str) -> bool:
    """True for an address only the pod's own processes reach."""
    return host.lower() == "localhost" or host.startswith("127.") or host in ("::1", "0:0:0:0:0:0:0:1")


def _ip_literal(host: str) -> bool:
    """True for an IPv4 or IPv6 address literal (127.0.0.1, ::1), not a name such as localhost."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _bind(server: ModelServer, row: Engine) -> Optional[tuple[str, str, int, bool]]:
    """(address, how the manifest says so, port, proven) for a server bound to loopback only, else None."""
    found = settings(server, row)
    if found is None:
        return None
    args, line = found
    if any(t.startswith("dynamo.") for t in line) or "uds" in args:
        return None  # Dynamo's worker serves no HTTP itself; a socket path replaces host and port
    value = args.get("host")
    host, port = host_port(value) if isinstance(value, str) else ("", None)
    raw_port = args.get("port")
    if raw_port is not None:
        port = port_number(str(raw_port))
        if port is None:
            return None  # a variable
    port = port or row.port
    if isinstance(value, str):
        if "$" in value or not loopback(host) or (row.host_ip_only and not _ip_literal(host)):
            return None  # TGI's router binds 0.0.0.0 for a hostname that is no IP (v3.3.7 router/src/server.rs:1906-1911)
        flags = [f"--{f}" for f in row.flags.get("host", ())]
        on_line = any(t in flags or t.split("=", 1)[0] in flags for t in line)
        # From HOSTNAME only (TGI): the container runtime sets that variable too (the pod name), so advice.
        runtime_set = "HOSTNAME" in row.env.get("host", ())
        return host, f"{row.spelling('host')} {value}", port, on_line or not runtime_set
    if "host" in args or row.listens != "loopback":
        return None
    image = str(server.container.get("image") or "").lower()
    if row.images_listen_all and (names_image(image, row.images) or rebuilt_image(server.container, row)):
        return None  # the publisher's image (or a rebuild FROM it, which inherits its ENV) binds every address
    # An image the row does not name, given args only, runs its own entrypoint, which may add the host setting.
    own_entrypoint = not server.container.get("command") and not names_image(image, row.images)
    hidden = "config" in args or loose(line) or own_entrypoint or bool(row.env.get("host") and server.container.get("envFrom"))
    proven = not row.images_listen_all and not hidden
    return "127.0.0.1", f"its default with {row.spelling('host')} unset", port, proven


def _named_port(container: Mapping, port: Any) -> Optional[int]:
    """A port number, a named port resolved through the container's ports (None if unknown)."""
    if isinstance(port, str) and not port.isdigit():
        named = [p for p in as_list(container.get("ports")) if isinstance(p, dict) and p.get("name") == port]
        port = named[0].get("containerPort") if named else None
    return port_number(port)


def _probes_on(container: Mapping, port: int) -> list[str]:
    """The container's probes the kubelet sends to the pod IP on ``port``."""
    found = []
    for name in _PROBES:
        probe = as_dict(container.get(name))
        for kind in ("httpGet", "tcpSocket", "grpc"):
            handler = as_dict(probe.get(kind))
            if handler and "host" not in handler and _named_port(container, handler.get("port")) == port:
                found.append(name)
    return found


def _services_on(resource: Resource, server: ModelServer, port: int, services: list[Resource]) -> list[str]:
    """The Services among the objects checked that select the pods of the server's own template and send to ``port``
    (a LeaderWorkerSet's leader-only Service does not reach its workers)."""
    container = server.container
    labels = template_labels(resource, server.path)
    selectors = service_selectors(services)
    found = []
    for service in services:
        name = metadata_name(service.props)
        if name not in selectors or namespace_of(service) != namespace_of(resource):
            continue
        if not any(selector_matches(selectors[name], lab, plain=True) for lab in labels):
            continue
        for entry in as_list(get(service.props, "spec", "ports")):
            entry = as_dict(entry)
            if _named_port(container, entry.get("targetPort", entry.get("port"))) == port:
                found.append(f"Service {name}")
                break
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    services = [r for r in resources if split_type(r.type) == _SERVICE_TYPE]
    findings: list[tuple[str, str]] = []
    for resource in resources:
        kind = split_type(resource.type)[1]
        if kind not in _OWN_COMMAND_LINE or (kind != "LeaderWorkerSet" and is_custom_type(resource.type)):
            continue
        for server in model_servers(resource):
            row = engine_row(server.engine)
            bound = _bind(server, row) if row is not None and row.listens else None
            if bound is None or row is None:
                continue
            address, how, port, proven = bound
            targets = _probes_on(server.container, port) + _services_on(resource, server, port, services)
            if not targets:
                continue
            message = (
                f"{server.label}: {row.display} listens on {address}:{port} only ({how}), so the connections of "
                f"{' and '.join(targets)} to the pod IP are refused and the server is unreachable from outside its "
                f"pod; set {row.spelling('host')} 0.0.0.0"
            )
            if not proven:
                message += (
                    " (advisory: the host setting may come from somewhere the files do not show: the image's own "
                    "environment or entrypoint, an envFrom, a config file or a variable split into options)"
                )
            findings.append((resource.name, message if proven else unproven(message)))
    return findings


POLICY = Policy(
    name="server-listens-on-pod-ip",
    description="A model server whose probes or Service reach it on the pod IP listens on every address, not on "
    "loopback (SGLang, the llama.cpp server and Ollama bind 127.0.0.1 unless told otherwise).",
    catalog="S51",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Pass the engine's host setting as 0.0.0.0: SGLang --host 0.0.0.0, llama-server --host 0.0.0.0 (or "
        "LLAMA_ARG_HOST), Ollama OLLAMA_HOST=0.0.0.0:11434, vLLM --host 0.0.0.0 (or leave it unset); or put a proxy "
        "in the pod that listens on the pod IP and forwards to the loopback port."
    ),
    check_stack=_check,
    rationale=(
        "The kubelet probes the pod IP unless a probe sets host "
        "(https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/), and a "
        "Service forwards to the pod IPs; a socket bound to 127.0.0.1 accepts neither. Each engine's default bind address "
        "is the engine table's listens column with its source (components/serving_engines.toml)."
    ),
)


def _unserved_check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    workloads = command_line_workloads(resources)
    return [
        (service.name, unproven(f"spec.ports: {message}"))
        for service in resources
        if split_type(service.type) == _SERVICE_TYPE
        for message in (u.message for u in unserved_ports(service, workloads))
    ]


SERVICE_PORT_POLICY = Policy(
    name="service-port-reaches-server",
    description="A Service port whose target is a port nothing in the selected model-server pods listens on: a named "
    "targetPort no container declares, or a number that is not the engine's own port (its port setting or default; "
    "vLLM serves /metrics on it too) in a pod that runs only the engine (advice).",
    catalog="S51",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Target the port the server listens on (vLLM's --port, default 8000, serves the API and "
    "/metrics), or the name of a containerPort that declares it.",
    config_schema={},
    check_stack=_unserved_check,
    rationale=(
        "The EndpointSlice controller resolves a named targetPort through the pod's container ports and leaves out a pod "
        "that declares none of that name; a numeric targetPort is sent to as is, and containerPort is informational "
        "(https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports): only the process decides "
        "what listens. Each engine's port and metrics port are the engine table's, with their sources "
        "(components/serving_engines.toml)."
    ),
)
