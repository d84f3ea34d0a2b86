"""The Kubernetes provider calls of a TypeScript or JavaScript Pulumi program (policies/reading/pulumi_program.py).

Parsed with tree-sitter and its TypeScript grammar (tree-sitter 0.26, tree-sitter-typescript 0.23; prebuilt wheels,
imported only when a run holds a program that imports ``@pulumi/kubernetes``). Not esprima (last release 2018) nor
pyjsparser (2019): both parse JavaScript only, so every TypeScript program (type annotations, ``as``, generics,
``satisfies``), the form Pulumi's templates write, is a syntax error to them; tree-sitter's grammars are maintained
with the language and parse .ts, .tsx and .js alike (the TSX grammar for files that may hold JSX).

Read: ``import * as k8s from "@pulumi/kubernetes"`` (any alias; named imports ``import { apps } from ...``;
sub-paths ``@pulumi/kubernetes/apps/v1``; ``require(...)``), then each ``new <alias>.<path>(name, args, opts)``.
Values: literals, object and array literals (spreads of known objects), template strings, and identifiers bound by a
``const`` in the file (once; a name bound twice is unknown), a resource's ``.metadata.name`` through the const it is
bound to (``serviceName: svc.metadata.name``), ``x.apply(v => ...)`` of a known ``x``, ``JSON.stringify`` of a known
value, string ``+``, a conditional whose test or both results are known. Anything else is pulumi_objects.Unknown,
and so is a whole object or array with a spread of an unknown value (any field may come from it), a const a
function's parameter, a loop's variable or a destructuring shadows, or one the program changes (``env.push``,
``labels.tier = ...``), and an ``.apply`` whose function returns under a condition. Bounded (pulumi_objects.BUDGET expressions).
"""

from __future__ import annotations

import functools
import json
from typing import Any, Optional

from policies.reading.pulumi_objects import (
    MAX_DEPTH,
    MAX_PASSES,
    Evaluation,
    ProgramCall,
    ProgramUnread,
    Unknown,
    resource_object,
)

_PACKAGE = "@pulumi/kubernetes"
# Methods that change the array, map or object they are called on: a const so changed is not its literal value.
_MUTATORS = frozenset({"push", "unshift", "splice", "pop", "shift", "sort", "reverse", "fill", "set", "add", "delete", "clear"})
_PARAMETERS = ("required_parameter", "optional_parameter")
_WRAPPERS = ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression", "type_assertion")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}
# Calls that hand back their argument as the value the resource gets (an Output of a known value, a secret literal).
_PASS_THROUGH = ("pulumi.output", "pulumi.secret", "pulumi.Output.create", "pulumi.Output.secret")


@functools.lru_cache(maxsize=2)
def _parser(tsx: bool) -> Any:
    import tree_sitter
    import tree_sitter_typescript

    language = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return tree_sitter.Parser(tree_sitter.Language(language))


def _first_error(root: Any) -> int:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point.row + 1
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return root.start_point.row + 1


def _escaped(sequence: str) -> str:
    """The character a one-letter escape (``\\n``, ``\\"``) stands for; a longer one (``\\u00e9``) is dropped."""
    text = sequence[1:]
    return _ESCAPES.get(text, text if len(text) == 1 else "")


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (isinstance(value, float) and value != value)


def _known(value: Any) -> bool:
    if isinstance(value, Unknown):
        return False
    if isinstance(value, dict):
        return all(_known(v) for v in value.values())
    if isinstance(value, list):
        return all(_known(v) for v in value)
    return True


def _js_text(value: Any) -> Optional[str]:
    """A known scalar as JavaScript writes it into a string (``8000``, ``true``), or None."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


class _Program(Evaluation):
    """One parsed program: its provider aliases, const bindings and the calls found."""

    def __init__(self, source: bytes, root: Any) -> None:
        self.aliases: dict[str, tuple[str, ...]] = {}
        super().__init__()
        news = []
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "import_statement":
                self._import(node)
            elif kind == "variable_declarator":
                self._bind(node)
            elif kind == "new_expression":
                news.append(node)
            else:
                self._unbind(node)
            stack.extend(reversed(node.children))
        self.calls = [c for n in news for env in self._loops(n) if (c := self._call(n, env)) is not None]

    @staticmethod
    def _text(node: Any) -> str:
        return node.text.decode("utf-8", "replace") if node is not None else ""

    def _import(self, node: Any) -> None:
        source = node.child_by_field_name("source")
        module = self._string(source) if source is not None else None
        if not isinstance(module, str) or not (module == _PACKAGE or module.startswith(_PACKAGE + "/")):
            return
        prefix = tuple(p for p in module[len(_PACKAGE) :].split("/") if p)
        for clause in (c for c in node.children if c.type == "import_clause"):
            for part in clause.children:
                if part.type in ("identifier", "namespace_import"):
                    ident = (
                        part if part.type == "identifier" else next((c for c in part.children if c.type == "identifier"), None)
                    )
                    if ident is not None:
                        self.aliases[self._text(ident)] = prefix
                elif part.type == "named_imports":
                    for spec in (s for s in part.children if s.type == "import_specifier"):
                        name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                        self.aliases[self._text(alias or name)] = (*prefix, self._text(name))

    def _bind(self, node: Any) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and name.type != "identifier":  # const { image } = cfg: names of a computed value
            for bound in self._identifiers(name):
                self.bindings[bound] = None
            return
        if name is None or value is None:
            return
        text = self._text(name)
        if value.type == "call_expression" and self._text(value.child_by_field_name("function")) == "require":
            args = value.child_by_field_name("arguments")
            module = self._string(args.named_children[0]) if args is not None and args.named_children else None
            if isinstance(module, str) and (module == _PACKAGE or module.startswith(_PACKAGE + "/")):
                self.aliases[text] = tuple(p for p in module[len(_PACKAGE) :].split("/") if p)
                return
        declaration = node.parent
        constant = (
            declaration is not None and declaration.type == "lexical_declaration" and declaration.children[0].type == "const"
        )
        # A name bound twice (two scopes, or a let) is not one value.
        self.bindings[text] = value if constant and text not in self.bindings else None

    def _unbind(self, node: Any) -> None:
        """A name this node gives another value than its const's (a function's parameter, a loop's or catch's
        variable), or a const it changes (``env.push(...)``, ``labels.tier = ...``): unknown wherever it is read,
        as a name bound twice is."""
        kind, names = node.type, []
        if kind in _PARAMETERS or kind == "catch_clause":
            names = self._identifiers(node.child_by_field_name("pattern") or node.child_by_field_name("parameter"))
        elif kind == "arrow_function" or kind == "for_in_statement":
            names = self._identifiers(node.child_by_field_name("parameter") or node.child_by_field_name("left"))
        elif kind in ("assignment_expression", "augmented_assignment_expression"):
            names = [self._root(node.child_by_field_name("left"))]
        elif kind == "unary_expression" and self._text(node.child_by_field_name("operator")) == "delete":
            names = [self._root(node.child_by_field_name("argument"))]
        elif kind == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "member_expression":
                method = self._text(function.child_by_field_name("property"))
                if method in _MUTATORS:
                    names = [self._root(function.child_by_field_name("object"))]
                elif self._text(function) == "Object.assign":
                    args = node.child_by_field_name("arguments")
                    names = [self._root(args.named_children[0])] if args is not None and args.named_children else []
        for name in names:
            if name:
                self.bindings[name] = None

    def _identifiers(self, pattern: Any) -> list[str]:
        """The names a parameter or destructuring pattern binds."""
        if pattern is None:
            return []
        if pattern.type in ("identifier", "shorthand_property_identifier_pattern"):
            return [self._text(pattern)]
        return [name for child in pattern.named_children for name in self._identifiers(child)]

    def _root(self, node: Any) -> str:
        """The identifier a member chain (``labels.tier``, ``env[0].value``) starts from, or ""."""
        while node is not None and node.type in ("member_expression", "subscript_expression", *_WRAPPERS):
            node = node.child_by_field_name("object") or (node.named_children[0] if node.named_children else None)
        return self._text(node) if node is not None and node.type == "identifier" else ""

    def _path(self, node: Any) -> Optional[tuple[str, ...]]:
        parts: list[str] = []
        while node is not None and node.type == "member_expression":
            parts.append(self._text(node.child_by_field_name("property")))
            node = node.child_by_field_name("object")
        if node is None or node.type != "identifier" or self._text(node) not in self.aliases:
            return None
        return (*self.aliases[self._text(node)], *reversed(parts))

    def _loops(self, node: Any) -> list[dict[str, Any]]:
        """One binding of the loop variables per pass of the ``for (const x of LIST)`` loops around a call, where each
        LIST is known (a const array literal: pulumi/example-ai.cluster's GPU NodePools, one per instance type); one
        pass with the variables unknown otherwise."""
        envs: list[dict[str, Any]] = [{}]
        parent = node.parent
        while parent is not None:
            left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
            operator = parent.child_by_field_name("operator")
            if parent.type == "for_in_statement" and left is not None and left.type == "identifier" and operator is not None:
                items = self.value(right, {}, 0) if self._text(operator) == "of" else None
                if isinstance(items, list) and items and len(items) * len(envs) <= MAX_PASSES:
                    envs = [{**env, self._text(left): item} for item in items for env in envs]
            parent = parent.parent
        return envs

    def _call(self, node: Any, env: Optional[dict[str, Any]] = None) -> Optional[ProgramCall]:
        path = self._path(node.child_by_field_name("constructor"))
        if not path:
            return None
        args = node.child_by_field_name("arguments")
        values = [self.value(a, env or {}, 0) for a in (args.named_children if args is not None else [])]
        name = values[0] if values else Unknown("resource_name")
        return ProgramCall(path, name, values[1] if len(values) > 1 else {}, node.start_point.row + 1)

    def _string(self, node: Any) -> Any:
        out = []
        for part in node.children:
            if part.type == "string_fragment":
                out.append(self._text(part))
            elif part.type == "escape_sequence":
                out.append(_escaped(self._text(part)))
        return "".join(out)

    def value(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        """The value an expression has when the program runs, with Unknown for what only the run decides."""
        if self.exhausted(node, depth):
            return Unknown()
        kind = node.type
        depth += 1
        if kind == "string":
            return self._string(node)
        if kind == "number":
            return self._number(self._text(node))
        if kind in ("true", "false"):
            return kind == "true"
        if kind in ("null", "undefined"):
            return None
        if kind in _WRAPPERS:
            return self.value(node.named_children[0] if node.named_children else None, env, depth)
        if kind == "template_string":
            return self._template(node, env, depth)
        if kind == "object":
            return self._object(node, env, depth)
        if kind == "array":
            return self._array(node, env, depth)
        if kind == "identifier":
            return self._identifier(self._text(node), env, depth)
        if kind in ("member_expression", "subscript_expression"):
            return self._member(node, env, depth)
        if kind == "call_expression":
            return self._call_value(node, env, depth)
        if kind == "new_expression":
            return self._resource(node, depth)
        if kind == "binary_expression":
            return self._binary(node, env, depth)
        if kind == "ternary_expression":
            test = self.value(node.child_by_field_name("condition"), env, depth)
            if not isinstance(test, Unknown):
                return self.value(node.child_by_field_name("consequence" if _truthy(test) else "alternative"), env, depth)
            one, other = (self.value(node.child_by_field_name(f), env, depth) for f in ("consequence", "alternative"))
            return one if _known(one) and one == other else Unknown(self._text(node.child_by_field_name("condition")))
        if kind == "unary_expression":
            operand = self.value(node.child_by_field_name("argument"), env, depth)
            operator = self._text(node.child_by_field_name("operator"))
            if operator == "-" and isinstance(operand, (int, float)) and not isinstance(operand, bool):
                return -operand
            if operator == "!" and not isinstance(operand, Unknown):
                return not _truthy(operand)
        return Unknown(self._text(node) if kind in ("identifier", "member_expression") else "pulumi_output")

    @staticmethod
    def _number(text: str) -> Any:
        text = text.replace("_", "")
        try:
            return int(text, 0)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                return Unknown()

    def _template(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        out = []
        for part in node.children:
            if part.type == "string_fragment":
                out.append(self._text(part))
            elif part.type == "escape_sequence":
                out.append(_escaped(self._text(part)))
            elif part.type == "template_substitution":
                inner = part.named_children[0] if part.named_children else None
                value = self.value(inner, env, depth)
                text = _js_text(value)
                out.append(text if text is not None else "${" + Unknown(self._text(inner)).hint + "}")
        return "".join(out)

    def _object(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        out: dict = {}
        for part in node.named_children:
            if part.type == "pair":
                key_node = part.child_by_field_name("key")
                if key_node.type == "computed_property_name":
                    key = self.value(key_node.named_children[0] if key_node.named_children else None, env, depth)
                    key = key if isinstance(key, str) and "${" not in key else None
                elif key_node.type == "string":
                    key = self._string(key_node)
                else:
                    key = self._text(key_node)
                if key is not None:
                    out[key] = self.value(part.child_by_field_name("value"), env, depth)
            elif part.type == "shorthand_property_identifier":
                out[self._text(part)] = self._identifier(self._text(part), env, depth)
            elif part.type == "spread_element":
                spread = self.value(part.named_children[0] if part.named_children else None, env, depth)
                if not isinstance(spread, dict):  # fields the run decides: any field may be among them
                    return Unknown(self._text(part)[3:])
                out.update(spread)
        return out

    def _array(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        out: list = []
        for part in node.named_children:
            if part.type == "spread_element":
                spread = self.value(part.named_children[0] if part.named_children else None, env, depth)
                if not isinstance(spread, list):  # items the run decides
                    return Unknown(self._text(part)[3:])
                out.extend(spread)
            elif part.type != "comment":
                out.append(self.value(part, env, depth))
        return out

    def _identifier(self, name: str, env: dict[str, Any], depth: int) -> Any:
        if name in env:
            return env[name]
        if name == "undefined":
            return None
        return self.bound(name, self.value, depth)

    def _member(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        owner = self.value(node.child_by_field_name("object"), env, depth)
        if node.type == "member_expression":
            key: Any = self._text(node.child_by_field_name("property"))
        else:
            key = self.value(node.child_by_field_name("index"), env, depth)
        if isinstance(owner, dict) and isinstance(key, str) and key in owner:
            return owner[key]
        if isinstance(owner, list) and isinstance(key, (int, float)) and not isinstance(key, bool) and 0 <= key < len(owner):
            return owner[int(key)]
        if isinstance(owner, (list, str)) and key == "length":
            return len(owner)
        return Unknown(self._text(node))

    def _call_value(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        function = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        name = self._text(function)
        if args_node is not None and args_node.type == "template_string":  # pulumi.interpolate`...`
            return self._template(args_node, env, depth) if name.endswith("interpolate") else Unknown(name)
        args = args_node.named_children if args_node is not None else []
        if name in _PASS_THROUGH and len(args) == 1:
            return self.value(args[0], env, depth)
        if name == "String" and len(args) == 1:  # String(8000) is the text "8000", never the number
            text = _js_text(self.value(args[0], env, depth))
            return text if text is not None else Unknown(name)
        if name == "JSON.stringify" and args:
            data = self.value(args[0], env, depth)
            return json.dumps(data, separators=(",", ":"), ensure_ascii=False) if _known(data) else Unknown(name)
        if function is not None and function.type == "member_expression":
            method = self._text(function.child_by_field_name("property"))
            owner = self.value(function.child_by_field_name("object"), env, depth)
            if method == "apply" and args and not isinstance(owner, Unknown):
                return self._applied(args[0], owner, depth)
            if isinstance(owner, str) and method in ("toLowerCase", "toUpperCase", "trim"):
                return owner.lower() if method == "toLowerCase" else owner.upper() if method == "toUpperCase" else owner.strip()
        return Unknown(name)

    def _applied(self, function: Any, argument: Any, depth: int) -> Any:
        """``fn(argument)`` for an arrow or function expression whose body is (or returns) one expression."""
        if function.type not in ("arrow_function", "function_expression", "function"):
            return Unknown("apply")
        single = function.child_by_field_name("parameter")
        params = function.child_by_field_name("parameters")
        first = single or next(
            (p.child_by_field_name("pattern") for p in (params.named_children if params is not None else [])), None
        )
        env = {self._text(first): argument} if first is not None and first.type == "identifier" else {}
        body = function.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            # One return at the block's top: a return under an if, a switch or a loop is a value only the run picks.
            returns = [s for s in body.named_children if s.type == "return_statement"]
            nested = any(n.type == "return_statement" for s in body.named_children for n in self._descendants(s))
            body = returns[0].named_children[0] if len(returns) == 1 and not nested and returns[0].named_children else None
        return self.value(body, env, depth)

    @staticmethod
    def _descendants(node: Any) -> list[Any]:
        out, stack = [], list(node.children)
        while stack:
            child = stack.pop()
            out.append(child)
            stack.extend(child.children)
        return out

    def _resource(self, node: Any, depth: int) -> Any:
        call = self._call(node) if depth < MAX_DEPTH else None
        made = resource_object(call.path, call.name, call.args) if call is not None else None
        return made if made is not None else Unknown("resource")

    def _binary(self, node: Any, env: dict[str, Any], depth: int) -> Any:
        operator = self._text(node.child_by_field_name("operator"))
        left = self.value(node.child_by_field_name("left"), env, depth)
        if operator in ("??", "||") and not isinstance(left, Unknown):
            keep = left is not None if operator == "??" else _truthy(left)
            return left if keep else self.value(node.child_by_field_name("right"), env, depth)
        right = self.value(node.child_by_field_name("right"), env, depth)
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right))
        if operator == "+" and (isinstance(left, str) or isinstance(right, str)):
            texts = (_js_text(left), _js_text(right))
            return texts[0] + texts[1] if texts[0] is not None and texts[1] is not None else Unknown("pulumi_output")
        if numbers and operator in ("+", "-", "*"):
            return left + right if operator == "+" else left - right if operator == "-" else left * right
        if numbers and operator == "/" and right:
            return left / right
        return Unknown("pulumi_output")


def typescript_calls(file: str, text: str) -> list[ProgramCall]:
    """The Kubernetes provider calls of a TypeScript/JavaScript program; ProgramUnread when it does not parse."""
    source = text.encode("utf-8")
    tsx = file.endswith((".tsx", ".jsx", ".js", ".mjs", ".cjs"))
    tree = _parser(tsx).parse(source)
    if tree.root_node.has_error:
        line = _first_error(tree.root_node)
        raise ProgramUnread(
            file,
            "a Pulumi program tree-sitter's TypeScript grammar cannot parse (a syntax error, or syntax newer than the grammar)",
            line,
        )
    return _Program(source, tree.root_node).calls
