"""Label selectors as the API server reads them (k8s.io/apimachinery pkg/apis/meta/v1/helpers.go
LabelSelectorAsSelector): whether one selects a label set, and the key=value pairs it requires."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.kube import as_dict, as_list, get


def selector_equalities(selector: Any) -> dict[str, str]:
    """The key=value pairs a LabelSelector requires: its matchLabels, and each matchExpressions entry ``In`` with one
    value, which is the same requirement (k8s.io/apimachinery pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector:
    matchLabels become ``In`` with one value)."""
    pairs = {str(k): str(v) for k, v in as_dict(as_dict(selector).get("matchLabels")).items()}
    for expr in (as_dict(e) for e in as_list(as_dict(selector).get("matchExpressions"))):
        values = as_list(expr.get("values"))
        if expr.get("operator") == "In" and len(values) == 1 and isinstance(expr.get("key"), str):
            pairs.setdefault(expr["key"], str(values[0]))
    return pairs


def only_equalities(selector: Any) -> bool:
    """True when every requirement of a LabelSelector is a key=value pair (selector_equalities holds it whole)."""
    return all(
        as_dict(e).get("operator") == "In" and len(as_list(as_dict(e).get("values"))) == 1
        for e in as_list(as_dict(selector).get("matchExpressions"))
    )


def selector_matches(selector: Any, labels: Mapping[str, Any], *, plain: bool = False) -> bool:
    """Whether a label selector selects `labels`.

    `plain` selectors are a Service's `spec.selector` (a bare map); otherwise a LabelSelector
    with matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist). An empty or
    missing selector selects nothing here: a PDB or Service selecting every pod is no
    evidence that a particular app is covered.
    """
    if not (type(selector) is dict or isinstance(selector, Mapping)) or not selector:
        return False
    match_labels = selector if plain else as_dict(selector.get("matchLabels"))
    expressions = [] if plain else as_list(selector.get("matchExpressions"))
    if not match_labels and not expressions:
        return False
    if any(labels.get(k) != v for k, v in match_labels.items()):
        return False
    for expr in expressions:
        key, op = as_dict(expr).get("key"), as_dict(expr).get("operator")
        values = [str(v) for v in as_list(as_dict(expr).get("values"))]
        present = isinstance(key, str) and key in labels
        value = str(labels[key]) if isinstance(key, str) and present else None
        if op == "In" and not (present and value in values):
            return False
        if op == "NotIn" and present and value in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def namespaces_meet(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """Whether two objects (their manifests) may share a namespace, as a selector's join across files needs: the same
    metadata.namespace, or either names none (it lands where `kubectl apply -n` or its kustomization puts it, which the
    files do not say)."""
    a, b = get(first, "metadata", "namespace"), get(second, "metadata", "namespace")
    return not (isinstance(a, str) and a) or not (isinstance(b, str) and b) or a == b
