"""Host names that say a route is reached from outside the cluster: a DNS name under a public suffix, written in an
Istio VirtualService's ``hosts`` (or a Gateway API route's ``hostnames``) whose Gateway the files do not hold.

A name the cluster resolves itself (``*.svc``, ``*.svc.cluster.local``), a single label, a wildcard alone, an IP
address and the special-use or private suffixes (RFC 6761 ``.localhost``, ``.invalid``, ``.test``, ``.example``;
RFC 6762 ``.local``; RFC 8375 ``.home.arpa``; ``.internal``, reserved for private use by ICANN in 2024; ``.lan``,
``.localdomain``, ``.intranet``, ``.corp``, ``.private``, the usual in-house ones) say nothing of the internet. Spent set
112 IMOKURI/vllm-lws virtualService.yaml: hosts ``vllm-lws.ezua.tf-ai.io`` on Gateway ``istio-system/ezaf-gateway``
(not in the files) in front of a vLLM started without --api-key, labelled G32.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

_INTERNAL = (
    ".svc", ".cluster.local", ".local", ".localhost", ".invalid", ".test", ".example", ".home.arpa", ".internal",
    ".lan", ".localdomain", ".intranet", ".corp", ".private",
)  # fmt: skip
_NAME = re.compile(r"^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")


def external_host(host: Any) -> bool:
    """A DNS name under a public suffix (see the module's docstring)."""
    if not isinstance(host, str) or len(host) > 253:
        return False
    name = host.strip().lower().rstrip(".")
    if not _NAME.match(name) or name.endswith(_INTERNAL):  # _NAME needs a dot: a name ends with ".<label>"
        return False
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return True
    return False


def external_hosts_phrase(props: Mapping) -> str:
    """ "its hosts name DNS names outside the cluster (a, b)" for a route whose hosts or hostnames hold any, else ""."""
    spec = props.get("spec") if isinstance(props, Mapping) else None
    if not isinstance(spec, Mapping):
        return ""
    hosts = [h for key in ("hosts", "hostnames") if isinstance(spec.get(key), list) for h in spec[key]]
    found = [h.strip() for h in hosts if external_host(h)][:3]
    return f"its hosts name DNS names outside the cluster: {', '.join(found)}" if found else ""
