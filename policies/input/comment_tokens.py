"""Credential-shaped tokens in a manifest file's YAML comments: text no object carries, committed all the same.

A YAML parser drops comments, so a token someone commented out (``# HF_TOKEN: hf_...``) is in no object the policies
read, yet it is in the file and in the repository's history. The reader scans each file's text once for the token
shapes of components/secrets.py and keeps those that sit after a ``#`` on their line, except where an object of the
same file carries the token (a block scalar's comment, such as a RayService's serveConfigV2: no-literal-credential
reports it on that object). Only the line and the shape's redacted form are kept, never the token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from components.secrets import find_tokens

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

    @property
    def location(self) -> str:
        """The file, as reports name where a finding is."""
        return self.file


def comment_tokens(shown: str, text: str, objects: Sequence[Any]) -> list[CommentToken]:
    """The tokens of ``text`` that sit in a YAML comment and in no string of ``objects`` (the file's ManifestObjects:
    ``obj``, ``line``, ``shown_kind``, ``name``)."""
    found = []
    for token in find_tokens(text):
        start = text.rfind("\n", 0, token.start) + 1
        if not _COMMENT_START.search(text[start : token.start]):
            continue
        if _carried(text[token.start : token.end], [o.obj for o in objects]):
            continue
        line = text.count("\n", 0, token.start) + 1
        before = [o for o in objects if o.line <= line]
        owner = before[-1] if before else (objects[0] if objects else None)
        if owner is None:
            found.append(CommentToken(shown, line, token.described))
        else:
            found.append(CommentToken(shown, line, token.described, owner.shown_kind, owner.name))
    return found


def _carried(token: str, objects: Sequence[Any]) -> bool:
    """True when a string of the objects (keys included) holds the token, walked iteratively and bounded."""
    stack = list(objects)
    seen = 0
    while stack and seen < _MAX_NODES:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            if token in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def comment_props(token: CommentToken) -> dict:
    """The props of the pseudo-resource a token in a comment becomes (policies/check.py resources_of)."""
    return {"file": token.file, "line": token.line, "described": token.described}
