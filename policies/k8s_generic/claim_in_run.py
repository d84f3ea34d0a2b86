"""G51: a pod's PersistentVolumeClaim is one its repository creates, where the repository creates claims.

The scheduler does not place a pod whose claim does not exist: it stays Pending with ``persistentvolumeclaim "NAME"
not found`` (kubernetes/kubernetes pkg/scheduler/framework/plugins/volumebinding). A claim is namespaced and a pod
mounts only a claim of its own namespace (https://kubernetes.io/docs/concepts/storage/persistent-volumes/
#claims-as-volumes). Two forms:

- the files create PersistentVolumeClaims in the pod's namespace and none carries the name the pod mounts: the
  likeliest story is a rename that one side missed (spent set 21 mohdamir/llm-on-k8 mistral-24b/deployment.yaml mounts
  ``mistral-7b`` while mistral-24b/mistral-pvc.yaml creates ``mistral-pvc``; labelled blocking, filed none). Advice:
  the claim may come from elsewhere (another repository, a Helm chart, created by hand);
- the files create a claim of that name only in ANOTHER namespace than the pod's: the likeliest story is a claim put
  in the wrong namespace, but a claim of that name may still exist in the pod's namespace, made by hand, by Terraform,
  another repository or a chart, and no form of the files proves it absent (a run that creates the pod's Namespace
  does not stop anyone from creating claims in it). Advice, like the first form; it says what may make the claim where
  one side states no namespace (it lands where it is applied) or where something in the pod's namespace may make
  claims the files do not show (an operator's custom resource, a Helm template, a Kustomize patch or base:
  run_objects.hides_pods). Review48 item 3: blocking on this was a wrong blocking finding.

Silent for a claim the chart of a Helm release makes itself (policies/chart_workloads.py: vllm-stack's storage claim,
local-ai's persistence claims; spent set 98 amasolov/home-ops local-ai, whose own pvc.yaml of the same names sits in
another namespace and out of its kustomization). Silent where the run creates no claim of that name anywhere and none in the pod's namespace (nothing to compare with),
for a name holding a template or variable, and for the claims a StatefulSet's volumeClaimTemplates or an ephemeral
volume make (they are not named in ``volumes``).
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import Policy, Resource
from policies.helm_charts import chart_workloads
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    get,
    memoized,
    metadata_name,
    pod_specs,
    split_type,
    viewed_resources,
)
from policies.reading.run_objects import by_namespace, hides_pods, stated_namespace, templated
from policies.reading.serving import namespace_of

_Claims = dict[str, dict[str, list[Resource]]]


def _claims_by_namespace(view: Any) -> _Claims:
    return by_namespace(list(view), "", "PersistentVolumeClaim")


def _hiding(view: Any) -> dict[str, list[Resource]]:
    """namespace -> the objects there that may make claims the files do not show (a Namespace object never does)."""
    found: dict[str, list[Resource]] = {}
    for r in view:
        if get(r.props, "kind") != "Namespace" and hides_pods(r):
            found.setdefault(namespace_of(r, "default"), []).append(r)
    return found


def _elsewhere(resource: Resource, name: str, namespace: str, claims: _Claims, view: Any) -> Optional[str]:
    """The advice for a claim the run creates only in other namespaces than the pod's; None where it creates none."""
    others = sorted(ns for ns, named in claims.items() if ns != namespace and name in named)
    if not others:
        return None
    made = [c for ns in others for c in claims[ns][name]]
    message = (
        f"PersistentVolumeClaim {name} is created by the files read only in namespace {', '.join(others)}, not in the "
        f"pod's namespace {namespace}: a pod mounts only a claim of its own namespace, so unless a claim of that name "
        f'is made there another way, the pod stays Pending (persistentvolumeclaim "{name}" not found); put the '
        "workload and the claim in one namespace"
    )
    hidden = [r for r in memoized(view, "claim_hiding", _hiding).get(namespace, ()) if r is not resource]
    if not (stated_namespace(resource) and all(stated_namespace(c) for c in made)):
        return message + " (it may also be applied to another namespace than the one its file states)"
    if hidden:
        kind, name_ = get(hidden[0].props, "kind"), metadata_name(hidden[0].props)
        return message + f" ({kind} {name_} of namespace {namespace}, or its operator or chart, may make it)"
    return message


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) == ("", "PersistentVolumeClaim"):
        return []
    view = viewed_resources()
    if not view:
        return []
    claims: _Claims = memoized(view, "claims_by_namespace", _claims_by_namespace)
    namespace = namespace_of(resource, "default")
    here = claims.get(namespace, {})
    messages: list[str] = []
    # The claims a release's chart makes beside its pods (policies/chart_workloads.py): in the release's namespace.
    made = {n for _, w in chart_workloads(resource.props) for n in w.claims} if isinstance(resource.props, dict) else set()
    for path, podspec in pod_specs(resource):
        for volume in (as_dict(v) for v in as_list(podspec.get("volumes"))):
            name = get(volume, "persistentVolumeClaim", "claimName")
            if not isinstance(name, str) or not name or templated(name) or name in here or name in made:
                continue
            lead = f"{path}.volumes {volume.get('name')}: "
            elsewhere = _elsewhere(resource, name, namespace, claims, view)
            if elsewhere is not None:
                messages.append(lead + elsewhere)
            elif here:
                messages.append(
                    f"{lead}PersistentVolumeClaim {name} is created by none of the files read, which create "
                    f"{', '.join(sorted(here))} in namespace {namespace}: unless it comes from elsewhere, the pod "
                    f'stays Pending (persistentvolumeclaim "{name}" not found); use the claim\'s name'
                )
    return messages


POLICY = Policy(
    name="claim-in-run",
    description=(
        "A pod mounts a PersistentVolumeClaim its repository creates in the pod's namespace: advice for a claim the "
        "files create only in another namespace, and for a claim named differently from the ones of the pod's "
        "namespace (a missed rename); either may still be made there another way."
    ),
    catalog="G51",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Make the pod's claimName the name of the PersistentVolumeClaim the repository creates, in the pod's "
        "namespace, or add that claim there."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A pod whose PersistentVolumeClaim does not exist in its namespace is unschedulable (persistentvolumeclaim not "
        "found; https://kubernetes.io/docs/concepts/storage/persistent-volumes/#claims-as-volumes: the claim must "
        "exist in the pod's namespace)."
    ),
)
