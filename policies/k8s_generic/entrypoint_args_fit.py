"""G80: a container's args fit the entrypoint its image runs, and its HTTP probes ask a path its server answers.

* **A subcommand repeated in args.** With no ``command``, the runtime runs the image's ENTRYPOINT with ``args``
  appended. vllm/vllm-openai's ENTRYPOINT is ``vllm serve`` (vllm-project/vllm docker/Dockerfile, stage vllm-openai,
  at v0.33.0 as components/serving_engines.toml [engines.vllm.sources] recognise records, and at the code index's
  dead20ba), and ``python3 -m vllm.entrypoints.openai.api_server`` in earlier releases (the same file at 01da4491
  and 0000977e). ``args: ["serve", MODEL, ...]`` then runs ``vllm serve serve MODEL``: ``serve`` is taken as the
  model tag (vllm/entrypoints/cli/serve.py model_tag nargs="?") and MODEL is a second positional word, which argparse
  refuses ("unrecognized arguments", exit 2); under the older entrypoint the parser takes no positional word at all
  and exits the same way. Mandatory when a positional word follows the repeated subcommand (it fails under either
  entrypoint); advice for ``["serve", "--model", M]`` (``serve`` becomes the model name under ``vllm serve``, an
  unrecognized word under the api_server). The whole engine command repeated (``args: ["vllm", "serve", ...]``) is
  G46 container-can-start's. Any engine row whose ``entrypoint`` ends with a subcommand is read the same way.
* **A health probe on a path the server has no route for.** An httpGet readiness, liveness or startup probe on the
  server's own port whose path names a health check (``/health``, ``/healthz``, ``/api/health``, ``/ready``...) that
  the server does not answer gets 404, a failure, every period: a readinessProbe keeps the pod out of its Service
  for good, a liveness or startup probe restarts it in a loop. The routes are data (components/image_contents.toml
  [[server]], complete for health-check paths over the releases read): Ollama answers none but ``/`` (and its API
  paths), llama-cpp-python's server none at all. Silent where the probe's port is not the server's (a sidecar may
  serve it), where the probe names a host, and on servers the table has no row for (their engine rows' probes are
  G4's and S16's).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Optional

from components.image_contents import ServerRoutes, contents, servers
from components.images import is_published
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, pod_specs
from policies.reading.serving import engine_table
from policies.reading.vllm_args import command_tokens, expand_env

# A path segment that names a health check.
_HEALTH_WORD = re.compile(r"(?:^|/)(?:health|healthz|healthcheck|ready|readyz|readiness|live|livez|liveness|ping)(?:/|$)")
_PROBES = ("readinessProbe", "livenessProbe", "startupProbe")
_OUTCOMES = {
    "readinessProbe": "the pod is never Ready and its Service sends it nothing",
    "livenessProbe": "the kubelet restarts the container in a loop",
    "startupProbe": "the kubelet restarts the container in a loop",
}


def _repeated_subcommand(label: str, container: Mapping) -> list[str]:
    raw = container.get("image")
    if container.get("command") or not isinstance(raw, str):
        return []
    args = expand_env([t for t in as_list(container.get("args")) if isinstance(t, str)], container)
    if not args:
        return []
    for engine in engine_table():
        words = engine.entrypoint.split()
        if len(words) < 2 or args[0] != words[-1] or not is_published(raw, engine.entrypoint_images):
            continue
        positional = len(args) > 1 and not args[1].startswith("-") and "$" not in args[1]
        older = " (older releases: `python3 -m vllm.entrypoints.openai.api_server`)" if engine.name == "vllm" else ""
        text = (
            f"{label}: args begin with {args[0]!r}, but the {engine.display} image {raw} already runs "
            f"`{engine.entrypoint}` as its ENTRYPOINT{older}, so the process is `{engine.entrypoint} {' '.join(args[:2])} ...`"
        )
        if positional:
            return [
                f"{text}: {args[0]!r} is read as the model and {args[1]!r} as a second positional argument, which the "
                f"parser refuses (unrecognized arguments, exit 2), so the container restarts in a loop; drop "
                f"{args[0]!r} from args and give the model as the first argument"
            ]
        return [
            unproven(
                f"{text}: {args[0]!r} is read as the model to serve (or, under the older entrypoint, refused as an "
                f"unrecognized argument), so the server does not start with the model meant; drop {args[0]!r} from args"
            )
        ]
    return []


def _env(container: Mapping, name: str) -> Optional[str]:
    for item in as_list(container.get("env")):
        if isinstance(item, dict) and item.get("name") == name:
            value = item.get("value")
            return value if isinstance(value, str) else None
    return None


def _runs(server: ServerRoutes, container: Mapping, tokens: list[str]) -> bool:
    """True when the container runs ``server``: its image with its own entrypoint, or its command or module."""
    if server.image_family and not container.get("command"):
        match = contents(container.get("image"))
        if match is not None and match.row.family == server.image_family:
            return True
    names = [posixpath.basename(t) for t in tokens]
    for words in server.commands:
        for i in range(len(names) - len(words) + 1):
            if tuple(names[i : i + len(words)]) == words:
                return True
    # `python -m llama_cpp.server`, `uvicorn --factory llama_cpp.server.app:create_app`
    return any(t == m or t.startswith((m + ".app:", m + ":")) for t in tokens for m in server.modules)


def _port(server: ServerRoutes, container: Mapping, tokens: list[str]) -> Optional[int]:
    """The port the server listens on, or None where the manifest does not settle it."""
    if server.port_flag:
        for i, token in enumerate(tokens):
            value = None
            if token == server.port_flag and i + 1 < len(tokens):
                value = tokens[i + 1]
            elif token.startswith(server.port_flag + "="):
                value = token.split("=", 1)[1]
            if value is not None:
                return int(value) if value.isdigit() else None
    if server.port_env and any(isinstance(e, dict) and e.get("name") == server.port_env for e in as_list(container.get("env"))):
        value = _env(container, server.port_env)
        if value is None:
            return None  # from a ConfigMap or Secret
        tail = value.rsplit(":", 1)[-1] if ":" in value else ("" if server.port_env == "OLLAMA_HOST" else value)
        if not tail:
            return server.port
        return int(tail) if tail.isdigit() else None
    return server.port


def _probe_port(container: Mapping, probe: Mapping) -> Optional[int]:
    port = as_dict(probe.get("httpGet")).get("port")
    if isinstance(port, str) and not port.isdigit():
        named = [p for p in as_list(container.get("ports")) if isinstance(p, dict) and p.get("name") == port]
        port = named[0].get("containerPort") if len(named) == 1 else None
    if isinstance(port, bool):
        return None
    if isinstance(port, int):
        return port
    return int(port) if isinstance(port, str) and port.isdigit() else None


def _unanswered_probes(label: str, container: Mapping) -> list[str]:
    found: list[str] = []
    probes = [(name, as_dict(container.get(name))) for name in _PROBES]
    probes = [(name, p) for name, p in probes if isinstance(as_dict(p.get("httpGet")).get("path"), str)]
    if not probes:
        return found
    tokens, _ = command_tokens(container)
    for server in servers():
        if not _runs(server, container, tokens):
            continue
        port = _port(server, container, tokens)
        engine = next((e for e in engine_table() if e.name == server.engine), None)
        answered = server.health_routes | ({engine.health, engine.readiness} if engine else set())
        for name, probe in probes:
            get = as_dict(probe.get("httpGet"))
            path = str(get.get("path")).split("?", 1)[0].rstrip("/") or "/"
            if get.get("host") or port is None or _probe_port(container, probe) != port:
                continue
            if not _HEALTH_WORD.search(path.lower()) or path in answered or "$" in path or "{" in path:
                continue
            found.append(
                f"{label}: {name} GETs {path} on port {port}, a route the {server.family} server does not have "
                f"(components/image_contents.toml [[server]] {server.family}: its health checks are "
                f"{', '.join(sorted(answered)) or 'none'}), so every probe gets 404 and {_OUTCOMES[name]}; probe a path "
                f"it answers" + (f" ({engine.readiness})" if engine else " (/v1/models) or use tcpSocket")
            )
        break
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            label = container_label(path, container)
            messages.extend(_repeated_subcommand(label, container))
            messages.extend(_unanswered_probes(label, container))
    return messages


POLICY = Policy(
    name="entrypoint-args-fit",
    description=(
        "A container's args fit the ENTRYPOINT its image runs (no `serve` repeated after vLLM's `vllm serve`), and "
        "its HTTP health probes ask a path the server answers (no /health on Ollama or llama-cpp-python)."
    ),
    catalog="G80",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "On vllm/vllm-openai give args the model and options only (args: [MODEL, --port, 8000]); probe Ollama on / "
        "(port 11434) and llama-cpp-python's server on /v1/models or with tcpSocket."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "args are appended to the image's ENTRYPOINT; vllm/vllm-openai's is `vllm serve` (docker/Dockerfile at v0.33.0, "
        "dead20ba) or `python3 -m vllm.entrypoints.openai.api_server` earlier (01da4491, 0000977e), so a leading "
        "`serve` becomes the model tag (vllm/entrypoints/cli/serve.py model_tag nargs='?') and the next positional word "
        "is refused by argparse, or the older parser refuses both. A probe on a path the server has no route for gets "
        "404 every period (a failure: kubernetes pkg/probe/http accepts 200-399): Ollama's gin router (server/routes.go, "
        "every release v0.0.1-v0.32.15) and llama-cpp-python's FastAPI app (llama_cpp/server/app.py, v0.1.29-v0.3.35) "
        "register no health-check path (components/image_contents.toml [[server]])."
    ),
)
