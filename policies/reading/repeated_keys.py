"""Where a YAML document writes one mapping key twice, and the values: read only for a document the loader refused for
a repeated key (policies/manifests.py, already within the loader's size limits), so it costs nothing elsewhere.

PyYAML's composer keeps every (key, value) pair of a mapping, duplicates included, and shares an aliased node rather
than copying it; the walk below visits each node once and stops at a node budget, so no alias expansion or depth of
input makes it costly. Values are rebuilt as plain Python (scalars as their text) only for comparing the two values and
naming what the first one holds.
"""

from __future__ import annotations

from typing import Any

import yaml

from components.loading import yaml_loader

_BUDGET = 200_000  # nodes visited per document, as the loader's own budget for manifests is far above what one holds


def _plain(node: Any, budget: list[int], depth: int = 0) -> Any:
    """A node as plain Python (mappings keep the last value of a repeated key), within the budget."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 100:
        raise ValueError("over budget")
    if isinstance(node, yaml.MappingNode):
        return {str(getattr(k, "value", "")): _plain(v, budget, depth + 1) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_plain(v, budget, depth + 1) for v in node.value]
    return getattr(node, "value", None)


def _walk(node: Any, path: str, found: list[tuple[str, Any, Any]], seen: set[int], budget: list[int]) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError("over budget")
    if isinstance(node, yaml.MappingNode):
        first: dict[str, Any] = {}
        for key, value in node.value:
            name = str(getattr(key, "value", ""))
            where = f"{path}.{name}" if path else name
            if name in first and name != "<<":  # a second merge key adds a mapping, it drops nothing
                found.append((where, _plain(first[name], budget), _plain(value, budget)))
            first[name] = value
            _walk(value, where, found, seen, budget)
    elif isinstance(node, yaml.SequenceNode):
        for i, value in enumerate(node.value):
            _walk(value, f"{path}[{i}]", found, seen, budget)


def repeated_keys(text: str) -> list[tuple[str, Any, Any]]:
    """Each key a mapping of ``text`` (one or more YAML documents) writes twice: (path such as
    ``spec.template.spec.containers[0].env``, the earlier value, the later one kept), in document order. Empty when the
    text does not compose or is over the budget."""
    found: list[tuple[str, Any, Any]] = []
    loader = yaml_loader()(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                _walk(node, "", found, set(), [_BUDGET])
    except (yaml.YAMLError, ValueError, RecursionError):
        return found
    finally:
        loader.dispose()
    return found


__all__ = ["repeated_keys"]
