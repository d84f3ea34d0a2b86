"""What the platform installs besides the models: monitoring and alerts, Karpenter, KubeRay and the add-ons.

Pure: pydantic only.
"""

from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, field_validator, model_validator

from ..facts import KUBERAY_CHART_VERSION
from .base import Bool, Float, Int, Str, _dns_name, _Model, matching


class KubeRayConfig(_Model):
    """The KubeRay operator that runs the RayClusters of multi-node models."""

    install: Bool = Field(
        default=True,
        description="Install the kuberay-operator Helm chart (pinned " + KUBERAY_CHART_VERSION + ") when a model sets "
        "distributed; false where the cluster already runs KubeRay 1.7. Default true.",
    )
    namespace: Str = Field(default="kuberay-system", description="Namespace of the operator. Default kuberay-system.")

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))


class PrometheusConfig(_Model):
    """Where Prometheus lives: an existing server, or a kube-prometheus-stack release the platform installs."""

    url: Optional[Str] = Field(
        default=None,
        description="URL of an existing Prometheus (Prometheus Operator managed), e.g. "
        "http://prometheus-operated.monitoring.svc:9090. Default null: the platform installs kube-prometheus-stack "
        "(pinned chart 88.5.3) in monitoring.namespace and uses its Prometheus.",
    )
    monitor_labels: dict[Str, Str] = Field(
        default_factory=dict,
        description="Labels put on every PodMonitor and PrometheusRule so that an existing Prometheus's "
        "podMonitorSelector / ruleSelector selects them (e.g. {release: kube-prometheus-stack}). Default {}.",
    )

    @field_validator("url")
    @classmethod
    def _url(cls, v: Optional[str]) -> Optional[str]:
        return matching(
            v,
            r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?",
            "must be an http(s) URL such as http://prometheus-operated.monitoring.svc:9090 (no credentials, no query)",
        )

    @field_validator("monitor_labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not re.fullmatch(r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", key):
                raise ValueError(f"label key {key!r} is not a Kubernetes label key")
            if not re.fullmatch(r"(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?", value):
                # The value is not echoed: a misplaced secret must not reach an error message.
                raise ValueError(f"the value of label {key!r} is not a Kubernetes label value (at most 63 of A-Z a-z 0-9 - _ .)")
        return v


class AlertsConfig(_Model):
    """Thresholds of the per-model PrometheusRules (the TTFT threshold is each model's slo.timeToFirstTokenSeconds)."""

    queue_fraction: Float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="LlmQueueBuildingUp fires when a pod's waiting requests stay above this fraction of its "
        "maxNumQueuedReqs (beyond it vLLM answers 503). Default 0.5.",
    )
    kv_cache_usage: Float = Field(
        default=0.95,
        gt=0,
        le=1,
        description="LlmKvCacheNearlyFull fires when vllm:kv_cache_usage_perc (a 0-1 fraction) stays above this. Default 0.95.",
    )
    preemptions_per_minute: Float = Field(
        default=0,
        ge=0,
        description="LlmPreemptions fires when a model preempts more requests per minute than this. Default 0 (any).",
    )
    restarts: Int = Field(
        default=0,
        ge=0,
        description="LlmPodRestarting fires when a vLLM container restarts more often than this within 15 minutes. Default 0 (any).",
    )
    admission_rejections_per_minute: Float = Field(
        default=0,
        ge=0,
        description="LlmAdmissionRejections fires when more requests per minute than this get 503 (queue full). Default 0 (any).",
    )
    for_seconds: Int = Field(
        default=300, ge=0, le=3600, description="How long a condition must hold before its alert fires, seconds. Default 300."
    )
    at_max_replicas_seconds: Int = Field(
        default=900,
        ge=60,
        le=86400,
        description="LlmAutoscalerAtMaxReplicas fires when a model stays at maxReplicas this long, seconds. Default 900.",
    )


class MonitoringConfig(_Model):
    """Metrics, autoscaling plumbing and alerts shared by every model of the stack."""

    namespace: Str = Field(
        default="monitoring",
        description="Namespace of the Prometheus Adapter, KEDA and (when installed) kube-prometheus-stack. Default monitoring.",
    )
    prometheus: PrometheusConfig = Field(
        default_factory=PrometheusConfig, description="Default {url: null} (install kube-prometheus-stack)."
    )
    alerts: AlertsConfig = Field(default_factory=AlertsConfig, description="Default thresholds as documented on each field.")

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))


class AddonConfig(_Model):
    """A cluster add-on this stack installs as a pinned Helm release, or finds already running."""

    install: Bool = Field(
        default=True,
        description="Install the add-on's pinned Helm release. Default true; false where the cluster already runs it.",
    )


class KarpenterConfig(_Model):
    """Karpenter itself: its AWS prerequisites and its Helm release."""

    install: Bool = Field(
        default=True,
        description="Create Karpenter's AWS prerequisites (node role and access entry, controller role via EKS Pod Identity, "
        "interruption queue and EventBridge rules) and install its pinned Helm release (1.14.1). Default true; false where "
        "Karpenter already runs (the pools then use nodeRoleName).",
    )
    namespace: Str = Field(default="kube-system", description="Namespace of the Karpenter controller. Default kube-system.")
    node_role_name: Optional[Str] = Field(
        default=None,
        description="Existing node IAM role for the EC2NodeClasses when install is false. Default null: "
        "KarpenterNodeRole-<cluster> (created here when install is true).",
    )

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))

    @model_validator(mode="after")
    def _role_only_without_install(self) -> "KarpenterConfig":
        if self.install and self.node_role_name is not None:
            raise ValueError(
                "nodeRoleName names an existing role and is only read with install: false (install creates KarpenterNodeRole-<cluster>)"
            )
        return self


class AddonsConfig(_Model):
    """Cluster add-ons the serving path depends on, each pinned and skippable."""

    cert_manager: AddonConfig = Field(
        default_factory=AddonConfig, description="cert-manager v1.21.1 (KServe's webhook certificates). Default {install: true}."
    )
    kserve: AddonConfig = Field(
        default_factory=AddonConfig,
        description="KServe v0.20.0 CRDs and controller, default deployment mode Standard. Default {install: true}.",
    )
    nvidia_device_plugin: AddonConfig = Field(
        default_factory=AddonConfig,
        description="NVIDIA device plugin 0.20.0 on GPU nodes only (the AL2023 NVIDIA AMI needs it; Bottlerocket's NVIDIA "
        "variant ships it). Default {install: true}.",
    )
    pod_identity_agent: AddonConfig = Field(
        default_factory=AddonConfig,
        description="The EKS Pod Identity Agent, as the EKS add-on eks-pod-identity-agent (aws.eks.Addon, the version EKS "
        "picks for the cluster's Kubernetes version), not a Helm release: Karpenter, the AWS Load Balancer Controller and "
        "the S3 model readers get their AWS credentials through it, and their Pod Identity associations wait for it. "
        "Default {install: true}; false where the cluster runs it already.",
    )
    efa_device_plugin: AddonConfig = Field(
        default_factory=AddonConfig,
        description="AWS EFA device plugin (eks-charts aws-efa-k8s-device-plugin v0.5.30), installed when a multi-node "
        "model requests EFA interfaces (distributed.efa on EFA instance types): nothing else serves "
        "vpc.amazonaws.com/efa, so those pods would stay Pending. Default {install: true}; false where it runs already.",
    )
