"""Label values and keys the API server refuses: ``metadata.labels`` of an object and of the templates it holds, and a
label selector's ``matchLabels``.

kubernetes/apimachinery v0.33.0: ``ValidateObjectMetaAccessor`` runs ``ValidateLabels`` on every object's labels
(pkg/api/validation/objectmeta.go L183), a pod template's labels are validated with the workload
(pkg/apis/core/validation ValidatePodTemplateSpec), and ``ValidateLabelSelector`` validates ``matchLabels`` the same
way (pkg/apis/meta/v1/validation/validation.go L62, L104-121). A key must be a qualified name (pkg/util/validation/
validation.go L41-70: an optional DNS-subdomain prefix and '/', then at most 63 alphanumerics, '-', '_' or '.'); a
value at most 63 characters of the same set, starting and ending with an alphanumeric, or empty (L154-170). A model id
(``meta-llama/Llama-3.1-8B``) or a URL (``spiffe://...``) as a label value is refused; so the object is never created.

On a custom resource, labels below the top-level metadata are the operator's to copy onto pods: refused when it creates
them, which the files alone do not prove (advice). Placeholders (``<name>``, ``${VAR}``) are advice; a Helm ``{{ }}``
is S27's; a number or boolean is api-schema-valid's type error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from policies.kube import is_custom_type, split_type
from policies.reading.api_refusals import is_qualified_name
from policies.reading.object_names import TOKEN, own_rules
from policies.reading.placeholders import placeholder_in

_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character"
)
_KEY_RULE = "a label key must be a qualified name: an optional DNS subdomain prefix and '/', then a name part"
# Subtrees that hold another tool's data, not labels of objects (Prometheus rules, admission policies, Argo).
# ("metric": an HPA's metrics[].external/object/pods.metric.selector is not label-validated on create, kubernetes
# pkg/apis/autoscaling/validation/validation.go validateExternalSource / validateObjectSource / validatePodsSource run
# validateMetricIdentifier only; the HPA controller fails that one metric at run time. Review 41 item 8.)
_SKIPPED_KEYS = frozenset({"status", "rules", "groups", "validations", "match", "podMetricsEndpoints", "endpoints", "metric"})
_MAX = 8


@dataclass(frozen=True)
class LabelProblem:
    """One label the API server refuses: where, the key and value, why, a placeholder, proven or not."""

    where: str
    key: str
    value: str
    why: str
    placeholder: bool
    proven: bool


def _why(key: str, value: str) -> str | None:
    if not is_qualified_name(key):
        return _KEY_RULE
    if len(value) > 63:
        return "must be no more than 63 characters"
    return None if _VALUE.match(value) else _VALUE_RULE


def _judged(text: Any) -> bool:
    return isinstance(text, str) and "{{" not in text


def _labels(node: Any, where: str, top: bool, out: list[tuple[str, dict, bool]]) -> None:
    """(path, label map, top-level) of every ``metadata.labels`` and ``matchLabels`` below ``node``."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            _labels(item, f"{where}[{i}]", False, out)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        path = f"{where}.{key}" if where else str(key)
        if key in _SKIPPED_KEYS:
            continue
        if key == "metadata" and isinstance(value, dict) and isinstance(value.get("labels"), dict):
            out.append((f"{path}.labels", value["labels"], top))
        elif key == "matchLabels" and isinstance(value, dict):
            out.append((path, value, False))
        if isinstance(value, (dict, list)) and key != "metadata":
            _labels(value, path, False, out)


def label_problems(type_token: str, props: Any) -> list[LabelProblem]:
    """The labels of one object the API server's label validation refuses (see the module docstring)."""
    if not isinstance(props, dict) or not str(type_token).startswith("kubernetes:"):
        return []
    if type_token.endswith(":CustomResourceDefinition"):
        return []
    custom = is_custom_type(type_token)
    if custom and own_rules(split_type(type_token)[0]):
        return []
    maps: list[tuple[str, dict, bool]] = []
    _labels(props, "", True, maps)
    found = []
    for where, labels, top in maps:
        for key, value in labels.items():
            if not (_judged(key) and _judged(value)):
                continue  # a number or boolean is a type error (api-schema-valid), a template S27's
            why = _why(key, value)
            if why is not None:
                hole = any(placeholder_in(t, ()) is not None or TOKEN.search(t) for t in (key, value))
                found.append(LabelProblem(where, key, value, why, hole, top or not custom))
    return found[:_MAX]
