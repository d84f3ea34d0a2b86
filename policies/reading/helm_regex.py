"""Sprig's regexMatch and regexReplaceAll, rendered only where Python's ``re`` gives Go's answer quickly.

Helm runs a template's pattern with Go's regexp (RE2: "guaranteed to run in time linear in the size of the input",
go1.22 src/regexp/regexp.go package doc); Python's ``re`` backtracks, so ``^(a+)+$`` on forty a's and a b never
ends, and its syntax differs (backreferences, lookarounds, ``{,n}``, ``[[:alpha:]]``, ``\\Z``, ``$`` before a final
newline). A pattern is rendered only when it keeps to the syntax both read alike, repeats no group that itself
repeats or alternates, and its worst backtracking on the subject stays under MAX_COST steps (estimated as
(len(subject) + 1) ** (repeats + 1) times the alternatives); anything else stops the render (CannotRender), which
reports the file as an unrendered template, as before. Sprig v3 regex.go: ``regexMatch`` is ``regexp.MatchString``
(an invalid pattern is false), ``regexReplaceAll`` is ``ReplaceAllString`` whose ``$1``/``${name}`` expand as
``Regexp.Expand`` does (src/regexp/regexp.go expand/extract).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from policies.reading.gotemplate import go_text
from policies.reading.render_bounds import CannotRender, within

MAX_PATTERN = 256
MAX_SUBJECT = 4096
MAX_COST = 1_000_000
MAX_COUNT = 1000  # RE2's largest repeat count ({1001} is a parse error in Go)

# Escapes both engines read alike on ASCII text (with re.ASCII): classes, anchors, control characters, punctuation.
_ESCAPES = set("dDwWsSbBAntrfv")
_CLASS_ESCAPES = set("dDwWsSntrfv")
_QUANT = re.compile(r"\*|\+|\?|\{(\d+)(,(\d*))?\}")
_FLAGS = re.compile(r"\(\?[ims]+\)|\(\?[ims]*:|\(\?P<[A-Za-z_]\w*>|\(\?:")


@dataclass
class _Group:
    repeats: bool = False  # holds a repeated atom
    alternates: bool = False  # holds a `|`
    branches: int = 1


def _class_end(pattern: str, i: int) -> int:
    """The index just past the character class opening at ``i``; CannotRender on syntax the engines read apart."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        c = pattern[j]
        if c == "[" or pattern.startswith(("&&", "--", "||", "~~"), j):
            raise CannotRender(f"the pattern {pattern!r}: a set operation or POSIX class is read differently by Go")
        if c == "\\":
            if j + 1 >= len(pattern) or (pattern[j + 1].isalnum() and pattern[j + 1] not in _CLASS_ESCAPES):
                raise CannotRender(f"the pattern {pattern!r}: an escape Go and Python read differently")
            j += 1
        j += 1
    if j >= len(pattern):
        raise CannotRender(f"the pattern {pattern!r}: an unclosed '['")
    return j + 1


def _cost_factors(pattern: str) -> tuple[int, int]:
    """(repeated atoms, product of alternatives) of a pattern checked to be safe; CannotRender otherwise."""
    stack = [_Group()]
    repeats, branches = 0, 1
    last_group: _Group | None = None  # the group that just closed (a quantifier after it repeats it)
    can_repeat = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        q = _QUANT.match(pattern, i) if c in "*+?{" else None
        if q is not None and not (c == "{" and q.group(2) == "," and q.group(3) == ""):
            if not can_repeat:
                raise CannotRender(f"the pattern {pattern!r}: a repeat of nothing or of a repeat")
            low, high = q.group(1), q.group(3)
            if any(int(x) > MAX_COUNT for x in (low, high) if x):
                raise CannotRender(f"the pattern {pattern!r}: a repeat count over {MAX_COUNT}")
            many = c in "*+" or (c == "{" and (q.group(2) is not None or int(low) > 1))
            if many:
                if last_group is not None and (last_group.repeats or last_group.alternates):
                    raise CannotRender(f"the pattern {pattern!r}: a repeated group that repeats or alternates inside")
                repeats += 1
                stack[-1].repeats = True
            i = q.end()
            if i < len(pattern) and pattern[i] == "?":  # lazy
                i += 1
            last_group, can_repeat = None, False
            continue
        last_group, can_repeat = None, True
        if c == "{" and pattern.startswith("{,", i):
            raise CannotRender(f"the pattern {pattern!r}: '{{,n}}' is a repeat in Python, literal text in Go")
        if c == "\\":
            if i + 1 >= len(pattern) or (pattern[i + 1].isalnum() and pattern[i + 1] not in _ESCAPES):
                raise CannotRender(f"the pattern {pattern!r}: an escape Go and Python read differently")
            i += 2
            continue
        if c == "[":
            i = _class_end(pattern, i)
            continue
        if c == "(":
            m = _FLAGS.match(pattern, i)
            if pattern.startswith("(?", i) and m is None:
                raise CannotRender(f"the pattern {pattern!r}: a group form Go and Python read differently")
            if m is not None and m.group().endswith(")"):  # a flag setting, not a group
                i, can_repeat = m.end(), False
                continue
            stack.append(_Group())
            i = m.end() if m is not None else i + 1
            can_repeat = False
            continue
        if c == ")":
            if len(stack) == 1:
                raise CannotRender(f"the pattern {pattern!r}: an unopened ')'")
            last_group = stack.pop()
            stack[-1].repeats |= last_group.repeats
            stack[-1].alternates |= last_group.alternates
            branches *= last_group.branches
        elif c == "|":
            stack[-1].alternates = True
            stack[-1].branches += 1
            can_repeat = False
        elif c in "^$":
            can_repeat = False
        i += 1
    if len(stack) != 1:
        raise CannotRender(f"the pattern {pattern!r}: an unclosed '('")
    return repeats, branches * stack[0].branches


def _compiled(pattern: Any, subject: Any) -> tuple[re.Pattern, str]:
    text, where = go_text(pattern), go_text(subject)
    if len(text) > MAX_PATTERN or len(where) > MAX_SUBJECT:
        raise CannotRender(f"a regex over {MAX_PATTERN} or a subject over {MAX_SUBJECT} characters is not rendered")
    if not (text + where).isascii() or any(c < " " and c not in "\t\n\r" for c in text + where):
        raise CannotRender("a regex on non-ASCII or control characters is not rendered")
    if "\n" in where and "$" in text:  # Python's $ matches before a final newline, Go's only at the end
        raise CannotRender(f"the pattern {text!r} on a multi-line subject is not rendered")
    repeats, branches = _cost_factors(text)
    if (len(where) + 1) ** (repeats + 1) * branches > MAX_COST:
        raise CannotRender(f"the pattern {text!r} may take too long on a {len(where)}-character subject")
    try:
        return re.compile(text, re.ASCII), where
    except re.error as exc:
        raise CannotRender(f"the pattern {text!r} is not rendered ({exc})") from None


def regex_match(pattern: Any, subject: Any) -> bool:
    """Sprig regexMatch: whether ``pattern`` matches somewhere in ``subject``."""
    compiled, where = _compiled(pattern, subject)
    return compiled.search(where) is not None


_REFERENCE = re.compile(r"\$(?:\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))")


def regex_replace_all(pattern: Any, subject: Any, replacement: Any) -> str:
    """Sprig regexReplaceAll: every match of ``pattern`` in ``subject`` replaced, ``$1``/``${name}``/``$$`` expanded
    as Go's Regexp.Expand does (an unknown or unmatched group is empty; ``$`` before anything else stays)."""
    compiled, where = _compiled(pattern, subject)
    template = go_text(replacement)

    def expand(m: re.Match) -> str:
        def one(ref: re.Match) -> str:
            if ref.group() == "$$":
                return "$"
            name = ref.group(1) or ref.group(2)
            try:
                key: Any = int(name) if name.isdigit() else name
                return m.group(key) or ""
            except (IndexError, KeyError, ValueError):
                return ""

        return _REFERENCE.sub(one, template)

    out: list[str] = []
    pos = 0
    for m in compiled.finditer(where):
        if m.start() == m.end():  # Go skips an empty match that abuts the last one, Python does not
            raise CannotRender(f"the pattern {compiled.pattern!r} matches empty text: its replacement is not rendered")
        out.append(where[pos : m.start()])
        out.append(expand(m))
        pos = m.end()
        within(sum(len(x) for x in out), "regexReplaceAll's text")
    out.append(where[pos:])
    return "".join(out)
