"""Two edges whose request timeout lives outside the route object: Azure Application Gateway's backend request timeout
and Traefik's entry-point read timeout. Read by S9 (policies/timeouts/llm_route_timeout.py); the defaults are rows of
components/edge_timeouts.toml (``azure-appgw``, ``traefik-entrypoint``) with their sources.

* Azure Application Gateway Ingress Controller (AGIC): an Ingress of class ``azure-application-gateway``
  (Azure/application-gateway-kubernetes-ingress 1.9.8 ``pkg/environment/environment.go:125``; the legacy annotation
  ``kubernetes.io/ingress.class: azure/application-gateway``) becomes backend HTTP settings whose request timeout is 30 s
  (``pkg/appgw/backendhttpsettings.go:239``) unless the Ingress sets ``appgw.ingress.kubernetes.io/request-timeout``
  (seconds; ``pkg/annotations/ingress_annotations.go:57-58, :225-227``).
* Traefik: every entry point reads a request under ``transport.respondingTimeouts.readTimeout``, 60 s by default
  (traefik/traefik v3.7.9 ``pkg/config/static/static_config.go:51, :207-210``; from v2.11.2 and v3.0, before which it
  was 0). Traefik sets it as the connection's read deadline (``pkg/server/server_entrypoint_tcp.go:270-274``) and as
  the HTTP server's ReadTimeout (:732); Go's server leaves that deadline on the connection while the handler runs and
  cancels the request when it passes, so an HTTP/1.1 request whose reply (streamed or not) lasts longer is cut at 60 s
  (traefik/traefik issue 13820: long requests ended "at exactly 60s"). It is static configuration: the Traefik
  container's ``--entrypoints.<name>.transport.respondingtimeouts.readtimeout`` argument (Traefik's flags are read
  case-insensitively) or the chart's ``ports.<name>.transport.respondingTimeouts.readTimeout`` value (a HelmRelease's
  ``spec.values``, a k3s HelmChartConfig's ``spec.valuesContent``). An IngressRoute names its entry points
  (``spec.entryPoints``, every one when empty); an Ingress served by Traefik names them in
  ``traefik.ingress.kubernetes.io/router.entrypoints``.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import yaml

from components.edge_timeouts import default_seconds
from policies.kube import annotations_of, as_dict, as_list, containers, get, pod_specs, split_type
from policies.reading.route_path import duration_seconds

AGIC_CLASS = "azure-application-gateway"
AGIC_LEGACY_CLASS = "azure/application-gateway"
AGIC_PREFIX = "appgw.ingress.kubernetes.io/"
AGIC_REQUEST_TIMEOUT = AGIC_PREFIX + "request-timeout"
AGIC_DEFAULT = float(default_seconds("azure-appgw"))
TRAEFIK_READ_DEFAULT = float(default_seconds("traefik-entrypoint"))
TRAEFIK_ENTRYPOINTS = "traefik.ingress.kubernetes.io/router.entrypoints"
_TRAEFIK_PREFIX = "traefik.ingress.kubernetes.io/"
_READ_FLAG = re.compile(r"^--entry[pP]oints\.([^.=]+)\.transport\.respondingtimeouts\.readtimeout=(.+)$", re.IGNORECASE)
_HELM_KINDS = frozenset({"HelmRelease", "HelmChart", "HelmChartConfig"})


def _classes(ing: Any) -> set[str]:
    values = {get(ing.props, "spec", "ingressClassName"), annotations_of(ing.props).get("kubernetes.io/ingress.class")}
    return {v.strip() for v in values if isinstance(v, str)}


def is_agic_ingress(ing: Any) -> bool:
    """An Ingress Azure's Application Gateway Ingress Controller serves: its class, or its appgw annotations."""
    keys = [k for k in annotations_of(ing.props) if isinstance(k, str)]
    return bool(_classes(ing) & {AGIC_CLASS, AGIC_LEGACY_CLASS}) or any(k.startswith(AGIC_PREFIX) for k in keys)


def agic_request_timeout(ing: Any) -> tuple[float, bool]:
    """(the backend request timeout in seconds, whether the Ingress sets it) of an AGIC Ingress."""
    raw = annotations_of(ing.props).get(AGIC_REQUEST_TIMEOUT)
    text = str(raw).strip() if isinstance(raw, (str, int)) and not isinstance(raw, bool) else ""
    return (float(text), True) if text.isdigit() else (AGIC_DEFAULT, False)


def is_traefik_ingress(ing: Any) -> bool:
    """An Ingress Traefik serves: class traefik, or Traefik's router annotations."""
    keys = [k for k in annotations_of(ing.props) if isinstance(k, str)]
    return "traefik" in _classes(ing) or any(k.startswith(_TRAEFIK_PREFIX) for k in keys)


def _traefik_seconds(value: Any) -> Optional[float]:
    """A Traefik duration (Go syntax, or a bare number of seconds) in seconds; None if unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip().strip("\"'")
    return float(text) if re.fullmatch(r"\d+(\.\d+)?", text) else duration_seconds(text)


def _chart_values(r: Any) -> dict:
    """The values a Traefik HelmRelease / HelmChart / HelmChartConfig passes its chart ({} otherwise)."""
    if split_type(r.type)[1] not in _HELM_KINDS or "traefik" not in str(get(r.props, "metadata", "name")).lower():
        return {}
    values = as_dict(get(r.props, "spec", "values"))
    text = get(r.props, "spec", "valuesContent")
    if isinstance(text, str) and len(text) < 200_000:
        try:
            parsed = yaml.safe_load(text)
        except yaml.YAMLError:
            parsed = None
        values = {**values, **as_dict(parsed)}
    return values


def traefik_entry_timeouts(resources: list) -> dict[str, float]:
    """Entry point name (lower case) -> the readTimeout the files' Traefik static configuration gives it."""
    found: dict[str, float] = {}
    for r in resources:
        for _, spec in pod_specs(r):
            for c in containers(spec):
                if "traefik" not in str(c.get("image", "")).lower():
                    continue
                for arg in [*as_list(c.get("args")), *as_list(c.get("command"))]:
                    m = _READ_FLAG.match(str(arg).strip())
                    if m and (seconds := _traefik_seconds(m.group(2))) is not None:
                        found[m.group(1).lower()] = seconds
        for name, port in as_dict(_chart_values(r).get("ports")).items():
            seconds = _traefik_seconds(get(port, "transport", "respondingTimeouts", "readTimeout"))
            if seconds is not None:
                found[str(name).lower()] = seconds
    return found


def traefik_read_timeout(points: list[str], configured: dict[str, float]) -> tuple[float, bool]:
    """(the shortest readTimeout of the entry points a route uses, whether the files set it for them all). A route
    on every entry point (no list) takes the default unless the files set one for some entry point (then the
    shortest of those, said as set)."""
    names = [p.strip().lower() for p in points if p.strip()]
    if not names:
        return (min(configured.values()), True) if configured else (TRAEFIK_READ_DEFAULT, False)
    values = [configured.get(n) for n in names]
    known = [v for v in values if v is not None]
    if len(known) == len(values):
        return min(known), True
    return min([*known, TRAEFIK_READ_DEFAULT]), False


def ingress_entry_points(ing: Any) -> list[str]:
    """The entry points a Traefik Ingress names (router.entrypoints, comma separated); [] for every one."""
    raw = annotations_of(ing.props).get(TRAEFIK_ENTRYPOINTS)
    return [p for p in str(raw).split(",") if p.strip()] if isinstance(raw, str) else []


def route_entry_points(ir: Any) -> list[str]:
    """The entry points an IngressRoute names; [] for every one."""
    return [str(p) for p in as_list(get(ir.props, "spec", "entryPoints")) if isinstance(p, (str, int))]
