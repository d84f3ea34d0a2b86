"""The one bounded loader for every YAML and JSON file the tools read (JSON's strict reading is
components/json_loading.py, within the same limits and errors).

Stack files (``python -m stacks plan``), Kubernetes manifests (``python -m policies check``),
a model's config.json and the policy pack config all come in through here, because in
pull-request CI anyone can change them, forks included. Reading is bounded before anything
else sees the data:

================  ==========  ===========  ===========  ============
limit             stack file  manifests    JSON         what it stops
================  ==========  ===========  ===========  ============
file size         1 MiB       16 MiB       4 MiB        a 50 MB file taking minutes and GBs
nesting depth     32          100          64           RecursionError further down
YAML nodes        50,000      1,000,000    200,000      alias expansion ("billion laughs")
documents         1           10,000       1            endless ``---`` streams
================  ==========  ===========  ===========  ============

(``STACK_FILE``, ``MANIFESTS`` and ``JSON_FILE`` below; a manifest read also stops after
256 MiB over all files.)

* **Aliases count toward the node budget** with the size of what they expand to, and depth is
  counted through them, so a 1 KB file whose anchors expand to 10^9 nodes is refused while it
  is read, not after something has serialised or formatted it. An alias to a node that is
  still open (a recursive structure) is refused.
* **Keys are strings.** A key that YAML reads as a number, a boolean, null, a date, a list or a
  mapping (``? [a]``) is refused; quote it. A repeated key is refused (the Pulumi CLI refuses
  such stack files too; YAML would silently keep the last one). ``<<`` merge keys work.
* **Tags:** only YAML's core scalar tags, ``!!seq`` and ``!!map``; ``!!binary``, ``!!set``,
  ``!!python/...`` and custom tags are refused.
* **JSON** must be strict JSON: NaN, Infinity and numbers that overflow to infinity are refused
  with the field's path; duplicate keys are refused.
* **The C loader** (libyaml, ``yaml.CSafeLoader``) parses when PyYAML was built with it; the pure
  Python parser is the fallback. Either way the parser only produces events: this module
  composes them into Python objects itself, iteratively, so no depth of input can raise a
  RecursionError here, and the limits are checked during composition.

Every failure is a :class:`LoadError` (a ValueError) whose message names the file, the line
where known and the limit, e.g. ``stacks/Pulumi.x.yaml: line 3: nested deeper than 32 levels
(the limit for a stack file)``. No part of a value longer than a few dozen characters is ever
echoed, and credential-shaped text is redacted (components.secrets).

Pure: no Pulumi import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Optional, Union

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from .secrets import redact_tokens

KIB, MIB = 1 << 10, 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds on one file: bytes, nesting depth, YAML nodes (aliases expanded) and documents."""

    what: str
    max_bytes: int
    max_depth: int
    max_nodes: int
    max_documents: int
    # A repeated mapping key is an error (strict decoding, as kubectl and the API server read); True keeps the last
    # value instead, as YAML 1.1 parsers do: only policies/manifests.py's best-effort reading of a document asks it.
    repeated_keys_last: bool = False


STACK_FILE = Limits("a stack file", max_bytes=1 * MIB, max_depth=32, max_nodes=50_000, max_documents=1)
MANIFESTS = Limits("a manifest file", max_bytes=16 * MIB, max_depth=100, max_nodes=1_000_000, max_documents=10_000)
JSON_FILE = Limits("a JSON file", max_bytes=4 * MIB, max_depth=64, max_nodes=200_000, max_documents=1)

# True when PyYAML was built with libyaml (the C parser is about 8x faster on real manifests).
C_LOADER = bool(getattr(yaml, "__with_libyaml__", False))


def yaml_loader(pure: bool = False) -> type:
    """The YAML loader class whose parser produces the events: libyaml's unless ``pure`` or absent."""
    return yaml.SafeLoader if pure or not C_LOADER else yaml.CSafeLoader


class LoadError(ValueError):
    """A file that cannot be read within the limits; the message names the file and the rule."""

    def __init__(self, source: str, problem: str, line: Optional[int] = None):
        self.source = source
        self.problem = problem
        self.line = line
        where = f"line {line}: " if line else ""
        super().__init__(f"{source}: {where}{problem}")


def _show(text: Any, limit: int = 40) -> str:
    """A short, safe rendering of a piece of input for a message (tokens redacted, truncated)."""
    if isinstance(text, str):
        short = repr(redact_tokens(text[: limit * 4]))
    else:
        short = type(text).__name__
    return short if len(short) <= limit else short[: limit - 3] + "..."


def _size_text(n: int) -> str:
    return f"{n // MIB} MiB" if n >= MIB and n % MIB == 0 else f"{n:,} bytes"


def read_bounded(source: Union[str, Path, BinaryIO], limits: Limits, name: Optional[str] = None) -> str:
    """The UTF-8 text of a file (a path, or an open binary stream such as stdin), at most ``limits.max_bytes``."""
    label = name or str(source)
    too_big = f"is larger than {_size_text(limits.max_bytes)} (the limit for {limits.what})"
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            st = path.stat()
        except OSError as exc:
            raise LoadError(label, f"cannot read: {exc.strerror or exc.__class__.__name__}") from None
        import stat

        if not stat.S_ISREG(st.st_mode):
            raise LoadError(label, "is not a regular file")
        if st.st_size > limits.max_bytes:
            raise LoadError(label, too_big)
        try:
            with open(path, "rb") as handle:
                data = handle.read(limits.max_bytes + 1)
        except OSError as exc:
            raise LoadError(label, f"cannot read: {exc.strerror or exc.__class__.__name__}") from None
    else:
        try:
            data = source.read(limits.max_bytes + 1)
        except OSError as exc:
            raise LoadError(label, f"cannot read: {exc.strerror or exc.__class__.__name__}") from None
    if len(data) > limits.max_bytes:
        raise LoadError(label, too_big)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(label, f"is not UTF-8 text (byte {exc.start})") from None


@dataclass
class Document:
    """One YAML document: its data, its index in the file (from 0) and the line it starts on (from 1).

    ``lines`` maps ``id()`` of the mappings composed at depth <= ``track_lines`` to their line, so a
    caller can point at an object inside a document (an item of a ``kind: List``).
    """

    data: Any
    index: int
    line: int
    lines: dict[int, int] = field(default_factory=dict, repr=False)


_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
_SCALAR_TAGS = {f"tag:yaml.org,2002:{t}": f"a {t}" for t in ("null", "bool", "int", "float", "timestamp")}
_SCALAR_TAGS["tag:yaml.org,2002:int"] = "an int"
_VALUE = "tag:yaml.org,2002:value"
# goyaml.v2 (kubectl's and the API server's YAML reader, through sigs.k8s.io/yaml) reads a plain scalar that YAML 1.1
# makes a base-60 number (``12:30``) or the ``=`` value key as text: kubernetes-sigs/yaml goyaml.v2/resolve.go
# (742f5e6) ``resolve()``, "Base 60 floats are a bad idea, were dropped in YAML 1.2, and are purposefully
# unsupported here"; ``=`` is in neither its resolve table nor its map, so it stays a string.
_BASE_60 = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
# The plain scalars goyaml.v2 reads as numbers that YAML 1.1 (PyYAML) reads as text (``08080``, ``1e3``, ``0o17``):
# resolve() strips ``_``, then strconv.ParseInt(s, 0, 64), then its yamlStyleFloat pattern.
_GO_NUMBER = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
)


class PlainNumber(str):
    """A plain scalar PyYAML reads as text and kubectl's goyaml.v2 as a number (``containerPort: 08080``).

    It is the same ``str`` to every reader; api-schema-valid alone asks for the type, to accept it where the
    schema takes a number (the API server receives a JSON number) as well as where it takes a string.
    """

    __slots__ = ()


# yaml.safe_dump writes it as the text it is (SafeDumper and CSafeDumper share SafeRepresenter's table).
def _represent_plain_number(dumper: Any, data: PlainNumber) -> Any:
    return dumper.represent_str(str(data))


yaml.representer.SafeRepresenter.add_representer(PlainNumber, _represent_plain_number)


_RESOLVED: dict[tuple[Any, ...], str] = {}  # (loader class, text, implicit flags, plain) -> tag: 8,192 short texts


def _resolved(loader: Any, event: Any) -> str:
    """A scalar's tag from the loader's resolver, a plain one's as goyaml.v2 reads it (base-60 numbers and ``=`` are
    text); a file repeats its keys, and for the safe loaders (no path resolvers) it is a function of _RESOLVED's key."""
    plain, value = event.tag is None and not event.style, event.value
    key = (type(loader), value, event.implicit, plain)
    if (tag := _RESOLVED.get(key)) is None:
        tag = loader.resolve(ScalarNode, value, event.implicit)
        if plain and (tag == _VALUE or (tag in _BASE_60 and ":" in value)):
            tag = _STR
        if len(value) <= 64 and len(_RESOLVED) < 8192:
            _RESOLVED[key] = tag
    return tag


class _Frame:
    """An open sequence or mapping while its events arrive."""

    __slots__ = ("is_map", "value", "anchor", "start_nodes", "height", "key", "has_key", "merges", "line")

    def __init__(self, is_map: bool, anchor: Optional[str], start_nodes: int, line: int):
        self.is_map = is_map
        self.value: Any = {} if is_map else []
        self.anchor = anchor
        self.start_nodes = start_nodes
        self.height = 0
        self.key: Any = None
        self.has_key = False
        self.merges: list[tuple[Any, int]] = []
        self.line = line


_MERGE_KEY = object()
_SURROGATE = re.compile("[\ud800-\udfff]")


def load_yaml_documents(
    source: Union[str, Path, BinaryIO],
    limits: Limits = MANIFESTS,
    *,
    name: Optional[str] = None,
    text: Optional[str] = None,
    track_lines: int = 0,
    pure: bool = False,
) -> list[Document]:
    """Every document of a YAML file (or of ``text``), composed within ``limits``.

    ``source`` is a path or a binary stream; ``name`` is how messages call it (default: the path).
    Raises :class:`LoadError`.
    """
    label = name or str(source)
    if text is None:
        text = read_bounded(source, limits, label)
    elif len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise LoadError(label, f"is larger than {_size_text(limits.max_bytes)} (the limit for {limits.what})")
    loader = yaml_loader(pure)(text if type(text) is str else str(text))  # libyaml refuses a PlainNumber (a str subclass)
    try:
        return list(_compose(loader, label, limits, track_lines))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or exc.__class__.__name__
        # libyaml puts an end-of-file problem on the line after the last one.
        line = min(mark.line + 1, text.count("\n") + 1) if mark else None
        if problem == LIBYAML_DEPTH_PROBLEM:
            # PyYAML 6.0.4's libyaml scanner stops at 1,000 levels, scanning ahead of the events that _compose
            # bounds, so a deep flow collection can reach it first: deeper than any of our limits all the same.
            raise LoadError(label, f"nested deeper than {limits.max_depth} levels (the limit for {limits.what})", line) from None
        raise LoadError(label, f"is not valid YAML: {_show(problem, 80)[1:-1]}", line) from None
    finally:
        loader.dispose()


# The problem libyaml's scanner reports past its own nesting limit (1,000 levels; PyYAML 6.0.4's C extension).
LIBYAML_DEPTH_PROBLEM = "exceeded maximum nesting depth"


def load_yaml(
    source: Union[str, Path, BinaryIO], limits: Limits = STACK_FILE, *, name: Optional[str] = None, text: Optional[str] = None
) -> Any:
    """The single document of a YAML file (None when empty); more documents than ``limits`` allows are refused."""
    docs = load_yaml_documents(source, limits, name=name, text=text)
    return docs[0].data if docs else None


def _compose(loader: Any, label: str, limits: Limits, track_lines: int) -> Iterator[Document]:
    """Events -> Python objects, iteratively, checking every limit as the events arrive."""
    return _Composer(loader, label, limits, track_lines).documents()


class _Composer:
    """One file's composition: the open collections, the anchors and the counts the limits bound.

    One method per kind of event; each finished node (a scalar, an alias or a closed collection)
    is then placed in its parent by :meth:`_place`.
    """

    __slots__ = (
        "loader",
        "label",
        "limits",
        "track_lines",
        "check_surrogates",
        "stack",
        "anchors",
        "open_anchors",
        "nodes",
        "documents_seen",
        "root",
        "root_line",
        "doc_line",
        "lines",
    )

    def __init__(self, loader: Any, label: str, limits: Limits, track_lines: int):
        self.loader = loader
        self.label = label
        self.limits = limits
        self.track_lines = track_lines
        self.check_surrogates = not isinstance(loader, yaml.CSafeLoader) if C_LOADER else True
        self.stack: list[_Frame] = []
        # anchor -> (value, expanded node count, height); open anchors belong to unfinished nodes.
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        self.open_anchors: set[str] = set()
        self.nodes = 0
        self.documents_seen = 0
        self.root: Any = None
        self.root_line = 0
        self.doc_line = 1
        self.lines: dict[int, int] = {}

    def fail(self, problem: str, event: Any) -> LoadError:
        """The error for ``event``, at its line."""
        return LoadError(self.label, problem, event.start_mark.line + 1)

    def documents(self) -> Iterator[Document]:
        """Every document of the stream, each yielded as its end event arrives."""
        get_event = self.loader.get_event
        while True:
            event = get_event()
            cls = type(event)
            if cls is ScalarEvent:
                value, tag = self._scalar(event)
                self._place(value, 0, event, isinstance(value, str) or value is _MERGE_KEY, tag)
            elif cls is SequenceStartEvent or cls is MappingStartEvent:
                self._open(event, cls is MappingStartEvent)
            elif cls is SequenceEndEvent or cls is MappingEndEvent:
                value, height = self._close()
                self._place(value, height, event, False, None)
            elif cls is AliasEvent:
                value, height = self._alias(event)
                # an alias of a string is a string key (`? *app`, bjw-s app-template form; spent set 98 dsluo/homelab)
                self._place(value, height, event, isinstance(value, str), None)
            elif cls is DocumentStartEvent:
                self._start_document(event)
            elif cls is DocumentEndEvent:
                yield Document(self.root, self.documents_seen - 1, self.root_line or self.doc_line, self.lines)
            elif cls is StreamEndEvent:
                return

    def _scalar(self, event: Any) -> tuple[Any, str]:
        """A scalar's value (core tags only; ``<<`` in key position is the merge key) and its resolved tag."""
        self.nodes += 1
        tag, plain = event.tag, event.tag is None and not event.style  # _resolved's cache read first: ~4,500 a run
        if tag is None or tag == "!":
            tag = _RESOLVED.get((type(self.loader), event.value, event.implicit, plain)) or _resolved(self.loader, event)
        if self.check_surrogates and _SURROGATE.search(event.value):
            # libyaml refuses "\ud800" escapes; the pure parser would make lone surrogates no encoder writes.
            raise self.fail("found invalid Unicode character escape code (a surrogate)", event)
        if tag == _STR:
            value = event.value  # a number starts with + - . or a digit, or with "_", which resolve() drops first
            if plain and value[:1] in "+-.0123456789_" and _GO_NUMBER.fullmatch(value.replace("_", "")):
                value = PlainNumber(event.value)
        elif tag == _MERGE:
            # "<<" is a merge key in key position and plain text anywhere else.
            stack = self.stack
            value = _MERGE_KEY if stack and stack[-1].is_map and not stack[-1].has_key else event.value
        elif tag not in _SCALAR_TAGS:
            raise self.fail(f"the tag {_show(tag)} is not supported (plain YAML only)", event)
        else:
            try:
                node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
                value = self.loader.yaml_constructors[tag](self.loader, node)
            except (ValueError, OverflowError, yaml.YAMLError):
                raise self.fail(f"{_show(event.value)} cannot be read as {_SCALAR_TAGS[tag]}", event) from None
        if event.anchor:
            self.anchors[event.anchor] = (value, 1, 0)
        return value, tag

    def _open(self, event: Any, is_map: bool) -> None:
        """A sequence or mapping starts: never as a key, within the depth and node limits, plain tags only."""
        stack, limits = self.stack, self.limits
        if stack and stack[-1].is_map and not stack[-1].has_key:
            raise self.fail("a mapping key is a list or a mapping; keys must be strings", event)
        if len(stack) + 1 > limits.max_depth:
            raise self.fail(f"nested deeper than {limits.max_depth} levels (the limit for {limits.what})", event)
        if event.tag not in (None, "!", _MAP if is_map else _SEQ):
            raise self.fail(f"the tag {_show(event.tag)} is not supported (plain YAML only)", event)
        self.nodes += 1
        if self.nodes > limits.max_nodes:
            raise self.fail(
                f"expands to more than {limits.max_nodes:,} YAML nodes (the limit for {limits.what}; aliases count)", event
            )
        line = event.start_mark.line + 1
        if not stack:
            self.root_line = line
        frame = _Frame(is_map, event.anchor, self.nodes, line)
        if is_map and len(stack) < self.track_lines:
            self.lines[id(frame.value)] = line
        if event.anchor:
            self.open_anchors.add(event.anchor)
        stack.append(frame)

    def _close(self) -> tuple[Any, int]:
        """The collection that ends (its merge keys applied) and its height; its anchor now usable."""
        frame = self.stack.pop()
        value = frame.value
        if frame.merges:
            value = _merged(frame, self.label)
            if id(frame.value) in self.lines:
                self.lines[id(value)] = self.lines.pop(id(frame.value))
        height = frame.height + 1
        if frame.anchor:
            self.open_anchors.discard(frame.anchor)
            self.anchors[frame.anchor] = (value, self.nodes - frame.start_nodes + 1, height)
        return value, height

    def _alias(self, event: Any) -> tuple[Any, int]:
        """The anchored value an alias repeats, counted with the size and depth it expands to."""
        limits = self.limits
        if event.anchor in self.open_anchors:
            raise self.fail(
                f"the alias *{_show(event.anchor)[1:-1]} refers to a node that contains it (a recursive structure)", event
            )
        if event.anchor not in self.anchors:
            raise self.fail(f"the alias *{_show(event.anchor)[1:-1]} has no anchor before it", event)
        value, size, height = self.anchors[event.anchor]
        self.nodes += size
        if self.nodes > limits.max_nodes:
            raise self.fail(
                f"expands to more than {limits.max_nodes:,} YAML nodes (the limit for {limits.what}; aliases count)", event
            )
        if len(self.stack) + height > limits.max_depth:
            raise self.fail(f"nested deeper than {limits.max_depth} levels through an alias (the limit for {limits.what})", event)
        return value, height

    def _start_document(self, event: Any) -> None:
        """A new document: within the document limit; anchors do not carry over."""
        self.documents_seen += 1
        limit = self.limits.max_documents
        if self.documents_seen > limit:
            many = "document" if limit == 1 else "documents"
            raise self.fail(f"holds more than {limit:,} YAML {many} (the limit for {self.limits.what})", event)
        self.anchors.clear()
        self.root, self.root_line, self.lines = None, 0, {}
        self.doc_line = event.start_mark.line + 1

    def _place(self, value: Any, height: int, event: Any, is_key_ok: bool, tag: Optional[str]) -> None:
        """A finished node goes to its parent: the document root, a list item, a mapping key or its value."""
        if not self.stack:
            self.root = value
            # An empty document's (implicit null) event sits where the next one starts.
            if not self.root_line and not (type(event) is ScalarEvent and event.value == ""):
                self.root_line = event.start_mark.line + 1
            return
        parent = self.stack[-1]
        if height > parent.height:
            parent.height = height
        if not parent.is_map:
            parent.value.append(value)
        elif not parent.has_key:
            if not is_key_ok:
                kind = "an alias" if type(event) is AliasEvent else _SCALAR_TAGS.get(tag or "", "not a string")
                shown = _show(event.value if type(event) is ScalarEvent else "*")
                raise self.fail(f"the mapping key {shown} is {kind}, not a string; quote it", event)
            parent.key, parent.has_key = value, True
        else:
            key = parent.key
            parent.has_key = False
            if key is _MERGE_KEY:
                parent.merges.append((value, event.start_mark.line + 1))
            elif key in parent.value and not self.limits.repeated_keys_last:
                raise self.fail(f"repeats the key {_show(key)}", event)
            else:
                parent.value[key] = value


def _merged(frame: _Frame, label: str) -> dict:
    """A mapping with its ``<<`` merge keys applied: explicit keys win, then earlier merged mappings."""
    merged: dict = {}
    for source, line in frame.merges:
        for item in source if isinstance(source, list) else [source]:
            if not isinstance(item, dict):
                raise LoadError(label, "a << merge key takes a mapping or a list of mappings", line)
            for key, value in item.items():
                merged.setdefault(key, value)
    merged.update(frame.value)
    return merged


__all__ = [
    "C_LOADER",
    "Document",
    "JSON_FILE",
    "Limits",
    "LoadError",
    "MANIFESTS",
    "STACK_FILE",
    "load_yaml",
    "load_yaml_documents",
    "read_bounded",
    "yaml_loader",
]
