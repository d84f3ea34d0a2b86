"""Credential-shaped tokens in a manifest file's YAML comments: text no object carries, committed all the same.

A YAML parser drops comments, so a token someone commented out (``# HF_TOKEN: hf_...``) is in no object the policies
read, yet it is in the file and in the repository's history. The reader scans each file's text once for the token
shapes of components/secrets.py and keeps those that sit after a ``#`` on their line, except where an object of the
same file carries the token (a block scalar's comment, such as a RayService's serveConfigV2: no-literal-credential
reports it on that object). Only the line and the shape's redacted form are kept, never the token.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any, Sequence

from components.secrets import HINT, find_tokens, has_hint

COMMENT_TYPE = "llm-serving:manifests:Comment"
# A comment starts at a '#' at the start of a line or after whitespace (YAML 1.2, 6.6 Comments).
_COMMENT_START = re.compile(r"(?:^|\s)#")
_MAX_NODES = 200_000


@dataclass(frozen=True)
class CommentToken:
    """A token in a comment of a file: the file as reports name it, its line, the shape's redacted description, and
    the object of the file it sits in (the last one starting at or before its line, else the first), by kind and name,
    so reports and label matching name that object: ``<file> Deployment/vllm (line N)``."""

    file: str
    line: int
    described: str
    shown_kind: str = "Comment"
    name: str = "token"
    document: None = None
    # False when the file holds no Kubernetes object (a Helm values.yaml, a tool's config): the token is reported as
    # advice there, since such files carry example values in their comments and the pack does not read them.
    in_manifest: bool = True

    @property
    def location(self) -> str:
        """The file, as reports name where a finding is."""
        return self.file


def comment_tokens(shown: str, text: str, objects: Sequence[Any]) -> list[CommentToken]:
    """The tokens of ``text`` that sit in a YAML comment and in no string of ``objects`` (the file's ManifestObjects:
    ``obj``, ``line``, ``shown_kind``, ``name``).

    Linear in the file: the objects' strings are walked once into an index (:class:`_Carried`), line numbers come from
    one list of newline offsets, and each token's owner from a bisection over the objects' first lines."""
    found: list[CommentToken] = []
    carried: _Carried | None = None
    newlines: list[int] | None = None
    lines = [o.line for o in objects]
    ordered = all(a <= b for a, b in zip(lines, lines[1:]))
    for token in find_tokens(text):
        start = text.rfind("\n", 0, token.start) + 1
        if not _COMMENT_START.search(text[start : token.start]):
            continue
        if carried is None:
            carried = _Carried([o.obj for o in objects])
        if carried.holds(text[token.start : token.end]):
            continue
        if newlines is None:
            newlines = [m.start() for m in _NEWLINE.finditer(text)]
        line = bisect_left(newlines, token.start) + 1
        if ordered:
            at = bisect_right(lines, line)
            owner = objects[at - 1] if at else (objects[0] if objects else None)
        else:
            before = [o for o in objects if o.line <= line]
            owner = before[-1] if before else (objects[0] if objects else None)
        if owner is None:
            found.append(CommentToken(shown, line, token.described, in_manifest=False))
        else:
            found.append(CommentToken(shown, line, token.described, owner.shown_kind, owner.name))
    return found


_NEWLINE = re.compile("\n")
# Every position where a shape's hint starts (overlaps included), and how many characters from there index it: the
# shortest a token runs from its first hint on is 15 (a Slack token: "xoxb-" and 10 characters).
_HINT_AT = re.compile("(?=(?:" + HINT.pattern + "))")
_KEY = 15


class _Carried:
    """The strings of a file's objects (keys included; walked iteratively, at most ``_MAX_NODES`` nodes), joined once
    and indexed by the ``_KEY`` characters from each hint position, so a token's membership costs one dictionary look
    up and a comparison per place that starts the same way, not a walk of every object."""

    def __init__(self, objects: Sequence[Any]) -> None:
        parts: list[str] = []
        stack = list(objects)
        seen = 0
        while stack and seen < _MAX_NODES:
            item = stack.pop()
            seen += 1
            if isinstance(item, str):
                if has_hint(item):
                    parts.append(item)
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        self.haystack = "\0".join(parts)
        self.index: dict[str, list[int]] = {}
        for match in _HINT_AT.finditer(self.haystack):
            at = match.start()
            self.index.setdefault(self.haystack[at : at + _KEY], []).append(at)

    def holds(self, token: str) -> bool:
        """True when a string of the objects holds ``token`` (a credential shape, so it holds a hint)."""
        hint = _HINT_AT.search(token)
        if hint is None or len(token) - hint.start() < _KEY:
            return token in self.haystack
        offset = hint.start()
        places = self.index.get(token[offset : offset + _KEY], ())
        return any(self.haystack.startswith(token, at - offset) for at in places if at >= offset)


def comment_props(token: CommentToken) -> dict:
    """The props of the pseudo-resource a token in a comment becomes (policies/check.py resources_of)."""
    return {"file": token.file, "line": token.line, "described": token.described, "in_manifest": token.in_manifest}
