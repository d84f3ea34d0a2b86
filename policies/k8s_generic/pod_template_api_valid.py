"""G45: a pod template passes the API server's own validation, beyond the OpenAPI schema.

kubernetes-validate checks the schema only; the API server also runs the core validation in
kubernetes/kubernetes pkg/apis/core/validation/validation.go (v1.31.0), which refuses, among others:

* two volumeMounts of one container at the same mountPath (ValidateVolumeMounts:
  ``mountpoints.Has(mnt.MountPath)`` -> field.Invalid "must be unique");
* two containers (containers, initContainers and ephemeral containers share one name space) with
  one name (validateContainers / validateInitContainers: field.Duplicate);
* two volumes with one name (ValidateVolumes: field.Duplicate).

A Deployment, StatefulSet, DaemonSet or Job so written is refused itself (its pod template is
validated with it); an operator's custom resource is stored, and the pods it creates are refused.
Either way the pods never exist. Duplicate env
names are allowed (a warning only, not read here). Templates another object completes (KServe's
ServingRuntimes) are reported through the framework's own rule for them.
"""

from __future__ import annotations

from collections.abc import Iterable

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, pod_specs


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


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec in pod_specs(resource):
        every = containers(podspec, init=True)
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
        "unique mountPath per container, unique container names, unique volume names."
    ),
    catalog="G45",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Mount each volume at its own path (drop or move the duplicate volumeMount), and give each container "
        "and each volume of the pod its own name."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "kubernetes/kubernetes v1.31.0 pkg/apis/core/validation/validation.go: ValidateVolumeMounts refuses a "
        'repeated mountPath ("must be unique"), validateContainers and ValidateVolumes refuse repeated names '
        "(Duplicate value). The schema cannot say so, so kubernetes-validate accepts these templates; "
        "the pods are never created."
    ),
)
