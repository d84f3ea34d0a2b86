"""Number bounds of CRDs the reference folder does not pin, as facts read at a tag (S26, crd-validation-rules).

policies/crd/schemas.json carries the ``minimum``/``maximum`` of every CRD the reference folder pins. An operator whose
CRD it lacks gets its bounds here, each read from the kubebuilder marker the CRD is generated from, so that a value
the API server refuses on create ("should be greater than or equal to") is reported all the same:

- KubeAI ``Model`` (``kubeai.org/v1``; substratusai/kubeai v0.21.0 api/k8s/v1/model_types.go, rendered into
  charts/kubeai/templates/crds/kubeai.org_models.yaml:226-238, :273-279): ``minReplicas`` Minimum=0 (L99),
  ``maxReplicas`` Minimum=1 (L105), ``targetRequests`` Minimum=1 (L114), ``loadBalancing.prefixHash.meanLoadFactor``
  Minimum=100 (L195).
"""

from __future__ import annotations

from typing import Any

from policies.kube import as_dict, get, split_type

SOURCE = {("kubeai.org", "Model"): "substratusai/kubeai v0.21.0 api/k8s/v1/model_types.go"}
# (group, kind) -> (path under spec, minimum, line of the marker)
MINIMUMS: dict[tuple[str, str], tuple[tuple[str, int, int], ...]] = {
    ("kubeai.org", "Model"): (
        ("minReplicas", 0, 99),
        ("maxReplicas", 1, 105),
        ("targetRequests", 1, 114),
        ("loadBalancing.prefixHash.meanLoadFactor", 100, 195),
    ),
}
RESOURCE_TYPES = ("kubernetes:kubeai.org/v1:Model",)


def bound_findings(resource: Any) -> list[str]:
    """A number below its CRD's minimum, for the kinds of MINIMUMS; [] for other kinds."""
    key = split_type(getattr(resource, "type", ""))
    rows = MINIMUMS.get(key)
    if rows is None:
        return []
    spec = as_dict(get(getattr(resource, "props", None), "spec"))
    found = []
    for path, minimum, line in rows:
        value = get(spec, *path.split("."))
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < minimum:
            found.append(
                f"spec.{path}: the API server refuses this object: {value} should be greater than or equal to "
                f"{minimum} (Invalid value) (minimum of the {key[1]} CRD, {SOURCE[key]}:{line})"
            )
    return found
