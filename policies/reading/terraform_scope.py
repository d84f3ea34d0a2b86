"""What a Terraform expression is where the module writes it literally, for policies/reading/terraform.py.

Known: a variable's ``default`` and a ``locals`` value that are literals (a string without interpolation, a number, a
bool), over every .tf file of the module's folder (Terraform reads a module as all of its folder's .tf files:
``variables.tf`` beside ``main.tf``); a template's ``vars`` (``templatefile(path, {...})``, ``data "template_file"``)
inside that template; and a conditional ``c ? a : b`` whose two results are the same literal. Everything else (a
conditional whose results differ, a function call, a resource's attribute) stays unknown: a fill-in, never a guess.
Over a default (review56c): the folder's ``terraform.tfvars``/``*.auto.tfvars`` (Terraform loads them itself), and
the run's calls of the module (``module "x" { source = "../modules/vllm" ... }``, known when every call gives the same
literal); a variable another ``.tfvars`` of the folder sets is unknown (given with -var-file or not), and a
``sensitive`` variable's default is no secret's value. ``-var`` or ``TF_VAR_`` may still set a variable: findings on
Terraform objects are advice.
"""

from __future__ import annotations

import functools
import json
import os
import re
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple, Optional

from components.loading import MANIFESTS, LoadError, read_bounded

# The largest .tf file parsed (python-hcl2's lark parser is slow on large inputs: ~17 s on 670 KB, review55e).
MAX_PARSED = 256 * 1024
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_STRING = re.compile(r'^"([^"\\$%]*)"$')
_TEMPLATE_FILE = re.compile(r"^data\.template_file\.([\w-]+)(?:\[[^\]]*\])?\.rendered$")
_EMPTY: Mapping[str, Any] = MappingProxyType({})
_MAX_NESTED = 8  # conditionals in conditionals resolved


class Scope(NamedTuple):
    """The module's folder, the literal values its expressions may name, and its ``data "template_file"`` bodies."""

    folder: str
    names: Mapping[str, Any] = _EMPTY  # "var.NAME", "local.NAME", or a template's own var names
    templates: Mapping[str, dict] = _EMPTY  # template_file name -> its body (template, vars)

    def inside(self, variables: Any) -> Scope:
        """The scope of a template rendered with ``variables`` (its vars object): only those names, resolved here."""
        names = {}
        for key, value in (variables if isinstance(variables, dict) else {}).items():
            known = resolve(value[2:-1], self.names) if _whole(value) else value if literal(value) else None
            if isinstance(key, str) and known is not None:
                names[key] = known
        # No template_file inside a template: a template naming its own render would never end.
        return Scope(self.folder, MappingProxyType(names))


def _whole(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("${") and value.endswith("}") and value.count("${") == 1


def literal(value: Any) -> bool:
    """True for a value Terraform reads as itself: a number, a bool, a string without interpolation or directive."""
    if isinstance(value, str):
        return "${" not in value and "%{" not in value
    return isinstance(value, (int, float, bool))


def as_text(value: Any) -> str:
    """A literal as Terraform converts it to a string (true/false, 8000, 0.9)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _split(expression: str) -> Optional[tuple[str, str, str]]:
    """(condition, then, else) of a conditional at the top level of ``expression``, or None."""
    depth, quoted, question = 0, False, -1
    for i, char in enumerate(expression):
        if char == '"' and (i == 0 or expression[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and char == "?" and question < 0:
            question = i
        elif depth == 0 and char == ":" and question >= 0:
            return expression[:question], expression[question + 1 : i], expression[i + 1 :]
    return None


def resolve(expression: str, names: Mapping[str, Any], depth: int = 0) -> Any:
    """The literal an expression stands for, or None when the module does not say it literally (or nests
    conditionals deeper than _MAX_NESTED: input anyone can write is read within bounds)."""
    text = expression.strip()
    if text in names:
        return names[text]
    if (string := _STRING.match(text)) is not None:
        return string.group(1)
    if _NUMBER.match(text):
        return float(text) if "." in text else int(text)
    if text in ("true", "false"):
        return text == "true"
    parts = _split(text) if depth < _MAX_NESTED else None
    if parts is None:
        return None
    then, other = resolve(parts[1], names, depth + 1), resolve(parts[2], names, depth + 1)
    # Unknown unless both results are the same literal: which one the plan takes is not read here.
    return then if then is not None and type(then) is type(other) and then == other else None


def creates_none(body: Mapping, names: Mapping[str, Any]) -> bool:
    """True for a resource block that makes no instance (Terraform's language/meta-arguments/count and for_each):
    ``count = 0``, a conditional whose condition is literally ``true``/``false`` (or a local that is) choosing 0, or
    ``for_each`` an empty map or list. Only what the module fixes: a variable's default may be overridden (-var,
    TF_VAR_, a .tfvars), so a count that names one is read as a resource that exists."""
    local = {k: v for k, v in names.items() if k.startswith("local.")}
    count = body.get("count")
    if isinstance(count, str) and _whole(count):
        count = _count(count[2:-1], local)
    if isinstance(count, (int, float)) and not isinstance(count, bool) and count == 0:
        return True
    each = body.get("for_each")
    return isinstance(each, (dict, list)) and not [k for k in each if not str(k).startswith("__")]


def _count(expression: str, local: Mapping[str, Any]) -> Any:
    parts = _split(expression.strip())
    if parts is None:
        return resolve(expression, local)
    condition = resolve(parts[0], local)
    if not isinstance(condition, bool):
        return None
    return resolve(parts[1] if condition else parts[2], local)


def template_file(reference: str, scope: Scope) -> Optional[dict]:
    """The ``data "template_file"`` body an expression such as ``data.template_file.values[0].rendered`` names."""
    match = _TEMPLATE_FILE.match(reference.strip())
    return scope.templates.get(match.group(1)) if match is not None else None


_UNSET = ("unset",)  # a module call that does not set a variable: the variable's default
_LOCAL_SOURCE = re.compile(r'^\s*source\s*=\s*"\.\.?/', re.MULTILINE)  # only files calling a local module are parsed
_META = ("source", "version", "providers", "count", "for_each", "depends_on")


def module_calls(files: list[str], parse: Callable[[str], dict]) -> dict[str, tuple]:
    """The inputs the run's module calls give each local module (``module "x" { source = "../modules/vllm" ... }``:
    Terraform's language/modules/syntax, an argument sets the module's variable of that name): its folder ->
    ((variable, (the literal of each call, None for an expression, _UNSET where a call gives none)), ...)."""
    calls: dict[str, list[dict]] = {}
    for file in files:
        try:
            text = read_bounded(file, MANIFESTS)
            tree = parse(text) if _LOCAL_SOURCE.search(text) and len(text) <= MAX_PARSED else {}
        except Exception:
            continue
        for group in tree.get("module") or []:
            for body in group.values() if isinstance(group, dict) else ():
                source = body.get("source") if isinstance(body, dict) else None
                if isinstance(source, str) and source.startswith(("./", "../")):
                    folder = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(file)), source))
                    args = {k: v if literal(v) else None for k, v in body.items() if k not in _META and k[:2] != "__"}
                    calls.setdefault(folder, []).append(args)
    return {
        folder: tuple((name, tuple(c.get(name, _UNSET) for c in found)) for name in sorted({n for c in found for n in c}))
        for folder, found in calls.items()
    }


def folder_scope(folder: str, parse: Callable[[str], dict], calls: Optional[Mapping[str, tuple]] = None) -> Scope:
    """The scope of the module in ``folder``: its .tf files' literal variable defaults and locals (the .tfvars beside
    them and the run's calls of the module over the defaults: ``calls`` of module_calls), and template_files (kept
    for the run, by the folder's .tf files as they stand: name, size, modification time)."""
    try:
        names = sorted(f for f in os.listdir(folder) if f.endswith((".tf", ".tfvars", ".tfvars.json")))
        stats = tuple((f, s.st_size, s.st_mtime_ns) for f in names for s in [os.stat(os.path.join(folder, f))])
    except OSError:
        stats = ()
    called = (calls or _EMPTY).get(os.path.abspath(folder))
    return _folder_scope(folder, stats, parse, called or (), called is not None)


@functools.lru_cache(maxsize=16)
def _folder_scope(folder: str, stats: tuple, parse: Callable[[str], dict], inputs: tuple = (), called: bool = False) -> Scope:
    names: dict[str, Any] = {}
    templates: dict[str, dict] = {}
    files = [f for f, _, _ in stats if f.endswith(".tf")]
    for name in files:
        try:
            text = read_bounded(os.path.join(folder, name), MANIFESTS)
        except (LoadError, OSError, UnicodeDecodeError):
            continue
        if len(text) > MAX_PARSED or not any(word in text for word in ("variable", "locals", "template_file")):
            continue
        try:
            tree = parse(text)
        except Exception:
            continue
        for group in tree.get("variable") or []:
            for key, body in group.items() if isinstance(group, dict) else ():
                # A sensitive variable (a token) is given at plan time: its default is no secret's value.
                if isinstance(body, dict) and literal(body.get("default")) and body.get("sensitive") is not True:
                    names[f"var.{key}"] = body["default"]
        for group in tree.get("locals") or []:
            for key, value in group.items() if isinstance(group, dict) else ():
                if not key.startswith("__") and literal(value):
                    names[f"local.{key}"] = value
        for group in tree.get("data") or []:
            for key, body in (group.get("template_file") or {}).items() if isinstance(group, dict) else ():
                if isinstance(body, dict):
                    templates[key] = body
    _definitions(folder, [f for f, _, _ in stats if not f.endswith(".tf")], names, parse, called)
    for name, given in inputs:  # the module's callers: known when every call gives the same literal
        values = {names.get(f"var.{name}") if v is _UNSET else v for v in given}
        known = values.pop() if len(values) == 1 else None
        names.pop(f"var.{name}", None)
        if known is not None:
            names[f"var.{name}"] = known
    return Scope(folder, MappingProxyType(names), MappingProxyType(templates))


def _definitions(
    folder: str, files: list[str], names: dict[str, Any], parse: Callable[[str], dict], called: bool = False
) -> None:
    """Variables the folder's .tfvars files set, over their defaults (Terraform's language/values/variables "Variable
    Definition Precedence": terraform.tfvars, terraform.tfvars.json, then *.auto.tfvars(.json) in lexical order, are
    loaded automatically); a variable another .tfvars sets (given with -var-file, maybe not) is unknown. Only a root
    module loads .tfvars: in a folder the run's module calls use (``called``), a variable its .tfvars set is unknown
    (the root run there, or the call's value or default: which, the pack cannot tell; review57)."""
    auto: list[str] = [f for f in ("terraform.tfvars", "terraform.tfvars.json") if f in files]
    auto += sorted(f for f in files if f.endswith((".auto.tfvars", ".auto.tfvars.json")))
    unknown: set[str] = set()
    for name in auto + [f for f in files if f not in auto]:
        try:
            text = read_bounded(os.path.join(folder, name), MANIFESTS)
            values = json.loads(text) if name.endswith(".json") else parse(text) if len(text) <= MAX_PARSED else None
        except Exception:
            values = None
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if not isinstance(key, str) or key.startswith("__"):
                continue
            if name in auto and not called and literal(value) and value is not None:
                names[f"var.{key}"] = value
            else:
                unknown.add(f"var.{key}")
    for key in unknown:
        names.pop(key, None)


__all__ = [
    "MAX_PARSED",
    "Scope",
    "as_text",
    "creates_none",
    "folder_scope",
    "literal",
    "module_calls",
    "resolve",
    "template_file",
]
