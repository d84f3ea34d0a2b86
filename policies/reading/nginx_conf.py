"""An nginx (or OpenResty) reverse proxy in front of a model server: where its configuration sends requests and how
long it waits for the backend.

The configuration is read from the ConfigMap keys the container mounts as files (policies/reading/mounted_scripts.py
mounted_config_files; only ConfigMaps among the files read). Of it: every ``proxy_pass`` target (a host, or an
``upstream`` block's ``server`` hosts; a target holding a variable is not resolved) and every ``proxy_read_timeout``
(nginx time syntax, policies/reading/edge.py nginx_time_seconds). nginx waits ``proxy_read_timeout`` between two reads
from the backend, inherited from the enclosing block, else 60 s (nginx/nginx release-1.31.4
src/http/modules/ngx_http_proxy_module.c:3734-3735; components/edge_timeouts.toml row ``nginx``). The longest value
the file sets is what the proxy allows its slowest route: an edge in front of the proxy that cuts sooner contradicts it.

A host names a Service of the run when it is a bare name or ``<service>.<namespace>[.svc[.cluster.local]]``; its first
label is the Service's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from components.edge_timeouts import default_seconds
from policies.kube import as_dict, container_label, containers, get, memoized, pod_specs
from policies.reading.edge import nginx_time_seconds
from policies.reading.mounted_scripts import mounted_config_files

NGINX_READ_DEFAULT = float(default_seconds("nginx"))
_PROGRAMS = frozenset({"nginx", "openresty"})
_COMMENT = re.compile(r"#[^\n]*")
_UPSTREAM_HEAD = re.compile(r"\bupstream\s+([\w.-]+)\s*\{")
_SERVER = re.compile(r"(?:^|[;{\s])server\s+([^\s;]+)")
_PROXY_PASS = re.compile(r"(?:^|[;{\s])proxy_pass\s+([^\s;]+)\s*;")
_READ_TIMEOUT = re.compile(r"(?:^|[;{\s])proxy_read_timeout\s+([^\s;]+)\s*;")


@dataclass(frozen=True)
class NginxProxy:
    """One nginx container's proxy: its label, the Service names it sends to, and the longest proxy_read_timeout its
    configuration sets (explicit) or nginx's default."""

    label: str
    services: tuple[str, ...]
    read_timeout: float
    explicit: bool


def is_nginx(container: Mapping) -> bool:
    image = container.get("image")
    if not isinstance(image, str):
        return False
    name = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    return bool(set(re.split(r"[-_.]+", name)) & _PROGRAMS)


def _service(host: str) -> str | None:
    """The Service a proxy target's host names (its first label), None for an address, a variable or an outside name."""
    host = host.strip().lower()
    if not host or "$" in host or re.fullmatch(r"[\d.]+|\[.*\]", host) or host in ("localhost", "unix"):
        return None
    labels = host.split(".")
    if len(labels) == 1 or (len(labels) >= 3 and labels[2] == "svc") or len(labels) == 2:
        return labels[0] if re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", labels[0]) else None
    return None


def _host(target: str) -> str:
    """The host of a proxy_pass URL or an upstream server (scheme, port and path dropped)."""
    rest = target.split("://", 1)[-1]
    return re.split(r"[:/]", rest, maxsplit=1)[0]


_LOOPBACK = re.compile(r"^(?:https?://)?(?:localhost|127\.0\.0\.1|\[::1\])(?::(\d+))?(?:/|$)", re.IGNORECASE)


def _loopback_port(target: str) -> int | None:
    """The port of a proxy_pass URL or upstream server on the pod's loopback (80 when none is written); None else."""
    m = _LOOPBACK.match(target.strip())
    return None if m is None else int(m.group(1) or 80)


def _upstreams(text: str) -> dict[str, list[str]]:
    """Each ``upstream NAME { ... }`` block's server hosts. The block's end is searched forward from its head, and the
    reading stops at the first head with no closing brace, so an unclosed file costs one pass, not one per head."""
    found: dict[str, list[str]] = {}
    pos = 0
    while (m := _UPSTREAM_HEAD.search(text, pos)) is not None:
        end = text.find("}", m.end())
        if end < 0:
            break
        found[m.group(1)] = [_host(s) for s in _SERVER.findall(text, m.end(), end)]
        pos = end + 1
    return found


def read_config(text: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """(Service names of the proxy_pass targets, the proxy_read_timeout values in seconds) of one configuration text."""
    text = _COMMENT.sub("", text)
    upstreams = _upstreams(text)
    services: list[str] = []
    for target in _PROXY_PASS.findall(text):
        host = _host(target)
        for h in upstreams.get(host, [host]):
            name = _service(h)
            if name is not None and name not in services:
                services.append(name)
    timeouts = tuple(t for v in _READ_TIMEOUT.findall(text) if (t := nginx_time_seconds(v)) is not None)
    return tuple(services), timeouts


def nginx_proxies(resource: Any) -> list[NginxProxy]:
    """The nginx/OpenResty containers of a workload whose mounted configuration proxies somewhere (module docstring)."""
    return list(memoized(resource, "nginx_proxies", _nginx_proxies))


def _nginx_proxies(resource: Any) -> list[NginxProxy]:
    found = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if not is_nginx(container):
                continue
            texts = [t for t in mounted_config_files(podspec, container).values() if "proxy_pass" in t]
            if not texts:
                continue
            services: list[str] = []
            timeouts: list[float] = []
            for text in texts:
                names, values = read_config(text)
                services += [n for n in names if n not in services]
                timeouts += values
            explicit = bool(timeouts)
            found.append(
                NginxProxy(
                    container_label(path, container),
                    tuple(services),
                    max(timeouts) if explicit else NGINX_READ_DEFAULT,
                    explicit,
                )
            )
    return found


_LOCATION = re.compile(r"(?:^|[;{}\s])location\s+(?:(=|~\*|~|\^~)\s+)?([^\s{]+)\s*\{")
_BUFFERING = re.compile(r"(?:^|[;{}\s])proxy_buffering\s+(on|off)\s*;")


@dataclass(frozen=True)
class Location:
    """One ``location`` block that proxies: its path, the Service names it sends to, and its own proxy_buffering
    ("on", "off", or "" where the block leaves it to the enclosing server/http block)."""

    path: str
    services: tuple[str, ...]
    buffering: str
    local_ports: tuple[int, ...] = ()  # ports of its loopback targets (localhost, 127.0.0.1, [::1]): a container of the pod


def _block_end(text: str, start: int) -> int:
    """The index just after the brace closing the block opened at ``start`` (an opening brace), len(text) if unclosed."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def proxy_locations(text: str) -> tuple[list[Location], str]:
    """The proxying ``location`` blocks of one configuration text, and the proxy_buffering the text sets outside every
    location ("on", "off", or ""): nginx inherits the directive from the server and http blocks (nginx/nginx
    release-1.31.4 src/http/modules/ngx_http_proxy_module.c:3704-3705, merged from the enclosing block, else on)."""
    text = _COMMENT.sub("", text)
    upstreams = _upstreams(text)
    found: list[Location] = []
    outside: list[str] = []
    pos = 0
    while (m := _LOCATION.search(text, pos)) is not None:
        outside.append(text[pos : m.start()])
        end = _block_end(text, m.end() - 1)
        body = text[m.end() : end]
        services: list[str] = []
        local: list[int] = []
        for target in _PROXY_PASS.findall(body):
            host = _host(target)
            services += [n for h in upstreams.get(host, [host]) if (n := _service(h)) is not None and n not in services]
            port = _loopback_port(target) if host not in upstreams else None
            local += [port] if port is not None and port not in local else []
        if services or local:
            own = _BUFFERING.findall(body)
            found.append(Location(m.group(2), tuple(services), own[-1] if own else "", tuple(local)))
        pos = end
    outside.append(text[pos:])
    values = _BUFFERING.findall("".join(outside))
    return found, values[-1] if values else ""


# Directives nginx takes only in the http block itself (NGX_HTTP_MAIN_CONF alone; nginx/nginx release-1.31.4:
# src/http/modules/ngx_http_limit_req_module.c:106-107 limit_req_zone, ngx_http_limit_conn_module.c:93-94
# limit_conn_zone, ngx_http_proxy_module.c:450-451 proxy_cache_path, src/http/ngx_http_upstream.c:345-346 upstream,
# ngx_http_map_module.c:51-52 map, ngx_http_geo_module.c:116-117 geo, ngx_http_split_clients_module.c:32-33
# split_clients, ngx_http_log_module.c:170-171 log_format, src/http/ngx_http_core_module.c:213-214 server), and those
# it takes only in a server block (ngx_http_core_module.c:290-291 listen, :297-298 server_name). Anywhere else nginx
# stops at start with '"NAME" directive is not allowed here' (src/core/ngx_conf_file.c:482).
HTTP_ONLY = frozenset(
    {"limit_req_zone", "limit_conn_zone", "proxy_cache_path", "upstream", "map", "geo", "split_clients", "log_format"}
)
SERVER_ONLY = frozenset({"listen", "server_name"})
_STATEMENT = re.compile(r"[;{}]")
_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


def misplaced_directives(text: str) -> list[tuple[str, str]]:
    """(directive, the block it sits in) of each directive of an http configuration that nginx refuses where it is
    written: an http-only directive inside a server/location block, listen or server_name inside a location. A text
    holding a stream or mail block is not judged (their server blocks take other directives)."""
    text = _QUOTED.sub('""', _COMMENT.sub("", text))
    if re.search(r"(?:^|[;{}\s])(stream|mail)\s*\{", text):
        return []
    found: list[tuple[str, str]] = []
    stack: list[str] = []
    pos = 0
    for m in _STATEMENT.finditer(text):
        words = text[pos : m.start()].split()
        pos = m.end()
        if m.group() == "}":
            if stack:
                stack.pop()
            continue
        name = words[0] if words else ""
        if stack and stack[-1] != "http":
            inside = [b for b in stack if b in ("server", "location")]
            if inside and name in HTTP_ONLY:
                found.append((name, inside[-1]))
            elif "location" in stack and name in SERVER_ONLY:
                found.append((name, "location"))
        if m.group() == "{":
            stack.append(name)
    return found


def holding_config_map(workload: Any, text: str, resources: list) -> str:
    """The resource name of the ConfigMap of the files whose data holds ``text`` (a configuration the workload mounts),
    where a finding on that configuration belongs; the workload's own where none does."""
    for r in resources:
        if getattr(r, "type", "") == "kubernetes:core/v1:ConfigMap" and text in as_dict(get(r.props, "data")).values():
            return str(r.name)
    return str(workload.name)
