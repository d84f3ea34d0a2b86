"""Karpenter's node choice: every GPU pod the set implies gets a node as written, without relaxing its constraints.

Stack policy. Runs Karpenter v1.14.1's provisioning rules (components/derive/karpenter.py, which cites
kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/ at that tag) over the NodePools and the
InferenceServices, RayClusters and GPU placeholders of the set, at their minimum size, all pending at once. A pod
no NodePool takes stays Pending; a pod Karpenter places only after relaxing it (dropping a ScheduleAnyway spread,
adding a PreferNoSchedule toleration: preferences.go:38-57) does not run as its manifest says: replicas lose their
zone spread, a pod lands on a pool it was kept off.
"""

from __future__ import annotations

from components.derive.karpenter import node_choice
from policies.framework import Policy, Resource
from policies.kube import get


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    # An object whose metadata is not a mapping is refused by the API server (S26 says so); it is not read here.
    objects = [
        r.props
        for r in resources
        if r.type.startswith("kubernetes:")
        and isinstance(r.props, dict)
        and r.props.get("kind")
        and isinstance(r.props.get("metadata"), dict)
    ]
    if not any(o.get("kind") == "NodePool" for o in objects):
        return []
    choice = node_choice(objects)
    by_name = {
        n: r.name for r in resources if isinstance(r.props, dict) and isinstance(n := get(r.props, "metadata", "name"), str)
    }
    findings = []
    for u in choice["unschedulable"]:
        findings.append((by_name.get(u["owner"], u["owner"]), f"{u['pod']}: Karpenter provisions no node for it: {u['reason']}"))
    for m in choice["models"]:
        if m["relaxations"]:
            findings.append(
                (
                    by_name.get(m["model"], m["model"]),
                    f"{m['model']}: Karpenter places its pods only after it {', '.join(m['relaxations'])} "
                    "(preferences.go:38-57): add the tolerations and constraints its NodePool needs",
                )
            )
    return findings


POLICY = Policy(
    name="karpenter-node-choice",
    description="Every GPU pod gets a node from Karpenter as its manifest is written, with no constraint relaxed.",
    rationale="Karpenter provisions for pending pods by its own scheduler: it treats ScheduleAnyway spread and PreferNoSchedule taints as hard and relaxes them one by one only when nothing fits (https://karpenter.sh/docs/concepts/scheduling/; kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/preferences.go), so a pod can run unlike its manifest, or not at all.",
    catalog="S13",
    severity="medium",
    # Derived, not read: a companion of S13 that the plan reports; it blocks nothing.
    enforcement="advisory",
    remediation_steps="Give GPU pods a toleration for every taint of their NodePool (PreferNoSchedule too), keep the "
    "NodePool's limits above what replicas.min needs, and select only labels the NodePool defines.",
    config_schema={},
    check_stack=_check,
)
