"""G56 service-selector-not-generated: a Service does not select pods by a name or hash a controller generates anew.

A Service selects its endpoints by ``spec.selector`` among the pods of its namespace
(https://kubernetes.io/docs/concepts/services-networking/service/#services-with-selectors). Some pod labels are names a
controller makes up for one run of the object, with a random or hashed part:

* KubeRay names the RayCluster of a RayJob, and each RayCluster a RayService creates, after its owner plus a random
  five-character suffix, and labels the pods ``ray.io/cluster: <that name>`` (ray-project/kuberay
  ray-operator/controllers/ray/utils/util.go: ``<name>-raycluster-<rand.String(5)>`` at v1.1.0 :28 and :229-231,
  through v1.3.x; ``<name>-<rand.String(5)>`` from v1.4.0, v1.7.0 :369-371; called by rayjob_controller.go:908 and
  rayservice_controller.go:721 at v1.7.0; the label key is utils/constant.go:19). k8s.io/apimachinery's
  ``rand.String`` draws from ``bcdfghjklmnpqrstvwxz2456789``.
* The Deployment controller labels each ReplicaSet's pods ``pod-template-hash`` and the StatefulSet/DaemonSet
  controllers ``controller-revision-hash``, both hashes of one revision of the pod template
  (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#pod-template-hash-label).

A selector copied from a running cluster (``kubectl get svc -o yaml`` of the operator's own Service) keeps that value,
so the next run (a new RayJob submission, a RayService upgrade, a rollout) makes pods it does not select: the Service
has no endpoints and every connection fails. Advice, named for the owner when the files hold the RayJob or RayService
whose name the value extends with a generated suffix: a deploy script outside the files may rewrite the selector after
each run (spent set 87 xiaolin8/Wan2.2 k8s/rayservice-nodeport.yaml has the same form beside RayService wan22-rayservice
and was not labelled for it).
Spent set 89 doublefix/OpsFlow deploy/deepseek_r1_svc_nodepoint.yaml (NodePort on ``ray.io/cluster:
deepseek-r1-671b-raycluster-t4ld9`` beside RayJob deepseek-r1-671b in deploy/rayjob.yaml; labelled G56 blocking).
"""

from __future__ import annotations

import re
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, get, metadata_name, split_type

_RAY_CLUSTER = "ray.io/cluster"
_RAY_OWNERS = ("RayJob", "RayService")
# k8s.io/apimachinery pkg/util/rand String's alphabet (no vowels, no 0/1/3), five characters.
_SUFFIX = r"[bcdfghjklmnpqrstvwxz2456789]{5}"
_GENERATED = re.compile(rf"^(?P<owner>.+?)(?P<old>-raycluster)?-{_SUFFIX}$")
_HASH_KEYS = ("pod-template-hash", "controller-revision-hash")


def _owner(value: str, owners: set[str]) -> Optional[str]:
    """The RayJob/RayService of the files whose generated cluster name ``value`` is, or None."""
    match = _GENERATED.match(value)
    return match.group("owner") if match and match.group("owner") in owners else None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    services = [r for r in resources if split_type(r.type) == ("", "Service") and isinstance(r.props, dict)]
    if not services:
        return []
    owners = {
        str(metadata_name(r.props))
        for r in resources
        if split_type(r.type)[1] in _RAY_OWNERS and split_type(r.type)[0].startswith("ray.io") and isinstance(r.props, dict)
    }
    clusters = {str(metadata_name(r.props)) for r in resources if split_type(r.type) == ("ray.io", "RayCluster")}
    findings: list[tuple[str, str]] = []
    for service in services:
        if service.template or service.patch:
            continue
        selector = as_dict(get(service.props, "spec", "selector"))
        value = selector.get(_RAY_CLUSTER)
        if value in clusters:
            value = None  # a RayCluster of the files carries that name itself
        if isinstance(value, str) and (owner := _owner(value, owners)) is not None:
            findings.append(
                (
                    service.name,
                    unproven(
                        f"spec.selector {_RAY_CLUSTER}: {value} names one generated RayCluster of {owner} (KubeRay names a "
                        f"RayJob's or RayService's cluster after it with a random five-character suffix at each run or "
                        f"upgrade): the next cluster's pods carry another name, so the Service has no endpoints and every "
                        f"connection fails; select the head by labels KubeRay derives from the owner (ray.io/node-type: "
                        f"head with the RayJob's own labels on its headGroupSpec template) or use the head Service KubeRay "
                        f"creates (unless a script outside the files rewrites the selector after each run)"
                    ),
                )
            )
        elif isinstance(value, str) and re.search(rf"-raycluster-{_SUFFIX}$", value):
            findings.append(
                (
                    service.name,
                    unproven(
                        f"spec.selector {_RAY_CLUSTER}: {value} has the shape of a RayCluster name KubeRay generates for "
                        f"a RayJob or RayService (<owner>-raycluster-<5 random characters>): the next run's pods carry "
                        f"another name and the Service has no endpoints; select labels of the pod template instead"
                    ),
                )
            )
        for key in _HASH_KEYS:
            if isinstance(selector.get(key), str):
                findings.append(
                    (
                        service.name,
                        unproven(
                            f"spec.selector {key}: {selector[key]} selects the pods of one revision of a pod template "
                            f"(a hash the controller computes): the next rollout's pods carry another value, so the "
                            f"Service loses every endpoint; select the template's own labels"
                        ),
                    )
                )
                break
    return findings


POLICY = Policy(
    name="service-selector-not-generated",
    description="A Service does not select pods by a name or hash a controller generates for one run (a KubeRay RayJob's "
    "or RayService's cluster name with its random suffix, pod-template-hash, controller-revision-hash).",
    catalog="G56",
    severity="high",
    enforcement="advisory",
    remediation_steps="Select the pods by labels of their template (for KubeRay, labels set on the headGroupSpec "
    "template plus ray.io/node-type: head), or use the head Service KubeRay creates.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "The EndpointSlice controller selects the pods whose labels carry spec.selector "
        "(https://kubernetes.io/docs/concepts/services-networking/service/#services-with-selectors); KubeRay names a "
        "RayJob's or RayService's RayCluster with a random suffix (ray-project/kuberay v1.7.0 "
        "ray-operator/controllers/ray/utils/util.go:369-371; v1.1.0 :229-231 with -raycluster-), so a value copied "
        "from one run selects nothing at the next."
    ),
)
