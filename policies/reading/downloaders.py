"""Model downloads done by a container other than the server: an init container or sidecar that fetches the model
into a volume the server then reads as a local path (kthena's downloader, ``huggingface-cli download``,
``hf download``). The server's own flags show only a path; the download, its revision and where it lands are here.

Downloaders as data: each row says how the tool is recognised (image or command words), which settings name the
source, the folder and the revision, and where a source is a Hugging Face repository, each fact cited:

- **kthena downloader** (volcano-sh/kthena v1.0.0 python/kthena/downloader/app.py:59-96): ``--source``/``-s`` (a Hub
  repository ``org/name`` or ``hf://org/name``, ``ms://``, ``s3://``, ``obs://``, ``pvc://``), ``--output-dir``/``-o``,
  the revision only as ``hf_revision`` in the JSON of ``--config``/``-c`` (huggingface.py:24-40 passes it to
  snapshot_download); base.py:70-101 picks the downloader by the source's scheme (``pvc://`` copies from a claim).
- **Hugging Face CLI** (huggingface_hub v1.28.0 ``hf download REPO_ID``, and the older ``huggingface-cli download``):
  ``--local-dir`` (else the Hub cache), ``--revision`` (else the main branch), ``--repo-type`` (a dataset or a Space
  is not a model, and is not read),
  https://huggingface.co/docs/huggingface_hub/guides/cli#download-a-repository.

URL tools as data too (URL_ROWS: curl, wget) for a Hub file URL, ``https://huggingface.co/ORG/REPO/resolve/REV/FILE``,
whose revision is in the URL (main moves); library calls as data too (CALL_ROWS), read from the text a container runs (``python -c``, a heredoc, a mounted
ConfigMap script): huggingface_hub's ``snapshot_download``/``hf_hub_download`` with ``repo_id`` (or the first positional
argument), ``local_dir``/``cache_dir`` and ``revision``; such a fetch is marked ``from_text`` (a later line of the
script may change what it does).
"""

from __future__ import annotations

import itertools
import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, Optional

from components.images import names_image
from policies.kube import (
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    memoized,
    metadata_name,
    name_of,
    pod_specs,
    split_type,
    viewed_resources,
)
from policies.reading.mounted_scripts import mounted_scripts
from policies.reading.vllm_args import command_tokens, is_shell_operator, split_shell


@dataclass(frozen=True)
class DownloaderRow:
    """How one download tool is recognised and read."""

    name: str
    images: tuple[str, ...]  # image name fragments that run the tool as their entrypoint
    commands: tuple[tuple[str, ...], ...]  # command words that start it (basename of the first)
    source: tuple[str, ...]  # flags naming the source ("" : the first positional token)
    output: tuple[str, ...]  # flags naming the folder it writes
    revision: tuple[str, ...]  # flags naming the revision
    revision_config: tuple[tuple[str, ...], str] = ((), "")  # (JSON flags, key) carrying the revision
    repo_type: tuple[str, ...] = ()  # flags naming the repository type: a dataset or a Space is not a model


ROWS = (
    DownloaderRow(
        "kthena downloader",
        images=("volcano-sh/downloader", "kthena/downloader", "kthena-downloader"),
        commands=(("kthena-downloader",),),
        source=("--source", "-s"),
        output=("--output-dir", "-o"),
        revision=(),
        revision_config=(("--config", "-c"), "hf_revision"),
    ),
    DownloaderRow(
        "Hugging Face CLI",
        images=(),
        commands=(("huggingface-cli", "download"), ("hf", "download")),
        source=("",),
        output=("--local-dir",),
        revision=("--revision",),
        repo_type=("--repo-type",),
    ),
)
# huggingface_hub v1.28.0 src/huggingface_hub/cli/download.py:48, 122-130: ``--repo-type`` (model, dataset or space,
# cli/_cli_utils.py:678-704) or an ``hf://datasets/...`` / ``hf://spaces/...`` URI says what the repository is.
_NOT_MODEL_URIS = ("hf://datasets/", "hf://spaces/")


def _not_a_model(args: list[str], source: str, row: DownloaderRow) -> bool:
    """True when the tool is told it fetches a dataset or a Space, not a model."""
    if not row.repo_type:
        return False
    kind = _value(args, row.repo_type)
    return (kind is not None and kind.strip("'\"").lower() != "model") or source.lower().startswith(_NOT_MODEL_URIS)


@dataclass(frozen=True)
class CallRow:
    """A library call that downloads a model, read from the text of a container's script (``python -c "..."``, a
    ``sh -c`` script, a mounted ConfigMap script it runs): its function names and the keywords that name the
    source (else the first positional argument), the folder and the revision."""

    name: str
    functions: tuple[str, ...]
    source: tuple[str, ...]
    output: tuple[str, ...]
    revision: tuple[str, ...]
    revision_flag: str  # how messages tell the user to pin it
    repo_type: tuple[str, ...] = ()  # keywords naming a dataset or a Space (not a model)
    offline: tuple[str, ...] = ()  # keywords that, True, make the call download nothing


# huggingface_hub v1.28.0: snapshot_download(repo_id, *, repo_type, revision, cache_dir, local_dir, ...,
# local_files_only) (src/huggingface_hub/_snapshot_download.py), hf_hub_download(repo_id, filename, *, ..., revision,
# cache_dir, local_dir, ..., local_files_only) (file_download.py); an unset revision is DEFAULT_REVISION "main"
# (_snapshot_download.py:229-230, file_download.py:962-963, constants.py:60); local_files_only=True reads the cache only.
CALL_ROWS = (
    CallRow(
        "huggingface_hub",
        functions=("snapshot_download", "hf_hub_download"),
        source=("repo_id",),
        output=("local_dir", "cache_dir"),
        revision=("revision",),
        revision_flag="revision=<commit SHA>",
        repo_type=("repo_type",),
        offline=("local_files_only",),
    ),
)


@dataclass(frozen=True)
class UrlRow:
    """A tool that fetches one file by URL: a Hub file URL (``https://huggingface.co/ORG/REPO/resolve/REV/FILE``) names
    the repository and, in the URL itself, the revision (a branch such as main moves)."""

    name: str
    commands: tuple[tuple[str, ...], ...]
    files: tuple[str, ...]  # flags naming the file it writes
    dirs: tuple[str, ...]  # flags naming the folder it writes into
    short_file: str = ""  # the short option letter that takes the file at the end of a cluster (curl -sLo FILE)


# curl 8.x: -o/--output FILE, --output-dir DIR (https://curl.se/docs/manpage.html); GNU Wget 1.21: -O/--output-document
# FILE, -P/--directory-prefix DIR (https://www.gnu.org/software/wget/manual/wget.html). The Hub serves a file of a
# repository at https://huggingface.co/<repo>/resolve/<revision>/<path> (huggingface_hub v1.28.0 constants.py
# HUGGINGFACE_CO_URL_TEMPLATE "{repo_id}/resolve/{revision}/{filename}").
URL_ROWS = (
    UrlRow("curl", (("curl",),), files=("-o", "--output"), dirs=("--output-dir",), short_file="o"),
    UrlRow("wget", (("wget",),), files=("-O", "--output-document"), dirs=("-P", "--directory-prefix"), short_file="O"),
)
HUB_FILE_URL = re.compile(r"^https?://(?:huggingface\.co|hf\.co)/([\w.-]+/[\w.-]+)/resolve/([^/?#]+)/([^?#]+)")


@dataclass(frozen=True)
class Fetch:
    """One model fetched by a downloader container: what, at which revision, into which folder."""

    label: str
    tool: str
    podspec: dict
    container: dict
    source: str
    into: Optional[str]  # the folder it writes; None for the tool's default (the Hub cache)
    revision: Optional[str]
    revision_flag: str  # how the tool is told the revision, for messages
    from_text: bool = False  # read from script text (CALL_ROWS): a later line of the script may change what it does
    hub_cache: bool = True  # with no folder named, the tool writes the Hub cache (False: a URL fetch, somewhere unknown)


def _value(tokens: list[str], flags: tuple[str, ...]) -> Optional[str]:
    for i, token in enumerate(tokens):
        for flag in flags:
            if flag and token == flag and i + 1 < len(tokens):
                return tokens[i + 1]
            if flag.startswith("--") and token.startswith(flag + "="):
                return token[len(flag) + 1 :]
    return None


def _positional(tokens: list[str]) -> Optional[str]:
    skip = False
    for token in tokens:
        if skip:
            skip = False
        elif token.startswith("-"):
            skip = "=" not in token and token not in ("--quiet", "-q", "--force-download", "--dry-run")
        else:
            return token
    return None


def _invocations(container: dict, row: DownloaderRow, podspec: Optional[dict] = None) -> list[list[str]]:
    """The argument lists of each run of the tool in the container (after its command words; the image's
    entrypoint's args for an image that runs it), in its command line and in a mounted ConfigMap script it runs."""
    argv, _ = command_tokens(container)
    image = str(container.get("image") or "").lower()
    if names_image(image, row.images) and not any(posixpath.basename(t) in ("sh", "bash") for t in argv[:1]):
        return [argv]
    found = _runs_of(argv, row)
    for script in mounted_scripts(podspec or {}, container):
        found += _runs_of(split_shell(script), row)
    return found


def _runs_of(argv: list[str], row: DownloaderRow) -> list[list[str]]:
    found = []
    for i, token in enumerate(argv):
        for words in row.commands:
            if posixpath.basename(token) == words[0] and argv[i + 1 : i + len(words)] == list(words[1:]):
                rest = argv[i + len(words) :]
                end = next((j for j, t in enumerate(rest) if is_shell_operator(t)), len(rest))
                found.append(rest[:end])
    return found


def _revision(args: list[str], row: DownloaderRow) -> Optional[str]:
    revision = _value(args, row.revision) if row.revision else None
    flags, key = row.revision_config
    text = _value(args, flags) if flags else None
    if revision is None and text:
        try:
            config = json.loads(text)
        except ValueError:
            return None
        value = as_dict(config).get(key)
        revision = value if isinstance(value, str) else None
    return revision


def fetches(resource: Any) -> list[Fetch]:
    """Every model a downloader container of the workload fetches (init containers and sidecars), and the loaders an
    operator adds to the pods it renders (llmaz)."""
    return list(memoized(resource, "downloader_fetches", _fetches)) + _llmaz_fetches(resource)


# llmaz (InftyAI/llmaz v0.1.4, f159c346fa22680acf8b899f41ab340a56d02d3b): an inference.llmaz.io Service's controller
# adds, for each model its modelClaims name, a "model-loader" init container to the leader and worker templates
# (pkg/controller/inference/service_controller.go:195-218, unless the annotation llmaz.io/skip-model-loader is "true",
# pkg/controller_helper/helper.go:127-132) that downloads an OpenModel's source.modelHub.modelID at its revision
# (modelhub.go:66-100, env REVISION from modelHub.revision) into /workspace/models/, the volume "model-volume": an
# emptyDir without a sizeLimit (modelsource.go:25-35, 105-127).
LLMAZ_SERVICE = ("inference.llmaz.io", "Service")
LLMAZ_MODEL = ("llmaz.io", "OpenModel")
LLMAZ_MODEL_DIR = "/workspace/models/"
LLMAZ_TOOL = "llmaz model-loader"


def _open_models(view: Any) -> dict[Any, Any]:
    return {metadata_name(r.props): r.props for r in view if split_type(getattr(r, "type", "")) == LLMAZ_MODEL}


def _llmaz_models(resource: Any) -> list[dict]:
    """The OpenModels of the files read that an llmaz Service claims, in claim order (the OpenModels by name are
    collected once per evaluation: kube.memoized on the view)."""
    view = viewed_resources()
    models = memoized(view, "llmaz_open_models", _open_models) if view else {}
    claims = [name_of(m) for m in as_list(get(resource.props, "spec", "modelClaims", "models"))]
    return [as_dict(models[name]) for name in claims if name is not None and name in models]


def llmaz_model_path(hub: dict) -> str:
    """Where llmaz's loader puts a modelHub model, the path it gives the server (modelhub.go:44-64 ModelPath):
    /workspace/models/<filename>, else /workspace/models/models--<org>--<name>."""
    name = hub.get("filename")
    return LLMAZ_MODEL_DIR + (name if isinstance(name, str) else "models--" + str(hub.get("modelID")).replace("/", "--"))


def _llmaz_fetches(resource: Any) -> list[Fetch]:
    if split_type(resource.type) != LLMAZ_SERVICE:
        return []
    if str(as_dict(get(resource.props, "metadata", "annotations")).get("llmaz.io/skip-model-loader")) == "true":
        return []
    found = []
    for i, model in enumerate(_llmaz_models(resource)):
        hub = as_dict(get(model, "spec", "source", "modelHub"))
        model_id = hub.get("modelID")
        if not isinstance(model_id, str):
            continue
        revision = hub.get("revision") if isinstance(hub.get("revision"), str) else None
        loader = {"name": "model-loader" if i == 0 else f"model-loader-{i}"}
        for path, podspec in pod_specs(resource):
            label = f"{path} init container {loader['name']} (added by llmaz for OpenModel {get(model, 'metadata', 'name')})"
            found.append(
                Fetch(label, LLMAZ_TOOL, podspec, loader, model_id, llmaz_model_path(hub), revision, "modelHub.revision")
            )
    return found


def _call_args(text: str, start: int) -> str:
    """The argument text of the call whose opening parenthesis is at ``start`` (to its matching parenthesis), read
    within a 4 KiB window: a download call's arguments are a line or two, and an unbounded search per call would
    make a script of many unclosed calls quadratic (cold review 29, finding 2: 48 KB took 32 s)."""
    depth = 0
    stop = min(len(text), start + _CALL_WINDOW)
    for i in range(start, stop):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i]
    return text[start + 1 : stop]


_CALL_WINDOW = 4096
_MAX_CALLS = 64


def _keyword(call: str, names: tuple[str, ...], literal: bool = False) -> Optional[str]:
    """A keyword argument's value: a string literal's text, else the expression as written (None with ``literal``);
    None when absent."""
    for name in names:
        found = re.search(rf"""(?<![\w.]){name}\s*=\s*(?:(["'])(.*?)\1|([^,)\s]+))""", call)
        if found:
            return found.group(2) if found.group(1) else (None if literal else found.group(3))
    return None


def _first_positional(call: str) -> Optional[str]:
    """The first positional argument when it is a string literal, else None."""
    found = re.match(r"""\s*(["'])(.*?)\1\s*(?:,|$)""", call)
    return found.group(2) if found else None


def script_texts(podspec: dict, container: dict) -> list[str]:
    """The text a container runs at start: its command and args, and each mounted ConfigMap script it runs."""
    tokens = [str(t) for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, (str, int))]
    return ["\n".join(tokens), *mounted_scripts(podspec, container)]


def _call_fetches(path: str, podspec: dict, container: dict) -> list[Fetch]:
    """Every download call of CALL_ROWS in the container's scripts (a call passed ``**kwargs`` is not read)."""
    found = []
    for row in CALL_ROWS:
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, row.functions)) + r")\s*\(")
        for text in script_texts(podspec, container):
            # A script names a handful of downloads; the first _MAX_CALLS are read, so many calls cost linear time.
            for match in itertools.islice(pattern.finditer(text), _MAX_CALLS):
                call = _call_args(text, match.end() - 1)
                if "**" in call or (_keyword(call, row.offline) or "") == "True":
                    continue
                kind = _keyword(call, row.repo_type)
                if kind is not None and kind.strip("'\"") not in ("model", "None"):
                    continue
                # A repository named by an expression (os.environ['MODEL_REPO'], a variable) is shown as "...".
                source = _keyword(call, row.source, literal=True) or _first_positional(call) or "..."
                into = _keyword(call, row.output)
                revision = _keyword(call, row.revision)
                label = container_label(path, container)
                found.append(
                    Fetch(
                        label, f"{row.name} {match.group(1)}", podspec, container, source, into, revision, row.revision_flag, True
                    )
                )
    return found


def _short_value(args: list[str], letter: str) -> Optional[str]:
    """The value of a short option given last in a cluster (``-sLo FILE``), or None."""
    for i, token in enumerate(args[:-1]):
        if re.match(rf"^-[A-Za-z]*{letter}$", token):
            return args[i + 1]
    return None


def _url_fetches(path: str, podspec: dict, container: dict) -> list[Fetch]:
    """Every Hub file URL a URL_ROWS tool fetches in the container's command line or a mounted script it runs."""
    found = []
    argv, _ = command_tokens(container)
    for tokens in [argv, *(split_shell(script) for script in mounted_scripts(podspec, container))]:
        for row in URL_ROWS:
            for args in _runs_of(tokens, DownloaderRow(row.name, (), row.commands, (), (), ())):
                url = next((m for a in args if (m := HUB_FILE_URL.match(a.strip("'\""))) is not None), None)
                if url is None:
                    continue
                file = _value(args, row.files) or (_short_value(args, row.short_file) if row.short_file else None)
                into = posixpath.dirname(file) if file and file.startswith("/") else _value(args, row.dirs)
                found.append(
                    Fetch(
                        container_label(path, container),
                        row.name,
                        podspec,
                        container,
                        url.group(1),
                        into or None,
                        url.group(2),
                        "URL revision",
                        hub_cache=False,
                    )
                )
    return found


def _fetches(resource: Any) -> list[Fetch]:
    found = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            for row in ROWS:
                for args in _invocations(container, row, podspec):
                    source = _positional(args) if row.source == ("",) else _value(args, row.source)
                    if not source or _not_a_model(args, source, row):
                        continue
                    revision_flag = (
                        row.revision[0] if row.revision else f"{row.revision_config[1]} in {row.revision_config[0][0]}"
                    )
                    found.append(
                        Fetch(
                            container_label(path, container),
                            row.name,
                            podspec,
                            container,
                            source,
                            _value(args, row.output),
                            _revision(args, row),
                            revision_flag,
                        )
                    )
            found += _call_fetches(path, podspec, container)
            found += _url_fetches(path, podspec, container)
    return found


__all__ = [
    "CALL_ROWS",
    "LLMAZ_TOOL",
    "URL_ROWS",
    "CallRow",
    "DownloaderRow",
    "Fetch",
    "ROWS",
    "UrlRow",
    "fetches",
    "script_texts",
]
