"""What a Go/Helm template file's text says before it is rendered (or a file's that does not parse): whether it can
hold a Kubernetes object at all, where YAML stopped on a template action, the kind and name a document spells
literally, and which parts lie inside a control structure (``if``, ``range``, ``with``, ``define``,
``block``), so a document written there without any action of its own is not read as the file's own object.

Helm emits such a document only as the structure decides (a false ``if``, an empty ``range``, a ``define`` nobody
includes emit nothing: go1.22 src/text/template/exec.go walkIfOrWith/walkRange; a define is a separate template),
so policies/manifests.py reports it with the template (advice, or rendered best-effort with the chart) instead of
checking it as stated. Only the actions that open and close structures are counted; ``else`` changes nothing.
"""

from __future__ import annotations

import bisect
import re
from typing import Optional

# A template document's literal top-level kind, and the first key of its top-level metadata block (its name when
# that key is `name:` with a value that is no template action).
_LITERAL_KIND = re.compile(r"^kind:[ \t]*([A-Za-z][A-Za-z0-9]*)[ \t]*(?:#.*)?$", re.MULTILINE)
_LITERAL_NAME = re.compile(
    r"^metadata:[ \t]*\n(?:[ \t]*(?:#.*)?\n)*([ \t]+)name:[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*$", re.MULTILINE
)


def literal_object(chunk: str) -> tuple[str, str]:
    """(kind, name) a template document spells literally, "" for what it does not."""
    kind = _LITERAL_KIND.search(chunk)
    name = _LITERAL_NAME.search(chunk)
    return (kind.group(1) if kind else "", name.group(2) if kind and name else "")


# A key a Kubernetes object must have, in block or flow style (`apiVersion: v1`, `{"kind": "Pod"}`).
_KUBERNETES_KEY = re.compile(r"""(?:^|[\s{,])["']?(apiVersion|kind)["']?[ \t]*:""", re.MULTILINE)


def names_kubernetes(text: str) -> bool:
    """True when ``text`` has both an apiVersion and a kind key somewhere (a file that has not cannot hold an object)."""
    seen: set[str] = set()
    for match in _KUBERNETES_KEY.finditer(text):
        seen.add(match.group(1))
        if len(seen) == 2:
            return True
    return False


def action_at(text: str, line: Optional[int]) -> bool:
    """True when line ``line`` of ``text`` holds a `{{ ... }}` action (where YAML stopped on an unrendered template)."""
    if not line:
        return False
    row = text.split("\n", line)[line - 1] if text.count("\n") >= line - 1 else ""
    opening = row.find("{{")  # str.find, not a regex: a long line of '{{' must not backtrack
    return opening >= 0 and row.find("}}", opening + 2) >= 0


# An action opening a structure, or an `end`; a comment (`{{/* ... */}}`) matches neither.
_STRUCTURE = re.compile(r"\{\{-?\s*(?:(if|range|with|define|block)\b|(end)\b)")


class Nesting:
    """The depth of open structures at each position of one template text."""

    def __init__(self, text: str):
        self._ends: list[int] = []
        self._depths: list[int] = []
        depth = 0
        for match in _STRUCTURE.finditer(text):
            depth = depth + 1 if match.group(1) else max(0, depth - 1)
            self._ends.append(match.end())
            self._depths.append(depth)

    def depth_at(self, position: int) -> int:
        """How many structures are open at ``position`` (0: the text there is emitted unconditionally)."""
        i = bisect.bisect_right(self._ends, position)
        return self._depths[i - 1] if i else 0
