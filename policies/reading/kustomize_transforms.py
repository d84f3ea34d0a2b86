"""What ``kustomize build`` does to one object (policies/reading/kustomize_build.py builds the overlays with these).

Read from kubernetes-sigs/kustomize at tag api/v0.21.1 (kyaml/v0.21.1 for kyaml/) and k8s.io/api v0.34.3, restated,
no code copied:

- **Strategic merge** (api/filters/patchstrategicmerge/patchstrategicmerge.go:19-28: kyaml merge2 with
  ``MergeOptionsListPrepend``): maps merge, ``null`` deletes a key, ``$patch: delete`` deletes the object or the list
  element, ``$patch: replace`` replaces; a list merges by its Kubernetes ``patchMergeKey`` (k8s.io/api v0.34.3
  core/v1/types.go: ``containers``/``initContainers``/``ephemeralContainers`` by ``name`` at 4110-4133, ``volumes`` at
  4092-4096, ``env`` at 2957-2961, ``imagePullSecrets`` at 4224-4228; container ``ports`` by ``containerPort`` at
  2939-2944; ``volumeMounts`` by ``mountPath`` at 3008-3012; ``volumeDevices`` by ``devicePath`` at 3014-3019;
  ``hostAliases`` by ``ip`` at 4251-4255; ``topologySpreadConstraints`` by ``topologyKey`` at 4313-4318), the patch's
  elements first in the patch's order (merged with the base's of the same key), then the base's others in their
  order (kyaml/yaml/walk/associative_sequence.go:233; what ``kubectl kustomize`` v5.5.0 prints: base env A,B,D patched
  with D,X gives D,X,A,B); a list of a kind kustomize has no schema for
  merges by ``name`` when its elements all have one (kyaml/yaml/rnode.go:948-971, kyaml/yaml/schema/schema.go:16-31);
  every other list is replaced.
- **images** rewrite each ``image`` of a ``containers`` or ``initContainers`` list anywhere in an object whose name
  without tag or digest is the entry's ``name`` (api/internal/builtins/ImageTagTransformer.go:25-33 ``LegacyFilter``,
  api/filters/imagetag/legacy.go:43, api/filters/imagetag/updater.go:23-64, api/internal/image/image.go:13-60).
- **namespace** sets ``metadata.namespace`` (api/filters/namespace/namespace.go:53-72; cluster-scoped kinds keep
  none; a RoleBinding's or ClusterRoleBinding's subjects named ``default`` get it too, setRoleBindingSubjects'
  ``defaultOnly``, namespace.go:126-168, NamespaceTransformer.go:32-36); **namePrefix/nameSuffix** rename
  ``metadata.name`` (api/internal/konfig/builtinpluginconsts/nameprefix.go); **name references**: the fields
  namereference.go lists per kind (``NAME_REFERENCES``; a custom resource has none, so its references stay as written);
  **commonLabels** go to labels, selectors and pod templates (commonlabels.go);
  **replicas** set ``spec.replicas`` of Deployment, ReplicationController, ReplicaSet and StatefulSet (replicas.go).
- **JSON patches** (RFC 6902) apply with the ``jsonpatch`` library (requirements.txt).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any


class Unbuilt(Exception):
    """An overlay this module does not build (the message says why)."""


# k8s.io/api v0.34.3 core/v1/types.go patchMergeKey of the lists a pod spec holds (module docstring).
_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "imagePullSecrets": "name",
    "schedulingGates": "name",
    "resourceClaims": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
}

# Kinds without a namespace (Kubernetes' cluster-scoped kinds and the common operators' cluster-scoped ones): the
# namespace transformer leaves them without one, as kustomize does for the kinds its schema knows.
CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "StorageClass",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "PriorityClass",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "APIService",
        "IngressClass",
        "RuntimeClass",
        "CSIDriver",
        "CSINode",
        "VolumeSnapshotClass",
        "DeviceClass",
        "GatewayClass",
        "ClusterIssuer",
        "ClusterServingRuntime",
        "ClusterStorageContainer",
        "ClusterPolicy",
        "NodePool",
        "EC2NodeClass",
        "NodeClass",
        "ClusterQueue",
        "ResourceFlavor",
        "ClusterTriggerAuthentication",
    }
)

# api/internal/konfig/builtinpluginconsts/namereference.go@api/v0.21.1:9-431, restated: which fields of which kinds name an
# object of which kind. Kustomize rewrites a reference to a renamed (namePrefix/nameSuffix, generator hash) object only
# at these paths of these kinds: a custom resource's reference (an InferenceService's secretKeyRef, a LeaderWorkerSet's
# template) keeps the name as written. Pod-spec paths are listed once and set under each kind's pod spec; a path steps
# through lists implicitly (kyaml's field specs); "[a/b]" is one key holding a slash (an annotation).
_POD_AT = {
    "Pod": "spec",
    "PodTemplate": "template/spec",
    "Deployment": "spec/template/spec",
    "ReplicaSet": "spec/template/spec",
    "DaemonSet": "spec/template/spec",
    "StatefulSet": "spec/template/spec",
    "Job": "spec/template/spec",
    "ReplicationController": "spec/template/spec",
    "CronJob": "spec/jobTemplate/spec/template/spec",
}
_CONFIG_KINDS = ("Pod", "PodTemplate", "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job", "CronJob")
_OTHER_KINDS = ("Pod", "StatefulSet", "Deployment", "ReplicationController", "CronJob", "Job", "DaemonSet")
_ENV = ("containers", "initContainers")
_POD_REFS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "ConfigMap",
        _CONFIG_KINDS,
        (
            "volumes/configMap/name",
            *(f"{c}/env/valueFrom/configMapKeyRef/name" for c in _ENV),
            *(f"{c}/envFrom/configMapRef/name" for c in _ENV),
            "volumes/projected/sources/configMap/name",
        ),
    ),
    (
        "Secret",
        _CONFIG_KINDS,
        (
            "volumes/secret/secretName",
            *(f"{c}/env/valueFrom/secretKeyRef/name" for c in _ENV),
            *(f"{c}/envFrom/secretRef/name" for c in _ENV),
            "imagePullSecrets/name",
            "volumes/projected/sources/secret/name",
        ),
    ),
    ("ServiceAccount", _OTHER_KINDS, ("serviceAccountName",)),
    ("PersistentVolumeClaim", _OTHER_KINDS, ("volumes/persistentVolumeClaim/claimName",)),
    ("PriorityClass", _OTHER_KINDS, ("priorityClassName",)),
)
_RBAC = "rbac.authorization.k8s.io"
_ADMISSION = "admissionregistration.k8s.io"
# (referral kind, referral version or "", referrer kind, referrer group or None for any, path)
_OTHER_REFS: tuple[tuple[str, str, str, str | None, str], ...] = (
    *(
        (target, "", "HorizontalPodAutoscaler", None, "spec/scaleTargetRef/name")
        for target in ("Deployment", "ReplicationController", "ReplicaSet", "StatefulSet")
    ),
    ("ConfigMap", "v1", "Role", None, "rules/resourceNames"),
    ("ConfigMap", "v1", "ClusterRole", None, "rules/resourceNames"),
    ("ConfigMap", "v1", "Ingress", None, "metadata/annotations/[nginx.ingress.kubernetes.io/fastcgi-params-configmap]"),
    ("Secret", "v1", "Ingress", None, "spec/tls/secretName"),
    ("Secret", "v1", "Ingress", None, "metadata/annotations/[ingress.kubernetes.io/auth-secret]"),
    ("Secret", "v1", "Ingress", None, "metadata/annotations/[nginx.ingress.kubernetes.io/auth-secret]"),
    ("Secret", "v1", "Ingress", None, "metadata/annotations/[nginx.ingress.kubernetes.io/auth-tls-secret]"),
    ("Secret", "v1", "ServiceAccount", None, "imagePullSecrets/name"),
    *(
        ("Secret", "v1", "StorageClass", None, f"parameters/{k}")
        for k in ("secretName", "adminSecretName", "userSecretName", "secretRef")
    ),
    ("Secret", "v1", "Role", None, "rules/resourceNames"),
    ("Secret", "v1", "ClusterRole", None, "rules/resourceNames"),
    ("Secret", "v1", "Service", "serving.knative.dev", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"),
    ("Secret", "v1", "PersistentVolume", None, "spec/azureFile/secretName"),
    ("Service", "v1", "StatefulSet", "apps", "spec/serviceName"),
    ("Service", "v1", "Ingress", None, "spec/rules/http/paths/backend/serviceName"),
    ("Service", "v1", "Ingress", None, "spec/backend/serviceName"),
    ("Service", "v1", "Ingress", None, "spec/rules/http/paths/backend/service/name"),
    ("Service", "v1", "Ingress", None, "spec/defaultBackend/service/name"),
    ("Service", "v1", "APIService", "apiregistration.k8s.io", "spec/service/name"),
    ("Service", "v1", "ValidatingWebhookConfiguration", _ADMISSION, "webhooks/clientConfig/service"),
    ("Service", "v1", "MutatingWebhookConfiguration", _ADMISSION, "webhooks/clientConfig/service"),
    ("Role", "", "RoleBinding", _RBAC, "roleRef/name"),
    ("ClusterRole", "", "RoleBinding", _RBAC, "roleRef/name"),
    ("ClusterRole", "", "ClusterRoleBinding", _RBAC, "roleRef/name"),
    ("ServiceAccount", "v1", "RoleBinding", _RBAC, "subjects"),
    ("ServiceAccount", "v1", "ClusterRoleBinding", _RBAC, "subjects"),
    ("PersistentVolume", "v1", "PersistentVolumeClaim", None, "spec/volumeName"),
    ("PersistentVolume", "v1", "ClusterRole", None, "rules/resourceNames"),
    ("StorageClass", "v1", "PersistentVolume", None, "spec/storageClassName"),
    ("StorageClass", "v1", "PersistentVolumeClaim", None, "spec/storageClassName"),
    ("StorageClass", "v1", "StatefulSet", None, "spec/volumeClaimTemplates/spec/storageClassName"),
    ("IngressClass", "v1", "Ingress", None, "spec/ingressClassName"),
    ("ValidatingAdmissionPolicy", "", "ValidatingAdmissionPolicyBinding", _ADMISSION, "spec/policyName"),
)


def _split(path: str) -> tuple[str, ...]:
    head, bracket, rest = path.partition("/[")
    if not bracket:
        return tuple(path.split("/"))
    return (*head.split("/"), rest.removesuffix("]"))


def _reference_table() -> dict[str, list[tuple[str, str, str | None, tuple[str, ...]]]]:
    """referrer kind -> [(referral kind, referral version, referrer group, path)], in namereference.go's order."""
    table: dict[str, list[tuple[str, str, str | None, tuple[str, ...]]]] = {}
    for target, version, kind, group, path in _OTHER_REFS[:4]:  # the scale targets come first in namereference.go
        table.setdefault(kind, []).append((target, version, group, _split(path)))
    for target, kinds, paths in _POD_REFS:
        for kind in kinds:
            for path in paths:
                table.setdefault(kind, []).append((target, "v1", None, _split(f"{_POD_AT[kind]}/{path}")))
    for target, version, kind, group, path in _OTHER_REFS[4:]:
        table.setdefault(kind, []).append((target, version, group, _split(path)))
    return table


NAME_REFERENCES = _reference_table()


def reference_sites(obj: dict) -> Iterator[tuple[str, str, tuple[str, ...], Any, Any]]:
    """(referral kind, referral version, path, holder, key) of every field of ``obj`` that namereference.go names for
    its kind: ``holder[key]`` is the name (a string), or a mapping with ``name`` (and ``namespace``)."""
    api = obj.get("apiVersion")
    group = (api if isinstance(api, str) else "").rpartition("/")[0]
    for target, version, want_group, path in NAME_REFERENCES.get(str(obj.get("kind") or ""), ()):
        if want_group is not None and group != want_group:
            continue
        nodes: list[tuple[Any, Any]] = [(None, obj)]
        for step in path[:-1]:
            nodes = [(None, v) for _, n in nodes for v in _step(n, step)]
        for _, node in nodes:
            for holder in node if isinstance(node, list) else [node]:
                if not isinstance(holder, dict) or path[-1] not in holder:
                    continue
                value = holder[path[-1]]
                if isinstance(value, list):
                    yield from ((target, version, path, value, i) for i in range(len(value)))
                else:
                    yield target, version, path, holder, path[-1]


def _step(node: Any, key: str) -> list[Any]:
    if isinstance(node, list):
        return [v for item in node for v in _step(item, key)]
    value = node.get(key) if isinstance(node, dict) else None
    return [] if value is None else [value]


# commonlabels.go: where a label goes besides metadata.labels (selectors are the kinds', templates the pods').
SELECTOR_PATHS = {
    "Service": ("spec", "selector"),
    "ReplicationController": ("spec", "selector"),
    "Deployment": ("spec", "selector", "matchLabels"),
    "ReplicaSet": ("spec", "selector", "matchLabels"),
    "DaemonSet": ("spec", "selector", "matchLabels"),
    "StatefulSet": ("spec", "selector", "matchLabels"),
}
TEMPLATE_LABEL_PATHS = {
    "Deployment": ("spec", "template", "metadata", "labels"),
    "ReplicaSet": ("spec", "template", "metadata", "labels"),
    "DaemonSet": ("spec", "template", "metadata", "labels"),
    "StatefulSet": ("spec", "template", "metadata", "labels"),
    "Job": ("spec", "template", "metadata", "labels"),
    "ReplicationController": ("spec", "template", "metadata", "labels"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "metadata", "labels"),
}
REPLICA_KINDS = frozenset({"Deployment", "ReplicationController", "ReplicaSet", "StatefulSet"})


def _key_of(item: Any, key: str) -> Any:
    value = item.get(key) if isinstance(item, dict) else None
    return None if value is None else str(value)


def _clean(value: Any) -> Any:
    """A patch's value with its directives (``$patch``, ``$setElementOrder/...``) removed."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("$"))}
    if isinstance(value, list):
        return [_clean(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")]
    return value


def merge(base: Any, patch: Any, key: str = "") -> Any:
    """``patch`` merged onto ``base`` as a strategic merge (module docstring); None when the patch deletes it."""
    if isinstance(patch, dict) and isinstance(base, dict):
        directive = patch.get("$patch")
        if directive == "delete":
            return None
        if directive == "replace":
            return _clean(patch)
        out = dict(base)
        for k, v in patch.items():
            if isinstance(k, str) and k.startswith("$"):
                continue
            if v is None:
                out.pop(k, None)
            elif k in out and isinstance(out[k], dict) and isinstance(v, dict):
                merged = merge(out[k], v, k)
                if merged is None:
                    out.pop(k, None)
                else:
                    out[k] = merged
            elif k in out and isinstance(out[k], list) and isinstance(v, list):
                out[k] = _merge_list(k, out[k], v)
            else:
                out[k] = _clean(v)
        return out
    return _clean(patch)


def _list_key(key: str, base: list, patch: list) -> str:
    items = [i for i in (*base, *patch) if not (isinstance(i, dict) and set(i) == {"$patch"})]
    if not items or not all(isinstance(i, dict) for i in items):
        return ""
    if key == "ports":  # a container's ports by containerPort, a Service's by port (core/v1 types.go)
        wanted = "containerPort" if all("containerPort" in i for i in items) else "port"
    else:
        wanted = _MERGE_KEYS.get(key, "name")
    return wanted if all(wanted in i for i in items) else ""


def _merge_list(key: str, base: list, patch: list) -> list:
    if any(isinstance(i, dict) and i.get("$patch") == "replace" for i in patch):
        return [_clean(i) for i in patch if not (isinstance(i, dict) and i.get("$patch") == "replace")]
    by = _list_key(key, base, patch)
    if not by:
        return _clean(patch)
    rest: list = list(base)
    first = []
    for item in patch:
        k = _key_of(item, by)
        at = next((n for n, b in enumerate(rest) if b is not None and _key_of(b, by) == k), None)
        if at is None:
            if item.get("$patch") != "delete":
                first.append(_clean(item))
            continue
        found, rest[at] = rest[at], None
        if item.get("$patch") != "delete":
            first.append(merge(found, item, key))
    return first + [b for b in rest if b is not None]


def json_patch(obj: dict, ops: list, path: str) -> dict:
    try:
        import jsonpatch  # RFC 6902 (requirements.txt); imported only when an overlay holds a JSON patch
    except ImportError:  # pragma: no cover - a declared dependency
        raise Unbuilt(f"{path}: a JSON patch, and the jsonpatch library is not installed") from None
    try:
        result = jsonpatch.apply_patch(obj, ops, in_place=False)
    except Exception as exc:  # jsonpatch's and jsonpointer's errors, and malformed operations (bad input)
        raise Unbuilt(f"{path}: a JSON patch does not apply ({type(exc).__name__})") from None
    if not isinstance(result, dict):
        raise Unbuilt(f"{path}: a JSON patch replaces the object by a non-object")
    return result


def set_all(obj: dict, path: Sequence[str], pairs: Mapping[str, str]) -> None:
    node = obj
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    last = node.get(path[-1])
    node[path[-1]] = {**(last if isinstance(last, dict) else {}), **pairs}


def containers(obj: Any) -> Iterable[dict]:
    """Every item of a ``containers`` or ``initContainers`` list anywhere in ``obj`` (imagetag legacy.go:43)."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("containers", "initContainers") and isinstance(value, list):
                    yield from (c for c in value if isinstance(c, dict))
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def image_name(image: str) -> tuple[str, str, str]:
    """(name, tag, digest) of an image reference, split as kustomize splits it (api/internal/image/image.go:24-60)."""
    slash = image.find("/")
    start = slash if slash > 0 else 0
    rest = image[start:]
    at, colon = rest.find("@"), rest.find(":")
    if at < 0 and colon < 0:
        return image, "", ""
    if at >= 0 and (colon < 0 or at < colon):
        return image[: start + at], "", image[start + at + 1 :]
    if at >= 0:
        return image[: start + colon], image[start + colon + 1 : start + at], image[start + at + 1 :]
    return image[: start + colon], image[start + colon + 1 :], ""


def retag(image: str, entry: Mapping[str, Any]) -> str:
    """``image`` rewritten by an ``images`` entry (api/filters/imagetag/updater.go:34-62)."""
    name, tag, digest = image_name(image)
    new_tag, new_digest, suffix = (str(entry.get(k) or "") for k in ("newTag", "digest", "tagSuffix"))
    name = str(entry.get("newName") or "") or name
    if new_tag and new_digest:
        tag, digest = new_tag, new_digest
    elif new_tag:
        tag, digest = new_tag, ""
    elif new_digest:
        tag, digest = "", new_digest
    elif suffix:
        tag, digest = tag + suffix, ""
    return name + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")


__all__ = [
    "CLUSTER_SCOPED",
    "REPLICA_KINDS",
    "SELECTOR_PATHS",
    "TEMPLATE_LABEL_PATHS",
    "Unbuilt",
    "containers",
    "image_name",
    "json_patch",
    "merge",
    "retag",
    "NAME_REFERENCES",
    "reference_sites",
    "set_all",
]
