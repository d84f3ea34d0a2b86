"""G66: a scheduler-plugins coscheduling PodGroup is named by the pods it is meant to gang.

The coscheduling plugin of kubernetes-sigs/scheduler-plugins finds a pod's PodGroup only through the pod's label
``scheduling.x-k8s.io/pod-group: NAME`` (v0.34.7 apis/scheduling/v1alpha1/types.go:111-112 PodGroupLabel;
pkg/util/podgroup.go:51-53 GetPodGroupLabel; pkg/coscheduling/core/core.go:392-396 GetPodGroup returns no group for a
pod without it, and PreFilter, core.go:246-249, then schedules that pod alone). A PodGroup no pod names selects
nothing: its minMember is never waited for, and the all-or-nothing placement of a multi-node model server it was
written for (a half-placed tensor-parallel group holding GPUs while it waits for its other node) does not happen.
The plugin also runs only in a scheduler profile that enables it (doc/install.md:228-236: pods name the secondary
scheduler, ``schedulerName: scheduler-plugins-scheduler``); a labelled pod left to ``default-scheduler`` is not
judged, since the project's own install replaces the default scheduler (doc/install.md:91, 202-221: its example
Deployment names no scheduler).

Advisory: a controller of another file, a mutating webhook or Kustomize may add the label, and a cluster may run
coscheduling in its default scheduler. Silent where a Kubeflow training or MPI operator object is in the run (those
operators label their pods and make their PodGroups themselves), and for Volcano's PodGroups (another group).
Set 39 aliceco01/llm-inference-stack projects/10-disaggregated/k8s/multinode-lws.yaml (PodGroup vllm-decode-70b
beside a LeaderWorkerSet whose pods carry no such label; labelled with no catalogue row).
"""

from __future__ import annotations

from typing import Any, Iterator

from policies.framework import Policy, Resource
from policies.kube import as_dict, get, pod_specs, split_type
from policies.reading.serving import template_labels

LABEL = "scheduling.x-k8s.io/pod-group"
_GROUP = ("scheduling.x-k8s.io", "PodGroup")
# Operators that label their pods and create their PodGroups themselves when gang scheduling is on.
_OPERATOR_GROUPS = ("kubeflow.org",)


def _namespace(resource: Resource) -> str:
    value = get(resource.props, "metadata", "namespace")
    return value if isinstance(value, str) and value else "default"


def _pods(resources: list[Resource]) -> Iterator[tuple[Resource, str, dict, dict]]:
    """(workload, pod spec path, pod spec, one label set of its pods) of every pod template of the files."""
    for r in resources:
        if not r.type.startswith("kubernetes:") or split_type(r.type) == _GROUP:
            continue
        for path, podspec in pod_specs(r):
            if split_type(r.type)[1] == "Pod":
                yield r, path, podspec, dict(as_dict(get(r.props, "metadata", "labels")))
                continue
            for labels in template_labels(r, path):
                yield r, path, podspec, labels


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    groups = [r for r in resources if split_type(r.type) == _GROUP]
    if not groups or any(split_type(r.type)[0].endswith(_OPERATOR_GROUPS) for r in resources):
        return []
    pods = list(_pods(resources))
    named: dict[tuple[str, Any], list[tuple[Resource, dict]]] = {}
    for workload, _, podspec, labels in pods:
        if LABEL in labels:
            named.setdefault((_namespace(workload), labels[LABEL]), []).append((workload, podspec))
    findings: list[tuple[str, str]] = []
    for group in groups:
        name = get(group.props, "metadata", "name")
        if not isinstance(name, str) or any(not isinstance(v, str) for _, v in named):
            continue  # a label value the files do not spell (a placeholder) may name it
        members = named.get((_namespace(group), name))
        minimum = get(group.props, "spec", "minMember")
        if not members:  # a pod left to default-scheduler is not judged: the default may run coscheduling
            findings.append(
                (
                    group.name,
                    f"PodGroup {_namespace(group)}/{name} (minMember {minimum}): no pod template of these files in its "
                    f"namespace carries the label {LABEL}: {name}, and the coscheduling plugin gangs only the pods whose "
                    f"label names their PodGroup (scheduler-plugins v0.34.7 pkg/coscheduling/core/core.go:392-396), so "
                    f"each pod is scheduled alone and the all-or-nothing placement this group was written for does not "
                    f"happen; add the label to the pod templates, with the schedulerName of the scheduler that runs "
                    f"coscheduling",
                )
            )
            continue
    return findings


POLICY = Policy(
    name="pod-group-selects-pods",
    description="A scheduler-plugins coscheduling PodGroup is named by its pods' scheduling.x-k8s.io/pod-group label.",
    catalog="G66",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Label every pod template of the gang with scheduling.x-k8s.io/pod-group: <PodGroup name> (LeaderWorkerSet: "
        "leaderTemplate and workerTemplate) and set schedulerName to the scheduler profile that enables coscheduling."
    ),
    check_stack=_check,
    rationale=(
        "The coscheduling plugin reads a pod's PodGroup from its scheduling.x-k8s.io/pod-group label alone "
        "(kubernetes-sigs/scheduler-plugins v0.34.7 pkg/util/podgroup.go:51-53, pkg/coscheduling/core/core.go:246-249, "
        "392-396): a PodGroup no pod names gangs nothing. Advisory: another file, a webhook or an operator may add the "
        "label."
    ),
)
