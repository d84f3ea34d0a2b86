"""A best-effort Go text/template engine for Helm chart templates, in pure Python (no helm binary).

Why hand-written: no maintained pure-Python engine for Go templates exists on PyPI (the one binding, go-template
0.0.3 of 2019, ships a prebuilt text/template .so without Helm's functions, so `default`, `toYaml`, `nindent` fail).
The semantics followed are Go's text/template (go1.22 src/text/template/doc.go: actions, `{{-`/`-}}` trim markers,
pipelines, variables, if/else if/with/range/define/template/block, break and continue in a range, and and or
evaluating their arguments only until the result is known, truthiness of empty values; the lexer and the pipeline
parser are policies/reading/gotemplate_syntax.py) with Helm's
additions in policies/reading/helm_funcs.py (helm v3.16.0 pkg/engine/funcs.go: include, tpl, toYaml, required).

What cannot be known from the chart alone (a function the table lacks, `.Files`, `tpl`, lookups) evaluates to
UNKNOWN, which prints as the PLACEHOLDER token; a condition on an unknown value, a parse error, `fail`,
`required` without its value, or a bound reached raises CannotRender, and the caller reports the file as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

from policies.reading.go_format import go_float
from policies.reading.gotemplate_syntax import Operand, Pipe, lex, parse_pipe, tokens, unquote
from policies.reading.render_bounds import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_MADE,
    MAX_OUTPUT,
    MAX_STEPS,
    CannotRender,
    bounded,
    within,
)

# What an unknown value prints as: a plain YAML scalar that no Kubernetes field accepts as meaningful;
# policies/reading/helm_chart.py turns every string holding it into framework.UNKNOWN after parsing.
PLACEHOLDER = "x-llm-serving-helm-unknown"
# Bounds: a template is input anyone can write, so rendering is bounded like reading (policies/reading/render_bounds.py).


class _Unknown:
    """A value the chart does not determine (prints as PLACEHOLDER)."""

    _instance: Optional[_Unknown] = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<helm unknown>"


UNKNOWN = _Unknown()


# ---- the tree ---------------------------------------------------------------------------------------------------


@dataclass
class Node:
    """A node of the template: text, an action, or a control structure with its branches."""

    kind: str  # text | action | if | with | range | template | break | continue
    text: str = ""
    pipe: Optional[Pipe] = None
    name: str = ""
    # if / with: [(pipe, body)...]; range: one branch
    branches: list[tuple[Pipe, list[Node]]] = field(default_factory=list)
    otherwise: list[Node] = field(default_factory=list)


_KEYWORD = re.compile(r"^\s*(if|else|end|range|with|define|template|block|break|continue)\b(.*)$", re.DOTALL)


def parse(text: str, defines: dict[str, list[Node]]) -> list[Node]:
    """The template's tree; every ``define``/``block`` body is added to ``defines``."""
    items = lex(text)
    nodes, pos, stop = _parse_list(items, 0, defines)
    if stop is not None:
        raise CannotRender(f"an unexpected {{{{{stop[0]}}}}}")
    return nodes


def _parse_list(items: list, pos: int, defines: dict, loop: bool = False) -> tuple[list[Node], int, Optional[tuple[str, str]]]:
    """Nodes up to an ``else``/``end`` (returned as the stop keyword and its rest) or the end of items; ``loop``: inside
    a range's body, where ``{{break}}`` and ``{{continue}}`` may stand (go1.22 src/text/template/parse/parse.go
    breakControl, continueControl: "{{break}} outside {{range}}" otherwise, and nothing may follow the keyword; the
    range's else list and a define's body are outside it)."""
    out: list[Node] = []
    while pos < len(items):
        kind, body = items[pos]
        pos += 1
        if kind == "text":
            out.append(Node("text", text=body))
            continue
        stripped = body.strip()
        if stripped.startswith("/*"):
            if not stripped.endswith("*/"):
                raise CannotRender("an unclosed comment")
            continue
        m = _KEYWORD.match(body)
        if m is None:
            out.append(Node("action", pipe=parse_pipe(body)))
            continue
        word, rest = m.group(1), m.group(2)
        if word in ("else", "end"):
            return out, pos, (word, rest)
        if word in ("break", "continue"):
            if not loop or rest.strip():
                raise CannotRender(f"{{{{{word}}}}} outside {{{{range}}}}" if not loop else f"{{{{{word}}}}} with an argument")
            out.append(Node(word))
            continue
        node, pos = _parse_structure(word, rest, items, pos, defines, loop)
        if node is not None:
            out.append(node)
    return out, pos, None


def _parse_structure(word: str, rest: str, items: list, pos: int, defines: dict, loop: bool) -> tuple[Optional[Node], int]:
    if word in ("template", "define", "block"):
        toks = tokens(rest)
        if not toks or toks[0][0] not in ("str", "raw"):
            raise CannotRender(f"{{{{{word}}}}} without a quoted name")
        name = unquote(toks[0][1]) if toks[0][0] == "str" else toks[0][1][1:-1]
        arg_text = rest[rest.index(toks[0][1]) + len(toks[0][1]) :]
        if word == "template":
            return Node("template", name=name, pipe=parse_pipe(arg_text) if arg_text.strip() else None), pos
        body, pos, stop = _parse_list(items, pos, defines)
        if stop is None or stop[0] != "end":
            raise CannotRender(f"{{{{{word} {name!r}}}}} without its {{{{end}}}}")
        defines[name] = body
        if word == "block":
            return Node("template", name=name, pipe=parse_pipe(arg_text) if arg_text.strip() else None), pos
        return None, pos
    node = Node(word)
    pipe = parse_pipe(rest)
    while True:
        body, pos, stop = _parse_list(items, pos, defines, loop or word == "range")
        if stop is None:
            raise CannotRender(f"{{{{{word}}}}} without its {{{{end}}}}")
        node.branches.append((pipe, body))
        if stop[0] == "end":
            return node, pos
        chained = re.match(r"^\s*(if|with)\b(.*)$", stop[1], re.DOTALL)
        if chained and word != "range":
            pipe = parse_pipe(chained.group(2))
            continue
        if stop[1].strip():
            raise CannotRender(f"{{{{else {stop[1].strip()[:40]}}}}} is not rendered")
        node.otherwise, pos, stop = _parse_list(items, pos, defines, loop)
        if stop is None or stop[0] != "end":
            raise CannotRender(f"{{{{{word}}}}} without its {{{{end}}}}")
        return node, pos


# ---- evaluation -------------------------------------------------------------------------------------------------


def truth(value: Any) -> bool:
    """Go template truthiness; CannotRender for an unknown value (the branch taken would be a guess)."""
    if value is UNKNOWN:
        raise CannotRender("a condition on a value the chart does not determine")
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, (str, list, dict, tuple)):
        return len(value) > 0
    return True


def go_text(value: Any) -> str:
    """A value as Go's fmt prints it in a template (nil as "", Helm's replacement of "<no value>")."""
    if value is UNKNOWN:
        return PLACEHOLDER
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_text(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))) + "]"
    if callable(value):
        return PLACEHOLDER
    return str(value)


Func = Callable[..., Any]


class Renderer:
    """Renders parsed templates with a function table (helm_funcs) and the chart's defines."""

    def __init__(self, funcs: dict[str, Func], defines: dict[str, list[Node]]):
        self.funcs = funcs
        self.defines = defines
        self.steps = 0
        self.size = 0
        self.depth = 0
        self.made = 0
        # The names an include or template call asked for that no define of the chart holds (each rendered UNKNOWN):
        # a chart copied in part, its _helpers.tpl left out (policies/manifests.py names them in the file's S27 line).
        self.missing: set[str] = set()
        # Provenance (policies/reading/value_trace.py), only when asked: the values path of every mapping and list
        # of .Values by id, and (start, end, path) of each stretch of the outermost output an action, a with or a
        # range over a values path produced. None: nothing is recorded and rendering costs what it did.
        self.trace: Optional[Any] = None

    def render(self, nodes: list[Node], dot: Any) -> str:
        """The text of ``nodes`` with ``dot`` (and ``$``) the context."""
        out: list[str] = []
        if self.trace is not None and self.trace.top is None:
            self.trace.top = out  # offsets are counted in the outermost output only
        self._nodes(nodes, dot, [{"$": dot}], out)
        return "".join(out)

    def include(self, name: str, dot: Any) -> Any:
        """A define's text with ``dot`` as its context, UNKNOWN when the chart does not define it."""
        body = self.defines.get(name)
        if body is None:
            if len(self.missing) < 64:
                self.missing.add(name)
            return UNKNOWN
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CannotRender(f"templates include one another deeper than {MAX_DEPTH}")
        try:
            return self.render(body, dot)
        finally:
            self.depth -= 1

    def tpl(self, text: Any, dot: Any) -> Any:
        """Helm's ``tpl``: ``text`` rendered as a template with ``dot`` as its context (helm v3.16.0
        pkg/engine/engine.go tpl: the release's defines are in scope)."""
        if text is UNKNOWN or dot is UNKNOWN:
            return UNKNOWN
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CannotRender(f"templates render one another deeper than {MAX_DEPTH}")
        try:
            return self.render(parse(go_text(text), self.defines), dot)
        finally:
            self.depth -= 1

    def _emit(self, out: list[str], text: str) -> None:
        self.size += len(text)
        if self.size > MAX_OUTPUT:
            raise CannotRender(f"renders to more than {MAX_OUTPUT >> 20} MiB")
        out.append(text)
        if self.trace is not None and out is self.trace.top:
            self.trace.length += len(text)

    def _nodes(self, nodes: list[Node], dot: Any, scopes: list[dict], out: list[str]) -> None:
        for node in nodes:
            self._step()
            if node.kind == "text":
                self._emit(out, node.text)
            elif node.kind == "action":
                assert node.pipe is not None
                value = self.pipe(node.pipe, dot, scopes)
                if not node.pipe.decl:
                    # An unknown value right after a key's colon (`key:{{- include "x" . | nindent 4 }}`) is spaced
                    # from it, so the key still parses with the placeholder as its value.
                    spaced = value is UNKNOWN and bool(out) and out[-1].endswith(":")
                    if isinstance(value, (list, tuple, dict)):
                        bounded(value, what="a printed list or map")
                    start = self.trace.length if self.trace is not None else 0
                    self._emit(out, (" " if spaced else "") + go_text(value))
                    if self.trace is not None and out is self.trace.top:
                        self.trace.record(start, node.pipe, dot, scopes)
            elif node.kind == "template":
                arg = self.pipe(node.pipe, dot, scopes) if node.pipe else None
                self._emit(out, go_text(self.include(node.name, arg)))
            elif node.kind in ("break", "continue"):
                raise _LoopExit(node.kind)
            else:
                start = self.trace.length if self.trace is not None else 0
                try:
                    self._range(node, dot, scopes, out) if node.kind == "range" else self._branch(node, dot, scopes, out)
                finally:
                    # An if, with or range on a values path: the stretch it produced, empty when its value is empty
                    # (`with .Values.tolerations` over []), where the field that value would write stands.
                    if self.trace is not None and out is self.trace.top:
                        self.trace.record(start, node.branches[0][0], dot, scopes, block=True)

    def _step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise CannotRender(f"takes more than {MAX_STEPS} steps")

    def _branch(self, node: Node, dot: Any, scopes: list[dict], out: list[str]) -> None:
        for pipe, body in node.branches:
            inner = [*scopes, {}]
            value = self.pipe(pipe, dot, inner)
            if truth(value):
                self._nodes(body, value if node.kind == "with" else dot, inner, out)
                return
        self._nodes(node.otherwise, dot, [*scopes, {}], out)

    def _range(self, node: Node, dot: Any, scopes: list[dict], out: list[str]) -> None:
        pipe, body = node.branches[0]
        inner = [*scopes, {}]
        value = self.pipe(Pipe([], False, pipe.commands), dot, inner)
        if value is UNKNOWN:
            raise CannotRender("a range over a value the chart does not determine")
        if isinstance(value, dict):
            pairs = [(k, value[k]) for k in sorted(value, key=str)]
        elif isinstance(value, (list, tuple)):
            pairs = list(enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            if value > MAX_ITEMS:
                raise CannotRender(f"a range over more than {MAX_ITEMS} numbers")
            pairs = [(i, i) for i in range(max(0, value))]
        elif value is None:
            pairs = []
        else:
            raise CannotRender(f"a range over a {type(value).__name__}")
        if not pairs:
            self._nodes(node.otherwise, dot, [*scopes, {}], out)
            return
        trace = self.trace
        base = trace.path_of(value) if trace is not None else None
        for key, item in pairs:
            self._step()  # an empty body still costs its iterations
            if trace is not None and base is not None:  # the item's own path, so `{{ . }}` on a scalar item is traced
                trace.paths[id(item)] = (*base, key)
            scope: dict = {}
            if len(pipe.decl) == 1:
                scope[pipe.decl[0]] = item
            elif len(pipe.decl) == 2:
                scope[pipe.decl[0]], scope[pipe.decl[1]] = key, item
            try:
                self._nodes(body, item, [*scopes, scope], out)
            except _LoopExit as exit_:  # go1.22 src/text/template/exec.go walkRange: continue ends the iteration
                if exit_.word == "break":  # and break the whole range, its else list unrun
                    return

    def pipe(self, pipe: Pipe, dot: Any, scopes: list[dict]) -> Any:
        """A pipeline's value; declares or assigns its variable in ``scopes``."""
        value: Any = None
        for i, command in enumerate(pipe.commands):
            value = self._command(command, dot, scopes, value, piped=i > 0)
        for name in pipe.decl[-1:]:
            if pipe.assign:
                for scope in reversed(scopes):
                    if name in scope:
                        scope[name] = value
                        break
            else:
                scopes[-1][name] = value
        return value

    def _command(self, command: list[Operand], dot: Any, scopes: list[dict], piped_value: Any, piped: bool) -> Any:
        head = command[0]
        if head.kind == "ident" and head.value in ("and", "or"):
            return self._logic(head.value == "or", command[1:], dot, scopes, [piped_value] if piped else [])
        args = [self._operand(o, dot, scopes) for o in command[1:]]
        if piped:
            args.append(piped_value)
        if head.kind == "ident":
            func = self.funcs.get(head.value)
            if func is None:
                return UNKNOWN
            if func is _INCLUDE_MARK:
                if not args or args[0] is UNKNOWN:  # a name the chart does not determine: no define to look up
                    return UNKNOWN
                return self.include(str(args[0]), args[1] if len(args) > 1 else None)
            if func is _TPL_MARK:
                return self.tpl(args[0], args[1] if len(args) > 1 else None) if args else UNKNOWN
            try:
                result = func(*args)
            except CannotRender:
                raise
            except Exception:  # a function given values it cannot take: what it returns is not known here
                return UNKNOWN
            self._made(head.value, result)
            return result
        value = self._operand(head, dot, scopes)
        if callable(value) and not isinstance(value, type):
            try:
                return value(*args)
            except Exception:
                return UNKNOWN
        return value

    def _logic(self, is_or: bool, operands: list[Operand], dot: Any, scopes: list[dict], piped: list[Any]) -> Any:
        """``and``/``or``, which evaluate their arguments left to right only until the result is known (go1.22
        src/text/template/exec.go evalCall "Special case for builtin and/or, which short-circuit"; a piped value comes
        last): ``and .Values.port (ne .Values.port 0)`` never compares an unset port. The last argument is returned
        whatever its truth, so it is not tested (``or .Values.image.tag .Chart.AppVersion`` with an unknown appVersion
        is that unknown value, not a failed render); with none, Go's call fails."""
        if not operands and not piped:
            raise CannotRender(f"wrong number of args for {'or' if is_or else 'and'}: want at least 1 got 0")
        value: Any = None
        last = len(operands) - 1
        for i, operand in enumerate(operands):
            value = self._operand(operand, dot, scopes)
            if (piped or i < last) and truth(value) == is_or:
                return value
        return piped[0] if piped else value

    def _made(self, name: str, result: Any) -> None:
        """Counts what a function made against the bounds (MAX_OUTPUT, MAX_ITEMS, MAX_MADE)."""
        if isinstance(result, str):
            within(len(result), f"the text {name} makes")
        elif isinstance(result, (list, tuple, dict)) and len(result) > MAX_ITEMS:
            raise CannotRender(f"{name} makes more than {MAX_ITEMS} entries")
        self.made += len(result) if isinstance(result, (str, list, tuple, dict)) else 1
        if self.made > MAX_MADE:
            raise CannotRender(f"its functions make more than {MAX_MADE >> 20} MiB of values")

    def _operand(self, operand: Operand, dot: Any, scopes: list[dict]) -> Any:
        if operand.kind == "lit":
            return operand.value
        if operand.kind == "field":
            return _fields(dot, operand.value.strip(".").split(".") if operand.value != "." else [])
        if operand.kind == "var":
            name, *path = operand.value.split(".")
            for scope in reversed(scopes):
                if name in scope:
                    return _fields(scope[name], path)
            raise CannotRender(f"undefined variable {name}")
        if operand.kind == "pipe":
            return _fields(self.pipe(operand.value, dot, [*scopes]), list(operand.chain))
        func = self.funcs.get(operand.value)
        if func is None or func in (_INCLUDE_MARK, _TPL_MARK):
            return UNKNOWN
        try:
            return func()
        except Exception:
            return UNKNOWN


class _LoopExit(Exception):
    """A ``{{break}}`` or ``{{continue}}`` reached: unwinds to the innermost range (the parser allows them only there)."""

    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


def _include_entry(*args: Any) -> Any:
    return UNKNOWN


def _tpl_entry(*args: Any) -> Any:
    return UNKNOWN


# The function table's entries for include and tpl: the Renderer renders them itself (they need its defines).
_INCLUDE_MARK: Func = _include_entry
_TPL_MARK: Func = _tpl_entry


def include_mark() -> Func:
    """The entry the function table gives ``include``: rendered by the Renderer."""
    return _INCLUDE_MARK


def tpl_mark() -> Func:
    """The entry the function table gives ``tpl``: rendered by the Renderer."""
    return _TPL_MARK


def _fields(value: Any, path: list[str]) -> Any:
    for key in path:
        if not key:
            continue
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, HelmObject):
            value = value.fields.get(key)
        else:
            return None
    return value


class HelmObject:
    """A built-in object whose fields may be methods (``.Capabilities.APIVersions.Has``, ``.Files.Get``)."""

    def __init__(self, **fields: Any):
        self.fields = fields
