"""The syntax of a Go text/template action, for policies/reading/gotemplate.py: the lexer that splits a template into
text and actions (trim markers applied, comments closed as Go's lexer requires) and the parser of one action's
pipeline (variables, commands, parenthesised pipes, literals). The tree of control structures and its evaluation stay
in gotemplate.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from policies.reading.render_bounds import CannotRender

_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<raw>`[^`]*`)|(?P<char>'(?:[^'\\]|\\.)+')"""
    r"""|(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<var>\$\w*(?:\.\w+)*)|(?P<field>(?:\.\w+)+|\.)"""
    r"""|(?P<op>:=|=|\||\(|\)|,)|(?P<ident>[A-Za-z_]\w*)""",
    re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


@dataclass
class Pipe:
    """A pipeline: optional variable declaration (``decl`` names, ``assign`` for ``=``) and commands."""

    decl: list[str]
    assign: bool
    commands: list[list[Any]]


@dataclass(frozen=True)
class Operand:
    """One operand of a command: ``kind`` is lit | field | var | ident | pipe; ``chain`` fields after a ``( )``."""

    kind: str
    value: Any
    chain: tuple[str, ...] = ()


def unquote(token: str) -> str:
    """A quoted string token's text, Go's escapes resolved."""
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def tokens(body: str) -> list[tuple[str, str, bool]]:
    """(kind, text, preceded by space) for an action's body; CannotRender on a character no token starts with."""
    out: list[tuple[str, str, bool]] = []
    pos, spaced = 0, True
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None:
            raise CannotRender(f"cannot read the action {{{{{body.strip()[:60]}}}}}")
        kind = m.lastgroup or ""
        if kind == "num" and m.end() < len(body) and (body[m.end()].isalnum() or body[m.end()] in "_."):
            raise CannotRender(f"the number {body[m.start() : m.end() + 8]!r} is not rendered")
        if kind == "space":
            spaced = True
        else:
            out.append((kind, m.group(), spaced))
            spaced = False
        pos = m.end()
    return out


class _PipeParser:
    """Parses one action's tokens into a Pipe."""

    def __init__(self, tokens: list[tuple[str, str, bool]]):
        self.toks = tokens
        self.i = 0

    def peek(self) -> Optional[tuple[str, str, bool]]:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def pipe(self, closing: bool = False) -> Pipe:
        decl: list[str] = []
        assign = False
        # `$x :=`, `$x =`, `$i, $v :=`
        j = self.i
        names = []
        while j < len(self.toks) and self.toks[j][0] == "var":
            names.append(self.toks[j][1])
            if j + 1 < len(self.toks) and self.toks[j + 1][1] == ",":
                j += 2
                continue
            break
        if names and j + 1 < len(self.toks) and self.toks[j + 1][1] in (":=", "="):
            decl, assign = names, self.toks[j + 1][1] == "="
            self.i = j + 2
        commands: list[list[Any]] = [[]]
        while (tok := self.peek()) is not None:
            kind, text, _ = tok
            if text == ")" and closing:
                break
            self.i += 1
            if text == "|":
                commands.append([])
            elif text == "(":
                inner = self.pipe(closing=True)
                if self.peek() is None or self.peek()[1] != ")":  # type: ignore[index]
                    raise CannotRender("a '(' without its ')'")
                self.i += 1
                chain: tuple[str, ...] = ()
                nxt = self.peek()
                if nxt is not None and nxt[0] == "field" and not nxt[2]:
                    chain = tuple(nxt[1].strip(".").split("."))
                    self.i += 1
                commands[-1].append(Operand("pipe", inner, chain))
            else:
                commands[-1].append(_operand(kind, text))
        if any(not c for c in commands):
            raise CannotRender("an empty command in a pipeline")
        return Pipe(decl, assign, commands)


def _operand(kind: str, text: str) -> Operand:
    if kind in ("str", "raw"):
        return Operand("lit", unquote(text) if kind == "str" else text[1:-1])
    if kind == "char":
        return Operand("lit", ord(unquote(text)[:1] or "\0"))
    if kind == "num":  # Go's other forms (0x10, 0o17, 017, 1_000) stop the render rather than a misread
        if re.fullmatch(r"-?0\d+", text):
            raise CannotRender(f"the number {text} (octal in Go) is not rendered")
        return Operand("lit", float(text) if any(c in text for c in ".eE") else int(text))
    if kind == "ident" and text in ("true", "false", "nil"):
        return Operand("lit", {"true": True, "false": False, "nil": None}[text])
    if kind in ("field", "var", "ident"):
        return Operand(kind, text)
    raise CannotRender(f"unexpected {text!r} in an action")


def parse_pipe(body: str) -> Pipe:
    """The pipeline of one action's body."""
    parser = _PipeParser(tokens(body))
    pipe = parser.pipe()
    if parser.peek() is not None:
        raise CannotRender(f"unexpected {parser.peek()[1]!r} in an action")  # type: ignore[index]
    return pipe


def lex(text: str) -> list[tuple[str, str]]:
    """("text", s) and ("action", body) items, trim markers applied. Each delimiter is found by str.find from where
    the last action ended, so the scan is linear: a text of many unclosed ``{{`` stops at the first (a lazy regex
    over the rest from every ``{{`` took minutes on 200 KB)."""
    items: list[tuple[str, str]] = []
    pos = 0
    trim_next = False
    while (start := text.find("{{", pos)) >= 0:
        body, end, trim_right = _action_at(text, start)
        chunk = text[pos:start]
        if trim_next:
            chunk = chunk.lstrip(" \t\r\n")
        trim_left = text.startswith("-", start + 2) and text[start + 3 : start + 4] in (" ", "\t", "\r", "\n")
        if trim_left:
            chunk = chunk.rstrip(" \t\r\n")
        if chunk:
            items.append(("text", chunk))
        items.append(("action", body))
        trim_next, pos = trim_right, end
    rest = text[pos:]
    if trim_next:
        rest = rest.lstrip(" \t\r\n")
    if rest:
        items.append(("text", rest))
    return items


def _action_at(text: str, start: int) -> tuple[str, int, bool]:
    """The body of the action opening at ``start``, the index past its ``}}``, and whether it ends with a trim
    marker. A comment (``{{/* ... */}}``) may hold ``}}`` and must close right after ``*/`` (go1.22
    src/text/template/parse/lex.go lexComment: "comment ends before closing delimiter")."""
    i = start + 2
    if text.startswith("-", i) and text[i + 1 : i + 2] in (" ", "\t", "\r", "\n"):
        i += 2
    if text.startswith("/*", i):
        close = text.find("*/", i + 2)
        if close < 0:
            raise CannotRender("an unclosed comment")
        after = close + 2
        trim = text[after : after + 2] in (" -", "\t-", "\r-", "\n-")
        if not text.startswith("}}", after + (2 if trim else 0)):
            raise CannotRender("a comment ends before its closing '}}'")
        return text[i:after], after + (4 if trim else 2), trim
    close = text.find("}}", i)
    if close < 0:
        raise CannotRender("an unclosed '{{'")
    body = text[i:close]
    trim = len(body) >= 2 and body[-1] == "-" and body[-2] in " \t\r\n"
    return (body[:-2] if trim else body), close + 2, trim
