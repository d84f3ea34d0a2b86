"""G45: a pod template passes the API server's own validation, beyond the OpenAPI schema.

kubernetes-validate checks the schema only; the API server also runs the core validation in
kubernetes/kubernetes pkg/apis/core/validation/validation.go (v1.31.0), which refuses, among others:

* two volumeMounts of one container at the same mountPath (ValidateVolumeMounts:
  ``mountpoints.Has(mnt.MountPath)`` -> field.Invalid "must be unique");
* two containers (containers, initContainers and ephemeral containers share one name space) with
  one name (validateContainers / validateInitContainers: field.Duplicate);
* two volumes with one name (ValidateVolumes: field.Duplicate);
* a volume with no name (ValidateVolumes: ``if len(vol.Name) == 0`` -> field.Required), the usual result of a
  mis-indented ``name:`` that YAML reads as a key of the enclosing map (set 20: phucly01/ollama-k8s ollama/ollama.yaml
  at 152e6532e503b23a0a4c27aaff758f07386ca39c, ``name: ollama-storage`` under spec.template);
* a volumeMount naming no volume of the pod (ValidateVolumeMounts: ``IsMatchedVolume`` false -> field.NotFound),
  judged on Kubernetes' own kinds only: an operator's custom resource may be completed with volumes it adds. A
  StatefulSet's pods also get a volume per ``spec.volumeClaimTemplates`` entry, named as the claim template (the
  StatefulSet controller's updateStorage, pkg/controller/statefulset/stateful_set_utils.go, v1.31.0; the StatefulSet's
  own validation skips the pod spec for that reason: ValidatePodTemplateSpecForStatefulSet's TODO in
  pkg/apis/apps/validation/validation.go), so those names count as volumes (spent set 16:
  SartSR/ollama-llm-k8s manifests/ollama.yaml@2f8fe04, mount ollama-volume from a claim template).

A Deployment, StatefulSet, DaemonSet or Job so written is refused itself (its pod template is
validated with it); an operator's custom resource is stored, and the pods it creates are refused.
Either way the pods never exist. Duplicate env
names are allowed (a warning only, not read here). Templates another object completes (KServe's
ServingRuntimes) are reported through the framework's own rule for them.
"""

from __future__ import annotations

from collections.abc import Iterable

from policies.framework import Policy, Resource, unproven
from policies.input.unreadable import kustomization_read
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    container_label,
    containers,
    is_custom_type,
    memoized,
    name_of,
    pod_specs,
    viewed_resources,
)
from policies.reading.api_refusals import container_refusals, selector_missing, selector_refusal


def _duplicates(values: Iterable[object]) -> list[str]:
    seen: set[str] = set()
    twice: list[str] = []
    for value in values:
        if not isinstance(value, str) or not value:
            continue
        if value in seen and value not in twice:
            twice.append(value)
        seen.add(value)
    return twice


def _claim_templates(resource: Resource) -> set[str]:
    """The names of a StatefulSet's volumeClaimTemplates: its controller adds a pod volume of each name."""
    if not str(getattr(resource, "type", "")).endswith(":StatefulSet"):
        return set()
    spec = as_dict(as_dict(getattr(resource, "props", None)).get("spec"))
    return {
        name
        for t in as_list(spec.get("volumeClaimTemplates"))
        if isinstance(name := as_dict(as_dict(t).get("metadata")).get("name"), str)
    }


def _names(path: str, podspec: dict, every: list[dict], core: bool, claims: set[str]) -> list[str]:
    """A volume with no name (Required), and, on Kubernetes' own kinds, a mount naming no volume (Not found); a
    StatefulSet's claim template names are volumes of its pods."""
    volumes = [as_dict(v) for v in as_list(podspec.get("volumes"))]
    messages = [
        f"{path}.volumes[{i}] has no name (a mis-indented name: is read as a key of the map around it); the API "
        f"server refuses the pod (volumes[{i}].name: Required value), so no pod is created"
        for i, volume in enumerate(volumes)
        if not volume.get("name")
    ]
    if not core or any(not isinstance(v.get("name"), str) for v in volumes if v.get("name")):
        return messages
    names = {name_of(v) for v in volumes} | claims
    for container in every:
        for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
            name = mount.get("name")
            if isinstance(name, str) and name and "$" not in name and "{" not in name and name not in names:
                messages.append(
                    f"{container_label(path, container)}: volumeMount {name} names no volume of the pod; the API "
                    f"server refuses the pod (volumeMounts.name: Not found), so no pod is created"
                )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    core = not is_custom_type(getattr(resource, "type", None))
    claims = _claim_templates(resource)
    if (refused := selector_refusal(resource)) is not None:
        messages.append(refused)
    if (absent := selector_missing(resource)) is not None:
        # a kustomization's commonLabels / labels.includeSelectors creates the selector (policies/reading/api_refusals.py)
        view = viewed_resources()
        kustomized = view is None or memoized(view, "kustomization_read", kustomization_read)
        messages.append(
            unproven(f"{absent} (unless a kustomization of the run adds it with commonLabels)") if kustomized else absent
        )
    for path, podspec in pod_specs(resource):
        every = containers(podspec, init=True)
        messages.extend(_names(path, podspec, every, core, claims))
        messages.extend(m for c in every for m in container_refusals(path, c))
        for name in _duplicates(c.get("name") for c in every):
            messages.append(
                f"{path}: two containers are named {name} (containers and initContainers share one name space); "
                f"the API server refuses the pod (Duplicate value), so no pod is created"
            )
        for name in _duplicates(as_dict(v).get("name") for v in as_list(podspec.get("volumes"))):
            messages.append(
                f"{path}.volumes: two volumes are named {name}; the API server refuses the pod (Duplicate value), "
                f"so no pod is created"
            )
        for container in every:
            mounts = [as_dict(m) for m in as_list(container.get("volumeMounts"))]
            for mount_path in _duplicates(m.get("mountPath") for m in mounts):
                names = ", ".join(str(m.get("name")) for m in mounts if m.get("mountPath") == mount_path)
                messages.append(
                    f"{container_label(path, container)}: volumeMounts {names} share the mountPath {mount_path}; "
                    f"the API server refuses the pod (mountPath must be unique), so no pod is created"
                )
    return messages


POLICY = Policy(
    name="pod-template-api-valid",
    description=(
        "A pod template passes the API server's validation that the OpenAPI schema does not express: "
        "unique mountPath per container, unique container names, unique volume names, every volume named and every "
        "mount naming a volume of the pod, each envFrom item naming one source, valid resource names, and an apps "
        "workload's selector stated (apps/v1 requires it) and selecting its own template."
    ),
    catalog="G45",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Mount each volume at its own path (drop or move the duplicate volumeMount), give each container "
        "and each volume of the pod its own name (indent a volume's name: under its list item), and mount only "
        "volumes the pod declares; give an apps/v1 workload a spec.selector whose matchLabels its template's labels carry."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "kubernetes/kubernetes v1.31.0 pkg/apis/core/validation/validation.go: ValidateVolumeMounts refuses a "
        'repeated mountPath ("must be unique") and a mount no volume matches (IsMatchedVolume -> Not found), '
        "validateContainers and ValidateVolumes refuse repeated names (Duplicate value), ValidateVolumes an empty "
        "volume name (Required value), validateEnvFrom an item with no or two sources, validateContainerResourceName "
        "a resource name that is not qualified or extended, and pkg/apis/apps/validation a missing selector "
        "(Required value) and one that does not match the template's labels (policies/reading/api_refusals.py). The schema cannot say so, so kubernetes-validate accepts these templates; "
        "the pods are never created."
    ),
)
