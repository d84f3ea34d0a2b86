"""Where a container's own text names a TCP destination besides an env URL: a scheme-less host:port env value and a shell
script's ``nc HOST PORT`` or curl/wget URL (session 50, brief egress50).

Read by G62 caller-egress-reaches-service (policies/ingress/callers_admitted.py callers, policies/ingress/caller_egress.py).
Spent set 87 maxjeffwell/shared-ai-gateway@8e24b467cb826bdacafbdcd9510ce20a63e6ccd7 k8s/deployment.yaml: init container
wait-for-kafka runs ``until nc -z vertex-kafka-kafka-bootstrap.microservices.svc 9092; do ...; done`` and the app
container sets ``KAFKA_BROKERS=vertex-kafka-kafka-bootstrap.microservices.svc:9092``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from policies.reading.serving import container_argv
from policies.reading.shell_words import shell_script, split_shell
from policies.reading.urls import urls

DEFAULT_PORTS = {"http": 80, "https": 443}

# A scheme-less host:port list in an env value (KAFKA_BROKERS=kafka.ns.svc:9092,other:9092): each item a DNS name and
# a port, nothing else in the value.
_HOST_PORT = re.compile(r"^[a-z0-9](?:[-a-z0-9.]{0,252}[a-z0-9])?:\d{1,5}$")
_NOT_SERVICES = ("localhost", "0.0.0.0", "127.0.0.1")
# `nc [-z] [-v] [-w N] HOST PORT` in a container's shell script (a TCP connect, e.g. a wait-for loop).
_NC = frozenset({"nc", "ncat", "netcat"})
_NC_VALUED = frozenset({"-w", "-W", "-q", "-i", "-s", "-p"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "do", "then", "done"})


def host_ports(value: str) -> list[tuple[str, int]]:
    """(host, port) of each item of a value that is only a comma-separated host:port list, else []."""
    found = []
    for item in value.split(","):
        item = item.strip().lower()
        if not _HOST_PORT.match(item):
            return []
        host, _, port = item.rpartition(":")
        if host in _NOT_SERVICES or host.replace(".", "").isdigit():
            return []
        found.append((host, int(port)))
    return found


def svc_host(host: str) -> bool:
    """Whether the host is NAME.NS.svc[.cluster.local]: certainly a Service of the cluster, in namespace NS."""
    parts = host.lower().split(".")
    return len(parts) >= 3 and parts[2] == "svc" and (len(parts) == 3 or parts[3:] == ["cluster", "local"])


def script_calls(container: Mapping) -> list[tuple[str, int, str]]:
    """(host, port, what the script says) of each ``nc HOST PORT`` and curl/wget URL of a container's shell script."""
    script = shell_script(container_argv(container))
    if not script or ("nc" not in script and "://" not in script):
        return []
    found = []
    words = split_shell(script)
    for i, word in enumerate(words):
        if posixpath.basename(word) in _NC:
            operands: list[str] = []
            j = i + 1
            while j < len(words) and words[j] not in _SEPARATORS and len(operands) < 2:
                if words[j].startswith("-"):
                    j += 2 if words[j] in _NC_VALUED else 1
                    continue
                operands.append(words[j])
                j += 1
            if len(operands) == 2 and "$" not in operands[0] and operands[1].isdigit():
                host = operands[0].lower()
                if host not in _NOT_SERVICES and not host.replace(".", "").isdigit():
                    found.append((host, int(operands[1]), f"nc {operands[0]} {operands[1]}"))
        elif posixpath.basename(word) in ("curl", "wget"):
            for j in range(i + 1, min(i + 12, len(words))):
                if words[j] in _SEPARATORS:
                    break
                for url, scheme, host, port in urls(words[j]):
                    number = int(port) if port else DEFAULT_PORTS.get(scheme.lower())
                    if number is not None and host.lower() not in _NOT_SERVICES:
                        found.append((host, number, f"{posixpath.basename(word)} {url}"))
    return found
