"""The functions Helm templates call, as far as a best-effort render can know their result.

Go's builtins (go1.22 src/text/template/funcs.go: and, or, not, eq, ne, lt, le, gt, ge, len, index, print, printf,
println), Helm's own (helm v3.16.0 pkg/engine/funcs.go: toYaml, toJson, fromYaml, include, tpl, required, lookup) and
the sprig v3 functions charts use most (strings, lists, dicts, defaults, arithmetic). A function whose result depends
on the cluster, the clock or chance (lookup with a cluster, now, randAlphaNum, uuidv4, genCA...) is absent, so it
evaluates to UNKNOWN; ``fail`` stops the render (CannotRender), as it stops helm; an unmet ``required`` is UNKNOWN
(the value a values file must give, which the run does not hold) in a chart with a values.yaml, and stops the render in
a chart with none (``required_stops``).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from typing import Any

import yaml

from policies.reading.go_format import json_numbers
from policies.reading.gotemplate import UNKNOWN, CannotRender, Func, go_text, include_mark, tpl_mark, truth
from policies.reading.helm_ints import arith, atoi, count, to_int
from policies.reading.helm_regex import regex_match, regex_replace_all
from policies.reading.render_bounds import MAX_ITEMS, MAX_OUTPUT, bounded, within


def _known(*values: Any) -> bool:
    return all(v is not UNKNOWN for v in values)


def _strict(func: Func) -> Func:
    """``func`` returning UNKNOWN when any argument is UNKNOWN."""

    def wrapped(*args: Any) -> Any:
        return func(*args) if _known(*args) else UNKNOWN

    return wrapped


def _empty(value: Any) -> bool:
    if value is UNKNOWN:
        raise CannotRender("a default over a value the chart does not determine")
    return not truth(value)


def _default(fallback: Any, *given: Any) -> Any:
    value = given[0] if given else None
    if value is UNKNOWN:
        return UNKNOWN
    return fallback if _empty(value) else value


def _coalesce(*values: Any) -> Any:
    for value in values:
        if value is UNKNOWN:
            return UNKNOWN
        if truth(value):
            return value
    return None


def _required(message: Any, value: Any = None) -> Any:
    # Unmet, helm stops; here the value is one the chart's values.yaml leaves to a values file or --set, which the run
    # does not hold: unknown, so the rest of the template is still read.
    if value is UNKNOWN or value is None or value == "":
        return UNKNOWN
    return value


def required_stops(message: Any, value: Any = None) -> Any:
    """``required`` for a chart with no values file at all (helm_chart.render): unmet, the render stops as helm's does.
    Every value such a chart reads lives in files the run does not join to it (quickbeard/llm-serving-helm@ece636eb
    charts/vllm: values/<env>/vllm.yaml, passed by helmfile.yaml), so what its defaults leave out (probes, resources)
    would be read as absent, and an absence there is no finding."""
    if value is UNKNOWN:
        return UNKNOWN
    if value is None or value == "":
        raise CannotRender(f"required value missing ({go_text(message)})")
    return value


def _fail(message: Any) -> Any:
    raise CannotRender(f"the template fails: {go_text(message)}")


def _yaml(value: Any) -> str:
    """Helm's toYaml: sigs.k8s.io/yaml (keys sorted), the trailing newline trimmed."""
    if not _known(value) or _has_unknown(value):
        return UNKNOWN  # type: ignore[return-value]
    if value is None:
        return "null"
    bounded(value, what="toYaml's text")
    return yaml.safe_dump(
        json_numbers(value), sort_keys=True, default_flow_style=False, allow_unicode=True, width=1 << 20
    ).rstrip("\n")


def _json(value: Any) -> str:
    bounded(value, what="toJson's text")
    return json.dumps(json_numbers(value), sort_keys=True, separators=(",", ":"))


def _deep_copy(value: Any) -> Any:
    bounded(value, what="deepCopy's copy")
    return copy.deepcopy(value)


def _has_unknown(value: Any, depth: int = 0) -> bool:
    if value is UNKNOWN:
        return True
    if depth > 50:
        return False
    if isinstance(value, dict):
        return any(_has_unknown(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_unknown(v, depth + 1) for v in value)
    return False


def _indent(width: Any, text: Any) -> Any:
    # An unknown block keeps its place: indented, on its own line (nindent), so the YAML around it still parses (the
    # placeholder then stands alone as the value of the key above it, or policies/reading/helm_chart.py repaired
    # drops it from labels and annotations). Its text is all indent's result is ever used for.
    if width is UNKNOWN:
        return UNKNOWN
    n = count(width)
    if n < 0:  # sprig's strings.Repeat(" ", n) panics on a negative count, which fails helm's render
        raise CannotRender(f"indent by a negative width ({n})")
    body = _text(text)
    within(len(body) + n * (body.count("\n") + 1), "indent's text")
    pad = " " * n
    return pad + body.replace("\n", "\n" + pad)


def _text(value: Any) -> str:
    """``value`` as go_text prints it, CannotRender beyond MAX_OUTPUT (checked before printing)."""
    if isinstance(value, (list, tuple, dict)):
        bounded(value)
    return go_text(value)


def _texts(values: Any) -> list[str]:
    bounded(*values)
    return [go_text(v) for v in values]


def _nindent(width: Any, text: Any) -> Any:
    value = _indent(width, text)
    return UNKNOWN if value is UNKNOWN else "\n" + value


# A verb of Go's fmt (go1.22 src/fmt/doc.go): flags, width, precision, the verb letter. The verbs rendered are those
# whose Go output Python's % operator reproduces for the operand's type; any other verb, operand or flag, a missing or
# an extra operand (Go prints "%!d(string=x)", "%!s(MISSING)", "%!(EXTRA ...)") stops the render instead of a guess.
_VERB = re.compile(r"%([-+# 0]*)(\d*)(?:\.(\d*))?([A-Za-z%])")
_INT_VERBS = {"d": "d", "x": "x", "X": "X", "o": "o"}


def _printf(fmt: Any, *args: Any) -> Any:
    if not _known(fmt, *args):
        return UNKNOWN
    bounded(fmt, *args, what="printf's text")
    values = list(args)
    used = [0]

    def one(m: re.Match) -> str:
        flags, width, precision, verb = m.group(1), m.group(2), m.group(3), m.group(4)
        if verb == "%" and not (flags or width or precision is not None):
            return "%"
        if max(int(width or 0), int(precision or 0)) > MAX_OUTPUT:
            raise CannotRender(f"printf width {m.group()[:40]} would exceed {MAX_OUTPUT >> 20} MiB")
        if used[0] >= len(values):
            raise CannotRender(f"printf {fmt!r} has fewer operands than verbs")
        value = values[used[0]]
        used[0] += 1
        spec = "%" + flags + width + ("." + precision if precision is not None else "")
        return _verb(spec, flags, verb, value)

    out = _VERB.sub(one, str(fmt))
    if used[0] != len(values):
        raise CannotRender(f"printf {fmt!r} has more operands than verbs")
    return out


def _verb(spec: str, flags: str, verb: str, value: Any) -> str:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    # %s of a number is "%!s(float64=1)" in Go (and values' numbers are float64 in helm): only strings, %v anything.
    if (verb == "s" and isinstance(value, str) or verb == "v" and value is not None) and not (set(flags) - {"-"}):
        return (spec + "s") % _text(value)
    if verb == "q" and isinstance(value, str) and spec == "%" and all(" " <= c < "\x7f" for c in value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if verb in _INT_VERBS and isinstance(value, int) and not isinstance(value, bool) and not (verb == "o" and "#" in flags):
        return (spec + _INT_VERBS[verb]) % value
    if verb in "xX" and isinstance(value, str) and spec == "%":
        text = value.encode().hex()
        return text.upper() if verb == "X" else text
    if verb in "fFeE" and number:
        return (spec + verb) % value
    if verb == "t" and isinstance(value, bool) and spec == "%":
        return "true" if value else "false"
    raise CannotRender(f"printf {spec}{verb} of {go_text(value)[:40]!r} is not rendered")


def _quote(*values: Any) -> Any:
    if not _known(*values):
        return UNKNOWN
    texts = _texts([v for v in values if v is not None])
    return " ".join('"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"' for t in texts)


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            return 0
    return 0


def _float(value: Any) -> Any:
    return UNKNOWN if value is UNKNOWN else float(_number(value))


def _compare(op: str) -> Func:
    def run(a: Any, *others: Any) -> Any:
        if not _known(a, *others):
            return UNKNOWN
        if op == "eq":
            return any(_same(a, b) for b in others)
        b = others[0]
        if op == "ne":
            return not _same(a, b)
        kind = _basic(a)
        if kind != _basic(b) or kind not in ("int", "float", "string"):
            raise CannotRender(f"{op} of {_basic(a)} and {_basic(b)}: Go's {op} fails (incompatible types for comparison)")
        return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op]

    return run


def _basic(value: Any) -> str:
    """The basic kind go1.22 src/text/template/funcs.go compares by (a values number is a float64, a literal an int)."""
    if value is None:
        return "nil"
    return {bool: "bool", int: "int", float: "float", str: "string"}.get(type(value), "other")


def _same(a: Any, b: Any) -> bool:
    """Go's eq of two values: different basic kinds (float64 against int, a number against a string) or maps and
    slices fail the render ("incompatible types for comparison"); nil equals only nil."""
    ka, kb = _basic(a), _basic(b)
    if "nil" in (ka, kb):
        return ka == kb
    if ka != kb or ka == "other":
        raise CannotRender(f"eq of {ka} and {kb}: Go's eq fails (incompatible types for comparison)")
    return bool(a == b)


def _and(*values: Any) -> Any:
    for value in values:
        if not truth(value):
            return value
    return values[-1] if values else None


def _or(*values: Any) -> Any:
    for value in values:
        if truth(value):
            return value
    return values[-1] if values else None


def _index(value: Any, *keys: Any) -> Any:
    for key in keys:
        if not _known(value, key):
            return UNKNOWN
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, (list, tuple)) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _dict(*pairs: Any) -> Any:
    if not _known(*pairs[::2]):
        return UNKNOWN
    return {go_text(pairs[i]): pairs[i + 1] if i + 1 < len(pairs) else "" for i in range(0, len(pairs), 2)}


def _merge(dest: Any, *sources: Any) -> Any:
    if not _known(dest, *sources) or not isinstance(dest, dict):
        return UNKNOWN
    for source in sources:
        if isinstance(source, dict):
            for key, value in source.items():
                if isinstance(dest.get(key), dict) and isinstance(value, dict):
                    _merge(dest[key], value)
                elif key not in dest:
                    dest[key] = value
    return dest


def _semver_compare(constraint: Any, version: Any) -> Any:
    if not _known(constraint, version):
        return UNKNOWN
    m = re.fullmatch(r"\s*(>=|<=|>|<|=|!=|\^|~)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-0)?\s*", str(constraint))
    v = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", str(version))
    if m is None or v is None:
        return UNKNOWN
    want = tuple(int(x or 0) for x in m.group(2, 3, 4))
    have = tuple(int(x or 0) for x in v.groups())
    op = m.group(1) or "="
    table = {">=": have >= want, "<=": have <= want, ">": have > want, "<": have < want, "=": have == want}
    return table.get(op, UNKNOWN)


def _to_string(value: Any) -> Any:
    # sprig strval: fmt.Sprintf("%v", v) for what is not a string, so nil is "<nil>".
    return UNKNOWN if value is UNKNOWN else "<nil>" if value is None else _text(value)


def _print(*values: Any, line: bool = False) -> str:
    """fmt.Sprint (spaces only between operands neither of which is a string) or fmt.Sprintln (spaces between
    all, a newline after); nil prints as <nil>."""
    texts = _texts(["<nil>" if v is None else v for v in values])
    if line:
        return " ".join(texts) + "\n"
    out = texts[:1]
    for before, value, text in zip(values, values[1:], texts[1:]):
        out.append((" " if not isinstance(before, str) and not isinstance(value, str) else "") + text)
    return "".join(out)


def _title(value: Any) -> str:
    """strings.Title (sprig title): a letter after a separator upper-cased, the rest left as is; ASCII letters,
    digits and '_' are no separators, other ASCII is (go1.22 src/strings/strings.go isSeparator)."""
    out, before = [], " "
    for c in _text(value):
        sep = not (before.isalnum() or before == "_") if before.isascii() else before.isspace()
        out.append(c.upper() if sep else c)
        before = c
    return "".join(out)


def _from_yaml(text: Any) -> Any:
    if text is UNKNOWN:
        return UNKNOWN
    try:
        value = yaml.safe_load(str(text))
    except yaml.YAMLError:
        return {}
    return value if isinstance(value, dict) else {}


def _b64(text: Any) -> Any:
    return UNKNOWN if text is UNKNOWN else base64.b64encode(go_text(text).encode()).decode()


def _sha256(text: Any) -> Any:
    return UNKNOWN if text is UNKNOWN else hashlib.sha256(go_text(text).encode()).hexdigest()


def _ternary(yes: Any, no: Any, condition: Any) -> Any:
    return yes if truth(condition) else no


def _list_func(func: Func) -> Func:
    def run(*args: Any) -> Any:
        if not _known(*args):
            return UNKNOWN
        return func(*args)

    return run


def functions() -> dict[str, Func]:
    """The function table a render uses (a fresh dict; include/template are the renderer's own)."""
    s = _strict
    table: dict[str, Func] = {
        "include": include_mark(),
        "tpl": tpl_mark(),
        "default": _default,
        "empty": lambda v: _empty(v),
        "coalesce": _coalesce,
        "required": _required,
        "fail": _fail,
        "ternary": _ternary,
        "toYaml": _yaml,
        "toJson": s(_json),
        "fromYaml": _from_yaml,
        "indent": _indent,
        "nindent": _nindent,
        "printf": _printf,
        "print": s(_print),
        "println": s(lambda *v: _print(*v, line=True)),
        "quote": _quote,
        "squote": s(lambda *v: " ".join("'" + x + "'" for x in _texts([y for y in v if y is not None]))),
        "toString": _to_string,
        "int": to_int,
        "int64": to_int,
        "float64": _float,
        "atoi": atoi,
        "add": arith("add"),
        "add1": arith("add1"),
        "sub": arith("sub"),
        "mul": arith("mul"),
        "div": arith("div"),
        "mod": arith("mod"),
        "max": arith("max"),
        "min": arith("min"),
        "eq": _compare("eq"),
        "ne": _compare("ne"),
        "lt": _compare("lt"),
        "le": _compare("le"),
        "gt": _compare("gt"),
        "ge": _compare("ge"),
        "and": _and,
        "or": _or,
        "not": lambda v: not truth(v),
        "len": s(lambda v: len(v) if v is not None else 0),
        "index": _index,
        "dict": _dict,
        "list": lambda *v: list(v),
        "tuple": lambda *v: list(v),
        "get": s(lambda d, k: d.get(k, "") if isinstance(d, dict) else ""),
        "hasKey": s(lambda d, k: isinstance(d, dict) and k in d),
        "set": s(lambda d, k, v: (d.__setitem__(k, v), d)[1]),
        "unset": s(lambda d, k: (d.pop(k, None), d)[1]),
        "merge": _merge,
        "mergeOverwrite": s(lambda d, *o: [d.update(x) for x in o if isinstance(x, dict)] and d),
        "deepCopy": s(_deep_copy),
        "keys": s(lambda *d: sorted(k for x in d for k in x)),
        "pick": s(lambda d, *k: {x: d[x] for x in k if x in d}),
        "omit": s(lambda d, *k: {x: v for x, v in d.items() if x not in k}),
    }
    return {**table, **_lists_and_strings()}


def _lists_and_strings() -> dict[str, Func]:
    s = _strict
    return {
        "first": _list_func(lambda v: v[0] if v else None),
        "last": _list_func(lambda v: v[-1] if v else None),
        "rest": _list_func(lambda v: list(v[1:])),
        "append": _list_func(lambda v, x: [*v, x]),
        "concat": _list_func(_concat),
        "has": _list_func(lambda x, v: x in (v or [])),
        "until": _list_func(_until),
        "uniq": _list_func(lambda v: list(dict.fromkeys(v))),
        "compact": _list_func(lambda v: [x for x in v if truth(x)]),
        "sortAlpha": _list_func(lambda v: sorted(go_text(x) for x in v)),
        "join": s(_join),
        "splitList": s(lambda sep, v: _split(sep, v)),
        "split": s(lambda sep, v: {f"_{i}": p for i, p in enumerate(_split(sep, v))}),
        "trunc": s(lambda n, v: _text(v)[: count(n)] if count(n) >= 0 else _text(v)[count(n) :]),
        "trim": s(lambda v: str(v).strip()),
        "trimAll": s(lambda c, v: str(v).strip(str(c))),
        "trimSuffix": s(lambda x, v: str(v).removesuffix(str(x))),
        "trimPrefix": s(lambda x, v: str(v).removeprefix(str(x))),
        "replace": s(_replace),
        "lower": s(lambda v: go_text(v).lower()),
        "upper": s(lambda v: go_text(v).upper()),
        "title": s(_title),
        "contains": s(lambda x, v: str(x) in str(v)),
        "hasPrefix": s(lambda x, v: str(v).startswith(str(x))),
        "hasSuffix": s(lambda x, v: str(v).endswith(str(x))),
        "repeat": s(_repeat),
        "nospace": s(lambda v: re.sub(r"\s", "", str(v))),
        "cat": s(lambda *v: " ".join(_texts([x for x in v if x is not None]))),
        "regexMatch": s(regex_match),
        "regexReplaceAll": s(regex_replace_all),
        "b64enc": _b64,
        "sha256sum": _sha256,
        "semverCompare": _semver_compare,
        "kindIs": s(lambda k, v: _kind(v) == k),
        "kindOf": s(lambda v: _kind(v)),
        "typeIs": s(lambda t, v: _GO_TYPES.get(str(t), _no_type)(v)),
        "lookup": lambda *a: {},  # helm template renders lookup as an empty map (pkg/engine/lookup_func.go)
    }


def _until(total: Any) -> list[int]:
    # sprig v3 list.go until: untilStep(0, count, 1), or step -1 for a negative count.
    n = count(total)
    if abs(n) > MAX_ITEMS:
        raise CannotRender(f"until {n}: more than {MAX_ITEMS} numbers")
    return list(range(0, n, 1 if n >= 0 else -1))


def _join(sep: Any, items: Any) -> str:
    parts, mark = _texts(list(items or [])), _text(sep)
    within(sum(len(p) for p in parts) + len(mark) * len(parts), "join's text")
    return mark.join(parts)


def _concat(*lists: Any) -> list:
    if sum(len(part) for part in lists if isinstance(part, (list, tuple))) > MAX_ITEMS:
        raise CannotRender(f"concat makes more than {MAX_ITEMS} entries")
    return [x for part in lists for x in part]


def _split(sep: Any, value: Any) -> list[str]:
    text, mark = _text(value), _text(sep)
    if mark and text.count(mark) >= MAX_ITEMS:
        raise CannotRender(f"a split into more than {MAX_ITEMS} parts")
    return text.split(mark)


def _replace(old: Any, new: Any, value: Any) -> str:
    text, was, now = _text(value), _text(old), _text(new)
    within(len(text) + text.count(was) * (len(now) - len(was)), "replace's text")
    return text.replace(was, now)


def _repeat(times: Any, value: Any) -> str:
    n, text = count(times), _text(value)
    if n < 0:  # strings.Repeat panics on a negative count, which fails helm's render
        raise CannotRender(f"repeat {n}")
    within(n * len(text), "repeat's text")
    return text * n


def _no_type(value: Any) -> bool:
    return False


# Go type names typeIs compares (values from YAML arrive as these: helm v3.16.0 pkg/chartutil/values.go).
_GO_TYPES: dict[str, Func] = {
    "string": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: type(v) is int,
    "int64": lambda v: type(v) is int,
    "float64": lambda v: type(v) is float,
    "map[string]interface {}": lambda v: isinstance(v, dict),
    "[]interface {}": lambda v: isinstance(v, list),
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    return "invalid" if value is None else "ptr"
