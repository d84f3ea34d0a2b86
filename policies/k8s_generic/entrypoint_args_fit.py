"""G80: a container's args fit the entrypoint its image runs, and its HTTP probes ask a path its server answers.

* **A subcommand repeated in args.** With no ``command``, the runtime runs the image's ENTRYPOINT with ``args``
  appended. vllm/vllm-openai's ENTRYPOINT is ``vllm serve`` (vllm-project/vllm docker/Dockerfile, stage vllm-openai,
  at v0.33.0 as components/serving_engines.toml [engines.vllm.sources] recognise records, and at the code index's
  dead20ba), and ``python3 -m vllm.entrypoints.openai.api_server`` in earlier releases (the same file at 01da4491
  and 0000977e). ``args: ["serve", MODEL, ...]`` then runs ``vllm serve serve MODEL``: ``serve`` is taken as the
  model tag (vllm/entrypoints/cli/serve.py model_tag nargs="?") and MODEL is a second positional word, which argparse
  refuses ("unrecognized arguments", exit 2); under the older entrypoint the parser takes no positional word at all
  and exits the same way. Mandatory when a positional word follows the repeated subcommand (it fails under either
  entrypoint), and for ``["serve", "--model", M]``: FlexibleArgumentParser.parse_args moves the ``--model`` value to
  the front (``serve M serve``) and argparse refuses the second positional ``serve`` (vllm/utils/argparse_utils.py
  @00da11e3); advice for ``serve`` before options only. The same for ``command: [vllm, serve]`` with ``args:
  [serve, ...]``, and for args written as one string beginning with ``serve`` (one argument, read as the model's
  name). Not on KubeRay resources: KubeRay runs ``ray start ... && <command> <args>`` under ``/bin/bash -c``
  (ray-project/kuberay ray-operator/controllers/ray/common/pod.go BuildPod at 00ac1468), so args there may be Ray
  Serve's own ``serve run``. The whole engine command repeated (``args: ["vllm", "serve", ...]``) is
  G46 container-can-start's. Any engine row whose ``entrypoint`` ends with a subcommand is read the same way.
* **A server image whose ENTRYPOINT starts no server.** Triton's NGC images run /opt/nvidia/nvidia_entrypoint.sh
  (triton-inference-server/server v2.71.0 build.py L1482 for the CPU-only build; the GPU build inherits it from its
  NGC base, L1593), which execs its arguments and ``/bin/bash`` when there are none (docker/cpu_only/nvidia_entrypoint.sh
  L44-50); lmsysorg/sglang sets neither ENTRYPOINT nor CMD (sgl-project/sglang docker/Dockerfile, stored version
  004740a9) or CMD ["/bin/bash"] (docker/Dockerfile.rocm, 010871b2). The engine table states it per engine
  (components/serving_engines.toml ``no_server_images``). A container of such an image with neither command nor args
  runs a non-interactive shell that exits at once: the pod restarts in a loop and never serves (mandatory). Args that
  begin with an option are run as the command line, the option as the program, which does not exist (mandatory).
  Read on the kinds whose containers run as written (core, apps, batch, LeaderWorkerSet, an InferenceService's own
  containers, a ServingRuntime's: there only the option-first case, since an InferenceService appends its args);
  silent on operator CRs (the operator may give the command), init containers, args behind ``$(VAR)``, and args that
  begin with bash's own exec options (``--``, ``-c``, ``-l``, ``-a``).
* **A health probe on a path the server has no route for.** An httpGet readiness, liveness or startup probe on the
  server's own port whose path names a health check (``/health``, ``/healthz``, ``/api/health``, ``/ready``...) that
  the server does not answer gets 404, a failure, every period: a readinessProbe keeps the pod out of its Service
  for good, a liveness or startup probe restarts it in a loop. The routes are data (components/image_contents.toml
  [[server]], complete for health-check paths over the releases read): Ollama answers none but ``/`` (and its API
  paths), llama-cpp-python's server none at all. Silent where the probe's port is not the server's, or is one another
  container of the pod declares (a sidecar such as an auth proxy may answer it), where the server's port is not
  settled by the files (a variable from a Secret or from an envFrom source the files do not hold), where the probe
  names a host, and on servers the table has no row for (their engine rows' probes are G4's and S16's). Advice where
  the image is the server's publisher's at a reference no release read covers (latest, untagged, newer than the
  row's ``last``, another flavour, a mirror path): a later release may add the route.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Optional

from components.image_contents import ServerRoutes, contents, release, servers
from components.images import image_tag, is_published
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    is_ray,
    name_of,
    pod_specs,
    port_number,
    split_type,
)
from policies.reading.config_map_data import config_maps
from policies.reading.container_env import env_values
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
    if not isinstance(raw, str):
        return []
    command = [t for t in as_list(container.get("command")) if isinstance(t, str)]
    args = expand_env([t for t in as_list(container.get("args")) if isinstance(t, str)], container)
    if not args:
        return []
    for engine in engine_table():
        words = engine.entrypoint.split()
        if len(words) < 2:
            continue
        if command:
            # command replaces the ENTRYPOINT: only `command: [vllm, serve]` then `args: [serve, ...]` repeats it.
            if [posixpath.basename(command[0]), *command[1:]] != words:
                continue
            runs = f"its command is `{' '.join(command)}`"
        elif is_published(raw, engine.entrypoint_images):
            older = " (older releases: `python3 -m vllm.entrypoints.openai.api_server`)" if engine.name == "vllm" else ""
            runs = f"the {engine.display} image {raw} already runs `{engine.entrypoint}` as its ENTRYPOINT{older}"
        else:
            continue
        first = args[0].split()
        if len(args) == 1 and len(first) > 1 and first[0] == words[-1]:
            return [
                f"{label}: args is the one string {args[0]!r}, but {runs}, so the process is `{engine.entrypoint}` with "
                f"that whole string as a single argument: it is read as the model's name, which names no model, so the "
                f"server exits and the container restarts in a loop; write args as a list of words without "
                f"{words[-1]!r} ([MODEL, --port, ...])"
            ]
        if args[0] != words[-1]:
            continue
        text = (
            f"{label}: args begin with {args[0]!r}, but {runs}, so the process is `{engine.entrypoint} {' '.join(args[:2])} ...`"
        )
        if len(args) > 1 and not args[1].startswith("-") and "$" not in args[1]:
            return [
                f"{text}: {args[0]!r} is read as the model and {args[1]!r} as a second positional argument, which the "
                f"parser refuses (unrecognized arguments, exit 2), so the container restarts in a loop; drop "
                f"{args[0]!r} from args and give the model as the first argument"
            ]
        if any(re.match(r"^--model(=|$)", a) for a in args[1:]):
            return [
                f"{text}: vLLM's parser moves the --model value to the front of `{words[-1]}`'s arguments, so "
                f"{args[0]!r} becomes a second positional argument after the model, which argparse refuses "
                f"(unrecognized arguments: {args[0]}, exit 2; the older entrypoint refuses {args[0]!r} the same way), so "
                f"the container restarts in a loop; drop {args[0]!r} from args"
            ]
        return [
            unproven(
                f"{text}: {args[0]!r} is read as the model to serve (or, under the older entrypoint, refused as an "
                f"unrecognized argument), so the server does not start with the model meant; drop {args[0]!r} from args"
            )
        ]
    return []


# Kinds whose containers run as written (no operator fills a command in): core, apps and batch workloads, LeaderWorkerSet,
# a KServe InferenceService's own containers and a ServingRuntime's (an InferenceService's args are appended to its).
_AS_WRITTEN_GROUPS = frozenset({"", "apps", "batch", "leaderworkerset.x-k8s.io"})
_KSERVE_KINDS = frozenset({"InferenceService", "ServingRuntime", "ClusterServingRuntime"})
# bash's own `exec` options (exec [-cl] [-a name] [command]) and the end of options: NGC's entrypoint `exec "$@"` reads
# these as its options, so a command after them may still run.
_EXEC_OPTIONS = re.compile(r"^(?:--|-[cl]+|-a)$")


def _runs_as_written(resource: Resource, path: str) -> bool:
    group, kind = split_type(resource.type)
    if group in _AS_WRITTEN_GROUPS:
        return True
    return group == "serving.kserve.io" and kind in _KSERVE_KINDS and not path.endswith(".model")


def _no_server_entrypoint(label: str, container: Mapping, runtime: bool) -> list[str]:
    """A container of an image whose ENTRYPOINT starts no server (Triton's NGC images, lmsysorg/sglang), given no
    command: with no args it runs a shell that exits; args that begin with an option are exec'd as the program.
    ``runtime``: a KServe ServingRuntime's container, whose InferenceServices append their args (so only the
    option-first case is judged there)."""
    raw = container.get("image")
    if not isinstance(raw, str) or "command" in container and container.get("command") not in (None, []):
        return []
    args = container.get("args")
    if args is not None and not isinstance(args, list):
        return []
    engine = next((e for e in engine_table() if e.no_server_images and is_published(raw, e.no_server_images)), None)
    if engine is None:
        return []
    where = f"components/serving_engines.toml [engines.{engine.name}] no_server_images, sources.recognise"
    shown = f"python3 -m {engine.modules[0]}" if engine.modules else " ".join(engine.commands[0] if engine.commands else ())
    if not args:
        if runtime:
            return []
        return [
            f"{label}: the {engine.display} image {raw} gives neither command nor args, and its ENTRYPOINT starts no "
            f"server ({where}): the container runs a non-interactive shell that exits at once, so the pod restarts in "
            f"a loop and never serves; give the server's command line ({shown} ...) as command or args"
        ]
    first = args[0]
    if not isinstance(first, str) or "$" in first or _EXEC_OPTIONS.match(first):
        return []
    if first.startswith("-") and len(first) > 1:
        return [
            f"{label}: args begin with the option {first!r} and no command is given, but the {engine.display} image "
            f"{raw} starts no server of its own: its entrypoint runs the args as the command line ({where}), so "
            f"{first!r} is executed as a program, which does not exist: the container fails to start and restarts in "
            f"a loop; begin args with the server ({shown} {first} ...) or set command"
        ]
    return []


_UNSET = object()
_UVICORN_PORT = 8000


def _env_setting(container: Mapping, name: str) -> object:
    """The value of variable ``name`` in the container (a string), None when the files do not settle it (a Secret, a
    field, an envFrom source the files do not hold), or _UNSET when the container surely does not set it."""
    values = env_values(container)
    if name in values:
        return values[name]
    if any(isinstance(e, dict) and e.get("name") == name for e in as_list(container.get("env"))):
        return None  # from a Secret, a field or a ConfigMap outside the files
    maps = config_maps(container) if as_list(container.get("envFrom")) else {}
    for source in as_list(container.get("envFrom")):
        source = as_dict(source)
        ref = get(source, "configMapRef")
        if source.get("secretRef") or not isinstance(ref, dict) or name_of(ref) not in maps:
            return None  # a Secret, or a ConfigMap the files do not hold, may set it
    return _UNSET


def _runs(server: ServerRoutes, container: Mapping, tokens: list[str]) -> Optional[bool]:
    """None when the container does not run ``server``; else whether the image reference proves the server's routes:
    False where the image is the server's publisher's at a tag no Dockerfile read covers (latest, untagged, a newer
    release, a mirror path), True otherwise."""
    match = contents(container.get("image")) if server.image_family else None
    if match is not None and match.row.family != server.image_family:
        match = None
    proven = match is None or (match.proven and (release(image_tag(str(container.get("image"))) or "") or (0,)) <= server.last)
    if match is not None and not container.get("command"):
        return proven
    names = [posixpath.basename(t) for t in tokens]
    for words in server.commands:
        for i in range(len(names) - len(words) + 1):
            if tuple(names[i : i + len(words)]) == words:
                return proven
    # `python -m llama_cpp.server`, `uvicorn --factory llama_cpp.server.app:create_app`
    if any(t == m or t.startswith((m + ".app:", m + ":")) for t in tokens for m in server.modules):
        return proven
    return None


def _port(server: ServerRoutes, container: Mapping, tokens: list[str]) -> Optional[int]:
    """The port the server listens on, or None where the manifest does not settle it."""
    flag: Optional[int] = None
    flagged = False
    if server.port_flag:
        for i, token in enumerate(tokens):
            value = None
            if token == server.port_flag and i + 1 < len(tokens):
                value = tokens[i + 1]
            elif token.startswith(server.port_flag + "="):
                value = token.split("=", 1)[1]
            if value is not None:
                flag, flagged = port_number(value), True
    uvicorn = any(posixpath.basename(t) == "uvicorn" for t in tokens)
    if uvicorn and server.modules:
        # Under `uvicorn MODULE:create_app` the server's own PORT is not read; uvicorn's --port or its own settings are.
        if flagged:
            return flag
        # uvicorn: --port, else UVICORN_PORT, else 8000 (https://www.uvicorn.org/settings, encode/uvicorn docs/settings.md).
        unsettled = container.get("envFrom") or any(
            isinstance(e, dict) and str(e.get("name", "")).startswith("UVICORN_") for e in as_list(container.get("env"))
        )
        return None if unsettled else _UVICORN_PORT
    setting = _env_setting(container, server.port_env) if server.port_env else _UNSET
    if flagged and not (server.port_env_wins and setting is not _UNSET):
        return flag
    if setting is _UNSET:
        return server.port
    if not isinstance(setting, str):
        return None
    value = setting.strip()
    if server.port_env == "OLLAMA_HOST":
        value = value.split("://", 1)[-1].split("/", 1)[0]
        tail = value.rsplit(":", 1)[-1] if ":" in value else ""
    else:
        tail = value
    return server.port if not tail else port_number(tail)


def _probe_port(container: Mapping, probe: Mapping) -> Optional[int]:
    port = as_dict(probe.get("httpGet")).get("port")
    if isinstance(port, str) and port_number(port) is None:
        named = [p for p in as_list(container.get("ports")) if isinstance(p, dict) and p.get("name") == port]
        port = named[0].get("containerPort") if len(named) == 1 else None
    return port_number(port)


def _unanswered_probes(label: str, container: Mapping, others: set[int]) -> list[str]:
    """``others``: the ports other containers of the pod declare (a sidecar such as an auth proxy may answer there)."""
    found: list[str] = []
    probes = [(name, as_dict(container.get(name))) for name in _PROBES]
    probes = [(name, p) for name, p in probes if isinstance(as_dict(p.get("httpGet")).get("path"), str)]
    if not probes:
        return found
    tokens, _ = command_tokens(container)
    for server in servers():
        proven = _runs(server, container, tokens)
        if proven is None:
            continue
        port = _port(server, container, tokens)
        engine = next((e for e in engine_table() if e.name == server.engine), None)
        answered = server.health_routes | ({engine.health, engine.readiness} if engine else set())
        for name, probe in probes:
            get_ = as_dict(probe.get("httpGet"))
            path = str(get_.get("path")).split("?", 1)[0].rstrip("/") or "/"
            if get_.get("host") or port is None or port in others or _probe_port(container, probe) != port:
                continue
            if not _HEALTH_WORD.search(path.lower()) or path in answered or "$" in path or "{" in path:
                continue
            text = (
                f"{label}: {name} GETs {path} on port {port}, a route the {server.family} server does not have "
                f"(components/image_contents.toml [[server]] {server.family}: its health checks are "
                f"{', '.join(sorted(answered)) or 'none'}), so every probe gets 404 and {_OUTCOMES[name]}; probe a path "
                f"it answers" + (f" ({engine.readiness})" if engine else " (/v1/models) or use tcpSocket")
            )
            doubt = f"the image {container.get('image')} is no release the table read, which may add the route"
            found.append(text if proven else unproven(f"{text} ({doubt})"))
        break
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    ray = is_ray(resource.type)
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            label = container_label(path, container)
            if not ray:
                # KubeRay runs `ray start ... && <command> <args>` under /bin/bash -c (ray-project/kuberay
                # ray-operator/controllers/ray/common/pod.go BuildPod at 00ac1468): args there are no image's ENTRYPOINT's.
                messages.extend(_repeated_subcommand(label, container))
                if _runs_as_written(resource, path):
                    runtime = split_type(resource.type)[1] in ("ServingRuntime", "ClusterServingRuntime")
                    messages.extend(_no_server_entrypoint(label, container, runtime))
            ports = {
                p
                for other in containers(podspec)
                if other is not container
                for item in as_list(other.get("ports"))
                if (p := port_number(as_dict(item).get("containerPort"))) is not None
            }
            messages.extend(_unanswered_probes(label, container, ports))
    return messages


POLICY = Policy(
    name="entrypoint-args-fit",
    description=(
        "A container's args fit the ENTRYPOINT its image runs (no `serve` repeated after vLLM's `vllm serve`; a command "
        "line for Triton's and SGLang's images, whose ENTRYPOINT starts no server), and its HTTP health probes ask a path "
        "the server answers (no /health on Ollama or llama-cpp-python)."
    ),
    catalog="G80",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "On vllm/vllm-openai give args the model and options only (args: [MODEL, --port, 8000]); on Triton's and "
        "SGLang's images give the server's command line (args: [tritonserver, --model-repository=/models]); probe Ollama on / "
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
        "register no health-check path (components/image_contents.toml [[server]]). Triton's NGC entrypoint execs its "
        "args and runs /bin/bash with none (server v2.71.0 docker/cpu_only/nvidia_entrypoint.sh L44-50); lmsysorg/sglang "
        "sets no ENTRYPOINT (docker/Dockerfile @004740a9): given nothing, or options alone, such a container never serves."
    ),
)
