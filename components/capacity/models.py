"""Catalogue lookups: a model id (catalogue id or Hugging Face id) to its architecture and size."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from ..capacity.architecture import GIB, Architecture, ArchitectureError, parse_config
from ..capacity.model_catalog import MODELS

__all__ = ["MODELS", "CatalogModel", "find_model", "load_model_config", "model_from_config", "UnknownModel"]


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


def find_model(model_id: str) -> CatalogModel:
    """The catalogue entry for a catalogue id or any of its Hugging Face ids (case-insensitive).

    ``hf_id`` of the result is the model that was asked for, spelled as its Hugging Face id: an
    alias answers with the alias, not with the entry it shares figures with.
    """
    found = _INDEX.get(model_id.lower())
    if found is None:
        raise UnknownModel(
            f"model {model_id!r} is not in the catalogue; give its config.json and checkpoint size instead "
            f"(catalogue: {', '.join(sorted(MODELS))})"
        )
    key, hf_id = found
    entry = MODELS[key]
    return CatalogModel(
        id=key,
        hf_id=hf_id,
        arch=parse_config(entry["config"]),
        checkpoint_bytes=float(entry["checkpoint_bytes"]),
        source=entry["source"],
    )


def model_from_config(config: Mapping[str, Any], weights_gib: float, name: str = "custom") -> CatalogModel:
    """A model outside the catalogue, from its config.json mapping and whole-checkpoint size in GiB."""
    return CatalogModel(id=name, hf_id=name, arch=parse_config(config), checkpoint_bytes=weights_gib * GIB, source="user config.json")


def load_model_config(path: Path, weights_gib: float, name: str) -> CatalogModel:
    """A model from a config.json file; every way the file can be wrong is an ArchitectureError."""
    from ..loading import JSON_FILE, LoadError, load_json

    try:
        raw = load_json(path, JSON_FILE)
    except LoadError as exc:
        # The caller names the file; the problem (and its line) is the rest of the message.
        where = f"line {exc.line}: " if exc.line else ""
        raise ArchitectureError(f"{where}{exc.problem}") from None
    return model_from_config(raw, weights_gib, name=name)
