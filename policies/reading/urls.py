"""URLs in a string (an env value, a command line, a ConfigMap key): (url, scheme, host, port) in linear time.

Read by G63 in-cluster-url-resolves, G81 egress-allows-dns, S65 client-model-served and G4 router-readiness-probe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Optional

# A URL is found from its "://" (str.find, linear): the scheme read backwards over at most _SCHEME_MAX characters, the
# userinfo, host and port forwards within a bounded window, so no value (up to the 16 MiB file limit) costs more than
# linear time (review 43 item 6: an unanchored scheme pattern tried at every word boundary was quadratic).
_SCHEME_MAX = 16
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")
_WORD = re.compile(r"\w")
_AFTER_SCHEME = re.compile(
    r"(?:[^@/\s\"']{0,256}@)?(?P<host>[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?){0,126})"
    r"(?::(?P<port>\d{1,5}))?(?=[/?#\s\"',;]|$)"
)
_WINDOW = 256 + 1 + 253 + 6 + 1


def _scheme_start(value: str, end: int) -> Optional[int]:
    """Where the scheme ending at ``end`` starts (a lower-case letter after a word boundary), or None."""
    start = end
    while start > 0 and end - start <= _SCHEME_MAX and value[start - 1] in _SCHEME_CHARS:
        start -= 1
    if end - start > _SCHEME_MAX:
        return None
    for i in range(start, end):
        if "a" <= value[i] <= "z" and (i == 0 or not _WORD.match(value[i - 1])):
            return i
    return None


def urls(value: str) -> Iterator[tuple[str, str, str, Optional[str]]]:
    """(url, scheme, host, port) of each URL of the value, in linear time."""
    at = value.find("://")
    while at != -1:
        start = _scheme_start(value, at)
        window = value[at + 3 : at + 3 + _WINDOW]
        match = _AFTER_SCHEME.match(window) if start is not None else None
        if match and start is not None and (match.end() < len(window) or at + 3 + len(window) == len(value)):
            yield value[start : at + 3 + match.end()], value[start:at], match.group("host"), match.group("port")
        at = value.find("://", at + 3)


# A variable whose name says its URLs are compared or handed out, not dialled (review 43 item 4): an allow-list of
# browser origins (ollama/ollama envconfig/config.go AllowedOrigins, OLLAMA_ORIGINS "A comma separated list of allowed
# origins"), CORS lists, a server's own public address (Open WebUI WEBUI_URL, PUBLIC_URL, NEXTAUTH_URL), OAuth
# redirect/callback URLs, trusted hosts, NO_PROXY. Skipped.
COMPARED = re.compile(r"ORIGIN|CORS|PUBLIC|WEBUI_URL|NEXTAUTH_URL|REDIRECT|CALLBACK|ALLOWED|TRUSTED|NO_PROXY", re.I)


def cluster_service(host: str) -> tuple[str, Optional[str]]:
    """(Service name, namespace or None) a URL host names inside the cluster: ``svc`` (the caller's own namespace),
    ``svc.ns``, ``svc.ns.svc[.cluster.local]``; ("", None) for an outside host."""
    host = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    parts = host.split(".")
    if len(parts) == 1:
        return parts[0], None
    if len(parts) == 2 or parts[2] == "svc":
        return parts[0], parts[1]
    return "", None  # an outside host
