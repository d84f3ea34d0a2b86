"""The pods KubeRay will create from a RayCluster, checked like our own: requests within limits, the NodePool's taints.

Stack policy. Derives each RayCluster's head and worker pods as KubeRay v1.7.0 builds them (components/derive/
kuberay.py, which cites ray-operator/controllers/ray/common/pod.go at that tag: the injected wait-gcs-ready init
container, /dev/shm, the generated ``ray start``), then checks each pod: a request above its limit makes the API
server refuse the pod, so KubeRay never gets the cluster up; a taint of the pod's NodePool (named by its
``karpenter.sh/nodepool`` selector) that the pod does not tolerate, whatever its effect, keeps Karpenter from
giving it a node as written (kubernetes-sigs/karpenter v1.14.1 pkg/scheduling/taints.go:83-95).
"""

from __future__ import annotations

from components.derive.kuberay import check_pod, ray_pods
from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, get, split_type


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    taints: dict[str, list] = {}
    for r in resources:
        if split_type(r.type)[1] == "NodePool" and isinstance(r.props, dict):
            name = get(r.props, "metadata", "name")
            if isinstance(name, str):
                taints[name] = [as_dict(t) for t in as_list(get(r.props, "spec", "template", "spec", "taints"))]
    findings = []
    for r in resources:
        if split_type(r.type) != ("ray.io", "RayCluster") or not isinstance(get(r.props, "metadata", "name"), str):
            continue
        try:
            pods = ray_pods(r.props)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            continue  # a RayCluster too malformed to derive: its CRD's schema rules report it
        for name, pod in pods:
            findings += [(r.name, problem) for problem in check_pod(name, pod, taints)]
    return findings


POLICY = Policy(
    name="kuberay-derived-pods",
    description="The head and worker pods KubeRay creates from a RayCluster keep requests within limits and tolerate their NodePool's taints.",
    rationale="KubeRay builds the pods from the RayCluster's templates and adds containers, volumes and a ray start command of its own (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go); the API server refuses a pod whose request exceeds its limit, and Karpenter gives no node to a pod that does not tolerate every taint of its NodePool, PreferNoSchedule included.",
    catalog="S18",
    severity="high",
    # A companion of S18's row (kuberay-gpu-hygiene is its policy): reported, blocks nothing.
    enforcement="advisory",
    remediation_steps="Keep every request of the Ray containers at or below its limit, and give the head and worker "
    "templates a toleration for each taint of the NodePool they select (PreferNoSchedule too).",
    config_schema={},
    check_stack=_check,
)
