"""The files a kustomization's generators read, and what generatorOptions put on the objects they make.

Read from kubernetes-sigs/kustomize at tag api/v0.21.1, restated, no code copied: generator entries (literals,
files, envs: api/types/kustomization.go:147-154, configmapargs.go, secretargs.go), their options
(api/types/generatoroptions.go:34-66, api/internal/generators/utils.go:62-98), and the load restriction that keeps
every file a kustomization names in or below its folder (api/internal/loader/loadrestrictions.go:15-29).
"""

from __future__ import annotations

import os

from policies.kube import as_dict
from policies.reading.kustomize_transforms import Unbuilt

MAX_BYTES = 1 << 20  # a kustomization, patch or generator file read here


def within(folder: str, file: str, path: str) -> str:
    """``file`` when it lies in or below ``folder`` (links resolved); kustomize refuses any other file a kustomization
    names ("security; file ... is not in or below ...", api/internal/loader/loadrestrictions.go:15-29), so the overlay
    is not built, and nothing outside it is read."""
    real, root = os.path.realpath(file), os.path.realpath(folder)
    if os.path.commonpath([real, root]) != root:
        raise Unbuilt(f"{path} names {file}, outside its folder, which kustomize refuses to read")
    return file


def generator_options(obj: dict, common: dict, own: dict) -> None:
    """generatorOptions and the entry's options put on a generated object: labels and annotations (the entry's
    value wins on a shared key) and ``immutable`` (api/types/generatoroptions.go:34-66 MergeGlobalOptionsIntoLocal;
    api/internal/generators/utils.go:62-98 copyLabelsAndAnnotations, setImmutable; configmap.go:43-47)."""
    for part in ("labels", "annotations"):
        pairs = {str(k): str(v) for k, v in {**as_dict(common.get(part)), **as_dict(own.get(part))}.items()}
        if pairs:
            obj["metadata"][part] = pairs
    if common.get("immutable") is True or own.get("immutable") is True:
        obj["immutable"] = True


def generator_data(entry: dict, folder: str, path: str) -> dict[str, str]:
    """The data a generator entry makes from its literals, files and env files (kustomize's KvLoader); a file outside
    the folder, missing, too large or not UTF-8 leaves the overlay unbuilt."""
    data: dict[str, str] = {}
    for literal in entry.get("literals") or ():
        key, eq, value = str(literal).partition("=")
        if not eq:
            raise Unbuilt(f"{path}: a literal {literal!r} has no '='")
        data[key.strip()] = value.strip().strip("\"'") if value.strip()[:1] in "\"'" else value
    for source in entry.get("files") or ():
        key, eq, rel = str(source).partition("=")
        rel = rel if eq else key
        key = key if eq else os.path.basename(rel)
        data[key] = _text(within(folder, os.path.join(folder, rel), path), path)
    for rel in [*(entry.get("envs") or ()), *([entry["env"]] if isinstance(entry.get("env"), str) else [])]:
        for line in _text(within(folder, os.path.join(folder, str(rel)), path), path).splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                key, eq, value = line.partition("=")
                data[key.strip()] = value if eq else ""  # kustomize takes the builder's environment: unknown here
    return data


def _text(file: str, path: str) -> str:
    if not os.path.isfile(file) or os.path.getsize(file) > MAX_BYTES:
        raise Unbuilt(f"{path}: a generator file {file} is not there or too large")
    try:
        with open(file, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        raise Unbuilt(f"{path}: a generator file {file} does not read") from None
