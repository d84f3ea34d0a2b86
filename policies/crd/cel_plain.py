"""The CRDs' plain CEL rules, evaluated in Python where the outcome is certain; the CEL library decides the rest.

Loading the CEL library costs ~27 ms of a ~230 ms ``python -m policies check`` (benchmarks/policies_check.py): its
first environment imports protobuf's Python modules (descriptor_pool, message_factory, text_format), whatever the
rules. Most rules of the pinned CRDs are plain (``has``, field selection, ``==``, ``in``, ``size``, the ``all`` /
``exists`` / ``exists_one`` / ``filter`` macros, a few string functions), and most values are plain too, so they are
evaluated here, and the library is loaded only for a rule or a value this module does not decide.

It decides only what it is sure the library decides the same way, and says "undecided" (``None``) otherwise:
- a rule is parsed only from the grammar below (decimal integers, strings without escapes, raw strings, lists, the
  operators ``! && || ?: == != < <= > >= in +``, selection, indexing and calls); anything else (``duration``, maps,
  floats, escapes, arithmetic beyond ``+``) is left to the library;
- any CEL error (a missing key, an index out of range, no matching overload, an overflow) is left to the library,
  which words it; ``&&``, ``||``, ``all`` and ``exists`` absorb errors as CEL does (``false && error`` is false: CEL
  spec, "Logical Operators"), which holds also for what this module leaves undecided, as either side decides alone;
- equality is CEL's heterogeneous equality (``1 == 1.0`` is true, ``'a' == 1`` false), on strings, booleans and
  numbers only; ``matches`` only for a pattern made of characters RE2 and Python read alike, on printable ASCII;
  ``int()`` only of an integer or of a string of decimal digits.
tests/policies/test_crd_cel_plain.py holds this to the library itself: every create-time rule of cel_rules.json that
parses here compiles there, and on every value the tests and corpora give each rule (and mutations of them), what this
module decides is what the library returns.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, Optional

__all__ = ["Undecided", "decide", "find", "program"]


class Undecided(Exception):
    """A case this module leaves to the library (it may be an error whose wording only the library knows)."""


class CelError(Undecided):
    """An error whose text this module knows to be the library's (``message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_NO_SELECT = "INVALID_ARGUMENT: Applying SELECT to non-message type"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]*")


def _no_key(key: str) -> CelError:
    if not _PLAIN_KEY.fullmatch(key):
        raise Undecided  # how the library quotes other keys is not pinned here
    return CelError(f'NOT_FOUND: Key not found in map : "{key}"')


def _first(first: Undecided, second: Undecided) -> Undecided:
    """Of two errors, the one CEL reports where the first wins (&&, ||, all, exists): known only if both are."""
    return first if isinstance(first, CelError) and isinstance(second, CelError) else Undecided()


def _last(errors: list[Undecided]) -> Undecided:
    """Of a fold's errors where the last wins (exists_one, filter: cel-spec's macro expansions): known only if all are."""
    return errors[-1] if all(isinstance(e, CelError) for e in errors) else Undecided()


class _Unsupported(Exception):
    """A rule outside this module's grammar."""


_TOKEN = re.compile(
    r"""\s*(?:
    (?P<raw>[rR](?:\"\"\"(?:(?!\"\"\").)*\"\"\"|'''(?:(?!''').)*'''|"[^"\n]*"|'[^'\n]*'))
  | (?P<str>"[^"\\\n]*"|'[^'\\\n]*')
  | (?P<int>[0-9]+(?![0-9A-Za-z_.]))
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||[<>!?:.,()\[\]+])
  )""",
    re.X | re.S,
)
# Words CEL reserves or gives meaning to: a rule that uses one as a name is left to the library.
_RESERVED = frozenset(
    "as break const continue else for function if import let loop package namespace return var void while "
    "true false null in".split()
)
_INT64 = (-(2**63), 2**63 - 1)

Node = Callable[[dict[str, Any]], Any]


def _tokens(rule: str) -> list[tuple[str, str]]:
    out, pos, end = [], 0, len(rule.rstrip())
    match = _TOKEN.match
    while pos < end:
        found = match(rule, pos)
        if found is None or found.end() == pos:
            raise _Unsupported(rule[pos:])
        kind = found.lastgroup or ""
        out.append((kind, found.group(kind)))
        pos = found.end()
    return out


class _Parser:
    """CEL's grammar (cel-spec doc/langdef.md "Syntax"), the subset above, as closures over the variables' values."""

    def __init__(self, rule: str) -> None:
        self.tokens, self.at = _tokens(rule), 0

    def peek(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def take(self, want: Optional[str] = None) -> tuple[str, str]:
        if self.at >= len(self.tokens) or (want is not None and self.tokens[self.at][1] != want):
            raise _Unsupported(want or "end")
        self.at += 1
        return self.tokens[self.at - 1]

    def whole(self) -> Node:
        node = self.expr()
        if self.at != len(self.tokens):
            raise _Unsupported(self.peek())
        return node

    def expr(self) -> Node:
        cond = self.binary()
        if self.peek() != "?":
            return cond
        self.take("?")
        then = self.binary()
        self.take(":")
        other = self.expr()
        return lambda env: then(env) if _bool(cond(env)) else other(env)

    def binary(self, lowest: int = 1) -> Node:
        """Binary operators by precedence climbing, each level left-associative (CEL's ``||`` < ``&&`` < relations <
        ``+``)."""
        left = self.unary()
        while self.at < len(self.tokens):
            kind, op = self.tokens[self.at]
            level = _PRECEDENCE.get(op, 0) if kind in ("op", "id") else 0
            if level < lowest:
                break
            self.at += 1
            left = _BINARY[op](left, self.binary(level + 1))
        return left

    def unary(self) -> Node:
        if self.peek() == "!":
            self.take()
            inner = self.unary()
            return lambda env: not _bool(inner(env))
        return self.member()

    def member(self) -> Node:
        node = self.primary()
        while self.peek() in (".", "["):
            if self.take()[1] == "[":
                index = self.expr()
                self.take("]")
                node = _index(node, index)
                continue
            name = self._name()
            if self.peek() == "(":
                node = self._method(node, name)
            else:
                node = _Select(node, name)
        return node

    def _name(self) -> str:
        kind, name = self.take()
        if kind != "id" or name in _RESERVED:
            raise _Unsupported(name)
        return name

    def _args(self) -> list[Node]:
        self.take("(")
        args: list[Node] = []
        while self.peek() != ")":
            args.append(self.expr())
            if self.peek() != ")":
                self.take(",")
        self.take(")")
        return args

    def _method(self, target: Node, name: str) -> Node:
        if name in _MACROS:
            self.take("(")
            var = self._name()
            self.take(",")
            body = self.expr()
            self.take(")")
            return _MACROS[name](target, var, body)
        if name == "matches":
            return _matches(target, self._literal_pattern())
        args = self._args()
        if (name, len(args)) not in _METHODS:
            raise _Unsupported(name)
        method = _METHODS[name, len(args)]
        return lambda env: method(target(env), *(a(env) for a in args))

    def _literal_pattern(self) -> str:
        # matches() only with one literal pattern that RE2 and Python read alike.
        self.take("(")
        kind, text = self.take()
        self.take(")")
        if kind not in ("str", "raw") or not _PLAIN_PATTERN.fullmatch(_string(kind, text)):
            raise _Unsupported(text)
        return _string(kind, text)

    def primary(self) -> Node:
        kind, text = self.take()
        if kind in ("str", "raw"):
            value: Any = _string(kind, text)
            return lambda env: value
        if kind == "int":
            number = int(text)
            if number > _INT64[1]:
                raise _Unsupported(text)
            return lambda env: number
        if text == "(":
            node = self.expr()
            self.take(")")
            return node
        if text == "[":
            items: list[Node] = []
            while self.peek() != "]":
                items.append(self.expr())
                if self.peek() != "]":
                    self.take(",")
            self.take("]")
            return lambda env: [item(env) for item in items]
        if kind == "id" and text in ("true", "false"):
            flag = text == "true"
            return lambda env: flag
        if kind != "id" or text in _RESERVED:
            raise _Unsupported(text)
        if self.peek() == "(":
            return self._call(text)
        return lambda env: env[text] if text in env else _undecided()

    def _call(self, name: str) -> Node:
        if name == "has":
            self.take("(")
            target = self.member()
            self.take(")")
            return _has(target)
        args = self._args()
        if (name, len(args)) not in _FUNCTIONS:
            raise _Unsupported(name)
        function = _FUNCTIONS[name, len(args)]
        return lambda env: function(*(a(env) for a in args))


def _string(kind: str, text: str) -> str:
    if kind == "raw":
        text = text[1:]
    quote = 3 if text[:3] in ('"""', "'''") else 1
    return text[quote:-quote]


def _undecided() -> Any:
    raise Undecided


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise Undecided
    return value


def _kind(value: Any) -> str:
    if type(value) is bool:
        return "bool"
    if type(value) in (int, float):
        if type(value) is float and (value != value or abs(value) > 2**53):
            raise Undecided  # NaN and doubles past exact integers: the library's comparison rules decide
        return "number"
    if type(value) is str:
        return "string"
    raise Undecided  # lists, maps: left to the library


def _same_kind(a: Any, b: Any) -> bool:
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind == "number" and type(a) is not type(b) and abs(a if type(a) is int else b) > 2**53:
        raise Undecided  # an integer past what a double holds exactly, against a double
    return True


def _equal(a: Any, b: Any) -> bool:
    # CEL's heterogeneous equality: values of different types are unequal; an int equals the double of its value.
    return _same_kind(a, b) and bool(a == b)


def _less(a: Any, b: Any) -> int:
    if not _same_kind(a, b):
        raise Undecided  # no overload
    return (a > b) - (a < b)


def _contains(a: Any, b: Any) -> bool:
    if type(b) is list:
        return any(_equal(a, item) for item in b)
    if isinstance(b, Mapping) and type(a) is str:
        return a in b
    raise Undecided


def _logic(absorbing: bool) -> Callable[[Node, Node], Node]:
    """CEL's commutative ``||`` (``absorbing`` true) and ``&&`` (false): either side alone decides; else the first
    error."""

    def build(left: Node, right: Node) -> Node:
        def run(env: dict[str, Any]) -> bool:
            try:
                if _bool(left(env)) is absorbing:
                    return absorbing
            except Undecided as first:
                try:
                    if _bool(right(env)) is absorbing:
                        return absorbing
                except Undecided as second:
                    raise _first(first, second) from None
                raise
            return _bool(right(env))

        return run

    return build


_or, _and = _logic(True), _logic(False)


def _plus(a: Any, b: Any) -> Any:
    if type(a) is type(b) is int:
        total = a + b
        if not _INT64[0] <= total <= _INT64[1]:
            raise Undecided  # overflow: an error
        return total
    if type(a) is type(b) and type(a) in (str, list):
        return a + b
    raise Undecided


def _relation(test: Callable[[Any, Any], bool]) -> Callable[[Node, Node], Node]:
    return lambda left, right: lambda env: test(left(env), right(env))


_PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "in": 3, "+": 4}
_BINARY: dict[str, Callable[[Node, Node], Node]] = {
    "||": _or,
    "&&": _and,
    "==": _relation(_equal),
    "!=": _relation(lambda a, b: not _equal(a, b)),
    "<": _relation(lambda a, b: _less(a, b) < 0),
    "<=": _relation(lambda a, b: _less(a, b) <= 0),
    ">": _relation(lambda a, b: _less(a, b) > 0),
    ">=": _relation(lambda a, b: _less(a, b) >= 0),
    "in": _relation(_contains),
    "+": _relation(_plus),
}


class _Select:
    """``target.name``: the key of a map (a missing key, or a selection on anything else, is an error)."""

    def __init__(self, target: Node, name: str) -> None:
        self.target, self.name = target, name

    def __call__(self, env: dict[str, Any]) -> Any:
        value = self.target(env)
        if not isinstance(value, Mapping):
            raise CelError(_NO_SELECT)
        if self.name not in value:
            raise _no_key(self.name)
        return value[self.name]


def _has(select: Node) -> Node:
    # CEL's has() macro takes a selection and tests the key on the selected-from map.
    if not isinstance(select, _Select):
        raise _Unsupported("has")
    target, name = select.target, select.name

    def run(env: dict[str, Any]) -> bool:
        value = target(env)
        if not isinstance(value, Mapping):
            raise CelError(_NO_SELECT)
        return name in value

    return run


def _index(target: Node, index: Node) -> Node:
    def run(env: dict[str, Any]) -> Any:
        value, key = target(env), index(env)
        if type(value) is list and type(key) is int:
            if 0 <= key < len(value):
                return value[key]
            raise CelError(f"UNKNOWN: Index error: index={key} size={len(value)}")
        if isinstance(value, Mapping) and type(key) is str:
            if key in value:
                return value[key]
            raise _no_key(key)
        raise Undecided

    return run


def _items(value: Any) -> list[Any]:
    if type(value) is list:
        return value
    if isinstance(value, Mapping):
        return list(value)
    raise Undecided


def _quantifier(absorbing: bool) -> Callable[[Node, str, Node], Node]:
    """``all`` (``absorbing`` false) and ``exists`` (true): folds of ``&&`` / ``||`` over the items, which stop at the
    first item that decides; else the first error."""

    def build(target: Node, var: str, body: Node) -> Node:
        def run(env: dict[str, Any]) -> bool:
            errors: list[Undecided] = []
            for item in _items(target(env)):
                try:
                    if _bool(body({**env, var: item})) is absorbing:
                        return absorbing
                except Undecided as error:
                    errors.append(error)
            if errors:
                raise functools.reduce(_first, errors)
            return not absorbing

        return run

    return build


_all, _exists = _quantifier(False), _quantifier(True)


def _fold(target: Node, var: str, body: Node, env: dict[str, Any]) -> list[Any]:
    """The items the body holds true of; an error in any is the fold's (the last one: each step's condition)."""
    kept, errors = [], []
    for item in _items(target(env)):
        try:
            if _bool(body({**env, var: item})):
                kept.append(item)
        except Undecided as error:
            errors.append(error)
    if errors:
        raise _last(errors)
    return kept


def _exists_one(target: Node, var: str, body: Node) -> Node:
    return lambda env: len(_fold(target, var, body, env)) == 1


def _filter(target: Node, var: str, body: Node) -> Node:
    return lambda env: _fold(target, var, body, env)


_MACROS = {"all": _all, "exists": _exists, "exists_one": _exists_one, "filter": _filter}


def _size(value: Any) -> int:
    if type(value) in (str, list) or isinstance(value, Mapping):
        return len(value)
    raise Undecided


def _strings(test: Callable[[str, str], Any]) -> Callable[[Any, Any], Any]:
    def run(a: Any, b: Any) -> Any:
        if type(a) is not str or type(b) is not str:
            raise Undecided
        return test(a, b)

    return run


def find(text: str, pattern: str) -> str:
    """Kubernetes' ``find`` (k8s.io/apiserver pkg/cel/library/regex.go): the first match of the pattern, "" when none.
    policies.crd.cel gives the library this same function."""
    match = re.search(pattern, text)
    return match.group(0) if match else ""


def _find(text: str, pattern: str) -> str:
    try:
        return find(text, pattern)
    except re.error:
        raise Undecided from None


def _split(text: str, separator: str) -> list[str]:
    if not separator:
        raise Undecided
    return text.split(separator)


def _int(value: Any) -> int:
    if type(value) is int:
        return value
    if type(value) is str and re.fullmatch(r"-?[0-9]{1,18}", value):
        return int(value)
    raise Undecided


_METHODS: dict[tuple[str, int], Callable[..., Any]] = {
    ("size", 0): _size,
    ("startsWith", 1): _strings(str.startswith),
    ("endsWith", 1): _strings(str.endswith),
    ("contains", 1): _strings(lambda a, b: b in a),
    ("find", 1): _strings(_find),
    ("split", 1): _strings(_split),
}
_FUNCTIONS: dict[tuple[str, int], Callable[..., Any]] = {("size", 1): _size, ("int", 1): _int}

# A pattern of literals, escaped punctuation, classes of literals and ranges, groups, alternation, anchors and
# counted repetition: RE2 (https://github.com/google/re2/wiki/Syntax) and Python's re match these alike on printable
# ASCII without a newline (where `$` differs) and without the classes (\d \w \s \b) whose sets differ.
_PLAIN_PATTERN = re.compile(
    r"""(?!.*(?:&&|--|~~|\|\|))  # doubled in a class: Python warns of set operations to come
    (?:[A-Za-z0-9 !"#%&',/:;<=>@_`~-]|\\[^A-Za-z0-9]|\^|\$|\.|[*+?](?!\+)|\{[0-9]+(?:,[0-9]*)?\}(?!\+)|\((?:\?:)?(?!\?)|\)|\|
    |\[\^?(?:[A-Za-z0-9 !"#$%&'()*+,./:;<=>?@_`{|}~-]|\\[^A-Za-z0-9])+\])*""",
    re.X,
)


def _matches(target: Node, pattern: str) -> Node:
    compiled = re.compile(pattern)

    def run(env: dict[str, Any]) -> bool:
        text = target(env)
        if type(text) is not str or not text.isascii() or not text.isprintable():
            raise Undecided
        return compiled.search(text) is not None

    return run


@functools.cache
def program(rule: str) -> Optional[Node]:
    """The rule as a function of its variables (``{"self": value}``), or None when it is outside the grammar."""
    try:
        return _Parser(rule).whole()
    except (_Unsupported, IndexError, ValueError, re.error):
        return None


def decide(rule: str, value: Any) -> bool | str | None:
    """What the rule gives for ``self`` = ``value`` (a value as policies.crd.cel hands it to CEL): a bool, the library's
    text of the error it ends in (a str), or None when this module leaves it to the library."""
    run = program(rule)
    if run is None:
        return None
    try:
        result = run({"self": value})
    except CelError as error:
        return error.message
    except (Undecided, RecursionError):
        return None
    return result if type(result) is bool else None
