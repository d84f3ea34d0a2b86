"""Extract the structural part of the pinned CRDs' OpenAPI schemas into policies/crd/schemas.json.

    python tools/crd_schemas.py            # print the data the reference folder gives
    python tools/crd_schemas.py --write    # rewrite policies/crd/schemas.json
    python tools/crd_schemas.py --check    # exit 1 when the committed file differs

The API server validates a custom resource against its CRD version's ``openAPIV3Schema`` on create (after pruning
unknown fields and applying defaults): ``required`` properties, ``type`` and ``enum``. The product never reads the
reference folder at run time, so this keeps, per served version, only what policies/crd/schema.py checks: ``type``,
``properties``, ``items``, ``additionalProperties`` (a map's values), ``required`` (less the properties the schema
defaults, which defaulting fills first), ``enum``, a number's bounds (``minimum``, ``maximum`` and their
``exclusive`` flags), ``nullable``, ``x-kubernetes-int-or-string`` and
``x-kubernetes-preserve-unknown-fields`` and ``x-kubernetes-embedded-resource`` (both decide which fields a node
does not define: policies/crd/schema.py unknown_fields). Descriptions, formats, patterns, lengths and CEL rules are dropped (the CEL
rules are tools/crd_cel_rules.py's). The core PodSpec fields of a node that embeds a pod spec (its properties hold
``containers``) are left unconstrained: pod templates are judged by the pack's pod rules, and the cut keeps the file
small; the node's own fields (KServe's predictor ``model``) are kept. Each CRD
carries its source (repository, tag, path, from crds/PROVENANCE.md) and the sha256 of the file it came from.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.crd_cel_rules import extract_crds, generated_file_main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policies" / "crd" / "schemas.json"
# core/v1 PodSpec's properties (kubernetes-validate 1.37 podspec-v1.json): where a CRD node embeds a pod spec (it has
# `containers`), these are left unconstrained; the node's own fields (KServe's predictor `model`, `minReplicas`) stay.
_POD_SPEC_FIELDS = frozenset(
    "activeDeadlineSeconds affinity automountServiceAccountToken containers dnsConfig dnsPolicy enableServiceLinks "
    "ephemeralContainers evictionResponders hostAliases hostIPC hostNetwork hostPID hostUsers hostname hostnameOverride "
    "imagePullSecrets initContainers nodeName nodeSelector os overhead preemptionPolicy priority priorityClassName "
    "readinessGates resourceClaims resources restartPolicy runtimeClassName schedulerName schedulingGates "
    "schedulingGroup securityContext serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace "
    "subdomain terminationGracePeriodSeconds tolerations topologySpreadConstraints volumes".split()
)
_KEPT = (
    "type",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "nullable",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
)


def prune(node: Any) -> dict:
    """The structural constraints of one schema node (see the module docstring)."""
    if not isinstance(node, dict):
        return {}
    properties = node.get("properties") or {}
    pod_spec = "containers" in properties
    out: dict[str, Any] = {key: node[key] for key in _KEPT if key in node}
    if properties:
        out["properties"] = {
            name: {} if pod_spec and name in _POD_SPEC_FIELDS else prune(sub) for name, sub in sorted(properties.items())
        }
    required = [name for name in node.get("required") or [] if "default" not in (properties.get(name) or {})]
    if required:
        out["required"] = sorted(required)
    if isinstance(node.get("items"), dict):
        out["items"] = prune(node["items"])
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = prune(node["additionalProperties"])
    return out


def _version_spec(version: dict) -> dict | None:
    spec = ((version.get("schema") or {}).get("openAPIV3Schema") or {}).get("properties", {}).get("spec")
    return prune(spec) if isinstance(spec, dict) else None


def extract(reference: Path) -> dict:
    """The pruned ``spec`` schema of every served version of every CRD under ``reference/crds``, deterministic."""
    return extract_crds(reference, _version_spec, "tools/crd_schemas.py", DATA)


def render(data: dict) -> str:
    """The committed file's bytes: sorted keys, no indentation (the schemas are large), a final newline."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print, write or check the schema file (tools/crd_cel_rules.py generated_file_main)."""
    return generated_file_main(argv, __doc__.splitlines()[0], DATA, lambda ref: render(extract(ref)), "tools/crd_schemas.py")


if __name__ == "__main__":
    sys.exit(main())
