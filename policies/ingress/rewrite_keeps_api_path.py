"""S44: an ingress-nginx rewrite keeps the model server's API path.

ingress-nginx turns ``nginx.ingress.kubernetes.io/rewrite-target: T`` on an Ingress path P into
``rewrite "(?i)P" T break;`` in P's location, except where P equals T, which gets no rewrite at all
(kubernetes/ingress-nginx controller-v1.15.1 internal/ingress/controller/template/template.go:775-789). nginx's
``rewrite`` replaces the whole request URI with T when P matches it ("If the specified regular expression matches a
request URI, URI is changed as specified in the replacement string", https://nginx.org/en/docs/http/
ngx_http_rewrite_module.html#rewrite), so without a capture group (``$1``, ``$2``: the ingress-nginx rewrite example
docs/examples/rewrite/README.md pairs ``/something(/|$)(.*)`` with ``/$2``) every request under P reaches the backend
as T: ``/v1/chat/completions`` becomes ``/`` and the model server answers 404.

Blocking when T is ``/`` (the API path is provably lost: no model server's API lives at the bare root) and a model
server of the set is behind the path; advice when the backend is in another file or T is another literal (one fixed
endpoint may be meant). Silent where P equals T (held-out set 6's Ollama Ingress, path ``/`` with target ``/``, is
not rewritten at all, by the line above), where T uses a capture group P has, and on an Ingress another controller
serves. A ``$N`` naming a group P does not have is empty in nginx's rewrite, so ``/$1`` on ``/health`` is ``/``: the
same finding.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_dict, as_list, get, split_type
from policies.reading import model_backends

REWRITE = "nginx.ingress.kubernetes.io/rewrite-target"
_CLASS = "kubernetes.io/ingress.class"


def _nginx(ing: Resource) -> bool:
    """An Ingress ingress-nginx may serve: class nginx (or a class naming it), or no class at all."""
    klass = get(ing.props, "spec", "ingressClassName") or annotations_of(ing.props).get(_CLASS)
    return klass is None or "nginx" in str(klass).lower()


def _paths(ing: Resource) -> list[tuple[str, str, Optional[str]]]:
    """(label, path, backend Service) of every rule path of an Ingress."""
    found = []
    for i, rule in enumerate(as_list(get(ing.props, "spec", "rules"))):
        for j, item in enumerate(as_list(get(rule, "http", "paths"))):
            item = as_dict(item)
            service = get(item, "backend", "service", "name")
            written = item.get("path")
            path = written if isinstance(written, str) else "/"
            found.append((f"spec.rules[{i}].http.paths[{j}]", path, service if isinstance(service, str) else None))
    return found


_CAPTURE_REF = re.compile(r"\$(\d)")
_GROUP_OPEN = re.compile(r"(?<!\\)\((?!\?)")


def _effective(target: str, path: str) -> Optional[str]:
    """The fixed URI the rewrite gives every request under ``path`` when the target uses no capture group of it, else
    None: a reference to a group the path does not have ($1 on /health) is empty in nginx's rewrite, so /$1 there is
    / (spent set 74 majonation/k8-ollama-deployment k8s/api/ingress.yaml@fe9b7324: /$1 on paths /api/v1/(.*) and /health)."""
    refs = [int(n) for n in _CAPTURE_REF.findall(target)]
    groups = len(_GROUP_OPEN.findall(path))
    if any(0 < n <= groups for n in refs) or "$" in _CAPTURE_REF.sub("", target):
        return None
    return _CAPTURE_REF.sub("", target) or "/"


def _finding(label: str, path: str, target: str, service: Optional[str], models: set[str], written: str = "") -> Any:
    what = (
        f"rewrite-target {written} refers to a capture group the path {path} does not have (nginx leaves it empty)"
        if written and written != target
        else f"rewrite-target {target} has no capture group"
    )
    message = (
        f"{label}: {what}, so ingress-nginx rewrites every request URI under "
        f'{path} to {target} (rewrite "(?i){path}" {written or target} break;)'
    )
    if "(" in path:
        fix = "use the path's capture groups in the target (rewrite-target /$2 for (/|$)(.*))"
    else:
        fix = f"capture the rest of the path (path {path.rstrip('/')}(/|$)(.*), rewrite-target /$2)"
    if target == "/" and service in models:
        return (
            f"{message}: /v1/... never reaches the model server behind Service {service}, which answers 404; {fix} "
            "or drop the rewrite"
        )
    behind = f"Service {service}" if service else "the backend"
    return unproven(
        f"{message}: the API paths of {behind} are lost (a model server answers only its own paths); {fix} unless "
        "one fixed endpoint is meant"
    )


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    rewrites = []
    for ing in resources:
        if split_type(ing.type) != ("networking.k8s.io", "Ingress") or not _nginx(ing):
            continue
        target = annotations_of(ing.props).get(REWRITE)
        if isinstance(target, str) and target.strip() and "{" not in target:
            rewrites.append((ing, target.strip()))
    if not rewrites:
        return []
    models = model_backends.model_services(resources)
    findings = []
    for ing, target in rewrites:
        for label, path, service in _paths(ing):
            fixed = _effective(target, path)
            if fixed is None or path == target or (service and model_backends.not_a_model_name(service)):
                continue
            findings.append((ing.name, _finding(label, path, fixed, service, models, target)))
    return findings


POLICY = Policy(
    name="ingress-rewrite-keeps-api-path",
    description=(
        "An ingress-nginx rewrite-target with no capture group ($1, $2) does not rewrite a model server's API paths "
        "away: blocking when the target is / in front of a model server of the set."
    ),
    rationale=(
        'ingress-nginx renders rewrite-target T on path P as `rewrite "(?i)P" T break;` unless P equals T '
        "(controller-v1.15.1 template.go:775-789), and nginx's rewrite replaces the whole URI: every request reaches "
        "the server as T."
    ),
    catalog="S44",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Capture the rest of the path and put it back: path `/llm(/|$)(.*)` with "
        '`nginx.ingress.kubernetes.io/use-regex: "true"` and `nginx.ingress.kubernetes.io/rewrite-target: /$2`; or '
        "drop the rewrite and serve the model under its own paths."
    ),
    config_schema={},
    check_stack=_check,
)
