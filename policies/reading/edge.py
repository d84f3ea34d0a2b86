"""Read the edge in front of a model on GKE and ingress-nginx: which controller serves an Ingress, and the timeout
it applies to each backend.

Facts relied on (each pinned by tests/policies/test_policy_edge_forms.py):

* GKE Ingress: the controller serves an Ingress whose ``kubernetes.io/ingress.class`` annotation is ``gce``
  (external), ``gce-internal`` or ``gce-regional-external``, or one with no class at all
  (kubernetes/ingress-gce v1.41.1 ``pkg/utils/utils.go:331-357`` IsGCEIngress, classes at
  ``pkg/annotations/ingress.go:62-66``). An Ingress with no class may be any controller's, so only a named class
  counts here; ``spec.ingressClassName`` naming a GKE class does not (GKE's controller ignores it:
  ``gce_ingress_class``).
* A backend's settings come from the BackendConfig (``cloud.google.com/v1``) named by the Service's
  ``cloud.google.com/backend-config`` annotation (or the beta key ``beta.cloud.google.com/backend-config``), a JSON
  ``{"default": name, "ports": {port: name}}`` (``pkg/annotations/service.go:37-47,153-165``); ``spec.timeoutSec``
  is applied only when set (``pkg/backends/features/timeout.go:27-49``), so otherwise the backend service keeps the
  Compute API default of 30 s ("timeoutSec ... The default is 30 seconds",
  https://cloud.google.com/compute/docs/reference/rest/v1/backendServices; GKE's "Backend service timeout",
  https://cloud.google.com/kubernetes-engine/docs/how-to/ingress-configuration). For an external Application Load
  Balancer that timeout bounds the whole HTTP response, so a generation streamed for longer is cut.
* GKE Gateway: ``GCPBackendPolicy`` (``networking.gke.io/v1``) ``spec.default.timeoutSec`` on the target Service or
  InferencePool, the same 30 s default when unset
  (https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources).
* KEDA HTTP add-on: the interceptor in front of an ``HTTPScaledObject`` waits ``spec.timeouts.responseHeader`` for
  the backend's response headers, else its ``KEDA_HTTP_RESPONSE_HEADER_TIMEOUT`` (kedacore/http-add-on v0.15.0
  ``operator/apis/http/v1alpha1/httpscaledobject_types.go:125-133``; ``interceptor/config/timeouts.go:15-18``: default
  300 s from v0.14.0, 500 ms up to v0.13.0 (``KEDA_RESPONSE_HEADER_TIMEOUT`` at v0.13.0 ``timeouts.go:17``)). A
  reply that is not streamed sends its headers only when the whole generation is done.
* ingress-nginx: ``nginx.ingress.kubernetes.io/proxy-read-timeout`` (seconds), default 60 from the controller's
  ConfigMap key ``proxy-read-timeout`` (kubernetes/ingress-nginx ``internal/ingress/controller/config/config.go``
  NewDefault: ProxyReadTimeout 60, ProxySendTimeout 60). The ConfigMap lives with the controller, outside a model's
  manifests, so what is said of nginx is advisory.
* Kong Ingress Controller: the Kong service an Ingress backend becomes waits ``read_timeout`` milliseconds between two
  reads from the upstream, 60000 unless the Kubernetes Service carries ``konghq.com/read-timeout``
  (Kong/kubernetes-ingress-controller v3.5.13 ``internal/dataplane/translator/subtranslator/ingress.go:371`` with
  ``subtranslator_vars.go:18`` DefaultServiceTimeout 60000; ``internal/dataplane/kongstate/service.go:119-131, 181``
  reads the Service's annotation).
* NGINX Inc.'s controller (nginxinc/kubernetes-ingress, IngressClass ``spec.controller: nginx.org/ingress-controller``,
  v4.0.1 ``internal/k8s/controller.go:77``): ``nginx.org/proxy-read-timeout`` in nginx time syntax (``60s``, ``5m``, a
  bare number of seconds; ``internal/configs/parsing_helpers.go:191-212`` ParseTime), read at
  ``internal/configs/annotations.go:203-209``; unset, the ConfigMap key ``proxy-read-timeout``
  (``internal/configs/configmaps.go:78``), default ``"60s"`` (``internal/configs/config_params.go:211``). Both
  controllers may use the class name ``nginx``, so their annotations tell them apart: ``nginx.org/``/``nginx.com/``
  keys are NGINX Inc.'s, ``nginx.ingress.kubernetes.io/`` keys ingress-nginx's; an IngressClass of the set names its
  controller.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from components.edge_timeouts import default_seconds
from policies.kube import annotations_of, as_dict, as_float, as_list, get, split_type
from policies.reading.route_path import INGRESS_TYPES, duration_seconds

__all__ = ["INGRESS_TYPES"]  # re-exported: the Ingress types every edge reader accepts

CLASS_ANNOTATION = "kubernetes.io/ingress.class"
GCE_EXTERNAL = ("gce", "gce-regional-external")
GCE_CLASSES = (*GCE_EXTERNAL, "gce-internal")
GCE_BACKEND_TIMEOUT_DEFAULT = default_seconds("gke-backend")  # Compute API BackendService.timeoutSec default
BACKEND_CONFIG_KEYS = ("cloud.google.com/backend-config", "beta.cloud.google.com/backend-config")
NGINX = "nginx.ingress.kubernetes.io"
NGINX_READ_DEFAULT = default_seconds("ingress-nginx")  # ingress-nginx ConfigMap proxy-read-timeout default
NGINX_INC_KEYS = ("nginx.org/", "nginx.com/")  # NGINX Inc.'s controller's annotation prefixes
NGINX_INC_CONTROLLER = "nginx.org/ingress-controller"
INGRESS_NGINX_CONTROLLER = "k8s.io/ingress-nginx"
NGINX_INC_READ = "nginx.org/proxy-read-timeout"
NGINX_INC_READ_DEFAULT = default_seconds(
    "nginx-inc"
)  # nginxinc/kubernetes-ingress v4.0.1 internal/configs/config_params.go:211 "60s"


def ingress_class(resource: Any) -> Optional[str]:
    """The Ingress's class: the legacy annotation (which GKE's controller reads), else spec.ingressClassName."""
    value = annotations_of(resource.props).get(CLASS_ANNOTATION) or get(resource.props, "spec", "ingressClassName")
    return value if isinstance(value, str) else None


def gce_ingress_class(resource: Any) -> Optional[str]:
    """The class GKE's Ingress controller reads: the legacy annotation alone. An Ingress with spec.ingressClassName set
    is never GKE's (kubernetes/ingress-gce v1.41.1 pkg/utils/utils.go:331-357 IsGCEIngress: "Ingress controller does
    not have any ingress classes that can be specified by spec.IngressClassName"), so it gets no Google load balancer
    (session 24 review F11)."""
    value = annotations_of(resource.props).get(CLASS_ANNOTATION)
    return value if isinstance(value, str) else None


def is_gce_ingress(resource: Any) -> bool:
    """An Ingress that names one of GKE's Ingress classes (by the annotation GKE reads)."""
    return gce_ingress_class(resource) in GCE_CLASSES


def _nginx_keys(resource: Any) -> tuple[bool, bool]:
    """(carries ingress-nginx annotations, carries NGINX Inc. annotations)."""
    keys = [k for k in annotations_of(resource.props) if isinstance(k, str)]
    return any(k.startswith(NGINX + "/") for k in keys), any(k.startswith(NGINX_INC_KEYS) for k in keys)


def is_nginx_ingress(resource: Any) -> bool:
    """An Ingress that names the ingress-nginx class, unless only NGINX Inc.'s annotations are on it (that
    controller's class is often "nginx" too)."""
    community, inc = _nginx_keys(resource)
    return ingress_class(resource) == "nginx" and (community or not inc)


def ingress_class_controllers(resources: list) -> dict[str, str]:
    """IngressClass name -> its spec.controller, for every IngressClass in the set."""
    return {
        name: controller
        for r in resources
        if split_type(r.type) == ("networking.k8s.io", "IngressClass")
        and isinstance(name := get(r.props, "metadata", "name"), str)
        and isinstance(controller := get(r.props, "spec", "controller"), str)
    }


def is_nginx_inc_ingress(resource: Any, controllers: Mapping[str, str]) -> bool:
    """An Ingress NGINX Inc.'s controller serves: its IngressClass of the set names nginx.org/ingress-controller, or
    it carries nginx.org/nginx.com annotations and none of ingress-nginx's."""
    community, inc = _nginx_keys(resource)
    controller = controllers.get(ingress_class(resource) or "")
    if controller is not None:
        return controller.strip() == NGINX_INC_CONTROLLER
    return inc and not community


_NGINX_TIME = re.compile(r"^(?:\d+(?:ms|[yMwdhms])?\s*)+$")
_NGINX_PART = re.compile(r"(\d+)(ms|[yMwdhms])?")
# http://nginx.org/en/docs/syntax.html: a bare number is seconds; M is 30 days, y 365 days.
_NGINX_UNITS = {"ms": 0.001, "": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "M": 30 * 86400, "y": 365 * 86400}


def nginx_time_seconds(value: Any) -> Optional[float]:
    """Seconds of an nginx time (``60s``, ``1m30s``, ``500ms``, a bare number of seconds), None when not one."""
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if not text or _NGINX_TIME.match(text) is None:
        return None
    return float(sum(int(n) * _NGINX_UNITS[unit] for n, unit in _NGINX_PART.findall(text)))


def nginx_inc_read_timeout(resource: Any) -> EdgeTimeout:
    """NGINX Inc.'s proxy read timeout of an Ingress: nginx.org/proxy-read-timeout, else the controller's 60 s."""
    value = nginx_time_seconds(annotations_of(resource.props).get(NGINX_INC_READ))
    if value is not None:
        return EdgeTimeout(value, "set")
    return EdgeTimeout(float(NGINX_INC_READ_DEFAULT), "unset: NGINX Ingress Controller's default unless its ConfigMap changes it")


def nginx_read_seconds(resource: Any) -> tuple[float, bool]:
    """(proxy-read-timeout, explicitly set) of an ingress-nginx Ingress; the controller default when unset."""
    value = as_float(annotations_of(resource.props).get(f"{NGINX}/proxy-read-timeout"))
    return (value, True) if value is not None else (float(NGINX_READ_DEFAULT), False)


KONG_READ_TIMEOUT = "konghq.com/read-timeout"
KONG_READ_DEFAULT_MS = default_seconds("kong") * 1000


def is_kong_ingress(resource: Any) -> bool:
    """An Ingress that names the Kong class."""
    return ingress_class(resource) == "kong"


def kong_read_timeout(service: Optional[Mapping]) -> EdgeTimeout:
    """The Kong read timeout of an Ingress backend: the Service's konghq.com/read-timeout (milliseconds), else Kong's
    60 s default (said as unknown where the Service is not among the files)."""
    value = as_float(annotations_of(service).get(KONG_READ_TIMEOUT)) if service is not None else None
    if value is not None:
        return EdgeTimeout(value / 1000.0, "set")
    why = "unset on the Service" if service is not None else "the Service is not among the files"
    return EdgeTimeout(KONG_READ_DEFAULT_MS / 1000.0, f"{why}: Kong's default")


def ingress_backend_ports(resource: Any) -> list[tuple[str, Any]]:
    """(Service name, port number or name) of every backend of an Ingress (v1 and v1beta1 shapes)."""
    spec = get(resource.props, "spec")
    found = []
    for backend in [get(spec, "defaultBackend"), get(spec, "backend")] + [
        get(p, "backend") for r in as_list(get(spec, "rules")) for p in as_list(get(r, "http", "paths"))
    ]:
        name = get(backend, "service", "name") or get(backend, "serviceName")
        port = get(backend, "service", "port", "number") or get(backend, "service", "port", "name") or get(backend, "servicePort")
        if isinstance(name, str) and (name, port) not in found:
            found.append((name, port))
    return found


def backend_config_name(service: Mapping, port: Any) -> Optional[str]:
    """The BackendConfig a Service's annotation attaches to `port` (GA key first, as ingress-gce reads it); None
    when no annotation names one."""
    annotations = annotations_of(service)
    text = next((annotations[k] for k in BACKEND_CONFIG_KEYS if k in annotations), None)
    if not isinstance(text, str):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    ports = as_dict(get(parsed, "ports"))
    named = ports.get(str(port)) if port is not None else None
    if named is None and port is not None:
        named = next((v for k, v in ports.items() if _service_port_matches(service, k, port)), None)
    chosen = named or get(parsed, "default") or (next(iter(ports.values()), None) if port is None else None)
    return chosen if isinstance(chosen, str) else None


def _service_port_matches(service: Mapping, key: str, port: Any) -> bool:
    """Whether an annotation's port key (a number or a port name) names the Ingress backend's port."""
    for p in as_list(get(service, "spec", "ports")):
        names = {str(get(p, "name")), str(get(p, "port"))}
        if key in names and str(port) in names:
            return True
    return False


@dataclass(frozen=True)
class EdgeTimeout:
    """The timeout an edge applies to one backend: seconds, and how it was found ("set" or why it is the default)."""

    seconds: float
    how: str

    @property
    def explicit(self) -> bool:
        """True when a field of the set chose the value."""
        return self.how == "set"


def gce_backend_timeout(service: Optional[Mapping], port: Any, backend_configs: Mapping[str, Mapping]) -> Optional[EdgeTimeout]:
    """The backend service timeout GKE gives one Ingress backend; None when a BackendConfig outside the set decides."""
    default = float(GCE_BACKEND_TIMEOUT_DEFAULT)
    if service is None:
        # A BackendConfig in the set that sets a timeout is presumably the one the missing Service names.
        if any(as_float(get(c, "spec", "timeoutSec")) is not None for c in backend_configs.values()):
            return None
        return EdgeTimeout(default, "the Service is not in this set; GKE's default unless its BackendConfig sets timeoutSec")
    name = backend_config_name(service, port)
    if name is None:
        return EdgeTimeout(default, "unset: no BackendConfig on the Service, GKE's default")
    config = backend_configs.get(name)
    if config is None:
        return None
    value = as_float(get(config, "spec", "timeoutSec"))
    if value is None:
        return EdgeTimeout(default, f"BackendConfig {name} sets no timeoutSec, GKE's default")
    return EdgeTimeout(value, "set")


def backend_configs(resources: list) -> dict[str, Mapping]:
    """BackendConfig name -> its object, for every cloud.google.com BackendConfig in the set."""
    out = {}
    for r in resources:
        group, kind = split_type(r.type)
        name = get(r.props, "metadata", "name")
        if group == "cloud.google.com" and kind == "BackendConfig" and isinstance(name, str):
            out[name] = r.props
    return out


def services_by_name(resources: list) -> dict[str, Mapping]:
    """Service name -> its object, for every core Service in the set."""
    return {
        name: r.props
        for r in resources
        if split_type(r.type) == ("", "Service") and isinstance(name := get(r.props, "metadata", "name"), str)
    }


def http_scaled_object_header_timeout(resource: Any) -> Optional[float]:
    """An HTTPScaledObject's spec.timeouts.responseHeader in seconds; None when unset (the interceptor's default)."""
    return duration_seconds(get(resource.props, "spec", "timeouts", "responseHeader"))


def gcp_backend_policies(resources: list) -> list[tuple[Any, str, str, Optional[float]]]:
    """(policy, target kind, target name, spec.default.timeoutSec or None) of every GKE GCPBackendPolicy."""
    found = []
    for r in resources:
        if split_type(r.type) != ("networking.gke.io", "GCPBackendPolicy"):
            continue
        ref = as_dict(get(r.props, "spec", "targetRef"))
        kind, name = ref.get("kind"), ref.get("name")
        if isinstance(kind, str) and isinstance(name, str):
            found.append((r, kind, name, as_float(get(r.props, "spec", "default", "timeoutSec"))))
    return found
