"""Shapes the Kubernetes API server refuses that its OpenAPI schema accepts (G45, pod-template-api-valid; S26 for a
probe or hook with more than one handler, ``handler_refusals``).

Read from kubernetes/kubernetes at a7264f95ffc8b56377da16e83461aa59467ebb3e (the function names are those of every
release since v1.19):

- pkg/apis/core/validation/validation.go ``validateEnvFrom``: an ``envFrom`` item with neither ``configMapRef`` nor
  ``secretRef`` is Invalid ("must specify one of: `configMapRef` or `secretRef`"), one with both likewise ("may not
  have more than one field specified at a time"). A mis-indented ``name:`` under ``- secretRef:`` yields exactly the
  first: ``secretRef: null`` beside a stray ``name`` (dev set 24, MohammadB88/rag-anythingllm).
- the same file's ``validateContainerResourceName`` (through ``ValidateResourceRequirements``): a resource name must
  be a qualified name (``validateResourceName``: IsQualifiedName, at most one ``/``, a DNS-subdomain prefix and a
  63-character name part); one with no prefix must be a standard container resource (cpu, memory, ephemeral-storage,
  ``hugepages-<size>``); one with a prefix outside kubernetes.io must be an extended resource name, which
  ``requests.``-prefixed names are not (pkg/apis/core/helper/helpers.go IsExtendedResourceName).
- pkg/apis/apps/validation/validation.go ``ValidateDeploymentSpec``, ``ValidateStatefulSetSpec``,
  ``ValidateDaemonSetSpec`` and ``ValidateReplicaSetSpec``: the selector must match the template's labels
  (``selector.Matches(labels.Set(template.Labels))`` else Invalid "`selector` does not match template `labels`").
- the same functions open with ``if spec.Selector == nil`` -> ``field.Required(fldPath.Child("selector"), "")``
  (read at 00010901c746f9ad7ae204b123615c2880d6f2fd L106-107, ValidateStatefulSetSpec), and apps/v1 no longer
  defaults the selector from the template's labels as extensions/v1beta1 did ("In API version apps/v1,
  .spec.selector and .metadata.labels do not default to .spec.template.metadata.labels if not set",
  https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#selector): an apps/v1 workload written with
  a pod template and no ``spec.selector`` is refused (spent set 115 PhenixForge/vllm-serving-kubernetes-platform
  kubernetes/deployment.yaml, labelled G45/S26 blocking). A Kustomize patch, or a server-side-apply patch whose
  template names no container, lacks it by design (silent), and a
  kustomization's ``commonLabels`` or ``labels: includeSelectors`` creates it (kustomize's commonLabels field specs
  create ``spec/selector/matchLabels`` on these kinds), so where the run reads a kustomization it is advice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policies.kube import as_dict, as_list, container_label, get, split_type
from policies.reading.placeholders import sed_marker, terraform_filled

_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_STANDARD = ("cpu", "memory", "ephemeral-storage")
_SELECTOR_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")


def _templated(value: Any) -> bool:
    """A value a renderer or a later step fills in (Helm, envsubst, kustomize vars): not judged."""
    return isinstance(value, str) and ("{{" in value or "$" in value)


def _qualified(value: str) -> bool:
    """IsQualifiedName (k8s.io/apimachinery pkg/util/validation/validation.go)."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and _NAME.match(name) is not None


def is_qualified_name(value: str) -> bool:
    """IsQualifiedName: a label key, an annotation key, a resource name."""
    return _qualified(value)


def _resource_name_error(name: str) -> str | None:
    """Why the API server refuses a container resource name, or None (validateContainerResourceName)."""
    if not _qualified(name):
        return "not a qualified name"
    if "/" not in name:
        if name in _STANDARD or name.startswith("hugepages-"):
            return None
        return "must be a standard resource for containers"
    prefix = name.split("/", 1)[0]
    native = prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io")
    if not native and (name.startswith("requests.") or not _qualified("requests." + name)):
        return "doesn't follow extended resource name standard"
    return None


def valid_resource_name(name: str) -> bool:
    """True for a container resource name the API server accepts (validateContainerResourceName)."""
    return _resource_name_error(name) is None


def container_refusals(path: str, container: Mapping) -> list[str]:
    """envFrom items and resource names of one container that the API server refuses."""
    label = container_label(path, container)
    messages = []
    for i, item in enumerate(as_list(container.get("envFrom"))):
        if not isinstance(item, Mapping):
            continue
        refs = [k for k in ("configMapRef", "secretRef") if item.get(k) is not None]
        if len(refs) == 1:
            continue
        if refs:
            why = "names both configMapRef and secretRef (may not have more than one field specified at a time)"
        else:
            stray = sorted(str(k) for k in item if k not in ("prefix", "configMapRef", "secretRef"))
            why = "has neither configMapRef nor secretRef (must specify one of: `configMapRef` or `secretRef`)" + (
                f"; its {', '.join(stray)} key sits beside the reference, not under it (mis-indented)" if stray else ""
            )
        messages.append(f"{label}: envFrom[{i}] {why}; the API server refuses the pod, so no pod is created")
    resources = as_dict(container.get("resources"))
    for section in ("limits", "requests"):
        for name in as_dict(resources.get(section)):
            if not isinstance(name, str) or _templated(name):
                continue
            error = _resource_name_error(name)
            if error is not None:
                messages.append(
                    f"{label}: resources.{section} {name!r} is not a valid resource name ({error}); the API server "
                    f"refuses the pod, so no pod is created"
                )
    return messages


# A probe's and a lifecycle hook's handler fields: "One and only one of the fields must be specified" (kubernetes/api
# v0.33.0 core/v1/types.go:2946-2961 ProbeHandler; :2963-2981 LifecycleHandler, with sleep); the API server refuses
# more than one ("may not specify more than 1 handler type", kubernetes/kubernetes pkg/apis/core/validation/
# validation.go validateHandler, at the commit above). A Kustomize strategic merge builds such a probe when a patch's
# probe sets another handler than its base's: the probe structs are merged key by key (spent set 69 nohdol97/Nexus
# k8s/overlays/gpu: tcpSocket over httpGet).
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")


def image_refusal(path: str, container: Mapping) -> str | None:
    """A container that writes its ``image`` key with no value (``image:`` followed by a comment reads as null, or
    ``image: ""``): kubernetes/kubernetes pkg/apis/core/validation/validation.go ``validateContainerCommon`` (the code
    index's stored version; ``validateContainers`` in older releases, the same check) appends ``field.Required`` on
    ``image`` when ``len(ctr.Image) == 0``, for every regular, init and ephemeral container of a pod spec, so of a
    workload's pod template too (only the whitespace check is pod-only, ``validateContainerOnlyForPod``). A container
    that leaves the key out is a Kustomize patch's shape (policies/reading/kustomize.py patch_shaped) and is not judged
    here. Spent set 79 yashbhangale/Karpenter-GPU-Autoscaling@cb9bd7ce eks_manifest/deployments-a.yaml
    (``image: # Docker Image URL``)."""
    if "image" not in container:
        return None
    image = container.get("image")
    if image is None or (isinstance(image, str) and not image):
        return (
            f"{container_label(path, container)}: image is empty (the key is written with no value: `image:` followed "
            f"by a comment reads as null), and the API server requires an image on every container "
            f"(containers[].image: Required value), so the object is refused and no pod ever runs; name the image"
        )
    return None


def handler_refusals(path: str, container: Mapping) -> list[str]:
    """Probes and lifecycle hooks of one container that state more than one handler (the API server refuses them)."""
    places = [(name, container.get(name), _PROBE_HANDLERS) for name in ("livenessProbe", "readinessProbe", "startupProbe")]
    hooks = container.get("lifecycle")
    if isinstance(hooks, Mapping):
        places += [(f"lifecycle.{name}", hooks.get(name), _HOOK_HANDLERS) for name in ("postStart", "preStop")]
    messages = []
    for where, handler, fields in places:
        if not isinstance(handler, Mapping):
            continue
        stated = [f for f in fields if handler.get(f) is not None]
        if len(stated) > 1:
            messages.append(
                f"{container_label(path, container)}: {where} states {len(stated)} handlers ({', '.join(stated)}); one "
                f"and only one may be set, and the API server refuses the pod template ('may not specify more than 1 "
                f"handler type'), so no pod is created; keep one (a Kustomize patch that sets another handler than its "
                f"base's merges into both: give the patch's probe `httpGet: null` or the like, or patch with a JSON "
                f"patch that replaces the probe)"
            )
    return messages


def _matches(selector: Mapping, labels: Mapping) -> bool | None:
    """Whether a LabelSelector selects these labels; None when a part cannot be read (templated, malformed)."""
    for key, value in as_dict(selector.get("matchLabels")).items():
        if _templated(key) or _templated(value) or not isinstance(value, (str, int, float, bool)):
            return None
        if key not in labels or str(labels[key]) != str(value):
            return False
    for expression in as_list(selector.get("matchExpressions")):
        expression = as_dict(expression)
        key, operator = expression.get("key"), expression.get("operator")
        values = [str(v) for v in as_list(expression.get("values"))]
        if not isinstance(key, str) or _templated(key) or any(_templated(v) for v in values):
            return None
        present = key in labels
        if operator == "In" and not (present and str(labels[key]) in values):
            return False
        if operator == "NotIn" and present and str(labels[key]) in values:
            return False
        if (operator == "Exists" and not present) or (operator == "DoesNotExist" and present):
            return False
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return None
    return True


def selector_missing(resource: Any) -> str | None:
    """An apps/v1 Deployment/StatefulSet/DaemonSet/ReplicaSet with a pod template and no ``spec.selector`` (module
    docstring); None for a Kustomize patch or base, which lack it by design."""
    if getattr(resource, "patch", False) or getattr(resource, "base", False):
        return None
    parts = str(getattr(resource, "type", "")).split(":")
    if len(parts) != 3 or parts[1] != "apps/v1" or parts[2] not in _SELECTOR_KINDS:
        return None
    spec = get(resource.props, "spec")
    if not isinstance(spec, Mapping) or spec.get("selector") is not None:
        return None
    # A whole workload: its template runs containers. A server-side-apply patch states only the fields it owns (this
    # repository's own DaemonSetPatch of KServe's node agent: a pod securityContext and no container).
    if not as_list(get(spec, "template", "spec", "containers")):
        return None
    return (
        f"spec.selector is missing: apps/v1 requires it and does not default it from the template's labels, so the "
        f"API server refuses the {parts[2]} (spec.selector: Required value) and no pod is created; add "
        f"spec.selector.matchLabels naming labels of spec.template.metadata.labels"
    )


def selector_refusal(resource: Any) -> str | None:
    """A Deployment/StatefulSet/DaemonSet/ReplicaSet whose selector does not select its own pod template."""
    group, kind = split_type(getattr(resource, "type", ""))
    if group != "apps" or kind not in _SELECTOR_KINDS:
        return None
    spec = as_dict(get(resource.props, "spec"))
    selector = spec.get("selector")
    labels = get(spec, "template", "metadata", "labels")
    if not isinstance(selector, Mapping) or not selector or not isinstance(labels, Mapping):
        return None  # no selector (the schema's Required) or a template with no label map: read elsewhere
    if any(_templated(k) or _templated(v) for k, v in labels.items()):
        return None
    if _matches(selector, labels) is not False:
        return None
    shown = ", ".join(f"{k}={v}" for k, v in as_dict(selector.get("matchLabels")).items()) or "its matchExpressions"
    return (
        f"spec.selector ({shown}) does not select spec.template.metadata.labels "
        f"({', '.join(f'{k}={v}' for k, v in labels.items())}); the API server refuses the {kind} "
        f"(`selector` does not match template `labels`), so no pod is created"
    )


# kubernetes/kubernetes pkg/apis/networking/validation/validation.go ValidateIngressCreate: the annotation beside the
# field. Refused whatever the values ("can not be set when the class field is also set") from v1.18 until a later
# release relaxed it to a mismatch only ("must match `ingressClassName` when both are specified", at
# 019c5dc51786ef4d3a3c670a852267d2b087016c); a mismatch is refused at every release.
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def ingress_class_refusal(resource: Any) -> tuple[str, bool] | None:
    """(message, proven) when an Ingress sets both the class annotation and spec.ingressClassName; proven when the
    two differ (refused at every release), not when they agree (refused by the API servers that predate the relaxed
    rule, accepted by newer ones)."""
    if split_type(getattr(resource, "type", "")) != ("networking.k8s.io", "Ingress"):
        return None
    props = as_dict(getattr(resource, "props", None))
    annotation = as_dict(get(props, "metadata", "annotations")).get(INGRESS_CLASS_ANNOTATION)
    field = get(props, "spec", "ingressClassName")
    if annotation is None or field is None or _templated(annotation) or _templated(field):
        return None
    where = f"metadata.annotations[{INGRESS_CLASS_ANNOTATION}] ({annotation}) and spec.ingressClassName ({field})"
    if str(annotation) != str(field):
        return (
            f"{where} name different classes; the API server refuses the Ingress on create (annotations."
            f"{INGRESS_CLASS_ANNOTATION}: Invalid value: can not be set when the class field is also set; newer "
            f"releases: must match `ingressClassName` when both are specified); drop the annotation",
            True,
        )
    return (
        f"{where} are both set; API servers from v1.18 refuse the Ingress on create (annotations."
        f"{INGRESS_CLASS_ANNOTATION}: Invalid value: can not be set when the class field is also set) until the "
        f"release that accepts a matching annotation; drop the deprecated annotation",
        False,
    )


# kubernetes/kubernetes pkg/apis/networking/validation/validation.go validateIngressRules (at the commit above; every
# release since networking.k8s.io/v1): a rule's host, when set, must be a DNS-1123 subdomain (lowercase, at most 253
# characters; a leading "*." wildcard label allowed: IsWildcardDNS1123Subdomain) and not an IP address ("must be a DNS
# name, not an IP address"). A fill-in for a person (``webui.<YOUR-NODE-EXTERNAL-IP>.sslip.io``, spent set 68
# jakepage91/operating-llms-on-kubernetes kubernetes/open-webui-ingress.yaml) is refused as committed; a variable a
# pipeline renders first (``${HOST}``, ``{{ .Values.host }}``) is not what is applied: advice.
_IP = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$|^[0-9a-fA-F:]*:[0-9a-fA-F:.]*$")


def ingress_host_refusals(resource: Any) -> list[tuple[str, bool]]:
    """(message, proven) for each Ingress rule host the API server refuses; not proven for a rendering variable."""
    if split_type(getattr(resource, "type", "")) not in (("networking.k8s.io", "Ingress"), ("extensions", "Ingress")):
        return []
    found = []
    # A placeholder is UNKNOWN in the props (S27 names it): its written text is what kubectl sends.
    written = getattr(resource, "written", None)
    props = written if isinstance(written, Mapping) else getattr(resource, "props", None)
    for i, rule in enumerate(as_list(get(as_dict(props), "spec", "rules"))):
        host = as_dict(rule).get("host")
        if not isinstance(host, str) or not host or terraform_filled(resource, host):  # a Terraform/Pulumi value: filled
            continue
        name = host[2:] if host.startswith("*.") else host
        if _IP.match(host):
            why = "an IP address, not a DNS name"
        elif len(host) > 253 or not DNS_SUBDOMAIN.match(name):
            why = "not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'; a leading '*.' wildcard)"
        else:
            continue
        rendered = "$" in host or "{{" in host or sed_marker(host)
        text = (
            f"spec.rules[{i}].host {host!r} is {why}; the API server refuses the Ingress (spec.rules[{i}].host: Invalid "
            f"value), so the route is never created; "
            + ("fill in the host before applying" if "<" in host or rendered else "write the host name in lowercase")
        )
        if rendered:
            text += " (a variable rendered before apply: the rendered host is what counts)"
        found.append((text, not rendered))
    return found
