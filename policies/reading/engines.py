"""Model servers other than a vLLM container, read in vLLM's vocabulary: SGLang, KServe's Hugging
Face server, Ray Serve on KubeRay; and where each one's model download lands.

Policies written for vLLM's flags (context length, tensor parallelism, drain, download disk) apply
to these servers once their settings are named as vLLM names them:

- **SGLang** (``python -m sglang.launch_server``; sgl-project/sglang python/sglang/srt/server_args.py
  at commit 001067fffe33427bee0ed2f007fb7551a1d76b44): ``--model-path`` (alias ``--model``),
  ``--context-length`` (default None: the model's config), ``--tp-size`` (alias
  ``--tensor-parallel-size``; ``--tp`` reaches it through argparse's prefix matching),
  ``--mem-fraction-static`` (default None: chosen from the GPU's memory), ``--download-dir``,
  ``--load-format``;
- **KServe's Hugging Face server** (``modelFormat: huggingface``; kserve v0.20.0
  python/huggingfaceserver): ``--model_id`` or ``storageUri: hf://``
  (downloaded by the storage initializer into the pod's ``/mnt/models`` emptyDir),
  ``--max_model_len`` / ``--max-model-len``, ``--backend``;
- **Ray Serve on KubeRay**: the GPU worker groups hold the engine replicas; the model comes from
  ``llm_configs[].model_loading_config.model_source`` (Ray Serve LLM) or a ``runtime_env``
  ``MODEL_ID`` (custom apps), and Serve drains a replica for ``graceful_shutdown_timeout_s``
  (default 20 s, https://docs.ray.io/en/latest/serve/api/doc/ray.serve.config.DeploymentConfig.html).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from components.images import names_image
from components.serving_engines import Engine
from policies.kube import (
    as_dict,
    as_list,
    container_label,
    get,
    is_ray,
    memoized,
    name_of,
    requests_gpu,
)
from policies.operators import vllm_runtime_pod
from policies.reading.container_env import config_maps, env_values, outside_env_sources  # noqa: F401  (env_values: readers import it from here too)
from policies.reading.ray_cluster import ray_gpu_workers
from policies.reading.secrets import secret_keys_named
from policies.reading.serve_apps import ray_serve_apps
from policies.reading.serving import (
    container_argv,
    engine_command_line,
    engine_row,
    env_prefixed,
    model_servers,
)
from policies.reading.user_home import moved_home
from policies.reading.vllm_args import parse_vllm_args, served_model, vllm_servers

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
# The Hugging Face cache when nothing moves it: ~/.cache/huggingface of the images' users (root for
# the vLLM and SGLang images, ray for rayproject images).
DEFAULT_HF_CACHES = ("/root/.cache/huggingface/hub", "/home/ray/.cache/huggingface/hub")
# Volumes whose data does not live on the node's ephemeral storage.
_NOT_EPHEMERAL = ("persistentVolumeClaim", "ephemeral", "csi", "nfs", "awsElasticBlockStore", "hostPath", "fc", "iscsi")
# KServe's Hugging Face server image: kserve v0.20.0 python/huggingface_server.Dockerfile L273 ENV
# HF_HOME=/tmp/huggingface (so the Hub cache is /tmp/huggingface/hub), L284 USER 1000.
KSERVE_HF_CACHE = ("/tmp/huggingface/hub",)


def _subcommands(engine: Engine) -> frozenset[str]:
    """The words a row's commands name after their binary (``local-ai run`` -> ``run``)."""
    return frozenset(c[1] for c in engine.commands if len(c) > 1 and not c[1].startswith("-"))


def hub_model(model: Any) -> Optional[str]:
    """The Hugging Face repository a model reference names (``org/name``, ``hf://org/name``), or None
    for local paths, object-store URIs and unexpanded placeholders."""
    if not isinstance(model, str):
        return None
    model = model.strip()
    if model.startswith("hf://"):
        model = model[len("hf://") :].split(":", 1)[0]
    return model if _HUB_ID.match(model) else None


@dataclass(frozen=True)
class EngineServer:
    """One non-vLLM model server container with its settings in vLLM's names.

    ``flags`` maps a vLLM name to how this engine spells it (for messages); ``args`` holds the values.
    """

    engine: str
    path: str
    podspec: dict
    container: dict
    args: dict
    model: Optional[str]
    flags: dict = field(default_factory=dict)
    row: Optional[Engine] = None  # the engine's row of the table (components/serving_engines.toml)
    hub_spelling: Optional[str] = None  # the setting that named the model, when the row says it always names a Hub id

    @property
    def label(self) -> str:
        """How messages name this container."""
        return container_label(self.path, self.container)

    def flag(self, name: str) -> str:
        """The engine's own spelling of a vLLM setting."""
        return self.flags.get(name, f"--{name}")


_TRUE = frozenset({"1", "true", "yes", "on"})


def table_args(container: Mapping, engine: Engine, line: list[str]) -> dict[str, Optional[str]]:
    """A table engine's options in vLLM's names, from its command line (``line``, after the command word)
    and its environment: the variables under the row's env prefixes as the flags they name (LLAMA_ARG_CTX_SIZE as
    ctx-size), then every flag as parsed (policies.reading.vllm_args.parse_vllm_args, winning), each setting the
    row names renamed (components/serving_engines.toml) under vLLM's name, the first spelling found winning, flags
    before environment variables. A true boolean env (TRUST_REMOTE_CODE=true) reads as the bare flag."""
    parsed: dict[str, Optional[str]] = {**env_prefixed(container, engine), **parse_vllm_args(line)}
    args: dict[str, Optional[str]] = dict(parsed)
    env = env_values(container)
    for setting, spellings in engine.flags.items():
        for spelling in spellings:
            if spelling != setting:
                args.pop(spelling, None)
        found = next((s for s in spellings if s in parsed), None)
        if found is not None:
            args[setting] = parsed[found]
            continue
        for name in engine.env.get(setting, ()):
            if name in env:
                if setting == "trust-remote-code":
                    if env[name].strip().lower() in _TRUE:
                        args[setting] = None
                else:
                    args[setting] = env[name]
                break
    # A sub-command the row's commands name after the binary ("local-ai run": LocalAI's default kong command, mudler/
    # LocalAI v4.9.0 core/cli/cli.go L11, which the image's entrypoint passes on as args ["run", ...]) is no model.
    words = line[1:] if line and line[0] in _subcommands(engine) else line
    if engine.model_positional and "model" not in args and words and not words[0].startswith("-"):
        args["model"] = words[0]
    return args


def hub_spelling(container: Mapping, engine: Engine, line: list[str]) -> Optional[str]:
    """The spelling (``--hf-repo``, ``env LLAMA_ARG_HF_REPO``) by which the container names its model, when the row's
    downloads table lists it as one that always names a Hub repository (``downloads.hub``), else None."""
    spellings = engine.downloads.hub if engine.downloads is not None else ()
    parsed = parse_vllm_args(line)
    flag = next((s for s in spellings if not s.startswith("env:") and s in parsed), None)
    if flag is not None:
        return ("-" if len(flag) <= 3 else "--") + flag
    names = {name_of(e) for e in as_list(container.get("env"))} | set(env_values(container))
    return next((f"env {s[4:]}" for s in spellings if s.startswith("env:") and s[4:] in names), None)


def sglang_args(container: Mapping) -> dict[str, Optional[str]]:
    """An SGLang container's options in vLLM's names (``context-length`` -> ``max-model-len``, ...)."""
    engine = engine_row("sglang")
    if engine is None:
        return {}
    return table_args(container, engine, engine_command_line(container, engine) or [])


def table_servers(resource: Any, engine: Optional[str] = None) -> list[EngineServer]:
    """Every model server of a workload run by an engine of the table other than vLLM (vLLM has its own
    reader, policies.reading.vllm_args), with its settings in vLLM's names; only ``engine``'s when given."""
    servers = memoized(resource, "table_servers", _table_servers)
    return [s for s in servers if engine is None or s.engine == engine]


def table_server(engine: str, path: str, podspec: dict, container: dict, ray: bool = False) -> Optional[EngineServer]:
    """One container as a server of a table engine other than vLLM (``engine``, a row's name), None for vLLM or an
    engine no row names."""
    row = engine_row(engine)
    if row is None or row.name == "vllm":
        return None
    line = engine_command_line(container, row, ray=ray) or []
    args = table_args(container, row, line)
    model = args.get("model")
    return EngineServer(
        row.name,
        path,
        podspec,
        container,
        args,
        model if isinstance(model, str) else None,
        dict(row.shown),
        row,
        hub_spelling(container, row, line),
    )


def _table_servers(resource: Any) -> list[EngineServer]:
    ray = is_ray(resource.type)
    found = []
    for server in model_servers(resource):
        one = table_server(server.engine, server.path, server.podspec, server.container, ray)
        if one is not None:
            found.append(one)
    return found


def sglang_servers(resource: Any) -> list[EngineServer]:
    """Every SGLang server container of a workload."""
    return table_servers(resource, "sglang")


def kserve_hf_servers(resource: Any) -> list[EngineServer]:
    """KServe predictor ``model`` specs served by KServe's Hugging Face server, whichever backend (its
    vLLM backend is also read as a vLLM server by policies.reading.vllm_args, for the engine flags)."""
    found = []
    for server in model_servers(resource):
        if server.engine != "kserve":
            continue
        fmt = get(server.container, "modelFormat", "name")
        if not (isinstance(fmt, str) and fmt.lower() == "huggingface"):
            continue
        args = parse_vllm_args(container_argv(server.container))
        model = args.get("model-id") or server.container.get("storageUri")
        found.append(
            EngineServer(
                "kserve-huggingface",
                server.path,
                server.podspec,
                server.container,
                args,
                model if isinstance(model, str) else None,
                {"max-model-len": "--max_model_len", "model": "--model_id"},
            )
        )
    return found


# --------------------------------------------------------------------------------------------------
# Where a download lands


@dataclass(frozen=True)
class Download:
    """A model a server fetches at start, and the container and directory it lands in."""

    label: str
    model: str  # the model as the manifest names it ("its model" when no setting names one)
    podspec: dict
    container: dict
    into: str  # the directory the files land in
    source: str = "the Hugging Face Hub"  # where they come from (the engine row's downloads.source)
    # True when the folder is the engine's default in its own images for their user, but another image (whose
    # Dockerfile, outside the manifest, may move the cache) or another user (another home) runs it: S19 reports it
    # without blocking
    assumed: bool = False
    why: str = ""  # with assumed: what the files do not show, as S19 says it (default: the image's folder)
    # The sizeLimit of the disk-backed emptyDir the files land in ("" for the container's layer or an unbounded
    # emptyDir): bounded, but the scheduler counts only ephemeral-storage requests (S19 advises below the limit)
    limit: str = ""


def _local(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~", "file://")) or "$" in model


def fetches(row: Optional[Engine], model: Optional[str], hub: Optional[str] = None) -> Optional[str]:
    """The model a server of ``row`` downloads at start, as messages name it, or None when the row says its model
    setting names nothing to fetch (a local path, an unexpanded placeholder, a form the row does not list). ``hub`` is
    the spelling that named the model when the row says it always names a Hub repository (EngineServer.hub_spelling):
    then an unexpanded placeholder is a download too, named as written."""
    spec = row.downloads if row is not None else None
    if spec is None:
        return None
    if not isinstance(model, str) or not model.strip():
        return "its model" if "unset" in spec.models else None
    model = model.strip()
    if hub is not None and "$" in model:
        return f"{model} (a Hub repository, {hub})"
    if _local(model):
        return None
    if "hub" in spec.models and hub_model(model.split(":", 1)[0] if "://" not in model else model):
        return model
    if any(model.startswith(kind) for kind in spec.models if kind.endswith("://")):
        return model
    return model if "name" in spec.models else None


def cache_dirs(container: Mapping, args: Mapping[str, Any], row: Optional[Engine] = None) -> tuple[str, ...]:
    """Where a server's download lands: --download-dir, else the first cache variable of the engine's row set in
    the container's env (HF_HUB_CACHE, ..., $HF_HOME/hub for Hugging Face caches), else the row's default folders
    (the image decides which); () when a variable of the row comes from somewhere the manifest does not show
    (valueFrom, envFrom), so the folder is unknown. ``row`` defaults to vLLM's."""
    row = row or _row("vllm")
    spec = row.downloads if row is not None else None
    if spec is None:
        return ()
    if isinstance(args.get("download-dir"), str) and args["download-dir"]:
        return (args["download-dir"],)
    env = env_values(container)
    hidden = {name_of(e) for e in as_list(container.get("env")) if isinstance(e, dict) and "value" not in e}
    for name, sub in spec.env:
        if env.get(name):
            return (posixpath.join(env[name], sub) if sub else env[name],)
        if name in hidden:
            return ()
    maps = config_maps(container)
    cache_names = {name for name, _ in spec.env}
    for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
        name = get(source, "secretRef", "name")
        keys = secret_keys_named(name) if "secretRef" in source and isinstance(name, str) else None
        if keys is not None and str(source.get("prefix") or "") == "" and not keys & cache_names:
            continue  # a Secret of the files read whose keys set no cache variable
        if name_of(get(source, "configMapRef")) not in maps:
            return ()  # a Secret, or a ConfigMap outside the files read, may move the cache (env_values read the others)
    return spec.dirs


def _row(name: str) -> Optional[Engine]:
    from policies.reading.serving import engine_row

    return engine_row(name)


def path_under(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or a path inside it (both normalised)."""
    path, folder = posixpath.normpath(path), posixpath.normpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def volume_at(podspec: Mapping, container: Mapping, directory: str) -> Optional[dict]:
    """The volume mounted at ``directory`` or at the nearest folder above it, or None (the container's
    own writable layer)."""
    best, best_len = None, -1
    for mount in as_list(container.get("volumeMounts")):
        path = as_dict(mount).get("mountPath")
        if not isinstance(path, str) or not path:
            continue
        path = posixpath.normpath(path)
        if path_under(directory, path) and len(path) > best_len:
            best, best_len = mount.get("name"), len(path)
    if best is None:
        return None
    return next((as_dict(v) for v in as_list(podspec.get("volumes")) if as_dict(v).get("name") == best), {"name": best})


def ephemeral_limit(podspec: Mapping, container: Mapping, directory: str) -> Optional[str]:
    """Where the directory's files land on the node's disk: "" for the container's writable layer or an emptyDir
    without a sizeLimit, the sizeLimit as written for a disk-backed emptyDir with one (bounded, yet counted against the
    node's ephemeral storage like any other: the scheduler sees only requests), None under a PersistentVolumeClaim (or
    another volume off the node's ephemeral storage) or a memory-backed emptyDir."""
    volume = volume_at(podspec, container, directory)
    if volume is None:
        return ""
    if any(kind in volume for kind in _NOT_EPHEMERAL):
        return None
    empty = volume.get("emptyDir")
    if not isinstance(empty, dict) and "emptyDir" not in volume:
        return None
    empty = as_dict(empty)
    if empty.get("medium") == "Memory":
        return None
    limit = empty.get("sizeLimit")
    return "" if limit is None else str(limit)


def lands_on_ephemeral_storage(podspec: Mapping, container: Mapping, directory: str) -> bool:
    """True when the directory is the container's writable layer or an emptyDir on the node's disk without a
    sizeLimit; False under a PersistentVolumeClaim (or another volume off the node's ephemeral storage), a
    memory-backed emptyDir, or an emptyDir with a sizeLimit (bounded: S29 judges its size)."""
    return ephemeral_limit(podspec, container, directory) == ""


def downloads(resource: Any) -> list[Download]:
    """Every model download of a workload's GPU model servers that lands on the node's ephemeral storage."""
    return list(memoized(resource, "downloads", _downloads))


def _streams(args: Mapping[str, Any]) -> bool:
    return str(args.get("load-format") or "").startswith("runai_streamer")


def _image_models(row: Engine, model: Any, container: Mapping) -> Optional[str]:
    """The models an image's own entrypoint has the server fetch when no model setting is given (the row's
    downloads.image_models: LocalAI's AIO images export MODELS, seven model configs, mudler/LocalAI v2.21.0
    aio/entrypoint.sh L131-138), or None."""
    spec = row.downloads
    image = str(container.get("image") or "").lower()
    if spec is None or not spec.image_models or (isinstance(model, str) and model.strip()) or container.get("command"):
        return None
    if not names_image(image, row.images) or not any(marker in image for marker in spec.image_models):
        return None
    return "the models its all-in-one image's entrypoint names"


def _server_download(
    label: str, row: Optional[Engine], model: Any, podspec: dict, container: dict, args: Mapping, hub: Optional[str] = None
) -> Optional[Download]:
    """One server's download when its row says the model setting fetches one and every folder it may land in is
    on the node's ephemeral storage (S19). Where only an envFrom source outside the files hides the folder (it may
    set a cache variable), the image's default folders are judged as advice."""
    if row is None or _streams(args):
        return None
    what = fetches(row, model if isinstance(model, str) else None, hub) or _image_models(row, model, container)
    if what is None or row.downloads is None or hub_offline(row, container):
        return None
    dirs = cache_dirs(container, args, row)
    hidden_by = outside_env_sources(container) if not dirs else []
    if hidden_by and not any(
        isinstance(e, dict) and name_of(e) in {v for v, _ in row.downloads.env} for e in as_list(container.get("env"))
    ):
        dirs = row.downloads.dirs
    else:
        hidden_by = []
    named = {name_of(e) for e in as_list(container.get("env")) if isinstance(e, dict)} | set(env_values(container))
    unmoved = not args.get("download-dir") and not named & {v for v, _ in row.downloads.env}
    moved = moved_home(row, podspec, container, dirs) if unmoved and dirs == row.downloads.dirs else None
    download = _on_ephemeral(label, what, podspec, container, moved[0] if moved else dirs, row.downloads.source)
    image = str(container.get("image") or "").lower()
    defaults = dirs == row.downloads.dirs
    if download is not None and moved:
        download = replace(download, assumed=True, why=_moved_why(podspec, container, dirs, moved[1]))
    elif download is not None and hidden_by:
        why = f"{' and '.join(hidden_by)}, not among the files read, may set a cache variable that moves it"
        download = replace(download, assumed=True, why=f"{download.into} is the image's default folder; {why}")
    elif download is not None and not requests_gpu(podspec):
        # No GPU request in the files (a CPU server, or a GPU a runtime class or time-slicing grants without one): the
        # download still fills the node's disk unrequested, but no GPU node's placement is at stake. Advice.
        download = replace(download, assumed=True, why="the pod requests no GPU in these files")
    elif download is not None and defaults and not names_image(image, row.images):
        download = replace(download, assumed=True)
    elif download is not None and not (isinstance(model, str) and model.strip()):
        # No model setting: what the server fetches comes later, through its API (an Ollama pull), which the manifest
        # does not show (session 24 review F4: `ollama serve` alone). Advice.
        download = replace(download, assumed=True)
    elif download is not None and defaults and any(d.startswith("/root/") for d in dirs) and _non_root(podspec, container):
        # The folder is root's home in the engine's images, but this pod runs as another user, whose home the image's
        # /etc/passwd (or "/" for a user it does not list, as on OpenShift) decides: not in the manifest.
        download = replace(download, assumed=True)
    return download


def _moved_why(podspec: Mapping, container: Mapping, dirs: tuple[str, ...], why: str) -> str:
    """Why S19 advises on a download the user's HOME moved, naming a volume at root's folder that is never written."""
    mounts = [as_dict(m).get("mountPath") for m in as_list(container.get("volumeMounts"))]
    unused = [m for m in mounts if isinstance(m, str) and any(path_under(d, m) for d in dirs)]
    unused = unused if any(volume_at(podspec, container, d) is not None for d in dirs) else []
    return f"{why}; the volume mounted at {unused[0]} is never written" if unused else why


def hub_client_download(label: str, model: Any, podspec: dict, container: dict) -> Optional[Download]:
    """A Hub model a server of no known engine names (policies.reading.model_ids), downloaded as the Hugging Face Hub
    client does: into HF_HUB_CACHE / $HF_HOME/hub, else ~/.cache/huggingface/hub (the vLLM row's downloads, which are
    the client's), when that folder is on the node's ephemeral storage. Always advice: the image is not known to
    download at all."""
    download = _server_download(label, _row("vllm"), model, podspec, container, {})
    why = "the engine is not one the pack knows: that it downloads through the Hub client, and where, is its image's"
    return replace(download, assumed=True, why=why) if download is not None else None


# huggingface_hub (2.4.0 constants.py:194, is_offline_mode :197-213): HF_HUB_OFFLINE, else TRANSFORMERS_OFFLINE, read
# as true for "1", "ON", "YES", "TRUE" (_is_true), makes the Hub client send no HTTP request and serve from the local
# cache: a server that reads its model through it downloads nothing (the image or a volume must hold the model).
_HF_OFFLINE = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_HF_CACHE_ENV = frozenset({"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME"})
_HF_TRUE = frozenset({"1", "on", "yes", "true"})


def hub_offline(row: Engine, container: Mapping) -> bool:
    """True when the engine downloads through the Hugging Face Hub client (its row's cache variables are the Hub's) and
    the container sets the client offline."""
    spec = row.downloads
    if spec is None or not any(variable in _HF_CACHE_ENV for variable, _ in spec.env):
        return False
    env = env_values(container)
    value = next((env[v] for v in _HF_OFFLINE if v in env), None)
    return value is not None and value.strip().lower() in _HF_TRUE


def _non_root(podspec: Mapping, container: Mapping) -> bool:
    """True when the container runs as a user other than root (runAsUser above 0, or runAsNonRoot), the container's
    securityContext winning over the pod's (core/v1 SecurityContext)."""
    for context in (as_dict(container.get("securityContext")), as_dict(podspec.get("securityContext"))):
        user = context.get("runAsUser")
        if isinstance(user, int) and not isinstance(user, bool):
            return user != 0
        if context.get("runAsNonRoot") is True:
            return True
    return False


def _downloads(resource: Any) -> list[Download]:
    found = []
    vllm = _row("vllm")
    for server in vllm_servers(resource):
        if server.runtime_merged:
            continue
        if download := _server_download(server.label, vllm, served_model(server), server.podspec, server.container, server.args):
            found.append(download)
    for engine in table_servers(resource):
        if download := _server_download(
            engine.label, engine.row, engine.model, engine.podspec, engine.container, engine.args, engine.hub_spelling
        ):
            found.append(download)
    found += _kserve_downloads(resource)
    found += _ray_downloads(resource)
    if (pod := vllm_runtime_pod(resource)) is not None:
        podspec, container = pod
        args = parse_vllm_args([str(a) for a in container["args"]])
        model = container["args"][0]
        if download := _server_download("spec.model.modelURL", vllm, model, podspec, container, args):
            found.append(download)
    found += _downloader_downloads(resource)
    return found


def serves_model(resource: Any, podspec: Mapping) -> bool:
    """True when a container of the pod is a model server (policies.reading.serving.model_servers)."""
    return any(server.podspec is podspec for server in model_servers(resource))


def _downloader_downloads(resource: Any) -> list[Download]:
    """Models an init container or sidecar of a GPU pod, or of a pod whose server the files recognise, fetches into a
    folder on the node's ephemeral storage (policies.reading.downloaders): the server then reads a local path, but the
    download is on the node all the same. A pod with no GPU request is advice (as for a server's own download)."""
    from policies.reading.downloaders import fetches

    found = []
    for fetch in fetches(resource):
        gpu = requests_gpu(fetch.podspec)
        if not (gpu or serves_model(resource, fetch.podspec)) or _local(fetch.source) or fetch.source.startswith("pvc://"):
            continue
        hub = hub_model(fetch.source)
        dirs = (fetch.into,) if fetch.into else (cache_dirs(fetch.container, {}) if hub and fetch.hub_cache else ())
        source = "the Hugging Face Hub" if hub else "its store"
        if download := _on_ephemeral(fetch.label, fetch.source, fetch.podspec, fetch.container, dirs, f"{source} ({fetch.tool})"):
            found.append(download if gpu else replace(download, assumed=True, why="the pod requests no GPU in these files"))
    return found


_KSERVE_SOURCE = "its storage, through KServe's storage initializer,"


def _kserve_downloads(resource: Any) -> list[Download]:
    from policies.reading.kserve_storage import storage_initializer_downloads

    found = []
    for label, source, into, podspec, container, known in storage_initializer_downloads(resource):
        # The storage initializer downloads into the emptyDir KServe mounts at /mnt/models (any scheme but pvc/oci).
        why = "" if known else "the runtime or config that completes this container is not in the files read"
        found.append(Download(label, source, podspec, container, into, _KSERVE_SOURCE, not known, why))
    for engine in kserve_hf_servers(resource):
        model = hub_model(engine.model)
        uri = engine.container.get("storageUri")
        if model is None or not requests_gpu(engine.podspec) or isinstance(uri, str):
            continue
        # --model_id: the server downloads into its Hub cache, which the HF variables move (huggingface_hub
        # precedence, as for vLLM's row), else the image's /tmp/huggingface/hub.
        dirs = cache_dirs(engine.container, {})
        dirs = KSERVE_HF_CACHE if dirs == _row_dirs("vllm") else dirs
        if download := _on_ephemeral(engine.label, model, engine.podspec, engine.container, dirs):
            found.append(download)
    return found


def _ray_downloads(resource: Any) -> list[Download]:
    found = []
    workers = ray_gpu_workers(resource)
    seen: set[int] = set()
    for app in ray_serve_apps(resource):
        model = hub_model(app.model)
        if model is None or (app.load_format or "").startswith("runai_streamer"):
            continue
        for path, podspec, container in workers:
            if id(container) in seen:
                continue
            # The vLLM engine of Ray Serve runs in the worker's image: root's or rayproject's user ray's cache.
            dirs = cache_dirs(container, {})
            dirs = DEFAULT_HF_CACHES if dirs == _row_dirs("vllm") else dirs
            if download := _on_ephemeral(container_label(path, container), model, podspec, container, dirs):
                seen.add(id(container))
                found.append(download)
    return found


def _row_dirs(name: str) -> tuple[str, ...]:
    row = _row(name)
    return row.downloads.dirs if row is not None and row.downloads is not None else ()


def _on_ephemeral(
    label: str, model: str, podspec: dict, container: dict, dirs: tuple[str, ...], source: str = "the Hugging Face Hub"
) -> Optional[Download]:
    """The download, when every place the cache may be (the image's user decides the default) is on the
    node's ephemeral storage (an emptyDir with a sizeLimit too: its ``limit``, when every place has one); None when a
    PersistentVolumeClaim or the like holds it, or the place is unknown."""
    limits = [ephemeral_limit(podspec, container, d) for d in dirs]
    if dirs and all(limit is not None for limit in limits):
        limit = "" if "" in limits else str(limits[0])
        return Download(label, model, podspec, container, dirs[0] if len(dirs) == 1 else " or ".join(dirs), source, limit=limit)
    return None
