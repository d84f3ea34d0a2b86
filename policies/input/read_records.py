"""What one read of `python -m policies check` records besides its objects: the counts, and each file or document
that could not be checked (S27), read best-effort as a Helm template, or salvaged. Plain records, kept apart from the
reading itself (policies/manifests.py), which re-exports them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional


@dataclass
class ReadCounts:
    """What one read saw: files, documents (empty ones too), objects, lists flattened, and what was skipped."""

    files: int = 0
    documents: int = 0
    empty_documents: int = 0
    objects: int = 0
    lists: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def skipped_total(self) -> int:
        """How many non-Kubernetes documents or list items were skipped."""
        return sum(self.skipped.values())

    def as_dict(self) -> dict:
        """Plain data for reports (skipped kinds sorted)."""
        return {
            "files": self.files,
            "documents": self.documents,
            "empty_documents": self.empty_documents,
            "objects": self.objects,
            "lists": self.lists,
            "skipped": dict(sorted(self.skipped.items())),
        }


# Why a file or document could not be checked: "invalid" (not YAML or JSON, over a limit, not UTF-8),
# "template" (an unrendered Go/Helm template), "not-kubernetes" (read, but no Kubernetes object in it); and
# "template-read", a chart's template rendered best-effort (its objects checked, its findings advice); "invalid-read",
# a document that is not YAML read best-effort (policies/reading/salvage.py; a mandatory S27 finding; "repeated-read": advice).
UNREADABLE_KINDS = ("invalid", "template", "not-kubernetes", "template-read", "invalid-read", "repeated-read")


@dataclass(frozen=True)
class Unreadable:
    """A file, or one document of a multi-document file, that could not be checked, and why.

    ``document`` is the document's index in the file (None for the whole file); ``line`` where it starts
    (or where the parser stopped), from 1."""

    file: str
    document: Optional[int]
    line: int
    why: str
    kind: str
    line_known: bool = True  # False when the problem has no line (the file's size, encoding, type): 1 is shown
    # The kind and name a template document spells literally (``kind: Deployment``, ``metadata: name: ollama``):
    # reports name the object that was not checked rather than only the file ("" when not literal).
    object_kind: str = ""
    object_name: str = ""
    # "repeated-read": each repeated mapping key as (path, first value, value kept) (policies/reading/repeated_keys.py).
    repeats: tuple = ()

    @property
    def text(self) -> str:
        """``<location>: line N: <why>``, as input errors are written (no line when none is known)."""
        return f"{self.location}: " + (f"line {self.line}: " if self.line_known else "") + self.why

    @property
    def location(self) -> str:
        """``<file>`` or ``<file>#<document>``, as reports name objects."""
        return self.file if self.document is None else f"{self.file}#{self.document}"

    @property
    def shown_kind(self) -> str:
        """What reports print in the kind's place."""
        return self.object_kind or ("File" if self.document is None else "Document")

    @property
    def name(self) -> str:
        """What reports print in the name's place: the object's literal name, else the file's base name."""
        return self.object_name or os.path.basename(self.file) or self.file


@dataclass(frozen=True)
class TemplateRead:
    """A Helm template read best-effort: the file, its chart's folder and values file ("" when none), the objects."""

    file: str
    chart: str
    values: str
    objects: int


@dataclass(frozen=True)
class SalvageRead:
    """A document that does not parse, read best-effort: file, document index and line, the repair, objects read."""

    file: str
    document: int
    line: int
    repair: str
    objects: int
