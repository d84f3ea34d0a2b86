"""G51: a pod's PersistentVolumeClaim is one its repository creates, where the repository creates claims.

The scheduler does not place a pod whose claim does not exist: it stays Pending with ``persistentvolumeclaim "NAME"
not found`` (kubernetes/kubernetes pkg/scheduler/framework/plugins/volumebinding). When the files read create
PersistentVolumeClaims in the pod's namespace and none carries the name the pod mounts, the likeliest story is a
rename that one side missed (spent set 21 mohdamir/llm-on-k8 mistral-24b/deployment.yaml mounts ``mistral-7b`` while
mistral-24b/mistral-pvc.yaml creates ``mistral-pvc``; labelled blocking, filed none).

Advice: the claim may come from elsewhere (another repository, a Helm chart, created by hand). Silent where the run
creates no claim in that namespace (nothing to compare with), for a name holding a template or variable, and for
the claims a StatefulSet's volumeClaimTemplates or an ephemeral volume make (they are not named in ``volumes``).
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, memoized, pod_specs, split_type, viewed_resources
from policies.reading.run_objects import by_namespace, templated
from policies.reading.serving import namespace_of


def _claims_by_namespace(view: Any) -> dict[str, list[str]]:
    return {ns: list(named) for ns, named in by_namespace(list(view), "", "PersistentVolumeClaim").items()}


def _claims(resource: Resource) -> Optional[list[str]]:
    view = viewed_resources()
    if not view:
        return None
    return memoized(view, "claims_by_namespace", _claims_by_namespace).get(namespace_of(resource, "default"))


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) == ("", "PersistentVolumeClaim"):
        return []
    claims = _claims(resource)
    if not claims:
        return []
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for volume in (as_dict(v) for v in as_list(podspec.get("volumes"))):
            name = get(volume, "persistentVolumeClaim", "claimName")
            if not isinstance(name, str) or not name or templated(name) or name in claims:
                continue
            messages.append(
                unproven(
                    f"{path}.volumes {volume.get('name')}: PersistentVolumeClaim {name} is created by none of the files "
                    f"read, which create {', '.join(sorted(claims))} in namespace {namespace_of(resource, 'default')}: unless it "
                    f'comes from elsewhere, the pod stays Pending (persistentvolumeclaim "{name}" not found); use the '
                    f"claim's name"
                )
            )
    return messages


POLICY = Policy(
    name="claim-in-run",
    description=(
        "A pod mounts a PersistentVolumeClaim its repository creates, where the repository creates claims in the pod's "
        "namespace (advice: a claim named differently is a missed rename)."
    ),
    catalog="G51",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Make the pod's claimName the name of the PersistentVolumeClaim the repository creates, or add that claim.",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A pod whose PersistentVolumeClaim does not exist is unschedulable (persistentvolumeclaim not found; "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes/#claims-as-volumes: the claim must exist in the "
        "pod's namespace)."
    ),
)
