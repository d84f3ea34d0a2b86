"""Catalogue lookups: a model id (catalogue id or Hugging Face id) to its architecture and size.

Two sources, in this order: a lock file of models resolved from the Hugging Face Hub (``python -m
stacks models lock`` writes stacks/models.lock.json: each model's config.json at its pinned revision
and its checkpoint size from the Hub's safetensors metadata), registered with ``use_lock``; then the
built-in catalogue (model_catalog.py). Both are read offline.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..capacity.architecture import GIB, Architecture, ArchitectureError, parse_config
from ..capacity.model_catalog import MODELS
from ..errors import ConfigError, Problem

__all__ = [
    "MODELS",
    "CatalogModel",
    "LockError",
    "find_model",
    "load_model_config",
    "model_from_config",
    "UnknownModel",
    "locked_models",
    "use_lock",
]

LOCK_HINT = "run `python -m stacks models lock` to resolve it from the Hugging Face Hub (HF_TOKEN for gated models)"


class UnknownModel(KeyError):
    """The id matches no catalogue model."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class CatalogModel:
    """A model's architecture plus the size of its checkpoint (all ranks together)."""

    id: str
    hf_id: str
    arch: Architecture
    checkpoint_bytes: float
    source: str

    @property
    def checkpoint_gib(self) -> float:
        """Checkpoint size in GiB."""
        return self.checkpoint_bytes / GIB

    def with_checkpoint_gib(self, weights_gib: float) -> "CatalogModel":
        """The same architecture with another checkpoint size (e.g. another quantization of it)."""
        return replace(self, checkpoint_bytes=weights_gib * GIB)


# lower-cased name -> (catalogue key, the Hugging Face id that name stands for). An alias keeps its
# own id (meta-llama/Llama-3.3-70B-Instruct is sized with the 3.1 entry's figures but is reported
# as 3.3); a catalogue key stands for the entry's own hf_id.
_INDEX: dict[str, tuple[str, str]] = {}
for _key, _entry in MODELS.items():
    _INDEX.setdefault(_key.lower(), (_key, _entry["hf_id"]))
    for _name in (_entry["hf_id"], *_entry.get("aliases", ())):
        _INDEX.setdefault(_name.lower(), (_key, _name))


class LockError(ValueError):
    """The lock file cannot be read or holds an entry that is not a model (the message says which)."""


# Lower-cased Hugging Face id -> {revision: lock entry}; filled by use_lock.
_LOCKED: dict[str, dict[str, Mapping[str, Any]]] = {}
_LOCK_PATH: list[Path] = []


def use_lock(path: Path) -> int:
    """Register the models of a lock file (replacing any registered before); returns how many.

    An absent file registers nothing. The file is read with the bounded JSON loader; an entry that is
    not a model (no config, no size, a config the architecture parser refuses) is a LockError naming it.
    """
    from ..json_loading import load_json
    from ..loading import JSON_FILE, LoadError

    _LOCKED.clear()
    _LOCK_PATH[:] = [path]
    if not path.is_file():
        return 0
    try:
        raw = load_json(path, JSON_FILE)
    except LoadError as exc:
        raise LockError(f"{path}: {exc}") from None
    models = raw.get("models") if isinstance(raw, dict) else None
    if not isinstance(models, dict):
        raise LockError(f"{path}: expected an object with a 'models' object (written by python -m stacks models lock)")
    for key, entry in sorted(models.items()):
        where = f"{path}: models[{key!r}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            raise LockError(f"{where}: has no config object; run `python -m stacks models lock` again")
        size = entry.get("checkpoint_bytes")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise LockError(f"{where}.checkpoint_bytes = {size!r}: must be a whole number of bytes > 0")
        model, revision = entry.get("model"), entry.get("revision")
        if not isinstance(model, str) or not isinstance(revision, str) or key != f"{model}@{revision}":
            raise LockError(f"{where}: the key must be '<model>@<revision>' of its own model and revision fields")
        try:
            parse_config(entry["config"])
        except ArchitectureError as exc:
            raise LockError(f"{where}.config: {exc}") from None
        _LOCKED.setdefault(model.lower(), {})[revision] = entry
    return sum(len(v) for v in _LOCKED.values())


# The repository's lock file (stacks/models.lock.json, written by `python -m stacks models lock`);
# LLM_SERVING_MODELS_LOCK names another one (tests, or a checkout that keeps it elsewhere).
LOCK_FILE = Path(os.environ.get("LLM_SERVING_MODELS_LOCK") or Path(__file__).resolve().parents[2] / "stacks" / "models.lock.json")


def use_repo_lock(path: Path = LOCK_FILE) -> int:
    """Register the repository's lock file (an absent one registers nothing); a broken one is a ConfigError."""
    try:
        return use_lock(path)
    except LockError as exc:
        raise ConfigError([Problem(str(path), f"{exc}".removeprefix(f"{path}: "), has_value=False)]) from None


def locked_models() -> dict[str, Mapping[str, Any]]:
    """The registered lock entries by '<model>@<revision>' (a copy)."""
    return {f"{e['model']}@{rev}": e for revs in _LOCKED.values() for rev, e in revs.items()}


def _from_lock(model_id: str, revision: str | None) -> CatalogModel | None:
    revisions = _LOCKED.get(model_id.lower())
    if not revisions:
        return None
    if revision is not None:
        entry = revisions.get(revision)
    else:
        # No revision asked for (`size --model`): the one locked revision, if there is exactly one.
        entry = next(iter(revisions.values())) if len(revisions) == 1 else None
    if entry is None:
        return None
    return CatalogModel(
        id=entry["model"],
        hf_id=model_id,
        arch=parse_config(entry["config"]),
        checkpoint_bytes=float(entry["checkpoint_bytes"]),
        source=f"{_LOCK_PATH[0].name if _LOCK_PATH else 'lock file'}: {entry.get('source', '')}".rstrip(": "),
    )


def find_model(model_id: str, revision: str | None = None) -> CatalogModel:
    """The model ``model_id`` names: its lock entry (at ``revision`` when given), else the catalogue
    entry for a catalogue id or any of its Hugging Face ids (case-insensitive).

    ``hf_id`` of the result is the model that was asked for, spelled as its Hugging Face id: an
    alias answers with the alias, not with the entry it shares figures with.
    """
    locked = _from_lock(model_id, revision)
    if locked is not None:
        return locked
    found = _INDEX.get(model_id.lower())
    if found is None:
        at = f" at revision {revision}" if revision and model_id.lower() in _LOCKED else ""
        raise UnknownModel(
            f"model {model_id!r}{at} is not in the lock file or the built-in catalogue; {LOCK_HINT}, or give its "
            f"config.json and checkpoint size "
            f"(catalogue: {', '.join(sorted(MODELS))})"
        )
    key, hf_id = found
    entry = MODELS[key]
    return CatalogModel(
        id=key,
        hf_id=hf_id,
        arch=_catalogue_architecture(key),
        checkpoint_bytes=float(entry["checkpoint_bytes"]),
        source=entry["source"],
    )


@lru_cache(maxsize=None)
def _catalogue_architecture(key: str) -> Architecture:
    """A catalogue entry's architecture, read from its config once (Architecture is frozen): a corpus run asks for the
    same few dozen models ~70 times (~1.5 ms of parsing). An entry whose config does not read raises each time."""
    return parse_config(MODELS[key]["config"])


def model_from_config(config: Mapping[str, Any], weights_gib: float, name: str = "custom") -> CatalogModel:
    """A model outside the catalogue, from its config.json mapping and whole-checkpoint size in GiB."""
    return CatalogModel(
        id=name, hf_id=name, arch=parse_config(config), checkpoint_bytes=weights_gib * GIB, source="user config.json"
    )


def load_model_config(path: Path, weights_gib: float, name: str) -> CatalogModel:
    """A model from a config.json file; every way the file can be wrong is an ArchitectureError."""
    from ..json_loading import load_json
    from ..loading import JSON_FILE, LoadError

    try:
        raw = load_json(path, JSON_FILE)
    except LoadError as exc:
        # The caller names the file; the problem (and its line) is the rest of the message.
        where = f"line {exc.line}: " if exc.line else ""
        raise ArchitectureError(f"{where}{exc.problem}") from None
    return model_from_config(raw, weights_gib, name=name)
