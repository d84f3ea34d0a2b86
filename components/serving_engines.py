"""Serving engines as data: the rows of serving_engines.toml as frozen records.

``serving_engines.toml`` beside this module is the one place the product keeps what it knows of each model
server (vLLM, SGLang, TGI, Triton, TensorRT-LLM, NIM, llama.cpp, Ollama, LMDeploy, LocalAI, Aphrodite): how it is
recognised (image, command, module, its own env prefix), the spellings of the settings policies read, its health
endpoints, what it does on SIGTERM, its metrics, where a model it downloads at start lands, each group with its
source at a pinned release. The file's header documents every field. A row with an unknown or missing field, a
wrong type, or a fact group without its source fails the load, naming the row and the field, so a typo in the
table is an import error, never a rule that silently stops applying.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, cast

from .capacity.startup import BY_NAME
from .engine_option_rows import Fork, Options, options_row, pattern_error
from .parse_cache import read_toml

TABLE = Path(__file__).with_name("serving_engines.toml")

# The settings a row may name, in vLLM's long names (what policies/vllm read).
SETTINGS = (
    "model",
    "revision",
    "max-model-len",
    "tensor-parallel-size",
    "pipeline-parallel-size",
    "gpu-memory-utilization",
    "trust-remote-code",
    "download-dir",
    "load-format",
    "quantization",
    "data-parallel-size",
    "nnodes",
    "port",
    "host",
    "hub-token",
    "gpu-layers",
    "metrics",
    "threads",
)
# What an engine serves when its context-length setting is unset: "model" the model's whole context (one such
# request must fit the KV cache), "fitted" a length the engine fits to the memory it found, "" not documented.
CONTEXT_UNSET = ("model", "fitted", "")
DRAINS = ("flag", "aborts", "waits", "unknown")
MEMORY_FRACTIONS = ("total", "free", "")
SOURCE_GROUPS = (
    "recognise",
    "settings",
    "endpoints",
    "drain",
    "metrics",
    "startup",
    "tags",
    "downloads",
    "options",
    "listens",
    "devices",
    "switches",
    "backends",
)
# The address a server binds when its host setting is unset: every address of the pod, or loopback only.
LISTENS = ("all", "loopback")
# What a model setting's value must look like for the server to fetch it at start ([engines.NAME.downloads] models):
# "hub" a Hugging Face repository id (org/name, hf://org/name, with an optional :tag such as llama.cpp's :Q4_K_M),
# "name" any value that is not a local path (an Ollama or NGC model name), "unset" no model setting at all (the server
# fetches its built-in model, or is filled by pulls at run time), or a URI scheme ending in "://" (https://, ngc://).
DOWNLOAD_KINDS = ("hub", "name", "unset")
ENV_PREFIX = "env:"

_FIELDS: dict[str, type | tuple[type, ...]] = {
    "display": str,
    "release": str,
    "images": list,
    "commands": list,
    "modules": list,
    "model_positional": bool,
    "loads_before_serving": bool,
    "port": int,
    "health": str,
    "readiness": str,
    "drain": str,
    "drain_flag": str,
    "drain_env": str,
    "drain_default": (int, float),
    "memory_fraction_of": str,
    "metrics_path": str,
    "metrics_port": int,
    "queue_metric": str,
    "running_metric": str,
    "context_unset": str,
    "context_override_env": str,
    "startup_rules": list,
    "kv_heads_replicated": bool,
    "moving_tags": list,
    "settings": dict,
    "sources": dict,
}
# Fields a row may leave out, with their meaning when absent: no env-prefix recognition, downloads not described.
_OPTIONAL: dict[str, type] = {
    "env_prefixes": list,
    "downloads": dict,
    "options": dict,
    "flag_sets": list,
    "listens": str,
    "worker_modules": list,
    "images_listen_all": bool,
    "listens_while_loading": bool,
    "host_ip_only": bool,
    "gpu_or_cpu": bool,
    "debug_flags": list,
    "lenient_readiness": list,
    "lazy_start": list,
    "start_models": str,
    "start_loads": list,
    "live_before_ready": bool,
    "health_sees_engine": bool,
    "image_words": list,
    "entrypoint": str,
    "entrypoint_images": list,
    "no_server_images": list,
    "image_cmd": str,
    "max_gpus": int,
    "image_port": int,
    "needs_gpu": bool,
    "gpu_only_images": list,
    "cuda_images": list,
    "image_backends": dict,
    "judged_backends": list,
    "load_floor_seconds": int,
    "default_models": dict,
    "model_dirs": dict,
    "model_dir_in_workdir": str,
    **{"cpus": dict, "cpu_inference": dict, "image_names": list, "context": dict},  # engine_cpus, _image_names, _context.py
    "shm": dict,  # read by components/engine_shm.py
}
# The optional true/false facts, false when absent.
_FLAGS = tuple(k for k, t in _OPTIONAL.items() if t is bool)
_DOWNLOAD_FIELDS: dict[str, type] = {"models": list, "dirs": list, "env": list, "source": str}
# Optional fields of [engines.NAME.downloads]: "hub", the setting spellings (flags, or "env:VAR") that always name a
# Hub repository whatever their value shows, so an unexpanded "$(VAR)" behind one is still a download.
_DOWNLOAD_OPTIONAL: dict[str, type] = {"hub": list, "credentials": list, "image_models": list}


_OPTION_FIELDS: dict[str, type] = {"file": str, "images": list}
_OPTIONAL_OPTION_FIELDS = ("forks", "release_tag", "args_tags")


_FORK_FIELDS: dict[str, type] = {"image": str, "after": str, "releases": dict, "source": str}


class EngineTableError(ValueError):
    """A row of the engine table that cannot be used; the message names the row and the field."""


def flag_name(spelling: str) -> str:
    """A flag as the command-line readers key it: no leading dashes, underscores as dashes."""
    return spelling.lstrip("-").replace("_", "-")


@dataclass(frozen=True)
class Downloads:
    """Where an engine puts a model it fetches at start, and which model settings make it fetch one."""

    models: tuple[str, ...]  # DOWNLOAD_KINDS or URI schemes ("https://")
    dirs: tuple[str, ...]  # the image's default cache directories (one per image the row covers)
    env: tuple[tuple[str, str], ...]  # (variable, sub-path) that move the cache, first set wins: HF_HOME/hub
    source: str  # where the files come from, for messages ("the Hugging Face Hub")
    hub: tuple[str, ...] = ()  # setting spellings that always name a Hub repository (llama.cpp's --hf-repo)
    # environment variables of which the engine needs one to download its model from `source` (NIM: NGC_API_KEY)
    credentials: tuple[str, ...] = ()
    image_models: tuple[str, ...] = ()  # images whose entrypoint names models to fetch (LocalAI's -aio-)


@dataclass(frozen=True)
class Engine:
    """One serving engine: how to recognise it and read it (fields documented in serving_engines.toml)."""

    name: str
    display: str
    release: str
    images: tuple[str, ...]
    commands: tuple[tuple[str, ...], ...]
    modules: tuple[str, ...]
    model_positional: bool
    loads_before_serving: bool
    port: int
    health: str
    readiness: str
    drain: str
    drain_flag: str
    drain_env: str
    drain_default: float
    memory_fraction_of: str
    metrics_path: str
    metrics_port: int
    queue_metric: str
    running_metric: str
    context_unset: str
    context_override_env: str
    # names of the start-up rules (components.capacity.startup RULES) the engine itself enforces before it serves
    startup_rules: tuple[str, ...]
    kv_heads_replicated: bool
    moving_tags: tuple[str, ...]
    # setting (vLLM's name) -> the engine's flags (normalised by flag_name) and environment variables
    flags: Mapping[str, tuple[str, ...]]
    env: Mapping[str, tuple[str, ...]]
    shown: Mapping[str, str]
    sources: Mapping[str, str]
    # environment-variable prefixes that mean the engine reads this container's env (llama.cpp's LLAMA_ARG_)
    env_prefixes: tuple[str, ...] = ()
    downloads: Downloads | None = None
    options: Options | None = None
    # sets of flags only this engine's parser has: a container passing one set as args to its image's entrypoint runs it
    flag_sets: tuple[tuple[str, ...], ...] = ()
    # the address the server binds with its host setting unset (LISTENS; "" not stated), and whether the publisher's
    # images (`images`) set that setting to every address in their environment
    listens: str = ""
    images_listen_all: bool = False
    # true when the server accepts connections while it loads the model (answering "loading" with a failure code), so
    # a TCP readiness check passes before it can serve (llama.cpp's server: /health 503 while the model loads)
    listens_while_loading: bool = False
    # true when the server binds every address unless its host setting parses as an IP address (TGI: a name such as
    # localhost, or the pod name Kubernetes puts in HOSTNAME, is refused and 0.0.0.0 taken)
    host_ip_only: bool = False
    # modules of ``modules`` that run the engine as a worker behind another program's frontend: no HTTP server of its own
    worker_modules: tuple[str, ...] = ()
    # true when the engine's GPU image serves on the CPU when it finds no GPU (Ollama): a GPU the pod reaches without
    # an nvidia.com/gpu limit is then a risk, not a start that fails (G13 advice)
    gpu_or_cpu: bool = False
    # flags that, set to a non-zero number or true, turn the server's verbose/debug logging on (Triton's --log-verbose)
    debug_flags: tuple[str, ...] = ()
    # (flag, value) settings with which the readiness endpoint answers ready before the models are loaded
    lenient_readiness: tuple[tuple[str, str], ...] = ()
    # (flag, value) settings with which the server loads no model at start, unless `start_models` names some
    lazy_start: tuple[tuple[str, str], ...] = ()
    start_models: str = ""
    # settings with which an engine that otherwise listens with no model loaded (loads_before_serving false) downloads
    # or loads models before it listens (LocalAI's LOCALAI_PRELOAD_MODELS): flags (flag_name spellings, "model" for the
    # row's model setting, positional included) and environment variables; any one set makes S16 judge its start
    start_load_flags: tuple[str, ...] = ()
    start_load_env: tuple[str, ...] = ()
    # true when the liveness endpoint answers while the models are not ready (Triton's /v2/health/live), so a
    # readinessProbe on it does not wait for them
    live_before_ready: bool = False
    # true when the API server answers the health endpoint after asking its engine (vLLM's /health, 503 when it is dead)
    health_sees_engine: bool = False
    # words of an image's name (the last part of its repository, split at - _ .) that, with the row's port declared by
    # the container, mean a rebuild of the engine's image under another name (llm-ollama-baked FROM ollama/ollama)
    image_words: tuple[str, ...] = ()
    # what the ENTRYPOINT of the publisher's images (``entrypoint_images``) runs before the container's args ("vllm
    # serve"): args that repeat it are handed to the server as words it refuses (G46)
    entrypoint: str = ""
    entrypoint_images: tuple[str, ...] = ()
    no_server_images: tuple[str, ...] = ()  # images whose ENTRYPOINT starts no server: args run as the command (G80)
    # the CMD of the publisher's images (``entrypoint_images``), run after ``entrypoint`` when a container gives neither
    # command nor args ("serve": ollama/ollama runs `ollama serve`); "" when not read (G89)
    image_cmd: str = ""
    # the most GPUs one server process uses whatever it is given (TEI: CUDA device 0 only); 0 = no such limit
    max_gpus: int = 0
    # true when the engine serves only on an accelerator (NIM, TensorRT-LLM): G13 reads a container of it with no GPU
    # limit as advice, and as a failed start where its image is one of ``gpu_only_images`` (lower-case substrings of
    # the publisher's images that serve only on an NVIDIA GPU) and nothing points the pod at GPU nodes
    needs_gpu: bool = False
    gpu_only_images: tuple[str, ...] = ()
    # lower-case substrings of the publisher's CUDA images of a gpu_or_cpu engine (TGI's text-generation-inference):
    # with no GPU they fall back to a slow CPU path the publisher ships other images for (G13 advice)
    cuda_images: tuple[str, ...] = ()
    # the backends among ``judged_backends`` each flavour of the publisher's image ships (Triton: the tag after its
    # YY.MM- release, "py3" -> none, "trtllm-python-py3" -> tensorrtllm), read by S56 engine-image-has-backend
    image_backends: tuple[tuple[str, tuple[str, ...]], ...] = ()
    judged_backends: tuple[str, ...] = ()
    # the shortest start of any model the engine serves, seconds (-1: S16's own floor for model servers, 60 s); a
    # liveness window below it proves a restart mid-load
    load_floor_seconds: int = -1
    # (first release, model) pairs in release order: the model the server loads when its command line names none
    default_models: tuple[tuple[str, str], ...] = ()
    # (first release, folder) pairs in release order: the folder the publisher's images (``images``) read the models
    # from when nothing moves it (the ``download-dir`` setting, the ``downloads`` env); and, where that folder is
    # relative to the working directory, the relative path (a container's ``workingDir`` then moves it too)
    model_dirs: tuple[tuple[str, str], ...] = ()
    model_dir_in_workdir: str = ""
    # the port the publisher's images (``images``) set through the port setting's variable (TGI's ENV PORT=80); 0 none
    image_port: int = 0

    def spelling(self, setting: str) -> str:
        """How messages name a setting for this engine: ``--tp-size``, or ``env NIM_MAX_MODEL_LEN``."""
        return self.shown.get(setting, f"--{setting}")


def _check_fields(where: str, row: dict) -> None:
    """Every field present, of its type, and within its documented values (else EngineTableError naming it)."""
    unknown = sorted(set(row) - set(_FIELDS) - set(_OPTIONAL))
    if unknown:
        raise EngineTableError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    for field, kind in _FIELDS.items():
        if field not in row:
            raise EngineTableError(f"{where}: field {field!r} is missing")
        value = row[field]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise EngineTableError(f"{where}.{field}: {value!r} is not of type {getattr(kind, '__name__', kind)}")
    for field, kind in _OPTIONAL.items():
        if field in row and not isinstance(row[field], kind):
            raise EngineTableError(f"{where}.{field}: {row[field]!r} is not of type {kind.__name__}")
    for field in ("images", "commands", "modules", "startup_rules", "moving_tags", "env_prefixes", "worker_modules"):
        if not all(isinstance(v, str) and v for v in row.get(field, ())):
            raise EngineTableError(f"{where}.{field}: every item must be a non-empty string")
    if "downloads" in row:
        _check_downloads(f"{where}.downloads", row["downloads"])
    if "options" in row:
        _check_options(f"{where}.options", row["options"])
    if "flag_sets" in row:
        _check_flag_sets(f"{where}.flag_sets", row["flag_sets"])
    stray = [m for m in row.get("worker_modules", ()) if m not in row["modules"]]
    if stray:
        raise EngineTableError(f"{where}.worker_modules: {stray[0]!r} is not one of the row's modules")
    if row["drain"] not in DRAINS:
        raise EngineTableError(f"{where}.drain: {row['drain']!r} is not one of {DRAINS}")
    if row["drain"] == "flag" and not row["drain_flag"]:
        raise EngineTableError(f"{where}.drain_flag: a drain of kind 'flag' names its flag")
    if row["memory_fraction_of"] not in MEMORY_FRACTIONS:
        raise EngineTableError(f"{where}.memory_fraction_of: {row['memory_fraction_of']!r} is not one of {MEMORY_FRACTIONS}")
    if row["context_unset"] not in CONTEXT_UNSET:
        raise EngineTableError(f"{where}.context_unset: {row['context_unset']!r} is not one of {CONTEXT_UNSET}")
    unknown_rules = [r for r in row["startup_rules"] if r not in BY_NAME]
    if unknown_rules:
        raise EngineTableError(f"{where}.startup_rules: unknown rule {unknown_rules[0]!r} (known: {', '.join(sorted(BY_NAME))})")


def _check_subtable(where: str, table: dict, fields: dict[str, type]) -> None:
    """A row's sub-table (downloads, options): no unknown field, each field present, non-empty and of its type, and
    every item of a list a non-empty string."""
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise EngineTableError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(fields))})")
    for field, kind in fields.items():
        if not isinstance(table.get(field), kind) or not table[field]:
            raise EngineTableError(f"{where}.{field}: a non-empty {kind.__name__} is required")
        if kind is list and not all(isinstance(v, str) and v for v in table[field]):
            raise EngineTableError(f"{where}.{field}: every item must be a non-empty string")


def _check_downloads(where: str, table: dict) -> None:
    """The [engines.NAME.downloads] table: its four fields, each of its type, and the optional ``hub`` list; kinds
    known, directories absolute."""
    optional = {k: table[k] for k in _DOWNLOAD_OPTIONAL if k in table}
    _check_subtable(where, {k: v for k, v in table.items() if k not in optional}, _DOWNLOAD_FIELDS)
    if optional:
        _check_subtable(where, optional, {k: _DOWNLOAD_OPTIONAL[k] for k in optional})
    bad = [m for m in table["models"] if m not in DOWNLOAD_KINDS and not m.endswith("://")]
    if bad:
        raise EngineTableError(f"{where}.models: {bad[0]!r} is not one of {DOWNLOAD_KINDS} nor a URI scheme ending in ://")
    relative = [d for d in table["dirs"] if not d.startswith("/")]
    if relative:
        raise EngineTableError(f"{where}.dirs: {relative[0]!r} is not an absolute path")


def _check_options(where: str, table: dict) -> None:
    """The [engines.NAME.options] table: a JSON file that exists beside the table, the engine's own images, and the
    optional forks (each its four fields; releases a table of release strings)."""
    forks = table.get("forks", [])
    _check_subtable(where, {k: v for k, v in table.items() if k not in _OPTIONAL_OPTION_FIELDS}, _OPTION_FIELDS)
    for field in ("release_tag", "args_tags"):
        if field in table and (error := pattern_error(f"{where}.{field}", table[field])):
            raise EngineTableError(error)
    if not isinstance(forks, list):
        raise EngineTableError(f"{where}.forks: a list of tables is required")
    for i, fork in enumerate(forks):
        _check_subtable(f"{where}.forks[{i}]", fork if isinstance(fork, dict) else {}, _FORK_FIELDS)
        if not all(isinstance(k, str) and isinstance(v, str) and v for k, v in fork["releases"].items()):
            raise EngineTableError(f"{where}.forks[{i}].releases: every vendor release must map to an engine release")
    if "/" in table["file"] or not (TABLE.parent / table["file"]).is_file():
        raise EngineTableError(f"{where}.file: {table['file']!r} is not a file beside serving_engines.toml")


def _check_flag_sets(where: str, sets: list) -> None:
    """The flag_sets field: a list of non-empty lists of flag names."""
    for i, flags in enumerate(sets):
        if not isinstance(flags, list) or not flags or not all(isinstance(f, str) and f.strip("-") for f in flags):
            raise EngineTableError(f'{where}[{i}]: a non-empty list of flag names ("gpu-memory-utilization")')


def _downloads(table: dict | None) -> Downloads | None:
    if table is None:
        return None
    env = tuple((v.split("/", 1)[0], v.split("/", 1)[1] if "/" in v else "") for v in table["env"])
    hub, credentials, images = (tuple(table.get(k, ())) for k in ("hub", "credentials", "image_models"))
    return Downloads(tuple(table["models"]), tuple(table["dirs"]), env, table["source"], hub, credentials, images)


def _check_sources(where: str, row: dict, sources: Any) -> None:
    """Every group of facts a row states has its source; no source names an unknown group."""
    stated = {"recognise", "endpoints", "drain", "metrics"} | ({"settings"} if row["settings"] else set())
    if (
        row["startup_rules"]
        or row["context_unset"]
        or row["context_override_env"]
        or "load_floor_seconds" in row
        or "default_models" in row
    ):
        stated.add("startup")
    if row["moving_tags"]:
        stated.add("tags")
    if "downloads" in row or "model_dirs" in row or "model_dir_in_workdir" in row:
        stated.add("downloads")
    if "options" in row:
        stated.add("options")
    if row.get("gpu_or_cpu") or "max_gpus" in row or "needs_gpu" in row or "gpu_only_images" in row or "cuda_images" in row:
        stated.add("devices")
    if "image_backends" in row or "judged_backends" in row:
        stated.add("backends")
    if any(
        k in row for k in ("debug_flags", "lenient_readiness", "lazy_start", "start_models", "start_loads", "live_before_ready")
    ):
        stated.add("switches")
    if "listens" in row:
        stated.add("listens")
        if row["listens"] not in LISTENS:
            raise EngineTableError(f"{where}.listens: {row['listens']!r} is not one of {', '.join(LISTENS)}")
        if "host" not in row["settings"]:
            raise EngineTableError(f"{where}.settings.host: a row that states where the server listens names its host setting")
    for group in sorted(stated):
        if not isinstance(sources.get(group), str) or not sources[group].strip():
            raise EngineTableError(f"{where}.sources.{group}: every fact needs its source (file and line at a pinned release)")
    extra = sorted(set(sources) - set(SOURCE_GROUPS))
    if extra:
        raise EngineTableError(f"{where}.sources: unknown group {extra[0]!r} (known: {', '.join(SOURCE_GROUPS)})")


def _row(name: str, row: Any) -> Engine:
    where = f"serving_engines.toml [engines.{name}]"
    if not isinstance(row, dict):
        raise EngineTableError(f"{where}: must be a table")
    _check_fields(where, row)
    flags, env = dict[str, tuple[str, ...]](), dict[str, tuple[str, ...]]()
    shown: dict[str, str] = {}
    for setting, spellings in row["settings"].items():
        if setting not in SETTINGS:
            raise EngineTableError(f"{where}.settings: unknown setting {setting!r} (known: {', '.join(SETTINGS)})")
        if not isinstance(spellings, list) or not spellings or not all(isinstance(s, str) and s for s in spellings):
            raise EngineTableError(f"{where}.settings.{setting}: a non-empty list of flags and env:NAME")
        flags[setting] = tuple(flag_name(s) for s in spellings if not s.startswith(ENV_PREFIX))
        env[setting] = tuple(s[len(ENV_PREFIX) :] for s in spellings if s.startswith(ENV_PREFIX))
        first = spellings[0]
        shown[setting] = f"env {first[len(ENV_PREFIX) :]}" if first.startswith(ENV_PREFIX) else f"--{first}"
    _check_sources(where, row, row["sources"])
    return Engine(
        name=name,
        display=row["display"],
        release=row["release"],
        images=tuple(i.lower() for i in row["images"]),
        commands=tuple(tuple(c.split()) for c in row["commands"]),
        modules=tuple(row["modules"]),
        model_positional=row["model_positional"],
        loads_before_serving=row["loads_before_serving"],
        port=row["port"],
        health=row["health"],
        readiness=row["readiness"],
        drain=row["drain"],
        drain_flag=flag_name(row["drain_flag"]),
        drain_env=row["drain_env"],
        drain_default=float(row["drain_default"]),
        memory_fraction_of=row["memory_fraction_of"],
        metrics_path=row["metrics_path"],
        metrics_port=row["metrics_port"],
        queue_metric=row["queue_metric"],
        running_metric=row["running_metric"],
        context_unset=row["context_unset"],
        context_override_env=row["context_override_env"],
        startup_rules=tuple(row["startup_rules"]),
        kv_heads_replicated=row["kv_heads_replicated"],
        moving_tags=tuple(t.lower() for t in row["moving_tags"]),
        flags=flags,
        env=env,
        shown=shown,
        sources=dict(row["sources"]),
        env_prefixes=tuple(row.get("env_prefixes", ())),
        downloads=_downloads(row.get("downloads")),
        options=options_row(row["options"]) if "options" in row else None,
        flag_sets=tuple(tuple(flag_name(f) for f in flags) for flags in row.get("flag_sets", ())),
        listens=row.get("listens", ""),
        worker_modules=tuple(row.get("worker_modules", ())),
        debug_flags=tuple(flag_name(f) for f in row.get("debug_flags", ())),
        lenient_readiness=_settings_with_values(where, "lenient_readiness", row.get("lenient_readiness", [])),
        lazy_start=_settings_with_values(where, "lazy_start", row.get("lazy_start", [])),
        start_models=flag_name(row.get("start_models", "")),
        start_load_flags=tuple(flag_name(x) for x in _start_loads(where, row) if not x.startswith(ENV_PREFIX)),
        start_load_env=tuple(x[len(ENV_PREFIX) :] for x in _start_loads(where, row) if x.startswith(ENV_PREFIX)),
        image_words=tuple(w.lower() for w in row.get("image_words", ())),
        **cast("dict[str, Any]", {key: str(row.get(key, "")) for key in ("entrypoint", "image_cmd")}),
        entrypoint_images=tuple(i.lower() for i in row.get("entrypoint_images", ())),
        no_server_images=tuple(i.lower() for i in row.get("no_server_images", ())),
        max_gpus=row.get("max_gpus", 0),
        gpu_only_images=tuple(i.lower() for i in row.get("gpu_only_images", ())),
        cuda_images=tuple(i.lower() for i in row.get("cuda_images", ())),
        image_backends=tuple((str(k).lower(), tuple(v)) for k, v in sorted(row.get("image_backends", {}).items())),
        judged_backends=tuple(row.get("judged_backends", ())),
        load_floor_seconds=row.get("load_floor_seconds", -1),
        default_models=_by_release(where, "default_models", row.get("default_models", {}), '"org/model"'),
        model_dirs=_by_release(where, "model_dirs", row.get("model_dirs", {}), '"/absolute/folder"'),
        model_dir_in_workdir=row.get("model_dir_in_workdir", ""),
        image_port=row.get("image_port", 0),
        **cast("dict[str, Any]", {key: bool(row.get(key, False)) for key in _FLAGS}),
    )


def _start_loads(where: str, row: dict) -> list[str]:
    """A row's ``start_loads``: non-empty strings (flags, or env:NAME), refused by name otherwise; only on a row whose
    server otherwise loads no model before it listens (for the others every start loads)."""
    items = row.get("start_loads", [])
    if items and row["loads_before_serving"]:
        raise EngineTableError(f"{where}.start_loads: only for a row with loads_before_serving = false")
    for item in items:
        if not isinstance(item, str) or not item.strip() or item.strip() == ENV_PREFIX:
            raise EngineTableError(f"{where}.start_loads: {item!r} is not a flag or env:NAME")
    return [i.strip() for i in items]


def _by_release(where: str, field: str, table: dict, shape: str) -> tuple[tuple[str, str], ...]:
    """``{"0.4.0" = "facebook/opt-125m", ...}`` (default_models) or ``{"3.1.0" = "/models"}`` (model_dirs, a folder) as
    (release, value) pairs in release order; a key that is no release or a value of another shape is refused by name."""
    pairs = []
    for release, value in table.items():
        folder = field != "model_dirs" or (isinstance(value, str) and value.startswith("/"))
        if not re.fullmatch(r"\d+(\.\d+)*", str(release)) or not isinstance(value, str) or not value.strip() or not folder:
            raise EngineTableError(f"{where}.{field}: {release!r} = {value!r} is not RELEASE = {shape}")
        pairs.append((str(release), value.strip()))
    return tuple(sorted(pairs, key=lambda p: tuple(int(x) for x in p[0].split("."))))


def _settings_with_values(where: str, field: str, items: list) -> tuple[tuple[str, str], ...]:
    """``["strict-readiness=false", ...]`` as (flag, value) pairs; an item without ``=`` is refused by name."""
    pairs = []
    for item in items:
        if not isinstance(item, str) or "=" not in item.strip("="):
            raise EngineTableError(f"{where}.{field}: {item!r} is not FLAG=VALUE")
        flag, value = item.split("=", 1)
        pairs.append((flag_name(flag), value.strip().lower()))
    return tuple(pairs)


def load_engines(text: str) -> tuple[Engine, ...]:
    """The engines of a table in serving_engines.toml's format, in the table's order."""
    import tomllib  # here, not at import: the packaged table is read through components/parse_cache.py

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EngineTableError(f"serving_engines.toml: {exc}") from None
    return engines_of(data)


def read_engines(path: Path = TABLE) -> tuple[Engine, ...]:
    """The engines of a file in serving_engines.toml's format (its parse cached while the file is unchanged:
    components/parse_cache.py), checked as ``load_engines`` checks them."""
    try:
        data = read_toml(path)
    except ValueError as exc:  # tomllib.TOMLDecodeError, or text that is not UTF-8
        raise EngineTableError(f"serving_engines.toml: {exc}") from None
    return engines_of(data)


def engines_of(data: dict) -> tuple[Engine, ...]:
    """The engines of a parsed table (tomllib's result), each row checked (EngineTableError naming the row and field)."""
    engines = data.get("engines")
    if not isinstance(engines, dict) or not engines:
        raise EngineTableError("serving_engines.toml: no [engines.NAME] table")
    unknown = sorted(set(data) - {"engines", "other_program_words"})  # the latter read by engine_image_names.py
    if unknown:
        raise EngineTableError(f"serving_engines.toml: unknown top-level table {unknown[0]!r}")
    return tuple(_row(name, row) for name, row in engines.items())


ENGINES: tuple[Engine, ...] = read_engines()


def engine_named(name: str, engines: tuple[Engine, ...] = ENGINES) -> Engine | None:
    """The row of an engine id, or None."""
    return next((e for e in engines if e.name == name), None)


__all__ = [
    "DOWNLOAD_KINDS",
    "Downloads",
    "ENGINES",
    "Engine",
    "EngineTableError",
    "Fork",
    "Options",
    "SETTINGS",
    "engine_named",
    "flag_name",
    "engines_of",
    "load_engines",
    "read_engines",
]
