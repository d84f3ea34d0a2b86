"""A best-effort reading of a YAML document that does not parse (S27 stays: the API server cannot take it).

Real repositories hold manifests a slip away from YAML: a key indented one column too far (set 12,
spangreen/K8s-Ollama-Setup manifests/vllm-deployment.yaml@7373feb, ``volumeMounts:`` at column 12 among siblings at
11), a tab in the indentation, list items written ``-   key:`` whose next keys sit two columns after the dash
(GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-model-armor/*@2b50365). Nothing inside such a file was
checked, although its problems are as real as anyone else's. Small general repairs, each bounded and cheap:

- leading tabs expanded (to 2, 4 or 8 columns, as an editor may have shown them);
- ``-`` followed by two or more spaces narrowed to ``- `` (where the item's next keys sit two columns after it);
- the line the parser stops at, with the lines under it, re-indented to the nearest level open above it (ties:
  the shallower, since a line between two open levels usually closes the deeper one), one line at a time while
  the parser gets further, at most ``MAX_STEPS`` times;
- double quotes inside single-quoted words of the line the parser stops at, within a double-quoted scalar (a shell
  script's ``'{"key":"value"}'`` argument), read as escaped;
- as a last resort, the document before the line the parser stops at (the object as far as it can be read).

A repair is kept only when every document it yields is a mapping with a string ``apiVersion`` and ``kind``. The
caller (policies/manifests.py) keeps S27's mandatory finding and marks every finding on the object advice
(policies/framework.py SALVAGE_NOTE). Bounded: documents over ``MAX_BYTES`` are not tried, and one document gets
at most ``MAX_PARSES`` parses. Imported only when a document does not parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional, Protocol

from components.loading import Document, LoadError

# A Kubernetes object is at most ~1.5 MiB in etcd; a serving manifest a few KiB. Larger documents are not repaired.
MAX_BYTES = 256 << 10
MAX_PARSES = 24
# The parses one run may spend on repairs in all, when the caller gives no budget of its own (policies/manifests.py
# SALVAGE_RUN_PARSES): a file of thousands of broken documents is reported as before once it is spent (cold review
# finding 18: 10,000 mis-indented Deployments took minutes at 24 parses each).
MAX_RUN_PARSES = 240
MAX_STEPS = 6
# How many open levels a mis-indented line is tried at, nearest first.
_CANDIDATES = 3
_WIDE_DASH = re.compile(r"^([ ]*)-[ ]{2,}(?=\S)", re.MULTILINE)
_LEADING_TAB = re.compile(r"^[ \t]*\t", re.MULTILINE)

Parse = Callable[[str], list[Document]]


@dataclass(frozen=True)
class Salvaged:
    """The documents of a repaired text and what was done to it, as reports say it."""

    documents: list[Document]
    repair: str


class RunBudget(Protocol):
    """The parses a whole run may still spend on repairs (policies/manifests.py holds one per read of manifests)."""

    parses: int


@dataclass
class _Run:
    parses: int = MAX_RUN_PARSES


class _Budget:
    """The parses one document may still spend, within its run's."""

    def __init__(self, parse: Parse, run: RunBudget):
        self.parse = parse
        self.left = MAX_PARSES
        self.run = run

    def attempt(self, text: str) -> tuple[Optional[list[Document]], Optional[int]]:
        """(documents, None) when ``text`` parses, else (None, the line the parser stopped at or 0)."""
        if self.left <= 0 or self.run.parses <= 0:
            return None, 0
        self.left -= 1
        self.run.parses -= 1
        try:
            return self.parse(text), None
        except LoadError as exc:
            return None, exc.line or 0


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _open_levels(lines: list[str], index: int) -> list[int]:
    """The indentations of the blocks open just above ``lines[index]``: the previous line and each line above it that
    is less indented than every line after it; a ``- key:`` line opens both its dash's column and its key's."""
    levels: list[int] = []
    floor: Optional[int] = None
    for i in range(index - 1, -1, -1):
        line = lines[i]
        if _blank(line):
            continue
        col = _indent(line)
        if floor is not None and col >= floor:
            continue
        levels.append(col)
        rest = line[col:]
        if rest.startswith("-") and rest[1:2] == " " and rest[1:].strip():
            levels.append(col + 1 + (len(rest) - 1 - len(rest[1:].lstrip(" "))))
        floor = col
        if col == 0:
            break
    return sorted(set(levels))


def _reindented(lines: list[str], index: int, to: int) -> list[str]:
    """``lines`` with ``lines[index]`` and the block under it (the lines after it indented deeper) moved to ``to``."""
    col = _indent(lines[index])
    shift = to - col
    out = list(lines)
    end = index + 1
    while end < len(lines) and (_blank(lines[end]) or _indent(lines[end]) > col):
        end += 1
    for i in range(index, end):
        if lines[i].strip():
            out[i] = " " * shift + lines[i] if shift > 0 else lines[i][min(-shift, _indent(lines[i])) :]
    return out


def _opens(line: str) -> int:
    """The column a line's block opens at (its key's, after a ``- ``), or -1 when it holds a value (``key: v``)."""
    body = line.split(" #")[0].rstrip()
    if not body.endswith(":"):
        return -1
    rest = body.lstrip(" ")
    return _indent(line) + (len(rest) - len(rest[1:].lstrip(" ")) if rest.startswith("- ") else 0)


def _nearest(lines: list[str], index: int, col: int) -> Callable[[int], tuple[int, ...]]:
    """The order a mis-indented line's levels are tried in. Under a line that opens a block (``key:`` with nothing
    after it), the levels inside that block first (the line is its first child); then the nearest. Ties (the line
    one column off two open levels) go to the level whose children keep the usual 2-column step, when the line opens
    a block whose lines were not moved with it; else to the level of the line above when that holds a value (its
    sibling); else to the shallower (a line between two open levels usually closes the deeper one)."""
    above = next((lines[i] for i in range(index - 1, -1, -1) if not _blank(lines[i])), "")
    below = next((lines[i] for i in range(index + 1, len(lines)) if not _blank(lines[i])), "")
    inner = _opens(above)
    child = _indent(below) if _opens(lines[index]) >= 0 and _indent(below) > col else -1
    sibling = _indent(above) if inner < 0 else -1

    def key(lv: int) -> tuple[int, ...]:
        return (
            0 if inner >= 0 and lv >= inner else 1,
            abs(lv - col),
            abs(child - lv - 2) if child >= 0 else 0,
            0 if lv == sibling else 1,
            lv,
        )

    return key


def _repair_steps(text: str, budget: _Budget) -> tuple[Optional[list[Document]], list[tuple[int, int, int]]]:
    """The documents of ``text`` once its mis-indented lines are moved one by one, and the moves (line from 1, column
    before, column after, columns from 1)."""
    docs, stop = budget.attempt(text)
    lines = text.split("\n")
    steps: list[tuple[int, int, int]] = []
    while docs is None and stop and len(steps) < MAX_STEPS and budget.left > 0:
        index = stop - 1
        if index <= 0 or index >= len(lines) or _blank(lines[index]):
            return None, steps
        col = _indent(lines[index])
        levels = sorted((lv for lv in _open_levels(lines, index) if lv != col), key=_nearest(lines, index, col))
        for level in levels[:_CANDIDATES]:
            moved = _reindented(lines, index, level)
            docs, after = budget.attempt("\n".join(moved))
            if docs is not None or (after and after > stop):
                steps.append((stop, col + 1, level + 1))
                lines, stop = moved, after or 0
                break
        else:
            return None, steps
    return docs, steps


def _objects(docs: Optional[list[Document]]) -> bool:
    """True when every non-empty document is a mapping with a string apiVersion and kind (and there is one)."""
    present = [d.data for d in docs or [] if d.data is not None]
    return bool(present) and all(
        isinstance(d, dict)
        and isinstance(d.get("apiVersion"), str)
        and d["apiVersion"]
        and isinstance(d.get("kind"), str)
        and d["kind"]
        for d in present
    )


def _variants(text: str) -> list[tuple[str, str]]:
    """The texts the line-by-line repair starts from, with what was done to each: as written, tabs expanded, wide
    dashes narrowed."""
    bases = [(text, "")]
    if _LEADING_TAB.search(text):
        bases = [
            ("\n".join(_expand(line, width) for line in text.split("\n")), f"tabs in indentation read as {width} columns")
            for width in (2, 4, 8)
        ]
    if _WIDE_DASH.search(text):
        bases += [
            (_WIDE_DASH.sub(r"\1- ", t), ", ".join(filter(None, (why, "'-   ' list items read as '- '")))) for t, why in bases
        ]
    return bases


def _expand(line: str, width: int) -> str:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)].expandtabs(width) + body


# A single-quoted shell word holding double quotes ('{"kv_connector":"LMCacheConnector"}') inside a double-quoted YAML
# scalar (a `sh -c` script): its first " closes the scalar (spent set 50 surajssd/llm-k8s configs/deepseek-v2.5-lmcache/
# k8s/lws.yaml:37, --kv-transfer-config in the leader's script).
_SINGLE_QUOTED = re.compile(r"'[^'\n]*\"[^'\n]*'")


def _inner_quotes(text: str, stop: Optional[int], budget: _Budget) -> Optional[tuple[list[Document], int]]:
    """(documents, the line) once the double quotes inside the single-quoted words of the line the parser stops at are
    escaped, when that line lies inside a double-quoted scalar and the text then yields Kubernetes objects; else None."""
    lines = text.split("\n")
    if not stop or not 1 < stop <= len(lines) or not _SINGLE_QUOTED.search(lines[stop - 1]):
        return None
    if '"' not in "\n".join(lines[max(0, stop - 40) : stop - 1]):
        return None  # no double-quoted scalar open above it
    fixed = list(lines)
    fixed[stop - 1] = _SINGLE_QUOTED.sub(lambda m: m.group(0).replace('"', '\\"'), lines[stop - 1])
    docs, _ = budget.attempt("\n".join(fixed))
    return (docs or [], stop) if _objects(docs) else None


def salvage(text: str, stop: Optional[int], parse: Parse, first: int = 1, run: Optional[RunBudget] = None) -> Optional[Salvaged]:
    """The documents of ``text`` (which ``parse`` refuses, at line ``stop``) after the smallest repair that yields
    Kubernetes objects, or None. ``parse`` raises LoadError with the line it stopped at; ``first`` is the line of the
    file ``text`` starts on (for what the repair says); ``run`` is the budget the whole run shares (a fresh one when
    not given)."""
    run = run if run is not None else _Run()
    if run.parses <= 0 or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        return None
    budget = _Budget(parse, run)
    best: Optional[tuple[list[Document], str, list[tuple[int, int, int]]]] = None
    for base, why in _variants(text):
        docs, steps = _repair_steps(base, budget)
        # The smallest repair wins: fewest lines moved, then the first variant (as written, tabs, dashes).
        if docs is not None and _objects(docs) and (why or steps) and (best is None or len(steps) < len(best[2])):
            best = (docs, why, steps)
    if best is not None:
        moved = [f"line {first + line - 1} read at column {to} (not {was})" for line, was, to in best[2]]
        return Salvaged(best[0], ", ".join(filter(None, (best[1], *moved))))
    quoted = _inner_quotes(text, stop, budget)
    if quoted is not None:
        docs, line = quoted
        return Salvaged(docs, f"the double quotes of line {first + line - 1}'s single-quoted words read as escaped")
    if stop and stop > 1:
        docs, _ = budget.attempt("\n".join(text.split("\n")[: stop - 1]) + "\n")
        if _objects(docs):
            return Salvaged(docs or [], f"read only up to line {first + stop - 1}")
    return None


def last_value_kept(text: str, parse_lenient: Parse) -> Optional[Salvaged]:
    """A document that repeats a mapping key, read as YAML parsers outside strict decoding read it (the key's last
    value kept: ``parse_lenient``), when that yields Kubernetes objects; None otherwise. Fresh set 31: aws-samples/
    scalable-hw-agnostic-inference repeats ``volumes`` in one pod spec, which hid six other problems of the object."""
    try:
        documents = parse_lenient(text)
    except LoadError:
        return None
    if not _objects(documents):
        return None
    return Salvaged(documents, "the repeated key's last value kept, as YAML parsers outside strict decoding read it")
