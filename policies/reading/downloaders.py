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
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import (
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    memoized,
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
    if any(marker in image for marker in row.images) and not any(posixpath.basename(t) in ("sh", "bash") for t in argv[:1]):
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
    return {get(r.props, "metadata", "name"): r.props for r in view if split_type(getattr(r, "type", "")) == LLMAZ_MODEL}


def _llmaz_models(resource: Any) -> list[dict]:
    """The OpenModels of the files read that an llmaz Service claims, in claim order (the OpenModels by name are
    collected once per evaluation: kube.memoized on the view)."""
    view = viewed_resources()
    models = memoized(view, "llmaz_open_models", _open_models) if view else {}
    claims = [as_dict(m).get("name") for m in as_list(get(resource.props, "spec", "modelClaims", "models"))]
    return [as_dict(models[name]) for name in claims if name in models]


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
    return found


__all__ = ["LLMAZ_TOOL", "Fetch", "ROWS", "DownloaderRow", "fetches"]
