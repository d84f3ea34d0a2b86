"""Fill-ins as data: the rows of fill_ins.toml as compiled records, and the questions the pack asks of them.

A fill-in is a value a person writes where the real one goes (``changeme``, ``yourregistry.azurecr.io/...``, the
all-zero UUID, ``cv-rag.example.com``). Kubernetes and the programs it runs take it literally, so a manifest applied
with one does not do what it says (S27) or sends a credential the service refuses (S28). The shapes live in the table
with where each was seen; this module only reads them. Pure: no policy import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("fill_ins.toml")
_PATTERN_FIELDS = ("name", "field", "needs", "regex", "what", "source")
_PHRASE_FIELDS = ("alone", "verbs", "cues", "source")
_FIELDS = ("any", "host", "tag", "bucket", "issuer")
# Fields that name a DNS host: Ingress rules' host, Gateway API listeners' hostname and routes' hostnames, Istio and
# KEDA HTTPScaledObject hosts, cert-manager Certificate dnsNames.
HOST_FIELDS = frozenset({"host", "hosts", "hostname", "hostnames", "dnsNames"})
# A kustomization's images[] entry: the tag it sets.
TAG_FIELDS = frozenset({"newTag"})
# Fields (and ConfigMap keys, variables) whose value must resolve to a bucket, or to an identity provider's issuer or
# key set: read by their name, as gcsfuse's bucketName, a MODEL_BUCKET variable, an OIDC_ISSUER key, jwksUri.
_BUCKET_FIELD = re.compile(r"(?i)bucket")
_ISSUER_FIELD = re.compile(r"(?i)issuer|jwks")
_WORDS = re.compile(r"^[a-z]+(?:[-_][a-z]+)*$")
_SPLIT = re.compile(r"[-_]")


@dataclass(frozen=True)
class Pattern:
    """One shape of fill-in."""

    name: str
    field: str
    needs: str
    regex: re.Pattern
    what: str
    source: str

    def found(self, value: str) -> Optional[str]:
        """The fill-in in ``value`` (the whole tag for a "tag" row), or None."""
        if self.needs not in value:
            return None
        if self.field == "tag":
            return value if self.regex.fullmatch(value) else None
        hit = self.regex.search(value)
        return hit.group(0).rstrip("/") if hit else None


@dataclass(frozen=True)
class Phrases:
    """Lower-case words that make a value of such words a fill-in."""

    alone: frozenset[str]
    verbs: frozenset[str]
    cues: frozenset[str]
    source: str

    def found(self, value: str) -> Optional[str]:
        """``value`` when all of it is a phrase of fill-in words, else None."""
        word = value.strip()
        if word in self.alone:
            return word
        if not ("-" in word or "_" in word) or not word.islower() or not _WORDS.match(word):
            return None
        words = set(_SPLIT.split(word))
        if words & self.alone or (words & self.verbs and words & self.cues):
            return word
        return None


def _words(where: str, row: dict, field: str) -> frozenset[str]:
    value = row.get(field)
    if not isinstance(value, list) or not value or not all(isinstance(w, str) and w.strip() for w in value):
        raise ValueError(f"{where}: {field} must be a list of words")
    return frozenset(value)


def _pattern(index: int, row: Any) -> Pattern:
    where = f"fill_ins.toml [[pattern]] #{index + 1}"
    row = exact_fields(where, row, _PATTERN_FIELDS)
    field = text(where, row, "field")
    if field not in _FIELDS:
        raise ValueError(f"{where}: field must be one of {', '.join(_FIELDS)}")
    needs = row.get("needs")
    if not isinstance(needs, str):
        raise ValueError(f"{where}: needs must be text")
    try:
        regex = re.compile(text(where, row, "regex"))
    except re.error as exc:
        raise ValueError(f"{where}: regex does not compile ({exc})") from None
    return Pattern(text(where, row, "name"), field, needs, regex, text(where, row, "what"), text(where, row, "source"))


def load(data: Any) -> tuple[tuple[Pattern, ...], Phrases]:
    """The table's records, refused with a message naming the row and field when one cannot be used."""
    if not isinstance(data, dict):
        raise ValueError("fill_ins.toml: not a table")
    rows = data.get("pattern")
    if not isinstance(rows, list) or not rows:
        raise ValueError("fill_ins.toml: [[pattern]] rows are missing")
    phrases = exact_fields("fill_ins.toml [phrases]", data.get("phrases"), _PHRASE_FIELDS)
    return tuple(_pattern(i, row) for i, row in enumerate(rows)), Phrases(
        _words("fill_ins.toml [phrases]", phrases, "alone"),
        _words("fill_ins.toml [phrases]", phrases, "verbs"),
        _words("fill_ins.toml [phrases]", phrases, "cues"),
        text("fill_ins.toml [phrases]", phrases, "source"),
    )


PATTERNS, PHRASES = load(read_toml(TABLE))
_ANY = tuple(p for p in PATTERNS if p.field == "any")
_HOST = tuple(p for p in PATTERNS if p.field == "host")
_TAG = tuple(p for p in PATTERNS if p.field == "tag")
_BUCKET = tuple(p for p in PATTERNS if p.field == "bucket")
_ISSUER = tuple(p for p in PATTERNS if p.field == "issuer")


def fill_in(value: object, field: str = "") -> Optional[str]:
    """The fill-in a string field's value holds, read at a field named ``field`` (its mapping key; "" for a value
    read anywhere): a table pattern, or the whole value a phrase of fill-in words. None when there is none."""
    if not isinstance(value, str) or not value:
        return None
    for pattern in _ANY:
        if (hit := pattern.found(value)) is not None:
            return hit
    if field in HOST_FIELDS:
        for pattern in _HOST:
            if (hit := pattern.found(value.strip())) is not None:
                return value.strip()
    if field in TAG_FIELDS:
        return tag_fill_in(value)
    if (hit := resolving_fill_in(value, field)) is not None:
        return hit
    return PHRASES.found(value)


def resolving_fill_in(value: str, field: str) -> Optional[str]:
    """The fill-in of a value that must resolve, read at a field (or ConfigMap key, variable) named ``field``: a bucket
    (``bucketName: my-bucket``, or an object-store URI under any name: ``s3://my-model-bucket/llama``) or an OIDC
    issuer or key set (``OIDC_ISSUER: https://issuer.example.com``); else None."""
    text = value.strip()
    if _BUCKET_FIELD.search(field) or "://my" in text:  # s3://my-bucket/... is one under any name
        rows = _BUCKET
    else:
        rows = _ISSUER if _ISSUER_FIELD.search(field) else ()
    return next((hit for p in rows if (hit := p.found(text)) is not None), None)


def tag_fill_in(tag: str) -> Optional[str]:
    """The tag when it names the field instead of a release (``TAG``), else None."""
    tag = tag.strip()
    return next((tag for p in _TAG if p.found(tag) is not None), None)


def image_fill_in(image: str) -> Optional[str]:
    """The fill-in an image reference holds: a table pattern (a ``your...`` registry, an all-zero digest) or a tag
    that names the field; None otherwise."""
    for pattern in _ANY:
        if (hit := pattern.found(image)) is not None:
            return hit
    last = image.strip().rsplit("/", 1)[-1].split("@", 1)[0]
    return tag_fill_in(last.partition(":")[2]) if ":" in last else None
