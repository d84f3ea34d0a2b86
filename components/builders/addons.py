"""Helm releases of the cluster add-ons the serving path depends on: cert-manager, KServe, NVIDIA device plugin.

Pure functions returning each release as plain data (chart pinned to a released version, the
source repository and tag named beside each pin; tests check every value against the chart's defaults
and, where the chart ships one, its values.schema.json). Each add-on is skippable
(``addons.<name>.install: false``) where the cluster already runs it.
"""

from __future__ import annotations

from typing import Any

from ..builders.helm import Chart, release
from ..builders.karpenter import GPU_TOLERATION
from ..config import AddonsConfig

CERT_MANAGER = Chart("cert-manager", "v1.21.1", "oci://quay.io/jetstack/charts")
KSERVE_CRD = Chart("kserve-crd", "v0.20.0", "oci://ghcr.io/kserve/charts")
KSERVE = Chart("kserve-resources", "v0.20.0", "oci://ghcr.io/kserve/charts")
KSERVE_LOCALMODEL_CRD = Chart("kserve-localmodel-crd", "v0.20.0", "oci://ghcr.io/kserve/charts")
KSERVE_LOCALMODEL = Chart("kserve-localmodel-resources", "v0.20.0", "oci://ghcr.io/kserve/charts")
NVIDIA_DEVICE_PLUGIN = Chart("nvidia-device-plugin", "0.20.0", "https://nvidia.github.io/k8s-device-plugin")
# eks-charts stable/aws-efa-k8s-device-plugin (chart v0.5.30, plugin image v0.5.20, eks-charts tag v0.0.242, commit 5239609242f3430be50fb0b714a24d3ef2b47983).
EFA_DEVICE_PLUGIN = Chart("aws-efa-k8s-device-plugin", "v0.5.30", "https://aws.github.io/eks-charts")

CERT_MANAGER_NAMESPACE = "cert-manager"
KSERVE_NAMESPACE = "kserve"
DEVICE_PLUGIN_NAMESPACE = "kube-system"
# Karpenter labels every node it launches with the GPU maker (Karpenter v1.14.1 docs, well-known labels):
# the device plugin runs there and nowhere else.
GPU_NODE_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}
                    ]
                }
            ]
        }
    }
}


def cert_manager_values() -> dict[str, Any]:
    """cert-manager with its CRDs (KServe's webhooks take their certificates from it)."""
    return {"crds": {"enabled": True}}


# What the kserve release sets as inferenceservice-config's default CPU limit: none (kserve_values).
KSERVE_DEFAULT_CPU_LIMIT = ""


def kserve_values(local_model_cache: bool = False, routes_itself: bool = False) -> dict[str, Any]:
    """The KServe controller with Standard as the cluster default, and what its ``inferenceservice-config`` says.

    The chart's default is Knative (kserve/kserve v0.20.0, "Deployment mode"), which this project does not
    install; the InferenceServices also carry the annotation, this covers any other.

    ``local_model_cache``: ``localModel.enabled`` lives in ``inferenceservice-config``, which this
    release renders (kserve v0.20.0 charts/kserve-resources/files/common/configmap-patch.yaml:122,
    ``"enabled": {{ .Values.kserve.localmodel.enabled }}``); the local-model release does not.

    ``routes_itself``: the stack's own ALB (and Istio) route to the predictors, so KServe must not
    create a second, untimed Ingress per InferenceService (kube_ingress_reconciler.go:106 creates one
    unless the ingress config's ``disableIngressCreation``, configmap-patch.yaml:89).

    The default CPU limit is cleared: KServe's defaulter fills every CPU/memory limit the predictor lacks
    from ``inferenceservice-config`` (pkg/apis/serving/v1beta1/inference_service_defaults.go:59-96,
    predictor_custom.go:65-73), whose chart default is 1 CPU (charts/kserve-resources/values.yaml:90-91,
    rendered as ``resource.cpuLimit`` by configmap-patch.yaml:135-143). Our vLLM container requests 6-76 CPUs
    and sets no CPU limit on purpose (throttling slows tokenisation; policy catalogue row 9), so the 1-CPU
    limit made every predictor Deployment invalid (request above limit). An empty value renders
    ``"cpuLimit": ""``, which the defaulter skips (``if config.Resource.CPULimit != ""``). The memory limit
    stays at the chart's default: every container we render sets its own (equal to its request), and the
    defaulter fills only missing keys. See docs/controllers.md.
    """
    controller: dict[str, Any] = {"deploymentMode": "Standard"}
    if routes_itself:
        controller["gateway"] = {"disableIngressCreation": True}
    values: dict[str, Any] = {
        "kserve": {"controller": controller, "inferenceservice": {"resources": {"limits": {"cpu": KSERVE_DEFAULT_CPU_LIMIT}}}}
    }
    if local_model_cache:
        values["kserve"]["localmodel"] = {"enabled": True}
    return values


def device_plugin_values() -> dict[str, Any]:
    """The NVIDIA device plugin, tolerating the GPU taint and scheduled on NVIDIA GPU nodes only."""
    return {
        "affinity": GPU_NODE_AFFINITY,
        "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}, dict(GPU_TOLERATION)],
        "priorityClassName": "system-node-critical",
    }


def efa_device_plugin_values() -> dict[str, Any]:
    """The EFA device plugin on the GPU nodes too: it tolerates the GPU taint (the chart adds only CriticalAddonsOnly).

    The DaemonSet advertises ``vpc.amazonaws.com/efa`` on the instance types of the chart's
    ``supportedInstanceLabels`` (p4d, p5, p5e, p5en, p6 ... in v0.5.30's values.yaml) and runs with
    ``priorityClassName: system-node-critical`` (templates/daemonset.yaml:34-44).
    """
    return {"tolerations": [dict(GPU_TOLERATION)]}


def addon_releases(
    cfg: AddonsConfig, local_model_cache: bool = False, routes_itself: bool = False, efa: bool = False
) -> list[dict[str, Any]]:
    """The add-on releases to install, in install order (cert-manager before KServe, CRDs before the controller).

    With ``local_model_cache`` (a model reads its weights from a LocalModelCache) KServe's local-model
    CRDs and controller/node agent come with KServe.
    """
    out = []
    if cfg.cert_manager.install:
        out.append(release(CERT_MANAGER, "cert-manager", CERT_MANAGER_NAMESPACE, cert_manager_values()))
    if cfg.kserve.install:
        out.append(release(KSERVE_CRD, "kserve-crd", KSERVE_NAMESPACE, {}))
        out.append(release(KSERVE, "kserve", KSERVE_NAMESPACE, kserve_values(local_model_cache, routes_itself)))
        if local_model_cache:
            from ..builders.model_source import localmodel_values

            out.append(release(KSERVE_LOCALMODEL_CRD, "kserve-localmodel-crd", KSERVE_NAMESPACE, {}))
            out.append(release(KSERVE_LOCALMODEL, "kserve-localmodel", KSERVE_NAMESPACE, localmodel_values()))
    if cfg.nvidia_device_plugin.install:
        out.append(release(NVIDIA_DEVICE_PLUGIN, "nvidia-device-plugin", DEVICE_PLUGIN_NAMESPACE, device_plugin_values()))
    if efa and cfg.efa_device_plugin.install:
        out.append(release(EFA_DEVICE_PLUGIN, "aws-efa-k8s-device-plugin", DEVICE_PLUGIN_NAMESPACE, efa_device_plugin_values()))
    return out


# The EKS add-on that runs the Pod Identity Agent DaemonSet (EKS user guide, "Set up the Amazon EKS
# Pod Identity Agent"): the name EKS's add-on API knows it by.
POD_IDENTITY_AGENT_ADDON = "eks-pod-identity-agent"


def pod_identity_agent_addon() -> dict[str, Any]:
    """Arguments of the ``aws.eks.Addon`` that installs the EKS Pod Identity Agent.

    No addon_version: EKS picks the default version for the cluster's Kubernetes version (a pinned
    one would need a table per Kubernetes minor). On create, the add-on takes over an agent installed
    by hand (OVERWRITE); on update, changes made outside Pulumi are kept (PRESERVE).
    """
    return {
        "addon_name": POD_IDENTITY_AGENT_ADDON,
        "resolve_conflicts_on_create": "OVERWRITE",
        "resolve_conflicts_on_update": "PRESERVE",
    }
