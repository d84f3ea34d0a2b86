"""Data catalogue: facts about the Helm charts the stack installs, as far as the order of a deploy is concerned.

One :class:`ChartFacts` row per chart in :data:`CHARTS` (which kinds' CRDs it installs, which
kinds its controller reconciles or its webhooks admit, which charts it needs first, the service
account it runs as when it calls AWS), each citing the chart or controller source at the pinned
tag, and :data:`POD_NAMESPACES`, where the pods of a cluster-scoped object run. It is a table, not
logic: components/deploy_order.py derives every wait from it (docs/deploy.md). Adding a chart to
the stack means adding its row here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class ChartFacts:
    """What one Helm chart installs and runs, as far as the order of a deploy is concerned.

    Kinds are ``"<group>/<Kind>"`` (``""`` group for the core API). ``service_account`` is the
    values path of the name of the service account the controller runs as and the chart's default
    name, for a controller that calls AWS through EKS Pod Identity.
    """

    chart: str
    crds: tuple[str, ...] = ()
    serves: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    service_account: Optional[tuple[str, str]] = None
    sources: tuple[str, ...] = ()


# The Istio kinds the stacks render: the base chart installs their CRDs and istiod's webhook validates them (the two
# rows below cite where), so one list serves both.
ISTIO_KINDS = (
    "networking.istio.io/VirtualService",
    "networking.istio.io/DestinationRule",
    "networking.istio.io/Gateway",
    "networking.istio.io/ServiceEntry",
    "networking.istio.io/Sidecar",
    "security.istio.io/PeerAuthentication",
    "security.istio.io/AuthorizationPolicy",
    "telemetry.istio.io/Telemetry",
)

CHARTS: dict[str, ChartFacts] = {
    f.chart: f
    for f in (
        ChartFacts(
            "cert-manager",
            crds=("cert-manager.io/Certificate", "cert-manager.io/Issuer", "cert-manager.io/ClusterIssuer"),
            sources=("cert-manager v1.21.1 deploy/charts/cert-manager/templates/crd-*.yaml (with crds.enabled)",),
        ),
        ChartFacts(
            "kserve-crd",
            crds=(
                "serving.kserve.io/InferenceService",
                "serving.kserve.io/ServingRuntime",
                "serving.kserve.io/ClusterServingRuntime",
                "serving.kserve.io/TrainedModel",
                "serving.kserve.io/InferenceGraph",
                "serving.kserve.io/ClusterStorageContainer",
            ),
            sources=("kserve v0.20.0 charts/kserve-crd/templates/serving.kserve.io_*.yaml",),
        ),
        ChartFacts(
            "kserve-resources",
            # The InferenceService defaulter and validator (failurePolicy Fail) and the controller
            # that removes the InferenceService's finalizer.
            serves=(
                "serving.kserve.io/InferenceService",
                "serving.kserve.io/ServingRuntime",
                "serving.kserve.io/ClusterServingRuntime",
                "serving.kserve.io/TrainedModel",
                "serving.kserve.io/InferenceGraph",
            ),
            # Its webhook certificate is a cert-manager Certificate from a cert-manager Issuer.
            after=("kserve-crd", "cert-manager"),
            sources=(
                "kserve v0.20.0 charts/kserve-resources/files/kserve/resources.yaml:553-611 (MutatingWebhookConfiguration "
                "inferenceservice.serving.kserve.io, failurePolicy: Fail) and the ValidatingWebhookConfigurations that follow",
                "kserve v0.20.0 charts/kserve-resources/files/kserve/resources.yaml:536 (kind: Certificate) and "
                "files/common/certmanager.yaml:2 (kind: Issuer)",
            ),
        ),
        ChartFacts(
            "kserve-localmodel-crd",
            crds=(
                "serving.kserve.io/LocalModelCache",
                "serving.kserve.io/LocalModelNode",
                "serving.kserve.io/LocalModelNodeGroup",
            ),
            sources=("kserve v0.20.0 charts/kserve-localmodel-crd/templates/",),
        ),
        ChartFacts(
            "kserve-localmodel-resources",
            # The LocalModelCache validator admits CREATE, UPDATE and DELETE with failurePolicy Fail:
            # a cache cannot even be deleted once this controller is gone.
            serves=(
                "serving.kserve.io/LocalModelCache",
                "serving.kserve.io/LocalModelNodeGroup",
                "serving.kserve.io/LocalModelNode",
            ),
            after=("kserve-localmodel-crd", "kserve-resources", "cert-manager"),
            sources=(
                "kserve v0.20.0 charts/kserve-localmodel-resources/files/resources.yaml:407-435 (ValidatingWebhookConfiguration "
                "localmodelcache.serving.kserve.io: CREATE, UPDATE, DELETE; failurePolicy: Fail)",
                "kserve v0.20.0 charts/kserve-localmodel-resources/files/resources.yaml:390-403 (Certificate from Issuer selfsigned-issuer)",
            ),
        ),
        ChartFacts(
            "karpenter-crd",
            crds=(
                "karpenter.sh/NodePool",
                "karpenter.sh/NodeClaim",
                "karpenter.k8s.aws/EC2NodeClass",
                "karpenter.sh/NodeOverlay",
                "autoscaling.x-k8s.io/CapacityBuffer",
            ),
            sources=("karpenter-provider-aws v1.14.1 charts/karpenter-crd/templates/ (the five CRDs of charts/karpenter/crds/)",),
        ),
        ChartFacts(
            "karpenter",
            # The controller owns the finalizers of NodePools, NodeClaims and EC2NodeClasses: deleting
            # them without it leaves instances running and the node role in use.
            serves=(
                "karpenter.sh/NodePool",
                "karpenter.sh/NodeClaim",
                "karpenter.k8s.aws/EC2NodeClass",
                "karpenter.sh/NodeOverlay",
                "autoscaling.x-k8s.io/CapacityBuffer",
            ),
            after=("karpenter-crd",),
            service_account=("serviceAccount.name", "karpenter"),
            sources=(
                "karpenter-provider-aws v1.14.1 charts/karpenter/templates/deployment.yaml (serviceAccountName from serviceAccount.name)",
                "karpenter-provider-aws v1.14.1 website/content/en/docs/concepts/nodeclasses.md (the EC2NodeClass finalizer waits for its NodeClaims)",
            ),
        ),
        ChartFacts(
            "base",
            crds=ISTIO_KINDS,
            sources=("istio 1.30.3 manifests/charts/base/templates/crds.yaml (files/crd-all.gen.yaml)",),
        ),
        ChartFacts(
            "istiod",
            serves=ISTIO_KINDS,
            after=("base",),
            sources=(
                "istio 1.30.3 manifests/charts/istio-control/istio-discovery/templates/validatingwebhookconfiguration.yaml:19-48 "
                "(rev.validation.istio.io on networking.istio.io, failurePolicy Fail)",
            ),
        ),
        ChartFacts(
            "gateway",
            # The gateway pods are injected by istiod's webhook (inject.istio.io/templates: gateway).
            after=("istiod",),
            sources=("istio 1.30.3 manifests/charts/gateway/templates/deployment.yaml (inject.istio.io/templates: gateway)",),
        ),
        ChartFacts(
            "aws-load-balancer-controller",
            crds=("elbv2.k8s.aws/TargetGroupBinding", "elbv2.k8s.aws/IngressClassParams"),
            # vingress.elbv2.k8s.aws validates every Ingress (failurePolicy Fail by default), and the
            # controller removes the ALB Ingress finalizer once it deleted the load balancer.
            serves=("networking.k8s.io/Ingress", "elbv2.k8s.aws/TargetGroupBinding", "elbv2.k8s.aws/IngressClassParams"),
            service_account=("serviceAccount.name", "aws-load-balancer-controller"),
            sources=(
                "eks-charts v0.0.242 stable/aws-load-balancer-controller/templates/webhook.yaml:317-353 (vingress.elbv2.k8s.aws on "
                "ingresses, failurePolicy webhookConfig.ingressValdationFailurePolicy) and values.yaml:234 (Fail)",
                "eks-charts v0.0.242 stable/aws-load-balancer-controller/crds/crds.yaml",
            ),
        ),
        ChartFacts(
            "keda",
            crds=(
                "keda.sh/ScaledObject",
                "keda.sh/ScaledJob",
                "keda.sh/TriggerAuthentication",
                "keda.sh/ClusterTriggerAuthentication",
            ),
            serves=(
                "keda.sh/ScaledObject",
                "keda.sh/ScaledJob",
                "keda.sh/TriggerAuthentication",
                "keda.sh/ClusterTriggerAuthentication",
            ),
            sources=("kedacore/charts v2.20.2 keda/templates/crds/ and keda/templates/webhooks/ (webhooks.enabled: true)",),
        ),
        ChartFacts(
            "kuberay-operator",
            crds=("ray.io/RayCluster", "ray.io/RayJob", "ray.io/RayService", "ray.io/RayCronJob"),
            serves=("ray.io/RayCluster", "ray.io/RayJob", "ray.io/RayService", "ray.io/RayCronJob"),
            sources=("kuberay v1.7.0 helm-chart/kuberay-operator/crds/",),
        ),
        ChartFacts(
            "kube-prometheus-stack",
            crds=(
                "monitoring.coreos.com/PodMonitor",
                "monitoring.coreos.com/ServiceMonitor",
                "monitoring.coreos.com/PrometheusRule",
                "monitoring.coreos.com/Probe",
                "monitoring.coreos.com/ScrapeConfig",
                "monitoring.coreos.com/AlertmanagerConfig",
            ),
            # The operator's admission webhook validates PrometheusRules.
            serves=(
                "monitoring.coreos.com/PodMonitor",
                "monitoring.coreos.com/ServiceMonitor",
                "monitoring.coreos.com/PrometheusRule",
                "monitoring.coreos.com/Probe",
                "monitoring.coreos.com/ScrapeConfig",
                "monitoring.coreos.com/AlertmanagerConfig",
            ),
            sources=(
                "prometheus-community/helm-charts kube-prometheus-stack-88.5.3 charts/kube-prometheus-stack/charts/crds/ and "
                "templates/prometheus-operator/admission-webhooks/",
            ),
        ),
        ChartFacts(
            "prometheus-adapter",
            # The adapter answers custom.metrics.k8s.io from Prometheus.
            after=("kube-prometheus-stack",),
            sources=(
                "prometheus-community/helm-charts prometheus-adapter-5.3.0 charts/prometheus-adapter/templates/custom-metrics-apiservice.yaml",
            ),
        ),
        ChartFacts("nvidia-device-plugin", sources=("NVIDIA/k8s-device-plugin v0.20.0: no CRDs, no webhooks",)),
        ChartFacts("aws-efa-k8s-device-plugin", sources=("eks-charts v0.0.242 stable/aws-efa-k8s-device-plugin: one DaemonSet",)),
    )
}


# Where the pods of a cluster-scoped object run, and so where the ServiceAccounts and Secrets it
# names are looked up: KServe runs a LocalModelCache's download jobs in its job namespace
# (kserve-resources v0.20.0 values.yaml kserve.localmodel.jobNamespace, read by
# files/common/configmap-patch.yaml into inferenceservice-config). A cluster-scoped kind not
# listed names nothing this table can place, and waits for nothing it names.
POD_NAMESPACES: dict[str, tuple[str, str, str]] = {
    "serving.kserve.io/LocalModelCache": ("kserve-resources", "kserve.localmodel.jobNamespace", "kserve-localmodel-jobs"),
}
