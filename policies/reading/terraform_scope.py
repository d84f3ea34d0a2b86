"""What a Terraform expression is where the module writes it literally, for policies/reading/terraform.py.

Known: a variable's ``default`` and a ``locals`` value that are literals (a string without interpolation, a number, a
bool), over every .tf file of the module's folder (Terraform reads a module as all of its folder's .tf files:
``variables.tf`` beside ``main.tf``); a template's ``vars`` (``templatefile(path, {...})``, ``data "template_file"``)
inside that template; and a conditional ``c ? a : b`` whose two results are the same literal. Everything else (a
conditional whose results differ, a function call, a resource's attribute) stays unknown: a fill-in, never a guess.
A ``.tfvars`` file or ``-var`` may still set a variable: findings on Terraform objects are advice.
"""

from __future__ import annotations

import functools
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


def template_file(reference: str, scope: Scope) -> Optional[dict]:
    """The ``data "template_file"`` body an expression such as ``data.template_file.values[0].rendered`` names."""
    match = _TEMPLATE_FILE.match(reference.strip())
    return scope.templates.get(match.group(1)) if match is not None else None


def folder_scope(folder: str, parse: Callable[[str], dict]) -> Scope:
    """The scope of the module in ``folder``: its .tf files' literal variable defaults and locals, and template_files
    (kept for the run, by the folder's .tf files as they stand: name, size, modification time)."""
    try:
        names = sorted(f for f in os.listdir(folder) if f.endswith(".tf"))
        stats = tuple((f, s.st_size, s.st_mtime_ns) for f in names for s in [os.stat(os.path.join(folder, f))])
    except OSError:
        stats = ()
    return _folder_scope(folder, stats, parse)


@functools.lru_cache(maxsize=16)
def _folder_scope(folder: str, stats: tuple, parse: Callable[[str], dict]) -> Scope:
    names: dict[str, Any] = {}
    templates: dict[str, dict] = {}
    files = [f for f, _, _ in stats]
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
                if isinstance(body, dict) and literal(body.get("default")):
                    names[f"var.{key}"] = body["default"]
        for group in tree.get("locals") or []:
            for key, value in group.items() if isinstance(group, dict) else ():
                if not key.startswith("__") and literal(value):
                    names[f"local.{key}"] = value
        for group in tree.get("data") or []:
            for key, body in (group.get("template_file") or {}).items() if isinstance(group, dict) else ():
                if isinstance(body, dict):
                    templates[key] = body
    return Scope(folder, MappingProxyType(names), MappingProxyType(templates))


__all__ = ["MAX_PARSED", "Scope", "as_text", "folder_scope", "literal", "resolve", "template_file"]
