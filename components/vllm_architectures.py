"""Which model architectures each vLLM release can load, and which architecture a model is, as data.

vLLM picks the model class by the ``architectures`` of the checkpoint's ``config.json``; an architecture its model
registry lacks stops the server at start ("Model architectures [...] are not supported for now", 0.6.6
vllm/model_executor/models/registry.py:374-384, ``_raise_for_unsupported``). Until 0.7.2 nothing else could load it;
from 0.7.2 an unknown architecture falls back to the transformers library's own class where that class is compatible
(0.7.2 vllm/model_executor/model_loader/utils.py:45-75, ``resolve_transformers_fallback``), which the files of a
manifest cannot settle.

components/vllm_architectures.json (written by tools/read_vllm_architectures.py from vLLM's wheels) holds, per
architecture, the index ranges of the releases read whose registry lists it, the releases with the fallback, and a
table of Hugging Face ids and their architecture from vLLM's own tests and docs. The file is read on first use only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Optional

from .capacity.architecture import ArchitectureError
from .capacity.model_catalog import MODELS
from .capacity.models import UnknownModel, find_model
from .engine_options import bounding_releases, decode_spans, version_key

_FILE = Path(__file__).parent / "vllm_architectures.json"


@dataclass(frozen=True, eq=False)
class ArchitectureTable:
    """The releases read, each architecture's releases (as index ranges), the fallback's, and known models."""

    releases: tuple[str, ...]
    spans: Mapping[str, str]
    fallback: frozenset[int]
    models: Mapping[str, tuple[str, str]]  # lower-case Hugging Face id -> (architecture, where that is written)
    families: Mapping[str, Mapping] = field(default_factory=dict)  # lower-case id prefix -> its family row

    def releases_with(self, architecture: str) -> list[str]:
        """The releases read whose registry lists ``architecture``."""
        return [self.releases[i] for i in sorted(decode_spans(self.spans.get(architecture, "")))]

    def neighbours(self, version: str) -> tuple[str, ...]:
        """The releases read that bound ``version`` (``bounding_releases``)."""
        return bounding_releases(self.releases, version)

    def has_fallback(self, release: str) -> bool:
        """True when ``release`` (read or not) may load an architecture outside its registry through transformers:
        a release read with the fallback, or one after the first such release."""
        first = min(self.fallback, default=None)
        return first is not None and version_key(release) >= version_key(self.releases[first])


@lru_cache(maxsize=1)
def architecture_table() -> ArchitectureTable:
    """The table of components/vllm_architectures.json (read once, on first use)."""
    data = json.loads(_FILE.read_text())
    sources = data.get("model_sources", {})
    models = {
        model.lower(): (arch, sources[group]["shown"])
        for group, table in data.get("models", {}).items()
        for model, arch in table.items()
    }
    return ArchitectureTable(
        releases=tuple(data["releases"]),
        spans=dict(data["architectures"]),
        fallback=decode_spans(data.get("transformers_fallback", "")),
        models=models,
        families={k.lower(): v for k, v in data.get("model_families", {}).get("families", {}).items()},
    )


@dataclass(frozen=True)
class ModelArchitecture:
    """A model's architectures (its config.json ``architectures``) and where that fact comes from."""

    architectures: tuple[str, ...]
    source: str
    model_type: str = ""  # the family's config.json model_type, where the family table names it
    transformers_first: str = ""  # the first transformers release that knows that model type, where read


def model_architecture(model_id: str) -> Optional[ModelArchitecture]:
    """The architectures of the model a Hugging Face id names: the catalogue's config.json (and its aliases), else
    vLLM's own example ids (the table's ``models``); None for a model neither knows (a local path, a fine-tune)."""
    try:
        found = find_model(model_id)
    except (UnknownModel, ArchitectureError):
        found = None
    entry = MODELS.get(found.id) if found is not None else None
    if entry is not None:
        names = entry["config"].get("architectures")
        if isinstance(names, list) and names:
            return ModelArchitecture(tuple(str(n) for n in names), f"the catalogue's config.json of {entry['hf_id']}")
    wanted = model_id.strip().lower()
    known = architecture_table().models.get(wanted)
    if known is None and (base := _QUANTIZED.sub("", wanted)) != wanted:
        # The publisher's quantized copy (Qwen/Qwen3-Next-80B-A3B-Instruct-FP8) keeps its model's config.json
        # architectures: only the weights' format changes.
        found_base = architecture_table().models.get(base)
        known = (found_base[0], f"{found_base[1]}, for {base}") if found_base else None
    if known:
        return ModelArchitecture((known[0],), known[1])
    return _family(wanted)


def _family(wanted: str) -> Optional[ModelArchitecture]:
    """The architectures of the model family whose id prefix ``wanted`` starts with (the longest such prefix), as
    components/vllm_architectures.json ``model_families`` lists them; None for an id no family covers."""
    families = architecture_table().families
    # A prefix "*/name-" covers that name under any organisation (quantized and fine-tuned copies keep the
    # architectures of the checkpoint they copy).
    name = wanted.rsplit("/", 1)[-1]
    prefix = max(
        (p for p in families if wanted.startswith(p) or (p.startswith("*/") and name.startswith(p[2:]))),
        key=len,
        default=None,
    )
    if prefix is None:
        return None
    row = families[prefix]
    return ModelArchitecture(
        tuple(row["architectures"]),
        f"the {prefix}* family's checkpoints (components/vllm_architectures.json model_families)",
        str(row.get("model_type", "")),
        str(row.get("transformers_first", "")),
    )


# The suffixes publishers give the quantized copy of a model in the same organisation.
_QUANTIZED = re.compile(r"-(fp8(-dynamic)?|awq|gptq(-int[48])?|int[48]|w8a8|w4a16|bnb-4bit|nvfp4|mxfp4)$")
