"""G32 (companion): an internet-facing ALB Ingress must speak TLS 1.2+ only and keep strangers out.

Catalogue row 32 keeps models off public load balancers except through the ALB gateway path;
this policy is about that path itself. An Application Load Balancer that the AWS Load Balancer
Controller makes internet-facing answers anyone on the internet, so it must:

* use a TLS 1.2+ security policy (``alb.ingress.kubernetes.io/ssl-policy``): without the
  annotation the controller applies its default ``ELBSecurityPolicy-2016-08``, which accepts TLS
  1.0 and 1.1 (controller v3.5.0 ``pkg/config/controller_config.go:49``), and an Ingress without
  an HTTPS listener sends prompts and answers in clear text;
* and carry at least one guard that keeps strangers from the models:
  - an API key on every path it forwards: each backend resolves, through Services, KServe predictors
    and Istio VirtualServices in the same stack, to vLLM containers that read ``VLLM_API_KEY`` from a
    Secret (or pass ``--api-key``), and every path forwarded to them (each Ingress path, and each
    VirtualService route's ``uri`` match, after any ``rewrite``) starts with a prefix their release's
    key guards. vLLM checks ``url_path.startswith(GUARDED_PREFIX)`` (0.33.0
    ``entrypoints/serve/middleware/authenticate.py:11``, ``:59``); ``/invocations``, ``/tokenize``,
    ``/pooling``, ``/metrics`` and ``/health`` stay open (``entrypoints/common/cli_args.py:339-345``).
    The prefixes per release are components/vllm_auth.py's, read in each wheel (0.8.5 to 0.21 guard
    ``/v1`` alone); an image whose tag names no release read gets ``/v1``, which every release guards.
    A VirtualService route without a ``uri`` match forwards every path;
  - ``inbound-cidrs`` (or the class's ``inboundCIDRs``) that, merged per IP version, cover at most a
    /8 of IPv4 and a /32 of IPv6 (components/aws_ids.py ``sources_too_wide``: a split such as
    0.0.0.0/1 + 128.0.0.0/1 is the whole internet), ignored by the controller when ``security-groups``
    is set; or ``security-group-prefix-lists`` without ``inbound-cidrs``;
  - ALB authentication: ``auth-type`` cognito or oidc.

  A WAF web ACL alone is not a guard: its rules are not visible here, and a managed rule set lets an
  ordinary request to ``/invocations`` through.

Annotation names and defaults are those of controller v3.5.0 (``pkg/annotations/constants.go``,
``docs/guide/ingress/annotations.md``); an IngressClass whose ``spec.parameters`` name an
``IngressClassParams`` in the same stack contributes its scheme, sslPolicy, inboundCIDRs and
wafv2AclArn, which the controller prefers to the annotations.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping
from typing import Any

from components.aws_ids import CONTROLLER_DEFAULT_SSL_POLICY, DEFAULT_SSL_POLICY, sources_too_wide, tls12_or_newer
from components.vllm_auth import EVERY_RELEASE, image_guarded_prefixes, path_guarded
from policies.framework import Policy, Resource, Unproven, unproven
from policies.kube import annotations_of, as_dict, as_list, containers, get, pod_specs, split_type
from policies.reading.server_names import SERVER_WORD
from policies.reading.serving import model_servers, namespace_of, pod_labels, selector_matches

ALB = "alb.ingress.kubernetes.io/"
ALB_CONTROLLER = "ingress.k8s.aws/alb"
INGRESS_TYPES = (
    "kubernetes:networking.k8s.io/v1:Ingress",
    "kubernetes:networking.k8s.io/v1beta1:Ingress",
    "kubernetes:extensions/v1beta1:Ingress",
)
API_KEY_ENV = "VLLM_API_KEY"


def by_kind(resources: list[Resource]) -> dict[str, list[Resource]]:
    out: dict[str, list[Resource]] = {}
    for r in resources:
        out.setdefault(split_type(r.type)[1], []).append(r)
    return out


def _name(r: Resource) -> Any:
    return get(r.props, "metadata", "name")


def alb_class_settings(ing: Resource, kinds: dict[str, list[Resource]], classes: list[str]) -> tuple[bool, dict]:
    """(is an ALB Ingress, the IngressClassParams spec its class names or {})."""
    class_name = get(ing.props, "spec", "ingressClassName") or annotations_of(ing.props).get("kubernetes.io/ingress.class")
    ingress_class = next((c for c in kinds.get("IngressClass", []) if _name(c) == class_name), None)
    is_alb = class_name in classes or (
        ingress_class is not None and get(ingress_class.props, "spec", "controller") == ALB_CONTROLLER
    )
    params: dict = {}
    ref = as_dict(get(ingress_class.props, "spec", "parameters")) if ingress_class is not None else {}
    if ref.get("kind") == "IngressClassParams":
        found = next((p for p in kinds.get("IngressClassParams", []) if _name(p) == ref.get("name")), None)
        params = as_dict(get(found.props, "spec")) if found is not None else {}
    return is_alb, params


def _paths(ing: Resource) -> list[tuple[str, str, Any, Any]]:
    """(host, path, service name, service port) of every rule path and the default backend."""
    spec = as_dict(get(ing.props, "spec"))
    out = []
    default = spec.get("defaultBackend") or spec.get("backend")
    if isinstance(default, dict):
        out.append(("*", "/", *_service_of(default)))
    for rule in as_list(spec.get("rules")):
        host = get(rule, "host") or "*"
        for p in as_list(get(rule, "http", "paths")):
            out.append((host, get(p, "path") or "/", *_service_of(as_dict(get(p, "backend")))))
    return out


def _service_of(backend: Mapping) -> tuple[Any, Any]:
    if isinstance(backend.get("service"), dict):  # networking.k8s.io/v1
        return get(backend, "service", "name"), get(backend, "service", "port", "number") or get(
            backend, "service", "port", "name"
        )
    return backend.get("serviceName"), backend.get("servicePort")  # v1beta1


def _prefixes(found: list[dict]) -> tuple[str, ...]:
    """The prefixes the key guards in every one of these containers' releases (what a shared path may use)."""
    sets = [set(image_guarded_prefixes(str(c.get("image") or ""))) for c in found] or [set(EVERY_RELEASE)]
    return tuple(sorted(set.intersection(*sets)))


def _route_problem(route: Mapping, prefixes: tuple[str, ...]) -> str | None:
    """Why a VirtualService HTTP route may forward a path the key does not guard, or None."""
    rewrite = as_dict(route.get("rewrite"))
    if "uriRegexRewrite" in rewrite or ("uri" in rewrite and not path_guarded(str(rewrite["uri"]), prefixes)):
        return "rewrites the path outside the guarded prefixes"
    matches = as_list(route.get("match"))
    if not matches:
        return "has no uri match, so it forwards every path"
    for m in matches:
        uri = as_dict(get(m, "uri"))
        literal = uri.get("prefix", uri.get("exact"))
        if not isinstance(literal, str) or get(m, "ignoreUriCase") is True or not path_guarded(literal, prefixes):
            return f"matches {json.dumps(uri or {}, sort_keys=True)}, not a uri prefix under {', '.join(prefixes)}"
    return None


def _has_key(container: Mapping) -> bool:
    for item in as_list(container.get("env")):
        if (
            isinstance(item, Mapping)
            and item.get("name") == API_KEY_ENV
            and (get(item, "valueFrom", "secretKeyRef", "name") or isinstance(item.get("value"), str) and item["value"])
        ):
            return True
    argv = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    return any(t == "--api-key" or t.startswith("--api-key=") or " --api-key" in t for t in argv)


def _workload_label_sets(r: Resource) -> list[dict]:
    group, kind = split_type(r.type)
    if group == "ray.io":
        name = _name(r)
        spec = as_dict(get(r.props, "spec"))
        cluster = as_dict(spec.get("rayClusterSpec") or spec.get("rayClusterConfig") or spec)
        labels = dict(as_dict(get(cluster, "headGroupSpec", "template", "metadata", "labels")))
        labels.update({"ray.io/cluster": name, "ray.io/node-type": "head"})
        return [labels]
    return pod_labels(r)


def _serving_containers(r: Resource) -> list[dict]:
    """The containers that answer HTTP for a workload: its model servers, or a Ray head's containers."""
    if split_type(r.type)[0] == "ray.io":
        return [c for path, spec in pod_specs(r) if "head" in path.lower() for c in containers(spec)]
    return [s.container for s in model_servers(r)]


class _Resolver:
    """Backends -> the serving containers behind them, through Services, KServe predictors and VirtualServices."""

    def __init__(self, kinds: dict[str, list[Resource]]) -> None:
        self.kinds = kinds
        self.workloads = [
            r for k in ("Deployment", "StatefulSet", "LeaderWorkerSet", "RayCluster", "RayService") for r in kinds.get(k, [])
        ]

    def _service(self, name: str, namespace: Any) -> list[dict] | None:
        for isvc in self.kinds.get("InferenceService", []):
            if f"{_name(isvc)}-predictor" == name and namespace_of(isvc) == namespace:
                return _serving_containers(isvc)
        svc = next((s for s in self.kinds.get("Service", []) if _name(s) == name and namespace_of(s) == namespace), None)
        if svc is None:
            return None
        selector = get(svc.props, "spec", "selector")
        found = [
            c
            for w in self.workloads
            if namespace_of(w) == namespace
            and any(selector_matches(selector, labels, plain=True) for labels in _workload_label_sets(w))
            for c in _serving_containers(w)
        ]
        return found or None

    def _virtual_service_routes(self, host: str) -> list[tuple[Mapping, str, Any]] | None:
        """(HTTP route, Service name, namespace) of every destination of the VirtualServices bound to a gateway for ``host``."""
        targets: list[tuple[Mapping, str, Any]] = []
        for vs in self.kinds.get("VirtualService", []):
            gateways = [g for g in as_list(get(vs.props, "spec", "gateways")) if g != "mesh"]
            hosts = [h for h in as_list(get(vs.props, "spec", "hosts")) if isinstance(h, str)]
            if not gateways or not any(fnmatch.fnmatchcase(h, host) or fnmatch.fnmatchcase(host, h) for h in hosts):
                continue
            for route in as_list(get(vs.props, "spec", "http")):
                for dest in as_list(get(route, "route")):
                    target = get(dest, "destination", "host")
                    if isinstance(target, str):
                        parts = target.split(".")
                        targets.append((as_dict(route), parts[0], parts[1] if len(parts) > 1 else namespace_of(vs)))
        return targets or None

    def fronts_model(self, ing: Resource) -> bool:
        """True when some path of the Ingress leads, directly or through a VirtualService, to a model server of the run."""
        namespace = namespace_of(ing)
        for host, _path, service, _port in _paths(ing):
            if self._service(str(service), namespace) is not None:
                return True
            if any(self._service(name, ns) is not None for _route, name, ns in self._virtual_service_routes(str(host)) or []):
                return True
        return False

    def unguarded(self, ing: Resource) -> list[str]:
        """Why the API key does not guard every path this Ingress forwards ([] when it does)."""
        reasons: list[str] = []
        namespace = namespace_of(ing)
        for host, path, service, _port in _paths(ing):
            found = self._service(str(service), namespace)
            if found is not None:
                prefixes = _prefixes(found)
                if not path_guarded(str(path), prefixes):
                    reasons.append(f"it forwards {path!r}, outside {', '.join(prefixes)}, which vLLM's key does not guard")
                elif any(not _has_key(c) for c in found):
                    reasons.append(f"backend {service} runs a vLLM server without {API_KEY_ENV}")
                continue
            # A gateway (Istio's ingress gateway): follow the VirtualServices that serve this host.
            routes = self._virtual_service_routes(str(host))
            if routes is None:
                reasons.append(f"backend {service} leads to no vLLM server in the stack")
                continue
            reached: list[dict] = []
            for route, name, ns in routes:
                behind = self._service(name, ns)
                if behind is None:
                    reasons.append(f"route {service} -> {name}.{ns} leads to no vLLM server in the stack")
                    continue
                reached.extend(behind)
                problem = _route_problem(route, _prefixes(behind))
                if any(not _has_key(c) for c in behind):
                    reasons.append(f"route {service} -> {name}.{ns} runs a vLLM server without {API_KEY_ENV}")
                elif problem:
                    reasons.append(f"route {route.get('name') or name} -> {name}.{ns} {problem}")
            # The gateway forwards what the routes match; the Ingress path must still lie under a guarded prefix.
            union = tuple(sorted({p for c in reached for p in image_guarded_prefixes(str(c.get("image") or ""))}))
            if reached and all(_has_key(c) for c in reached) and not path_guarded(str(path), union):
                reasons.append(f"it forwards {path!r}, outside {', '.join(union)}, which vLLM's key does not guard")
        return sorted(set(reasons))


def _network_problem(ann: Mapping, params: Mapping) -> str | None:
    """Why the ALB's sources do not keep strangers out, or None when they do."""
    cidrs = as_list(params.get("inboundCIDRs")) or [c for c in str(ann.get(ALB + "inbound-cidrs", "")).split(",") if c.strip()]
    if ALB + "security-groups" in ann:
        return "its security-groups annotation replaces the controller's rules, whose sources are not visible here"
    if not cidrs and str(ann.get(ALB + "security-group-prefix-lists", "")).strip():
        # Prefix lists alone replace the controller's 0.0.0.0/0 default (annotations.md, security-group-prefix-lists).
        return None
    return sources_too_wide([str(c) for c in cidrs])


def _waf_named(ann: Mapping, params: Mapping) -> bool:
    """True when the Ingress or its class names a WAF web ACL (said in the finding: it is no guard alone)."""
    values = [
        params.get("wafv2AclArn"),
        params.get("wafv2AclName"),
        ann.get(ALB + "wafv2-acl-arn"),
        ann.get(ALB + "wafv2-acl-name"),
        ann.get(ALB + "waf-acl-id"),
    ]
    return any(isinstance(v, str) and v.strip() and v.strip() != "none" for v in values)


def _tls_problem(ing: Resource, ann: Mapping, params: Mapping) -> str | None:
    """What is wrong with the ALB's TLS, or None; an Unproven message where it rests on the controller's default."""
    https = (
        ALB + "certificate-arn" in ann
        or bool(as_list(get(ing.props, "spec", "tls")))
        or "HTTPS" in str(ann.get(ALB + "listen-ports", ""))
    )
    if not https:
        return "it has no HTTPS listener (no certificate-arn, spec.tls or HTTPS listen-port), so prompts cross the internet in clear text"
    policy = params.get("sslPolicy") or ann.get(ALB + "ssl-policy")
    if not policy:
        # The controller's own default, which its installation may change (flag --default-ssl-policy,
        # aws-load-balancer-controller pkg/config/controller_config.go flagDefaultSSLPolicy): advice.
        return unproven(
            f"{ALB}ssl-policy is unset, so the controller applies {CONTROLLER_DEFAULT_SSL_POLICY} (unless its "
            f"--default-ssl-policy says otherwise), which accepts TLS 1.0 and 1.1; set {DEFAULT_SSL_POLICY}"
        )
    if not tls12_or_newer(str(policy)):
        return f"ssl-policy {policy} accepts TLS below 1.2; use {DEFAULT_SSL_POLICY}"
    return None


# Words an Ingress, its hosts or its backend Services use when they front a model API (review 44 #16: spent set 21
# Lavale1012/llm-inference-platform-aws-eks k8s/ingress.yaml, Ingress and Service llm-inference in front of a
# llama.cpp server built into a custom image, labelled G32 blocking; the AWS 2048 game's ingress-2048/service-2048
# names none): a model server's name (reading/server_names.SERVER_WORD), or one of a model API's words below.
_API_WORDS = re.compile(r"(?<![a-z])(model|models|gpt|chat|completions|embed|embedding|embeddings|serving)(?![a-z])")


def _named_for_a_model(ing: Resource) -> bool:
    """Whether the Ingress's name, a host, a path or a backend Service's name says it fronts a model API, when no
    model server of the files is behind it (a custom image the engine table does not know, or one defined elsewhere)."""
    words = [_name(ing), *(str(part) for host, path, service, _ in _paths(ing) for part in (host, path, service))]
    return any(SERVER_WORD.search(word) or _API_WORDS.search(word.lower()) for word in words if isinstance(word, str))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    kinds = by_kind(resources)
    ingresses = [r for r in resources if r.type in INGRESS_TYPES]
    if not ingresses:
        return []
    resolver = _Resolver(kinds)
    classes = [c for c in config.get("albIngressClasses", []) if isinstance(c, str)]
    findings = []
    for ing in ingresses:
        is_alb, params = alb_class_settings(ing, kinds, classes)
        ann = annotations_of(ing.props)
        scheme = params.get("scheme") or ann.get(ALB + "scheme") or "internal"
        if not is_alb or scheme != "internet-facing":
            continue
        where = f"Ingress {namespace_of(ing) or '<default>'}/{_name(ing)} (internet-facing ALB)"
        # An ALB none of whose paths reaches a model server of the files (a demo game, a web UI, or a backend defined
        # elsewhere) is no proven model endpoint: advice (walidshaari/sample-aws-eks-auto-mode
        # examples/spot/2048-ingress.yaml, the 2048 game, blocked twice).
        model = resolver.fronts_model(ing) or _named_for_a_model(ing)
        aside = (
            "" if model else " (no path of it reaches a model server of the files read, nor do its names say it fronts a model)"
        )
        tls = _tls_problem(ing, ann, params)
        if tls:
            found = f"{where}: {tls}{aside}"
            findings.append((ing.name, unproven(found) if isinstance(tls, Unproven) or not model else found))
        network = _network_problem(ann, params)
        if network is None or str(ann.get(ALB + "auth-type", "none")) in ("cognito", "oidc"):
            continue
        key = resolver.unguarded(ing)
        if key:
            waf = " (its WAF web ACL is no guard on its own)" if _waf_named(ann, params) else ""
            found = (
                f"{where}: nothing keeps strangers out{waf}: the API key does not guard every path it forwards "
                f"({'; '.join(key)}); {network} (at most a /8 of IPv4 and a /32 of IPv6 count); and no ALB "
                f"authentication (auth-type cognito|oidc){aside}"
            )
            findings.append((ing.name, found if model else unproven(found)))
    return findings


# The setting every ALB policy reads (alb_https_certificate.py too): which Ingress classes the controller serves.
ALB_CLASSES_SETTING = {
    "type": "array",
    "items": {"type": "string"},
    "default": ["alb"],
    "description": 'Ingress class names the AWS Load Balancer Controller serves (default ["alb"]); an IngressClass '
    "in the stack whose controller is ingress.k8s.aws/alb counts as well.",
}

POLICY = Policy(
    name="internet-facing-alb-guarded",
    description="An internet-facing ALB Ingress must use a TLS 1.2+ ssl-policy and carry a guard: an API key on every "
    "path it forwards, inbound CIDRs that cover at most a /8 (IPv4) or /32 (IPv6) once merged, or ALB authentication.",
    catalog="G32",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Set alb.ingress.kubernetes.io/ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06 with an HTTPS listener "
        "(certificate-arn), and at least one of: an API key every backend's vLLM reads as VLLM_API_KEY from a Secret "
        "with the Ingress and every VirtualService route forwarding only the prefixes the key guards (uri prefix matches; "
        "llm-serving:apiKey does all of it), alb.ingress.kubernetes.io/inbound-cidrs covering at most a /8 of IPv4 and a "
        "/32 of IPv6 once merged (an office range, not a split of 0.0.0.0/0), or auth-type cognito/oidc. A WAF web ACL "
        "alone does not count. Or make the ALB internal (scheme: internal). Annotate "
        'llm-serving.io/exempt-internet-facing-alb-guarded: "<reason>" where a guard lives outside the stack.'
    ),
    config_schema={
        "albIngressClasses": ALB_CLASSES_SETTING,
    },
    check_stack=_check,
    rationale=(
        "An internet-facing ALB (annotation scheme; the controller's default is internal) answers anyone; sixteen GPUs "
        "behind it serve strangers unless something refuses them. The controller's default security policy "
        "ELBSecurityPolicy-2016-08 (aws-load-balancer-controller v3.5.0 pkg/config/controller_config.go:49) accepts TLS 1.0; "
        "AWS recommends ELBSecurityPolicy-TLS13-1-2-2021-06 "
        "(https://docs.aws.amazon.com/elasticloadbalancing/latest/application/describe-ssl-policies.html). vLLM's API key "
        "guards only /v1, /v2, /inference and /cohere in 0.33.0 (entrypoints/serve/middleware/authenticate.py GUARDED_PREFIX); "
        "/invocations serves the same inference without it (entrypoints/common/cli_args.py, --api-key help), so a key counts "
        "only when every forwarded path lies under a guarded prefix; so does a WAF's managed rule set, which is why a WAF "
        "alone is no guard. Source CIDRs are judged merged per IP version (ipaddress.collapse_addresses), so a split of "
        "0.0.0.0/0 is still the internet. Guards at the ALB: inbound-cidrs and auth-type "
        "(docs/guide/ingress/annotations.md at v3.5.0)."
    ),
)
