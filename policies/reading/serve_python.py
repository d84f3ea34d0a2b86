"""Ray Serve LLM configurations written in Python: ``LLMConfig(...)`` calls in a ConfigMap a RayService mounts.

A RayService's ``serveConfigV2`` may import its application from code the pods mount from a ConfigMap
(``import_path: serve_app.vllm_serve:app`` with the ConfigMap key ``vllm_serve.py``: held-out set 10's
askulkarni2/ray-serve-with-eks-auto app/ray-serve-vllm.yaml). The code is parsed, never run (``ast``): only
literal keyword arguments of ``LLMConfig(...)`` calls are read (dicts, ``dict(...)`` calls, numbers, strings);
anything computed is left out, so a config reads as what its text proves. A call under a condition (an ``if`` or
``while``, a conditional expression, ``and``/``or``, a ``match`` case, an ``except`` or ``else`` of a ``try``) may never
run: ``if os.environ["GPU"] == "a10g": LLMConfig(accelerator_type="A10G") else: LLMConfig(accelerator_type="L4")``
holds two configs of which one serves. Its label ends with CONDITIONAL (``conditional``), and a finding that names it
is advice, whichever rule reports it (policies/finding_levels.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from policies.finding_levels import CONDITIONAL_CODE
from policies.kube import as_dict, as_list, get, metadata_name, pod_specs, split_type

_MAX_SOURCE = 256 * 1024
_UNKNOWN = object()
# The end of the label of an LLMConfig(...) call the code may not reach (see the module's docstring); a finding naming
# it is reported advisory whichever rule finds it (policies/finding_levels.py finding_level).
CONDITIONAL = CONDITIONAL_CODE
_BRANCHING = (ast.If, ast.IfExp, ast.While, ast.BoolOp, ast.Match)
_TRY = (ast.Try, ast.TryStar)


def conditional(label: str) -> bool:
    """True when a config's label (mounted_llm_configs) says its LLMConfig(...) call sits under a condition."""
    return label.endswith(CONDITIONAL)


def _calls(tree: ast.AST) -> list[tuple[ast.Call, bool]]:
    """Every call of the tree in source order, with whether a condition stands between the module and it (a ``try``
    body runs; its handlers and ``else`` are branches). Iterative: a deeply nested expression costs no recursion."""
    found = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, branched = stack.pop()
        if isinstance(node, ast.Call):
            found.append((node, branched))
        children = []
        for name, value in ast.iter_fields(node):
            inner = branched or isinstance(node, _BRANCHING) or (isinstance(node, _TRY) and name in ("handlers", "orelse"))
            children += [(c, inner) for c in (value if isinstance(value, list) else [value]) if isinstance(c, ast.AST)]
        stack.extend(reversed(children))
    return found


def _literal(node: ast.AST, depth: int = 0) -> Any:
    """A literal's value (dict/dict(...)/list/tuple/number/string/bool/None), or _UNKNOWN."""
    if depth > 20:
        return _UNKNOWN
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values):
            k = _literal(key, depth + 1) if key is not None else _UNKNOWN
            if isinstance(k, str):
                out[k] = _literal(value, depth + 1)
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return {kw.arg: _literal(kw.value, depth + 1) for kw in node.keywords if kw.arg}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e, depth + 1) for e in node.elts]
    return _UNKNOWN


def _clean(value: Any) -> Any:
    """Drop the parts the text does not prove (_UNKNOWN) from a literal."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not _UNKNOWN}
    if isinstance(value, list):
        return [_clean(v) for v in value if v is not _UNKNOWN]
    return value


@lru_cache(maxsize=64)
def _llm_configs_in(source: str) -> tuple[tuple[bool, tuple[tuple[str, Any], ...]], ...]:
    """(under a condition, sorted literal keyword arguments) of each ``LLMConfig(...)`` call of the code."""
    if len(source) > _MAX_SOURCE or "LLMConfig" not in source:
        return ()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, SystemError):
        # SystemError: CPython 3.11.7's "AST constructor recursion depth mismatch" (cpython gh-106905), which a
        # collection running finalizers mid-parse can raise inside a Pulumi policy process; the code is then unread.
        return ()
    found = []
    for node, branched in _calls(tree):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name != "LLMConfig":
            continue
        kwargs = {kw.arg: _clean(_literal(kw.value)) for kw in node.keywords if kw.arg}
        found.append((branched, tuple(sorted((k, v) for k, v in kwargs.items() if v is not _UNKNOWN))))
    return tuple(found)


def mounted_llm_configs(ray_service: Any, resources: Iterable[Any], serve_config: Any) -> list[tuple[str, dict]]:
    """(label, LLMConfig keyword arguments) of every ``LLMConfig(...)`` in the ConfigMaps the RayService's pods mount
    (same namespace) whose key is the module an application's import_path names; ``serve_config`` is the RayService's
    parsed serveConfigV2 (policies.reading.serving.serve_config, which reads this module's configs as engines)."""
    modules = set()
    for app in as_list(get(serve_config, "applications")):
        path = str(as_dict(app).get("import_path") or "")
        module = path.split(":")[0].rsplit(".", 1)[-1]
        if module:
            modules.add(f"{module}.py")
    if not modules:
        return []
    maps = {
        get(v, "configMap", "name")
        for _, podspec in pod_specs(ray_service)
        for v in as_list(podspec.get("volumes"))
        if isinstance(get(v, "configMap", "name"), str)
    }
    namespace = get(ray_service.props, "metadata", "namespace")
    found = []
    for r in resources:
        if split_type(r.type) != ("", "ConfigMap") or metadata_name(r.props) not in maps:
            continue
        if get(r.props, "metadata", "namespace") not in (None, namespace):
            continue
        for key, text in as_dict(get(r.props, "data")).items():
            if key in modules and isinstance(text, str):
                for i, (branched, config) in enumerate(_llm_configs_in(text)):
                    label = f"ConfigMap {get(r.props, 'metadata', 'name')} {key} LLMConfig #{i + 1}"
                    found.append((label + (CONDITIONAL if branched else ""), dict(config)))
    return found
