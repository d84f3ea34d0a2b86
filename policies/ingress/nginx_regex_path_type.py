"""G57: an ingress-nginx Ingress writes a regex path with pathType ImplementationSpecific, not Prefix or Exact.

ingress-nginx from controller v1.12.0 validates every path whose pathType is not ImplementationSpecific against
``^/[[:alnum:]_\\-/]*$`` (v1.14: dots allowed too) and refuses the Ingress otherwise: kubernetes/ingress-nginx
controller-v1.12.0 internal/ingress/inspector/inspector.go:45-65 ``ValidatePathType`` ("path %s cannot be used with
pathType %s"), internal/ingress/inspector/rules.go:37 ``validPathType``, called by CheckIngress (the admission
webhook's check) at internal/ingress/controller/controller.go:352-357 when ``strict-validate-path-type`` is on, which
is the default from v1.12.0 (internal/ingress/controller/config/config.go:897; v1.11.0 config.go:932 default false, "This
will be true in future releases"). A regex path (``/()(.*)``, ``/vllm(/|$)(.*)``, the form ``rewrite-target: /$2``
needs) with ``pathType: Prefix`` is therefore denied at apply time by a current controller.

Blocking where the files pin such a controller (an ``ingress-nginx/controller`` image of v1.12 or later, or an
ingress-nginx Helm chart of 4.12.0 or later in a Flux HelmRelease or Argo CD Application) and do not turn the check
off (``strict-validate-path-type: "false"`` in a ConfigMap, or ``controller.config`` in the chart's values the same
object gives); advice otherwise (values read from elsewhere, ``valuesFrom``/``valueFiles``, may turn it off) (an older controller, or one installed
elsewhere, accepts it). Set 18: yuxiaojian/ollama-k8s ingress.yaml.
"""

from __future__ import annotations

import json
import re
from typing import Any

from components.images import major_minor
from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_dict, as_list, get, split_type
from policies.reading.edge import ingress_class

# The most permissive form of the check among the releases that run it (v1.14 allows dots), so a path it refuses is
# refused by every release from v1.12.0.
_VALID = re.compile(r"(?i)^/[a-z0-9._\-/]*$")
_IMAGE = re.compile(r"ingress-nginx/controller(?:-chroot)?:v(\d+)\.(\d+)")
_FIRST_STRICT = (1, 12)  # controller release
_FIRST_STRICT_CHART = (4, 12)  # ingress-nginx chart 4.12.0 ships controller v1.12.0


def _version(text: object) -> tuple[int, int] | None:
    found = re.match(r"^v?(\d+)\.(\d+)", str(text or "").strip())
    return major_minor(found)


def _controller_state(resources: list[Resource]) -> tuple[str | None, bool]:
    """(the pinned controller release or chart that validates path types, e.g. "controller v1.12", or None; True when
    the check is off: a ConfigMap of the files sets strict-validate-path-type "false", or the files pin only releases
    before v1.12.0, whose default is off)."""
    pinned: str | None = None
    off = older = False
    for r in resources:
        group, kind = split_type(r.type)
        if _turned_off(r, kind):
            off = True
        for image in re.findall(r'"image":\s*"([^"]+)"', _json(r.props)) if kind in ("Deployment", "DaemonSet") else []:
            release = major_minor(_IMAGE.search(image))
            if release is not None and release >= _FIRST_STRICT:
                pinned = f"controller {image.rsplit(':', 1)[-1]}"
            older = older or release is not None
        chart, version = _chart(r, group, kind)
        if chart == "ingress-nginx" and (v := _version(version)) is not None:
            if v < _FIRST_STRICT_CHART:
                older = True
            elif not _values_elsewhere(r, kind):
                pinned = f"chart ingress-nginx {version}"
    return pinned, off or (older and pinned is None)


# The switch written off anywhere the controller's configuration can come from in the files: the controller's
# ConfigMap (data), the chart's values (controller.config, which the chart renders into that ConfigMap) in a Flux
# HelmRelease spec.values or an Argo CD Application's helm.valuesObject, or its helm.values YAML text (cold review 29,
# finding 8: only the ConfigMap was read, so a careful HelmRelease that turned the check off was blocked).
_OFF = re.compile(r'strict-validate-path-type(?:\\?["\']|\s)*[:=](?:\s|\\?["\'])*false\b', re.I)


def _turned_off(r: Resource, kind: str) -> bool:
    if kind == "ConfigMap":
        return str(get(r.props, "data", "strict-validate-path-type")).strip().lower() == "false"
    if kind not in ("HelmRelease", "Application"):
        return False
    for parameter in as_list(get(r.props, "spec", "source", "helm", "parameters")):
        parameter = as_dict(parameter)
        if str(parameter.get("name", "")).endswith("strict-validate-path-type"):
            return str(parameter.get("value")).strip().lower() == "false"
    return bool(_OFF.search(_json(r.props)))


def _values_elsewhere(r: Resource, kind: str) -> bool:
    """True when the chart's values come (in part) from outside the object: a HelmRelease's valuesFrom, an Argo CD
    Application's helm.valueFiles. They may turn the check off, so the release pinned is no proof (advice)."""
    if kind == "HelmRelease":
        return bool(get(r.props, "spec", "valuesFrom"))
    return bool(get(r.props, "spec", "source", "helm", "valueFiles"))


def _chart(r: Resource, group: str, kind: str) -> tuple[Any, Any]:
    if kind == "HelmRelease":
        return get(r.props, "spec", "chart", "spec", "chart"), get(r.props, "spec", "chart", "spec", "version")
    if group == "argoproj.io" and kind == "Application":
        return get(r.props, "spec", "source", "chart"), get(r.props, "spec", "source", "targetRevision")
    return None, None


def _json(props: Any) -> str:
    return json.dumps(props, default=str)


def _is_nginx(resource: Resource) -> bool:
    klass = ingress_class(resource)
    if klass is not None:
        return str(klass) == "nginx" or str(klass).endswith("-nginx") or str(klass).startswith("nginx")
    return any(k.startswith("nginx.ingress.kubernetes.io/") for k in annotations_of(resource.props))


def _bad_paths(resource: Resource) -> list[tuple[str, str, str]]:
    found = []
    for i, rule in enumerate(as_list(get(resource.props, "spec", "rules"))):
        for j, path in enumerate(as_list(get(rule, "http", "paths"))):
            path = as_dict(path)
            value, kind = path.get("path"), path.get("pathType")
            if isinstance(value, str) and value and kind in ("Prefix", "Exact") and not _VALID.match(value):
                found.append((f"spec.rules[{i}].http.paths[{j}]", value, str(kind)))
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    ingresses = [r for r in resources if split_type(r.type) == ("networking.k8s.io", "Ingress") and _is_nginx(r)]
    if not ingresses:
        return []
    pinned, off = _controller_state(resources)
    if off:
        return []
    findings: list[tuple[str, str]] = []
    for ingress in ingresses:
        for where, value, kind in _bad_paths(ingress):
            message = (
                f"{where}.path {value} is a regex (or holds characters outside letters, digits, '.', '_', '-', '/') "
                f"with pathType {kind}: ingress-nginx from v1.12.0 validates such paths by default "
                f"(strict-validate-path-type) and its admission webhook refuses the Ingress ('path {value} cannot be "
                f"used with pathType {kind}'); use pathType ImplementationSpecific for a regex path"
            )
            if pinned:
                findings.append((ingress.name, message + f" (the files pin {pinned})"))
            else:
                findings.append((ingress.name, unproven(message + " (the controller's release is not in these files)")))
    return findings


POLICY = Policy(
    name="nginx-regex-path-type",
    description="An ingress-nginx Ingress gives a regex path pathType ImplementationSpecific (v1.12+ refuses Prefix/Exact).",
    catalog="G57",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set pathType: ImplementationSpecific on paths holding regex characters (with nginx.ingress.kubernetes.io/"
        "use-regex or rewrite-target), or write the path as a plain prefix."
    ),
    check_stack=_check,
    rationale=(
        "ingress-nginx v1.12.0 turned strict-validate-path-type on by default (internal/ingress/controller/config/"
        "config.go:897) and its admission check refuses a non-ImplementationSpecific path outside ^/[[:alnum:]_\\-/]*$ "
        "(internal/ingress/inspector/inspector.go:45-65, rules.go:37; controller.go:352-357). Blocking when the files "
        "pin such a controller, advice otherwise."
    ),
)
