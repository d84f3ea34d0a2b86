"""G88 (live-object-export): a manifest is not an object exported from a running cluster (``kubectl get -o yaml``).

An export keeps the fields the API server writes: ``metadata.resourceVersion``, ``uid``, ``creationTimestamp``,
``generation``, ``managedFields``, ``selfLink`` and ``status``. Of these one decides whether the object can be applied:

- ``resourceVersion`` (mandatory when it is a version the server would read, a positive integer): the storage layer
  refuses a create whose object carries one (kubernetes/apiserver v0.33.0 pkg/storage/etcd3/store.go:261-263 ``Create``
  returns ``ErrResourceVersionSetOnCreate``, pkg/storage/errors.go:29 "resourceVersion should not be set on objects to
  be created"), so on any cluster that lacks the object ``kubectl apply``/``create`` fails; where the object exists, an
  update whose resourceVersion differs from the stored one is a Conflict (pkg/registry/generic/registry/store.go:732-734
  ``OptimisticLockErrorMsg``), and the stored version has moved on since the export.
- ``uid``, ``creationTimestamp``, ``generation``, ``status`` alone (advisory): the server overwrites uid and
  creationTimestamp on create (pkg/registry/rest/meta.go:39-42 ``FillObjectMetaSystemFields``) and keeps no status
  a client sends; the object is created, but the file is a snapshot of one cluster, not a manifest. An
  ``ownerReferences`` entry names its owner by that cluster's uid: elsewhere no owner has it and the garbage collector
  removes the object (https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/).

Silent: ``creationTimestamp: null`` and an empty ``status: {}`` (what ``kubectl create --dry-run=client -o yaml``
writes), ``resourceVersion: ""`` or ``"0"`` (the store reads 0 as unset). Spent set 71 Sanmay-Das/LLM-Serving-Benchmark
vllm-deployment.yaml, ollama-deployment.yaml, ray-serve-deployment.yaml (three Deployments exported with
resourceVersion, uid and status).
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic import ANY_KUBERNETES_TYPE
from policies.kube import get, split_type

# The metadata fields only the API server writes, in the order a message names them.
_SERVER_FIELDS = ("uid", "creationTimestamp", "generation", "managedFields", "selfLink")


def _holds_value(value: Any, depth: int = 0) -> bool:
    """True when ``value`` has a leaf that is not empty ("", None, 0, false, {} and [] are empty): an exported status, not
    the ``status: {}`` / ``status: {loadBalancer: {}}`` a dry run writes or a CRD's generated empty status."""
    if depth > 8:
        return True
    if isinstance(value, dict):
        return any(_holds_value(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_holds_value(v, depth + 1) for v in value)
    return value not in ("", None, 0)


def _version(value: Any) -> int | None:
    """The resourceVersion as the store parses it (an unsigned 64-bit decimal, kubernetes/apiserver v0.33.0
    pkg/storage/api_object_versioner.go:90-94 ParseResourceVersion: strconv.ParseUint(..., 10, 64)), None when it is not one
    (a non-ASCII digit, or more digits than 64 bits hold: int() would refuse 4,300 of them)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and float(value).is_integer():
        return int(value)
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(text) <= 20 and int(text) < 2**64:
        return int(text)
    return None


def _server_fields(props: dict) -> list[str]:
    meta = props.get("metadata")
    if not isinstance(meta, dict):
        return []
    names = [f"metadata.{key}" for key in _SERVER_FIELDS if _holds_value(meta.get(key))]
    if _holds_value(props.get("status")):
        names.append("status")
    return names


def _owner_note(props: dict) -> str:
    owners = get(props, "metadata", "ownerReferences")
    if not isinstance(owners, list):
        return ""
    named = [o for o in owners if isinstance(o, dict) and isinstance(o.get("uid"), str) and o.get("uid")]
    if not named:
        return ""
    owner = named[0]
    return (
        f"; metadata.ownerReferences names its owner {owner.get('kind', '?')}/{owner.get('name', '?')} by the uid it "
        f"had on that cluster: elsewhere no owner has it and the garbage collector deletes this object"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    props = resource.props
    meta = props.get("metadata")
    if not isinstance(meta, dict):
        return []
    found = _server_fields(props)
    kind = split_type(resource.type)[1] or "object"
    raw = meta.get("resourceVersion")
    version = _version(raw)
    strip = (
        "remove resourceVersion, uid, creationTimestamp, generation, managedFields and status (what kubectl get -o "
        "yaml adds) and commit the object as written"
    )
    if version is not None and version > 0:
        also = f" (with {', '.join(found)})" if found else ""
        return [
            f"metadata.resourceVersion {raw!r}{also}: this {kind} is an export of a live object, and the API server "
            f"refuses to create an object that states a resourceVersion ('resourceVersion should not be set on objects "
            f"to be created'): on a cluster without it kubectl apply fails and nothing is created, and where it exists "
            f"the stale version is refused as a Conflict ('the object has been modified'){_owner_note(props)}; {strip}"
        ]
    if version is None and _holds_value(raw):
        found.insert(0, "metadata.resourceVersion")
    if not found:
        return []
    return [
        unproven(
            f"{', '.join(found)} set: this {kind} reads as an export of a live object (fields only the API server "
            f"writes; it overwrites uid and creationTimestamp on create and keeps no status a client sends){_owner_note(props)}; "
            f"{strip}"
        )
    ]


POLICY = Policy(
    name="live-object-export",
    description=(
        "A manifest is not an export of a live object: no metadata.resourceVersion (refused on create), and none of "
        "the fields only the API server writes (uid, creationTimestamp, generation, managedFields, status)."
    ),
    catalog="G88",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Delete metadata.resourceVersion, uid, creationTimestamp, generation, managedFields, selfLink, the "
        "kubectl.kubernetes.io/last-applied-configuration annotation and status from the file (or export with a tool "
        "that strips them) and keep the object as you would write it."
    ),
    resource_types=ANY_KUBERNETES_TYPE,
    check_resource=_check,
    rationale=(
        "kubernetes/apiserver v0.33.0 pkg/storage/etcd3/store.go:261-263 refuses a create whose object has a non-zero "
        "resourceVersion (pkg/storage/errors.go:29 ErrResourceVersionSetOnCreate); pkg/registry/generic/registry/"
        "store.go:732-734 answers an update with another resourceVersion than the stored one with a Conflict; "
        "pkg/registry/rest/meta.go:39-42 overwrites uid and creationTimestamp on create. A resourceVersion blocks; the "
        "other server-written fields alone are advice. Spent set 71 Sanmay-Das/LLM-Serving-Benchmark (three exported "
        "Deployments, labelled blocking)."
    ),
)
