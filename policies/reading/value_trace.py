"""Which values path produced each stretch of a rendered Helm template (provenance), recorded only when asked.

A chart's findings are found on the rendered objects, but a reviewer fixes them in values.yaml (`resources: {}`,
`image.tag: latest`, `livenessProbe.timeoutSeconds: 1`). policies/value_paths.py re-renders a template whose finding
it may move, with a Trace on the Renderer (policies/reading/gotemplate.py): every mapping and list of ``.Values`` is
known by identity, so a field action (``{{ .Values.a.b }}``, ``{{ toYaml .Values.x | nindent 8 }}``, ``default X
.Values.y``, ``$.Values.z``), a dot-relative action inside a ``with`` or ``range`` over a values path, and the with or
range itself (a block, empty when its value is) each leave (start, end, values path) over the outermost output.
Actions inside an ``include`` are not traced (their text reaches the output as the include's value, not a values
path's). Nothing here runs in an ordinary check: the Renderer's ``trace`` is None there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

# What a values path is: the keys (str) and list positions (int) under .Values, e.g. ("image", "tag").
ValuesPath = tuple

_ROOT = "@"  # the path of the template's root context: ("@", "Values", ...) is a values path


@dataclass(frozen=True)
class Span:
    """``start``..``end`` of the rendered text came from ``path``; ``block``: an if, with or range on it (its body,
    empty when the value is), which only says where a field the value would have written stands."""

    start: int
    end: int
    path: ValuesPath
    block: bool


@dataclass
class Trace:
    """What a traced render records (policies/reading/gotemplate.py Renderer.trace)."""

    paths: dict[int, ValuesPath] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    top: Optional[list] = None  # the outermost render's output list
    length: int = 0  # characters of the outermost output so far

    @classmethod
    def over(cls, context: dict) -> Trace:
        """A trace whose known values are those of ``context["Values"]`` (and the context itself, for ``$``)."""
        trace = cls()
        trace.paths[id(context)] = (_ROOT,)
        stack: list[tuple[Any, ValuesPath]] = [(context.get("Values"), ())]
        while stack and len(trace.paths) < 20000:
            value, path = stack.pop()
            if isinstance(value, dict):
                trace.paths[id(value)] = path
                stack.extend((v, (*path, k)) for k, v in value.items() if isinstance(k, str))
            elif isinstance(value, list):
                trace.paths[id(value)] = path
                stack.extend((v, (*path, i)) for i, v in enumerate(value))
        return trace

    def path_of(self, value: Any) -> Optional[ValuesPath]:
        """The values path of ``value`` (a mapping or list of .Values, or a range's current item), None if none."""
        return _values(self.paths.get(id(value)))

    def record(self, start: int, pipe: Any, dot: Any, scopes: list[dict], block: bool = False) -> None:
        """Records the output from ``start`` to now as coming from every values path the pipeline names."""
        for path in set(self._pipe_paths(pipe, dot, scopes, 0)):
            if path:
                self.spans.append(Span(start, self.length, path, block))

    def _pipe_paths(self, pipe: Any, dot: Any, scopes: list[dict], depth: int) -> list[ValuesPath]:
        found: list[ValuesPath] = []
        if depth > 8:
            return found
        for command in pipe.commands:
            if (keyed := self._index_path(command, dot, scopes)) is not None:
                found.append(keyed)
                continue
            for operand in command:
                if operand.kind == "pipe":
                    found += self._pipe_paths(operand.value, dot, scopes, depth + 1)
                elif operand.kind in ("field", "var"):
                    if (path := self._operand_path(operand, dot, scopes)) is not None:
                        found.append(path)
        return found

    def _index_path(self, command: list, dot: Any, scopes: list[dict]) -> Optional[ValuesPath]:
        """``index .Values.resources.limits "nvidia.com/gpu"``: the values path of the map or list and the literal keys
        after it (a key with dots or a slash is written so), None for any other command."""
        if len(command) < 3 or command[0].kind != "ident" or command[0].value != "index":
            return None
        if command[1].kind not in ("field", "var") or any(
            o.kind != "lit" or not isinstance(o.value, (str, int)) or isinstance(o.value, bool) for o in command[2:]
        ):
            return None
        base = self._operand_path(command[1], dot, scopes)
        return None if base is None else (*base, *(o.value for o in command[2:]))

    def _operand_path(self, operand: Any, dot: Any, scopes: list[dict]) -> Optional[ValuesPath]:
        if operand.kind == "field":
            base, rest = dot, [k for k in str(operand.value).split(".") if k]
        else:
            name, *rest = str(operand.value).split(".")
            holder = next((scope for scope in reversed(scopes) if name in scope), None)
            if holder is None:
                return None
            base = holder[name]
        known = self.paths.get(id(base))
        return None if known is None else _values((*known, *rest))


def _values(path: Optional[ValuesPath]) -> Optional[ValuesPath]:
    """A recorded path as a values path: a root-context path only under .Values, ``()`` being all of .Values."""
    if path is None:
        return None
    if path[:1] == (_ROOT,):
        return tuple(path[2:]) if path[1:2] == ("Values",) else None
    return tuple(path)
