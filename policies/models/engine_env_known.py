"""G74: a variable set for an engine (its own prefix, or another engine's setting) is one the image's release reads.

An engine reads its settings from the environment under its own prefix (Ollama: OLLAMA_HOST, OLLAMA_MODELS,
OLLAMA_GPU_OVERHEAD, ... in envconfig/config.go). A variable with the prefix that no release reads is silently
ignored: the setting the author meant (a VRAM cap, a keep-alive) never applies and nothing in the logs says so.
components/engine_env_names.json ``settings.ENGINE`` lists every name under the prefix some release of the engine reads (a
superset, collected from every release tag's sources) with the first and the last release read that names it, so the
name is judged at the image's release: the release its tag names on the publisher's image (``ollama/ollama:0.5.4``,
``ghcr.io/ggml-org/llama.cpp:server-cuda-b6080``, a build between two read tags judged by both), the newest release
read for an untagged image or a tag the publisher moves (``latest``, ``rocm``: serving_engines.toml ``moving_tags``),
and every release read (the union) for any other tag or a rebuild. ``OLLAMA_PORT`` is read only by Ollama v0.0.1 to
v0.0.19 (v0.0.1 cmd/cmd.go:161), so ``ollama/ollama:latest`` ignores it. Spent set 43,
kcirtapfromspace/gemma4 apps/ollama/deployment.yaml@938e1b5 (label filed none): ``OLLAMA_GPU_MEMORY: 5GiB`` meant to
cap an 8 GB Jetson; Ollama knows OLLAMA_GPU_OVERHEAD (reserved VRAM per GPU, bytes).

Judged only where the engine's own binary reads the container's environment: the publisher's image with its own
entrypoint, or a command that runs the engine's server command itself (``ollama serve``), and the variable is named
nowhere else in the container (a shell command, an argument or a hook that reads ``$OLLAMA_PULL_MODELS`` makes it a
script's). Advice: the message names the closest name the engine reads.

A variable of the container's own ``env`` that is a setting of ANOTHER engine of the tables and that no release of this
engine's sources names (``[foreign.ENGINE]``, written by tools/read_engine_env.py foreign: LocalAI's command-line
variables at every release, TGI's and TEI's option env, the [settings] names) is the same advice: ``PRELOAD_MODELS``
on ``ollama/ollama`` (LocalAI reads it, mudler/LocalAI v4.9.0 core/cli/run.go; Ollama has no such setting).

A rebuild of the engine's image under its name (``ollama-amd:latest`` serving on 11434: engine_flags.rebuilt_image)
with no command runs the engine's binary too, judged at every release read (the union). And an engine that reads its
settings from its environment only (components/engine_env.toml ``[env_only]``: Ollama's envconfig/config.go:375-376
Var is os.Getenv; its only file is ~/.ollama/server.json) given a ConfigMap file of ``OLLAMA_...=`` lines that nothing
in the container sources is the same advice: those settings never apply (spent set 82 olafkfreund/SOW-generator
deployment/k8s-pod-amd.yaml, ollama.conf mounted at /etc/ollama with OLLAMA_FLASH_ATTENTION=1 and
OLLAMA_TENSOR_PARALLEL_SIZE, OLLAMA_MAX_BATCH_SIZE, names no release reads).

vLLM (brief ollama51): ``settings.vllm`` holds every VLLM_ name its PyPI wheels name (tools/read_engine_env.py vllm; vllm
0.34.0 vllm/envs.py:662 environment_variables, and vllm/platforms/interface.py:1494-1502 warns "Unknown vLLM environment
variable detected" for any other). Judged on plain workloads and KServe ServingRuntimes (an LLMInferenceService's preset
command reads $VLLM_ADDITIONAL_ARGS), on the container's own env, never on a fork republished as ``*/vllm-openai``;
spent set 62 david66l/travelagent3 k8s/vllm-deployment.yaml (VLLM_MODEL, VLLM_SERVED_MODEL_NAME on a rebuild given
vLLM's flags).

A KServe predictor ``model``'s own env (brief kserve53; spent set 109 Siryoos/kserve-vllm-mini@627b171a isvc.yaml:
``VLLM_ARGS: "--max-model-len 4096 --gpu-memory-utilization 0.90 ..."``, options no vLLM reads from its environment)
is judged with the runtime KServe merges under it: one of the files whose kserve-container runs vLLM's own server, or
KServe's kserve-vllmserver (kserve v0.20.0 config/runtimes/kserve-vllmserver.yaml:21-25: ``python -m
vllm.entrypoints.openai.api_server``); a variable its command or args name ($(VLLM_ARGS)) is the runtime's, not
vLLM's. A runtime none of the files defines, named for vLLM (``vllm``, ``vllm-runtime``) or serving the vLLM format, is
judged too, the message saying that its command may read the variable.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from components.engine_env import ENV_ONLY, ENV_SETTINGS, FOREIGN, EnvSettings
from components.engine_options import moving_release, tagged_release
from components.images import image_tag, is_published, names_image
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, split_type
from policies.reading.engine_flags import rebuilt_image
from policies.reading.engines import EngineServer, env_values, table_servers
from policies.reading.kserve_runtime import builtin_runtime, merged_predictor
from policies.reading.mounted_scripts import mounted_config_files
from policies.reading.run_objects import templated
from policies.reading.serving import engine_row, model_server_engine, model_servers
from policies.reading.shell_words import sole_command


def runs_engine_binary(server: EngineServer) -> bool:
    """Whether the engine's own binary reads the container's environment (``_binary_reads_env``), for the policies that
    judge the same environment from elsewhere (the ConfigMap a vLLM server takes it from)."""
    return _binary_reads_env(server)


def _binary_reads_env(server: EngineServer) -> bool:
    """True when the engine's own binary is what the container runs: the publisher's image with no command, or a
    command whose first word is the engine's server command (``ollama``, not ``sh``; a ``sh -c`` script that runs one
    simple command is that command: shell_words.sole_command)."""
    row = server.row
    if row is None:
        return False
    command = [w for w in as_list(server.container.get("command")) if isinstance(w, str)]
    if command and (sole := sole_command(command + [w for w in as_list(server.container.get("args")) if isinstance(w, str)])):
        command = sole  # `sh -c "exec ollama serve"`: the shell becomes the engine's binary
    if not command:
        image = str(server.container.get("image") or "").lower()
        if names_image(image, row.images) or rebuilt_image(server.container, row):
            return True
        # A rebuild given only the engine's own flags (``args: [--model, ...]`` on travel-agent-vllm:latest, spent set 62
        # david66l/travelagent3 k8s/vllm-deployment.yaml): its entrypoint runs the engine's server with them (the
        # message hedges: that entrypoint may read a variable the engine does not).
        args = as_list(server.container.get("args"))
        return bool(args) and isinstance(args[0], str) and args[0].startswith("--")
    if any(posixpath.basename(command[0]) == words[0] for words in row.commands):
        return True
    # ``python3 -m vllm.entrypoints.openai.api_server``: the engine's server module run by the interpreter.
    module = _SERVER_MODULES.get(row.name)
    words = command + [w for w in as_list(server.container.get("args")) if isinstance(w, str)]
    return module is not None and any(a == "-m" and b.startswith(module) for a, b in zip(words, words[1:]))


# Engines judged on the container's own ``env`` only: a ConfigMap given through envFrom is often the app's shared one
# (spent set 62 david66l/travelagent3: travel-agent-config carries the clients' VLLM_BASE_URL, VLLM_MAX_RETRIES).
_OWN_ENV_ONLY = frozenset({"vllm"})

# The Python package of an engine whose server may be run as ``python -m PACKAGE....`` (vLLM's OpenAI server).
_SERVER_MODULES = {"vllm": "vllm.entrypoints"}


def judged_servers(resource: Resource) -> list[EngineServer]:
    """The engine servers of a workload whose environment is judged: those of the engine table (table_servers), and
    vLLM's (read by policies.reading.vllm_args elsewhere; here only its container, command and image matter)."""
    found = list(table_servers(resource))
    row, settings = engine_row("vllm"), ENV_SETTINGS.get("vllm")
    if row is None or settings is None or split_type(resource.type)[1] not in _PLAIN_WORKLOADS:
        return found  # an operator's resource (LLMInferenceService) gets its command, reading $VLLM_..., from a preset
    for s in model_servers(resource):
        image = str(s.container.get("image") or "").lower()
        repository = image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
        published = is_published(image, settings.images)
        # A fork republished under the publisher's repository name reads variables of its own (aibrix/vllm-openai's
        # VLLM_USE_VINEYARD_CACHE, vllm-project/aibrix samples/kvcache/vineyard/deployment-tp.yaml): not judged.
        if s.engine == "vllm" and (published or repository not in _PUBLISHED_NAMES):
            found.append(EngineServer("vllm", s.path, s.podspec, s.container, {}, None, {}, row))
    return found


_PLAIN_WORKLOADS = frozenset(
    {
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "ReplicaSet",
        "Job",
        "CronJob",
        "Pod",
        "LeaderWorkerSet",
        # A KServe runtime's kserve-container runs the command it writes; an InferenceService only adds to its env.
        "ServingRuntime",
        "ClusterServingRuntime",
    }
)
_ISVC = ("serving.kserve.io", "InferenceService")
_KSERVE_VLLM = "kserve-vllmserver"  # kserve v0.20.0 config/runtimes/kserve-vllmserver.yaml:21-25 runs vLLM's server


def predictor_server(resource: Resource) -> tuple[EngineServer, frozenset[str], str] | None:
    """(vLLM server, the VLLM_ names the predictor ``model`` sets itself, the hedge its message carries) of a KServe
    InferenceService whose runtime runs vLLM: a runtime of the files merged under the model (its command and args with
    the model's), KServe's kserve-vllmserver, or a runtime no file defines that is named for vLLM or serves the vLLM
    format ("" hedge for the first two). None otherwise."""
    if split_type(resource.type) != _ISVC or resource.patch:
        return None
    model = get(resource.props, "spec", "predictor", "model")
    row = engine_row("vllm")
    if not isinstance(model, dict) or row is None:
        return None
    env = [n for n in (as_dict(e).get("name") for e in as_list(model.get("env"))) if isinstance(n, str)]
    names = frozenset(n for n in env if n.startswith("VLLM_"))
    if not names:
        return None
    path = "spec.predictor.model"
    merged = merged_predictor(resource)
    if merged is not None:
        podspec, container, _runtime = merged
        server = EngineServer("vllm", path, podspec, container, {}, None, {}, row)
        runs_vllm = model_server_engine(container) == "vllm" and _binary_reads_env(server)
        return (server, names, "") if runs_vllm else None
    written, fmt = model.get("runtime"), get(model, "modelFormat", "name")
    runtime = written if isinstance(written, str) else ""
    named = bool(runtime)
    if named and runtime == _KSERVE_VLLM or not named and fmt == "vLLM" and builtin_runtime(resource) is not None:
        hedge = ""
    elif named and "vllm" in runtime.lower() and not templated(runtime) or isinstance(fmt, str) and fmt.lower() == "vllm":
        hedge = (
            f" (runtime {runtime} is defined by none of the files read: unless its command reads the variable"
            if named
            else " (the runtime KServe picks is in none of the files read: unless its command reads the variable"
        ) + ", as a shell's $VAR or Kubernetes' $(VAR))"
    else:
        return None
    container = {k: v for k, v in model.items() if k in ("command", "args", "env", "lifecycle")}
    return (
        EngineServer("vllm", path, as_dict(get(resource.props, "spec", "predictor")), container, {}, None, {}, row),
        names,
        hedge,
    )


_PUBLISHED_NAMES = frozenset({"vllm-openai", "vllm"})


def rebuild_entrypoint(server: EngineServer) -> bool:
    """True when a rebuild's own entrypoint runs (no command, an image no row names): a wrapper script of the rebuild
    may read a variable or source a file the engine itself does not, so the advice says so."""
    image = str(server.container.get("image") or "").lower()
    return not server.container.get("command") and server.row is not None and not names_image(image, server.row.images)


def _named_elsewhere(container: dict, name: str) -> bool:
    """True when the container's command, args, hooks or probes name the variable ($NAME, ${NAME}, $(NAME))."""
    rest = {k: v for k, v in container.items() if k not in ("env", "envFrom", "name", "image", "resources")}
    return name in json.dumps(rest, default=str)


def _judged_at(server: EngineServer, settings: EnvSettings) -> tuple[frozenset[str], str]:
    """(the names the image's release reads, how that release was read: "" for the union of every release read)."""
    image = str(server.container.get("image") or "")
    if server.row is None or not is_published(image, settings.images):
        return settings.names, ""
    if moving_release(image, settings.images, server.row.moving_tags):
        tag = image_tag(image)
        how = f"the tag {tag} follows the newest release" if tag else "an untagged image is the newest release"
        return settings.read_at(settings.newest) or settings.names, f"{settings.newest} ({how})"
    release = tagged_release(image, settings.images, settings.release_tag)
    read = settings.read_at(release) if release else None
    return (read, f"{release} (the image's tag)") if read is not None else (settings.names, "")


def _unknown(server: EngineServer, only: frozenset[str] | None = None) -> list[tuple[str, list[str], str]]:
    """(variable, closest names read, the release it was judged at) for each variable under the engine's prefix that
    the image's release does not read ("" when no release read reads it). ``only``: the names to judge, of a server
    already known to run the engine's binary (a KServe predictor's: predictor_server)."""
    settings = ENV_SETTINGS.get(server.engine)
    if settings is None or only is None and not _binary_reads_env(server):
        return []
    names = {n for n in (as_dict(e).get("name") for e in as_list(server.container.get("env"))) if isinstance(n, str)}
    if only is not None:
        names &= only
    elif server.engine not in _OWN_ENV_ONLY:
        names |= set(env_values(server.container))
    return unread_among(server, names, settings)


def unread_among(server: EngineServer, names: Any, settings: EnvSettings) -> list[tuple[str, list[str], str]]:
    """(variable, closest names read, the release it was judged at) for each of ``names`` under the engine's prefix
    that the image's release does not read and that the container's command, args, hooks and probes do not name."""
    candidates = [n for n in sorted(names) if n.startswith(settings.prefix) and not _named_elsewhere(server.container, n)]
    if not candidates:
        return []
    read, at = _judged_at(server, settings)
    return [(name, _close_matches(name, read), at) for name in candidates if name not in read]


def _foreign(server: EngineServer) -> list[tuple[str, str]]:
    """(variable, the other engine that reads it) for each variable of the container's own ``env`` list (a shared
    ConfigMap's keys are not the author's choice for this container) that another engine of the tables reads and this
    engine's sources never name (components/engine_env_names.json foreign.ENGINE)."""
    foreign = FOREIGN.get(server.engine)
    if foreign is None or not _binary_reads_env(server):
        return []
    names = {n for n in (as_dict(e).get("name") for e in as_list(server.container.get("env"))) if isinstance(n, str)}
    return [(n, foreign.names[n]) for n in sorted(names) if n in foreign.names and not _named_elsewhere(server.container, n)]


# A line of a settings file: NAME=VALUE (optionally `export NAME=...`), NAME under an engine's prefix.
_ASSIGNMENT = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Z][A-Z0-9_]*)[ \t]*=", re.MULTILINE)


def _map_of_path(podspec: dict, container: dict, path: str) -> str:
    """The name of the ConfigMap whose volume the container mounts at ``path`` or at a folder above it ("" if none)."""
    maps = {
        v.get("name"): source.get("name")
        for v in map(as_dict, as_list(podspec.get("volumes")))
        if isinstance(source := as_dict(v.get("configMap")), dict) and isinstance(source.get("name"), str)
    }
    best = ("", -1)
    for mount in map(as_dict, as_list(container.get("volumeMounts"))):
        at, name = mount.get("mountPath"), maps.get(mount.get("name"))
        if isinstance(at, str) and name and (path == at.rstrip("/") or path.startswith(at.rstrip("/") + "/")):
            best = max(best, (name, len(at)), key=lambda b: b[1])
    return best[0]


def settings_files(server: EngineServer) -> list[tuple[str, list[str], str]]:
    """(path, names, the ConfigMap mounted there) of each file a ConfigMap mounts into the container that sets variables under the engine's prefix
    (NAME=VALUE lines) the container's environment does not set, for an engine that reads its settings only from its
    environment (engine_env.toml [env_only]): nothing reads the file unless the container's command, args, hooks or
    probes name it or its folder (``set -a; . /etc/ollama/ollama.conf``). Read by engine-env-file-unread too, which says it on the ConfigMap."""
    settings = ENV_SETTINGS.get(server.engine)
    if server.engine not in ENV_ONLY or settings is None or not _binary_reads_env(server):
        return []
    files = mounted_config_files(server.podspec, server.container)
    if not files:
        return []
    env = {n for n in (as_dict(e).get("name") for e in as_list(server.container.get("env"))) if isinstance(n, str)}
    env |= set(env_values(server.container))
    rest = json.dumps({k: v for k, v in server.container.items() if k not in ("env", "envFrom", "volumeMounts")}, default=str)
    found = []
    for path, text in sorted(files.items()):
        if not isinstance(text, str) or settings.prefix not in text:
            continue
        if path in rest or posixpath.dirname(path) in rest or posixpath.basename(path) in rest:
            continue
        names = sorted({n for n in _ASSIGNMENT.findall(text) if n.startswith(settings.prefix) and n not in env})
        if names:
            found.append((path, names, _map_of_path(server.podspec, server.container, path)))
    return found


def _close_matches(name: str, known: Any) -> list[str]:
    """The known name ``name`` most likely misspells (difflib, imported here: a run whose files set no unknown variable
    never loads it, ~0.6 ms of `policies check`)."""
    import difflib

    return difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)


def _options_value(container: dict, name: str) -> str:
    """The first words of a literal env value that is a command line's options ("--max-model-len 4096 ..."), or ""."""
    for entry in map(as_dict, as_list(container.get("env"))):
        value = entry.get("value")
        if entry.get("name") == name and isinstance(value, str) and value.strip().startswith("--"):
            words = value.split()
            return " ".join(words[:2]) + (" ..." if len(words) > 2 else "")
    return ""


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    predictor = predictor_server(resource)
    judged = [(s, None, "") for s in judged_servers(resource)] + ([predictor] if predictor is not None else [])
    for server, only, hedge in judged:
        for name, closest, at in _unknown(server, only):
            settings = ENV_SETTINGS[server.engine]
            display = server.row.display if server.row else server.engine
            hint = f"; the closest variable it reads is {closest[0]}" if closest else ""
            fix = "use the engine's own name for it, or drop the variable"
            options = _options_value(server.container, name)
            if options:
                # VLLM_ARGS: "--max-model-len 4096 ...": options the engine takes only on its command line.
                hint = f"; its value holds command-line options ({options}), which {display} reads only as arguments"
                fix = "pass them in args instead"
            span = settings.spans.get(name)
            if span is None:
                why = f"is no setting {display} reads (no release of it reads a variable of that name"
            else:
                read = span[0] if span[0] == span[1] else f"{span[0]} to {span[1]}"
                why = f"is no setting {display} {at} reads (only its releases {read} read it"
            messages.append(
                f"{server.label}: env {name} {why}: components/engine_env_names.json settings.{server.engine}), so the value "
                f"is silently ignored and the setting meant never applies{hint}; {fix}"
                + (
                    " (unless this rebuilt image's own entrypoint reads it)"
                    if only is None and rebuild_entrypoint(server)
                    else ""
                )
                + hedge
            )
        for path, names, _map in settings_files(server):
            display = server.row.display if server.row else server.engine
            env_only = ENV_ONLY[server.engine]
            unread = [n for n in names if n not in ENV_SETTINGS[server.engine].names]
            never = f" ({', '.join(unread)} no release of it reads at all)" if unread else ""
            hedge = " (unless this rebuilt image's own entrypoint sources the file)" if rebuild_entrypoint(server) else ""
            messages.append(
                f"{server.label}: {path} sets {', '.join(names)}{never}, but {display} reads its settings only from its "
                f"environment (components/engine_env.toml env_only.{server.engine}: no file of NAME=VALUE lines; the only "
                f"file it reads is {', '.join(env_only.files) or 'none'}) and nothing in the container sources the file, so "
                f"these settings never apply{hedge}; set them in the container's env"
            )
        for name, other in _foreign(server):
            display = server.row.display if server.row else server.engine
            theirs = _display(other)
            messages.append(
                f"{server.label}: {display} given {theirs}'s {name}: env {name} is a setting of {theirs}, and no "
                f"release of {display} read names it (components/engine_env_names.json foreign.{server.engine}), so the value "
                f"is silently ignored and the setting meant never applies; use {display}'s own setting for it, or drop "
                "the variable"
            )
    return messages


def _display(engine: str) -> str:
    from components.serving_engines import ENGINES

    return next((e.display for e in ENGINES if e.name == engine), engine)


POLICY = Policy(
    name="engine-env-known",
    description="A variable under an engine's own prefix (OLLAMA_..., LLAMA_ARG_...) is one the image's release of the "
    "engine reads (components/engine_env_names.json settings, per release: the tag's release, the newest for latest or no "
    "tag, any release read for another tag), and no other engine's setting (PRELOAD_MODELS, LocalAI's, on Ollama: "
    "[foreign]) is set in its env; any other is silently ignored.",
    catalog="G74",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Spell the setting as the engine reads it (OLLAMA_GPU_OVERHEAD, OLLAMA_KEEP_ALIVE: ollama/ollama "
        "envconfig/config.go), or drop the variable."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Ollama reads its settings by name (envconfig/config.go: Var, Bool, Uint64 over fixed OLLAMA_ names) and "
        "ignores every other variable, so a misspelt or invented name leaves the setting at its default with no "
        "error; the cap or keep-alive the author meant never applies."
    ),
)
