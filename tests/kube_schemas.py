"""Validate rendered objects against the real schemas: Kubernetes OpenAPI (kubernetes-validate) and
the upstream CRDs kept in the reference folder's crds/ (strict: unknown fields are errors, as the API server's
strict field validation would make them)."""

from __future__ import annotations

import functools
import re
from typing import Any, Mapping

import jsonschema
import kubernetes_validate
import yaml

from tests.conftest import shared_path

KUBERNETES_VERSION = "1.33"

# Custom resources this project renders -> the CRD file under the reference folder's crds/.
CRD_FILES = {
    ("serving.kserve.io", "InferenceService"): "serving.kserve.io/InferenceService.yaml",
    ("karpenter.sh", "NodePool"): "karpenter.sh/NodePool.aws-provider.yaml",
    ("karpenter.k8s.aws", "EC2NodeClass"): "karpenter.k8s.aws/EC2NodeClass.yaml",
    ("monitoring.coreos.com", "PodMonitor"): "monitoring.coreos.com/PodMonitor.yaml",
    ("monitoring.coreos.com", "PrometheusRule"): "monitoring.coreos.com/PrometheusRule.yaml",
    ("keda.sh", "ScaledObject"): "keda.sh/ScaledObject.yaml",
    ("ray.io", "RayCluster"): "ray.io/RayCluster.yaml",
    ("ray.io", "RayService"): "ray.io/RayService.yaml",
    ("networking.istio.io", "VirtualService"): "networking.istio.io/VirtualService.yaml",
    ("networking.istio.io", "DestinationRule"): "networking.istio.io/DestinationRule.yaml",
    ("networking.istio.io", "Gateway"): "networking.istio.io/Gateway.yaml",
    ("autoscaling.x-k8s.io", "CapacityBuffer"): "autoscaling.x-k8s.io/CapacityBuffer.yaml",
    ("serving.kserve.io", "LocalModelCache"): "serving.kserve.io/LocalModelCache.yaml",
    ("serving.kserve.io", "LocalModelNodeGroup"): "serving.kserve.io/LocalModelNodeGroup.yaml",
}


def _draft7(schema: Any) -> Any:
    """CRD openAPIV3Schema -> JSON Schema draft 7 with strict objects (the Pulumi SDK's mock engine sends inputs as the API server would read them)."""
    if isinstance(schema, list):
        return [_draft7(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _draft7(v) for k, v in schema.items() if not k.startswith("x-kubernetes-")}
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if "properties" in schema and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out.setdefault("additionalProperties", False)
        # apiVersion/kind/metadata are checked by the API server's own schema, not the CRD's.
    return out


@functools.lru_cache(maxsize=None)
def crd_validator(group: str, kind: str, version: str) -> jsonschema.Draft7Validator:
    """A strict validator for one served version of a CRD from the reference folder's crds/."""
    path = shared_path("crds", CRD_FILES[(group, kind)])
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    crd = next(d for d in docs if d.get("kind") == "CustomResourceDefinition")
    ver = next(v for v in crd["spec"]["versions"] if v["name"] == version)
    schema = _draft7(ver["schema"]["openAPIV3Schema"])
    schema.setdefault("properties", {})["metadata"] = {"type": "object"}
    # Istio's generated CRDs declare only spec/status; apiVersion and kind are the API server's.
    schema["properties"].setdefault("apiVersion", {"type": "string"})
    schema["properties"].setdefault("kind", {"type": "string"})
    return jsonschema.Draft7Validator(schema)


_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _key_errors(key: str) -> list[str]:
    prefix, _, name = key.rpartition("/")
    errors = []
    if not name or len(name) > 63 or not _NAME_PART.match(name):
        errors.append(f"key {key!r}: name part must be 1-63 alphanumerics with '-', '_' or '.' inside")
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        errors.append(f"key {key!r}: prefix must be a DNS subdomain")
    return errors


def metadata_errors(meta: Mapping[str, Any]) -> list[str]:
    """What the API server's metadata validation rejects: names, label keys and values, annotation keys."""
    errors = []
    name = meta.get("name", "")
    if not name or len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        errors.append(f"metadata.name {name!r}: must be a DNS subdomain")
    for key, value in (meta.get("labels") or {}).items():
        errors += [f"metadata.labels {e}" for e in _key_errors(key)]
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            errors.append(f"metadata.labels[{key!r}] = {value!r}: not a valid label value")
    for key, value in (meta.get("annotations") or {}).items():
        errors += [f"metadata.annotations {e}" for e in _key_errors(key)]
        if not isinstance(value, str):
            errors.append(f"metadata.annotations[{key!r}]: must be a string")
    return errors


def validate_object(obj: Mapping[str, Any]) -> list[str]:
    """Every schema error of one rendered object (empty when it is valid)."""
    meta = obj.get("metadata") or {}
    errors = metadata_errors(meta)
    for path in (("spec", "predictor"), ("spec", "template", "metadata")):
        node: Any = obj
        for part in path:
            node = node.get(part) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping) and node.get("labels"):
            errors += [f"{'.'.join(path)}: {e}" for e in metadata_errors({"name": "x", "labels": node["labels"]})]
    return errors + _schema_errors(obj)


def _schema_errors(obj: Mapping[str, Any]) -> list[str]:
    api_version = obj["apiVersion"]
    group, _, version = api_version.rpartition("/")
    if (group, obj["kind"]) in CRD_FILES:
        validator = crd_validator(group, obj["kind"], version)
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(dict(obj))]
    try:
        kubernetes_validate.validate(dict(obj), KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"{'/'.join(map(str, exc.path))}: {exc.message}"]
    return []
