"""The Kubernetes provider calls of a Python Pulumi program (policies/reading/pulumi_program.py), read with ``ast``.

Read: ``import pulumi_kubernetes as k8s`` (any alias; ``from pulumi_kubernetes import apps``; ``from
pulumi_kubernetes.apps.v1 import Deployment, DeploymentSpecArgs``), then each call of a provider class:
``k8s.apps.v1.Deployment("name", metadata=..., spec=..., opts=...)``, or with its args object second
(``Deployment("name", DeploymentArgs(...))``, ``args=``). An ``...Args(...)`` call is the mapping of its keyword
arguments, snake_case names as the SDK's camelCase fields (``match_labels`` -> ``matchLabels``); a plain dict keeps
its keys, except that snake_case keys of a field (not of a map of names such as labels, annotations, data or Helm
values) are the SDK's field names too, as the SDK translates them. Values: literals, f-strings, names bound once in
the file, a resource's ``.metadata.name`` through the name it is bound to, ``json.dumps`` of a known value, ``.apply``
of a lambda on a known value; anything else is pulumi_objects.Unknown, and so is a whole dict or list with a
``**``/``*`` spread of an unknown value, a name a function's parameter shadows or the program changes (``env.append``,
``env += ...``, ``labels["tier"] = ...``). Bounded (pulumi_objects.BUDGET expressions).
"""

from __future__ import annotations

import ast
import json
from typing import Any, Optional

from policies.reading.pulumi_objects import (
    MAX_PASSES,
    Evaluation,
    ProgramCall,
    ProgramUnread,
    Unknown,
    resource_object,
)

_PACKAGE = "pulumi_kubernetes"
# Methods that change the list, dict or set they are called on: a name so changed is not its literal value.
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "remove", "clear", "add"})
_MUTATORS |= {"sort", "reverse", "discard"}
# Maps whose keys are names the user writes (a label, a file of a ConfigMap, a Helm value), never the SDK's fields.
_NAME_MAPS = frozenset(
    {"labels", "annotations", "data", "stringData", "binaryData", "nodeSelector", "matchLabels", "selector", "values"}
)
_NAME_MAPS |= {"limits", "requests", "capacity", "parameters", "hard", "stringData", "string_data", "binary_data"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _fields(value: Any, names: bool = False) -> Any:
    """A dict written for an input type with its snake_case field names camelCased, maps of names left as written."""
    if isinstance(value, list):
        return [_fields(v) for v in value]
    if not isinstance(value, dict):
        return value
    if names:
        # A workload's selector is a LabelSelector (match_labels, match_expressions: the SDK's fields), a Service's a
        # map of labels: pulumi's rpc.serialize_property translates a dict's keys only for an input type.
        if value.keys() & _SELECTOR_FIELDS:
            return {_SELECTOR_FIELDS.get(k, k): _fields(v, names=k in _SELECTOR_FIELDS) for k, v in value.items()}
        return value
    out = {}
    for key, item in value.items():
        field = _camel(key) if isinstance(key, str) and "_" in key.strip("_") and key.islower() else key
        out[field] = _fields(item, names=field in _NAME_MAPS)
    return out


_SELECTOR_FIELDS = {"match_labels": "matchLabels", "match_expressions": "matchExpressions"}


class _Program(Evaluation):
    """One parsed program: its provider aliases, single bindings and the calls found."""

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, tuple[str, ...]] = {}
        super().__init__()
        calls: list[tuple[ast.Call, tuple[ast.For, ...]]] = []
        stack: list[tuple[ast.AST, tuple[ast.For, ...]]] = [(tree, ())]
        while stack:
            node, loops = stack.pop()
            inner = (*loops, node) if isinstance(node, ast.For) and isinstance(node.target, ast.Name) else loops
            stack.extend((child, inner) for child in reversed(list(ast.iter_child_nodes(node))))
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == _PACKAGE or alias.name.startswith(_PACKAGE + "."):
                        parts = tuple(alias.name.split(".")[1:])
                        self.aliases[alias.asname or alias.name.split(".")[0]] = parts if alias.asname else ()
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == _PACKAGE:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = (*node.module.split(".")[1:], alias.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        seen = target.id in self.bindings
                        self.bindings[target.id] = None if seen or node.value is None else node.value
            elif isinstance(node, (ast.For, ast.comprehension)):
                for name in ast.walk(node.target):
                    if isinstance(name, ast.Name):
                        self.bindings[name.id] = None  # a loop's variable: one value per pass (_passes)
            for rebound in _rebound(node):
                self.bindings[rebound] = None
            if isinstance(node, ast.Call):
                calls.append((node, loops))
        self.calls = [
            c
            for node, loops in calls
            for env in self._passes(loops)
            if (c := self._call(node, 0, env)) is not None and self._resource_class(c.path)
        ]

    def _passes(self, loops: tuple[ast.For, ...]) -> list[dict[str, Any]]:
        """One binding of the loop variables per pass of the ``for x in LIST:`` loops around a call where each LIST is
        known (a list literal bound once); one pass with the variables unknown otherwise."""
        envs: list[dict[str, Any]] = [{}]
        for loop in loops:
            items = self.value(loop.iter, {}, 0)
            if isinstance(loop.target, ast.Name) and isinstance(items, list) and items and len(items) * len(envs) <= MAX_PASSES:
                envs = [{**env, loop.target.id: item} for item in items for env in envs]
        return envs

    @staticmethod
    def _resource_class(path: tuple[str, ...]) -> bool:
        last = path[-1] if path else ""
        return bool(last[:1].isupper()) and not last.endswith(("Args", "Opts", "ArgsDict", "Options"))

    def _path(self, node: ast.expr) -> Optional[tuple[str, ...]]:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return (*self.aliases[node.id], *reversed(parts))

    def _call(self, node: ast.Call, depth: int, env: Optional[dict[str, Any]] = None) -> Optional[ProgramCall]:
        path = self._path(node.func)
        if not path or not self._resource_class(path):
            return None
        keywords, scope = {k.arg: k.value for k in node.keywords if k.arg}, env or {}
        name_node = node.args[0] if node.args else keywords.pop("resource_name", None)
        name = self.value(name_node, scope, depth) if name_node is not None else Unknown("resource_name")
        args_node = node.args[1] if len(node.args) > 1 else keywords.pop("args", None) or keywords.pop("config", None)
        args: Any = self.value(args_node, scope, depth) if args_node is not None else {}
        args = dict(args) if isinstance(args, dict) else {}
        for key, value in keywords.items():
            if key != "opts":
                args[_camel(key)] = self.value(value, scope, depth)
        return ProgramCall(path, name, _fields(args), node.lineno)

    def value(self, node: Optional[ast.expr], env: dict[str, Any], depth: int) -> Any:
        """The value an expression has when the program runs, with Unknown for what only the run decides."""
        if self.exhausted(node, depth):
            return Unknown()
        depth += 1
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (str, int, float, bool, type(None))) else Unknown()
        if isinstance(node, ast.JoinedStr):
            return "".join(self._formatted(part, env, depth) for part in node.values)
        if isinstance(node, ast.Dict):
            out: dict = {}
            for key, item in zip(node.keys, node.values):
                if key is None:  # **spread
                    spread = self.value(item, env, depth)
                    if not isinstance(spread, dict):  # fields the run decides: any field may be among them
                        return Unknown(ast.unparse(item))
                    out.update(spread)
                    continue
                known = self.value(key, env, depth)
                if isinstance(known, str):
                    out[known] = self.value(item, env, depth)
            return out
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list = []
            for e in node.elts:
                if isinstance(e, ast.Starred):  # *spread
                    spread = self.value(e.value, env, depth)
                    if not isinstance(spread, list):
                        return Unknown(ast.unparse(e.value))
                    items += spread
                else:
                    items.append(self.value(e, env, depth))
            return items
        if isinstance(node, ast.Name):
            return self._name(node.id, env, depth)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return self._member(node, env, depth)
        if isinstance(node, ast.Call):
            return self._call_value(node, env, depth)
        if isinstance(node, ast.BinOp):
            left, right = self.value(node.left, env, depth), self.value(node.right, env, depth)
            if isinstance(node.op, ast.Add) and type(left) is type(right) and isinstance(left, (str, int, float, list)):
                return left + right
            if isinstance(node.op, ast.Mult) and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)
            ):
                return left * right
            return Unknown()
        if isinstance(node, ast.IfExp):
            test = self.value(node.test, env, depth)
            if not isinstance(test, Unknown):
                return self.value(node.body if test else node.orelse, env, depth)
            one, other = self.value(node.body, env, depth), self.value(node.orelse, env, depth)
            return one if one == other and not isinstance(one, Unknown) else Unknown(ast.unparse(node.test))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.value(node.operand, env, depth)
            return -operand if isinstance(operand, (int, float)) and not isinstance(operand, bool) else Unknown()
        return Unknown()

    def _formatted(self, part: ast.expr, env: dict[str, Any], depth: int) -> str:
        if isinstance(part, ast.Constant):
            return str(part.value)
        inner = part.value if isinstance(part, ast.FormattedValue) else part
        value = self.value(inner, env, depth)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        return "${" + Unknown(ast.unparse(inner)).hint + "}"

    def _name(self, name: str, env: dict[str, Any], depth: int) -> Any:
        if name in env:
            return env[name]
        return self.bound(name, self.value, depth)

    def _member(self, node: ast.Attribute | ast.Subscript, env: dict[str, Any], depth: int) -> Any:
        owner = self.value(node.value, env, depth)
        key: Any = node.attr if isinstance(node, ast.Attribute) else self.value(node.slice, env, depth)
        if isinstance(owner, dict) and isinstance(key, str):
            found = owner.get(key, owner.get(_camel(key)))
            return found if found is not None or key in owner else Unknown(ast.unparse(node))
        if isinstance(owner, list) and isinstance(key, int) and not isinstance(key, bool) and -len(owner) <= key < len(owner):
            return owner[key]
        return Unknown(ast.unparse(node))

    def _call_value(self, node: ast.Call, env: dict[str, Any], depth: int) -> Any:
        path = self._path(node.func)
        if path:
            if path[-1].endswith(("Args", "Opts", "ArgsDict", "Options")):  # an input type: its fields
                return _fields({_camel(k.arg): self.value(k.value, env, depth) for k in node.keywords if k.arg})
            call = self._call(node, depth, env)
            made = resource_object(call.path, call.name, call.args) if call is not None else None
            return made if made is not None else Unknown("resource")
        name = ast.unparse(node.func)
        args = [self.value(a, env, depth) for a in node.args[:1]]
        if name == "dict" and not node.args:
            return {k.arg: self.value(k.value, env, depth) for k in node.keywords if k.arg}
        if name in ("pulumi.Output.from_input", "pulumi.Output.secret") and args:
            return args[0]
        if name == "str" and args:  # str(8000) is the text "8000", never the number
            known = isinstance(args[0], (str, int, float)) and not isinstance(args[0], bool)
            return str(args[0]) if known else Unknown(name)
        if name == "json.dumps" and args and self._known(args[0]):
            return json.dumps(args[0])
        if isinstance(node.func, ast.Attribute) and node.func.attr == "apply" and node.args:
            owner = self.value(node.func.value, env, depth)
            fn = node.args[0]
            if not isinstance(owner, Unknown) and isinstance(fn, ast.Lambda) and len(fn.args.args) == 1:
                return self.value(fn.body, {**env, fn.args.args[0].arg: owner}, depth)
        return Unknown(name)

    def _known(self, value: Any) -> bool:
        if isinstance(value, dict):
            return all(self._known(v) for v in value.values())
        if isinstance(value, list):
            return all(self._known(v) for v in value)
        return not isinstance(value, Unknown)


def _rebound(node: ast.AST) -> list[str]:
    """Names a node gives another value than their single assignment (a function's parameter, ``x += ...``, ``with
    ... as x``, an import) or whose value it changes (``env.append(...)``, ``labels["tier"] = ...``): unknown wherever
    they are read, as a name bound twice is."""
    if isinstance(node, ast.arguments):
        every = [*node.posonlyargs, *node.args, *node.kwonlyargs, node.vararg, node.kwarg]
        return [a.arg for a in every if a is not None]
    if isinstance(node, (ast.AugAssign, ast.Delete, ast.withitem, ast.NamedExpr, ast.Assign, ast.AnnAssign)):
        if isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.withitem):
            targets = [node.optional_vars] if node.optional_vars is not None else []
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):  # x.y = ..., x[k] = ..., a, b = ... (a name: a binding)
            targets = [
                t for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if not isinstance(t, ast.Name)
            ]
        else:
            targets = [node.target]
        return [n for t in targets for n in _roots(t)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
        root = _root(node.func.value)
        return [root] if root else []
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    return []


def _roots(target: ast.expr) -> list[str]:
    """The names an assignment's target binds or changes (``a, b = ...``, ``labels["tier"] = ...``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in _roots(t)]
    root = _root(target)
    return [root] if root else []


def _root(node: ast.expr) -> str:
    """The name a target or a member chain (``labels["tier"]``, ``spec.replicas``) starts from, or ""."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def python_calls(file: str, text: str) -> list[ProgramCall]:
    """The Kubernetes provider calls of a Python program; ProgramUnread when it does not parse."""
    try:
        tree = ast.parse(text, filename=file)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None) or 1
        raise ProgramUnread(
            file, "a Pulumi program this Python's ast cannot parse (a syntax error, or syntax of a newer Python)", line
        ) from None
    return _Program(tree).calls
