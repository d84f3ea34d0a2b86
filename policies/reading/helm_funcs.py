"""The functions Helm templates call, as far as a best-effort render can know their result.

Go's builtins (go1.22 src/text/template/funcs.go: and, or, not, eq, ne, lt, le, gt, ge, len, index, print, printf,
println), Helm's own (helm v3.16.0 pkg/engine/funcs.go: toYaml, toJson, fromYaml, include, tpl, required, lookup) and
the sprig v3 functions charts use most (strings, lists, dicts, defaults, arithmetic). A function whose result depends
on the cluster, the clock or chance (lookup with a cluster, now, randAlphaNum, uuidv4, genCA...) is absent, so it
evaluates to UNKNOWN; ``fail`` and an unmet ``required`` stop the render (CannotRender), as they stop helm.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from typing import Any

import yaml

from policies.reading.gotemplate import UNKNOWN, CannotRender, Func, go_text, include_mark, tpl_mark, truth


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
    return yaml.safe_dump(value, sort_keys=True, default_flow_style=False, allow_unicode=True, width=1 << 20).rstrip("\n")


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
    pad = " " * int(_number(width))
    return pad + go_text(text).replace("\n", "\n" + pad)


def _nindent(width: Any, text: Any) -> Any:
    value = _indent(width, text)
    return UNKNOWN if value is UNKNOWN else "\n" + value


_VERB = re.compile(r"%([-+# 0]*\d*(?:\.\d+)?)([vsdqfgtx%])")


def _printf(fmt: Any, *args: Any) -> Any:
    if not _known(fmt, *args):
        return UNKNOWN
    values = iter(args)

    def one(m: re.Match) -> str:
        flags, verb = m.group(1), m.group(2)
        if verb == "%":
            return "%"
        value = next(values, None)
        if verb == "q":
            return '"' + go_text(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        if verb in "df" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return ("%" + flags + verb) % value
        return go_text(value)

    return _VERB.sub(one, str(fmt))


def _quote(*values: Any) -> Any:
    if not _known(*values):
        return UNKNOWN
    return " ".join('"' + go_text(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values if v is not None)


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


def _int(value: Any) -> Any:
    return UNKNOWN if value is UNKNOWN else int(_number(value))


def _float(value: Any) -> Any:
    return UNKNOWN if value is UNKNOWN else float(_number(value))


def _arith(op: str) -> Func:
    def run(*values: Any) -> Any:
        if not _known(*values):
            return UNKNOWN
        nums = [_number(v) for v in values]
        if op == "add":
            return sum(nums)
        if op == "mul":
            out = 1
            for n in nums:
                out *= n
            return out
        a, b = int(nums[0]), int(nums[1])
        if op == "sub":
            return a - b
        if b == 0:
            raise CannotRender(f"{op} by zero")
        return int(a / b) if op == "div" else a - b * int(a / b)

    return run


def _compare(op: str) -> Func:
    def run(a: Any, *others: Any) -> Any:
        if not _known(a, *others):
            return UNKNOWN
        if op == "eq":
            return any(_same(a, b) for b in others)
        b = others[0]
        if op == "ne":
            return not _same(a, b)
        try:
            return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op]
        except TypeError:
            return _number(a) < _number(b) if op == "lt" else UNKNOWN

    return run


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
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
    return UNKNOWN if value is UNKNOWN else go_text(value)


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
        "toJson": s(lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))),
        "fromYaml": _from_yaml,
        "indent": _indent,
        "nindent": _nindent,
        "printf": _printf,
        "print": s(lambda *v: "".join(go_text(x) for x in v)),
        "println": s(lambda *v: " ".join(go_text(x) for x in v) + "\n"),
        "quote": _quote,
        "squote": s(lambda *v: " ".join("'" + go_text(x) + "'" for x in v if x is not None)),
        "toString": _to_string,
        "int": _int,
        "int64": _int,
        "float64": _float,
        "atoi": _int,
        "add": _arith("add"),
        "add1": s(lambda v: _number(v) + 1),
        "sub": _arith("sub"),
        "mul": _arith("mul"),
        "div": _arith("div"),
        "mod": _arith("mod"),
        "max": s(lambda *v: max(_number(x) for x in v)),
        "min": s(lambda *v: min(_number(x) for x in v)),
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
        "deepCopy": s(copy.deepcopy),
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
        "concat": _list_func(lambda *v: [x for part in v for x in part]),
        "has": _list_func(lambda x, v: x in (v or [])),
        "until": _list_func(lambda n: list(range(int(n)))),
        "uniq": _list_func(lambda v: list(dict.fromkeys(v))),
        "compact": _list_func(lambda v: [x for x in v if truth(x)]),
        "sortAlpha": _list_func(lambda v: sorted(go_text(x) for x in v)),
        "join": s(lambda sep, v: str(sep).join(go_text(x) for x in (v or []))),
        "splitList": s(lambda sep, v: str(v).split(str(sep))),
        "split": s(lambda sep, v: {f"_{i}": p for i, p in enumerate(str(v).split(str(sep)))}),
        "trunc": s(lambda n, v: str(v)[: int(n)] if int(n) >= 0 else str(v)[int(n) :]),
        "trim": s(lambda v: str(v).strip()),
        "trimAll": s(lambda c, v: str(v).strip(str(c))),
        "trimSuffix": s(lambda x, v: str(v).removesuffix(str(x))),
        "trimPrefix": s(lambda x, v: str(v).removeprefix(str(x))),
        "replace": s(lambda old, new, v: str(v).replace(str(old), str(new))),
        "lower": s(lambda v: go_text(v).lower()),
        "upper": s(lambda v: go_text(v).upper()),
        "title": s(lambda v: go_text(v).title()),
        "contains": s(lambda x, v: str(x) in str(v)),
        "hasPrefix": s(lambda x, v: str(v).startswith(str(x))),
        "hasSuffix": s(lambda x, v: str(v).endswith(str(x))),
        "repeat": s(lambda n, v: str(v) * min(int(n), 10_000)),
        "nospace": s(lambda v: re.sub(r"\s", "", str(v))),
        "cat": s(lambda *v: " ".join(go_text(x) for x in v if x is not None)),
        "regexMatch": s(lambda p, v: re.search(str(p), str(v)) is not None),
        "regexReplaceAll": s(lambda p, v, r: re.sub(str(p), re.sub(r"\$\{?(\d+)\}?", r"\\\1", str(r)), str(v))),
        "b64enc": _b64,
        "sha256sum": _sha256,
        "semverCompare": _semver_compare,
        "kindIs": s(lambda k, v: _kind(v) == k),
        "kindOf": s(lambda v: _kind(v)),
        "typeIs": s(lambda t, v: _GO_TYPES.get(str(t), _no_type)(v)),
        "lookup": lambda *a: {},  # helm template renders lookup as an empty map (pkg/engine/lookup_func.go)
    }


def _no_type(value: Any) -> bool:
    return False


# Go type names typeIs compares (values from YAML arrive as these: helm v3.16.0 pkg/chartutil/values.go).
_GO_TYPES: dict[str, Func] = {
    "string": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "int64": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float64": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
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
