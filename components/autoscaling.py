"""Autoscaling on serving load: thin ComponentResources (children carry parent=self and the cluster's provider) over builders/autoscaling.py, monitoring.py and prometheus_adapter.py.

- ``MetricsStack`` (llm-serving:autoscaling:MetricsStack): the Helm releases every model's scaling
  needs: kube-prometheus-stack (unless an existing Prometheus is configured), Prometheus Adapter
  with one rule per model, KEDA when a model uses it.
- ``ModelAutoscaling`` (llm-serving:autoscaling:ModelAutoscaling): per model, the HPA (or KEDA
  ScaledObject), the PodMonitor and the PrometheusRule.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .backends import serving_backend
from .builders import autoscaling as scale
from .builders import monitoring as mon
from .builders import prometheus_adapter as metrics
from .capacity.plan import ServingPlan
from .cluster import KubernetesComponent
from .config import ModelConfig, MonitoringConfig
from .helm import helm_release, releases_of
from .inputs import InputName, namespaced_manifest


class MetricsStackArgs(BaseModel):
    """Inputs of a MetricsStack."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: tuple[ModelConfig, ...] = Field(description="The models whose metrics the adapter serves (required).")
    namespace: InputName = Field(
        description="Namespace of the models' pods (required; pulumi.Input[str]): the adapter rules are scoped to it."
    )
    monitoring: MonitoringConfig = Field(
        default_factory=MonitoringConfig, description="Default: install kube-prometheus-stack in monitoring."
    )


class MetricsStack(KubernetesComponent):
    """kube-prometheus-stack (optional), Prometheus Adapter and KEDA (when used) as pinned Helm releases."""

    releases: dict[str, k8s.helm.v3.Release]

    def __init__(self, name: str, args: MetricsStackArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:autoscaling:MetricsStack", name, None, opts)
        self.releases = {}
        # The models whose in-flight metric the adapter serves (ModelAutoscaling checks its model is one).
        self.model_names: tuple[str, ...] = tuple(m.name for m in args.models)
        # The namespace may be another stack's Output: the adapter's values are built once it is known.
        for rel in releases_of(lambda ns: metrics.metrics_releases(args.models, ns, args.monitoring), args.namespace):
            # The adapter after Prometheus: the order comes from components/deploy_order.py.
            self.releases[rel["name"]] = helm_release(f"{name}-{rel['name']}", rel, self.child_opts())
        self.prometheus_url = metrics.prometheus_url(args.monitoring)
        self.register_outputs({"prometheusUrl": self.prometheus_url, "releases": sorted(self.releases)})


class ModelAutoscalingArgs(BaseModel):
    """Inputs of a ModelAutoscaling: the model, its capacity plan, and where metrics live."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: ModelConfig = Field(description="The model's stack configuration (required).")
    plan: ServingPlan = Field(description="Its capacity plan (required): the per-pod target and queue come from here.")
    namespace: InputName = Field(description="Namespace of the model's InferenceService (required; pulumi.Input[str]).")
    monitoring: MonitoringConfig = Field(
        default_factory=MonitoringConfig, description="Default: kube-prometheus-stack in monitoring."
    )
    metrics_stack: Optional[MetricsStack] = Field(
        default=None,
        description="The MetricsStack whose Prometheus Adapter serves this model's in-flight metric (its models include "
        "this one); LlmPlatform passes its own. Default null: see metric_served_elsewhere.",
    )
    metric_served_elsewhere: bool = Field(
        default=False,
        description="The HPA's Pods metric (vllm_requests_in_flight_<model>) is served by an adapter this stack does not "
        "manage, with the rule builders.prometheus_adapter.adapter_rule renders for the model. Default false: with "
        "backend prometheus-adapter and no metrics_stack serving the model, the component refuses to render an HPA "
        "that would never scale.",
    )

    @model_validator(mode="after")
    def _metric_is_served(self) -> "ModelAutoscalingArgs":
        m = self.model
        if (
            serving_backend(m).scale_target(m) is None
            or m.autoscaling.backend != "prometheus-adapter"
            or self.metric_served_elsewhere
        ):
            return self
        if self.metrics_stack is not None and m.name in self.metrics_stack.model_names:
            return self
        served = (
            f"the metrics_stack given serves {', '.join(self.metrics_stack.model_names) or 'no model'}"
            if self.metrics_stack is not None
            else "no metrics_stack is given"
        )
        raise ValueError(
            f"model {m.name!r}: autoscaling.backend prometheus-adapter renders an HPA on the Pods metric "
            f"{scale.in_flight_metric_name(m.name)}, which nothing in this stack serves ({served}), so it would never scale. "
            f"Either serve it here: a MetricsStack whose models include {m.name!r} (it installs the Prometheus Adapter "
            f"with the rule), passed as metrics_stack; or add the rule builders.prometheus_adapter.adapter_rule renders "
            f"to your own adapter and set metric_served_elsewhere=True; or set autoscaling.backend: keda (KEDA queries "
            f"Prometheus itself; its operator must run in the cluster)"
        )


class ModelAutoscaling(KubernetesComponent):
    """One model's HPA (or ScaledObject), PodMonitor and PrometheusRule.

    Outputs: ``hpa_target`` (in-flight requests per pod the autoscaler holds) and ``autoscaler_name``.
    """

    hpa_target: pulumi.Output[int]
    autoscaler_name: pulumi.Output[Optional[str]]

    def __init__(self, name: str, args: ModelAutoscalingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:autoscaling:ModelAutoscaling", name, None, opts)
        child = self.child_opts()
        m, plan, ns, cfg = args.model, args.plan, args.namespace, args.monitoring
        # The namespace may be another stack's Output: builders run once it is known (inputs.py).
        self.scaler: Optional[pulumi.Resource] = None
        if serving_backend(m).scale_target(m) is None:
            pass  # e.g. one fixed-size Ray cluster: autoscaling multi-node replicas is out of scope (components/kuberay.py)
        elif m.autoscaling.backend == "keda":
            url = metrics.prometheus_url(cfg)
            opts = pulumi.ResourceOptions.merge(child, _backend_switch(name, "keda"))
            self.scaler = _custom(f"{name}-scaledobject", lambda n: scale.scaled_object(m, plan, n, url), ns, opts)
        else:
            _, _, meta, spec = namespaced_manifest(lambda n: scale.horizontal_pod_autoscaler(m, plan, n), ns)
            opts = pulumi.ResourceOptions.merge(child, _backend_switch(name, "prometheus-adapter"))
            self.scaler = k8s.autoscaling.v2.HorizontalPodAutoscaler(f"{name}-hpa", metadata=meta, spec=spec, opts=opts)
        labels = cfg.prometheus.monitor_labels
        self.pod_monitor = _custom(f"{name}-podmonitor", lambda n: mon.pod_monitor(m, n, labels), ns, child)
        self.prometheus_rule = _custom(f"{name}-alerts", lambda n: mon.prometheus_rule(m, plan, n, cfg.alerts, labels), ns, child)
        self.hpa_target = pulumi.Output.from_input(plan.target_in_flight_per_pod)
        self.autoscaler_name = pulumi.Output.from_input(scale.autoscaler_name(m) if self.scaler is not None else None)
        self.register_outputs(
            {
                "backend": m.autoscaling.backend if self.scaler is not None else None,
                "autoscalerName": scale.autoscaler_name(m) if self.scaler is not None else None,
                "targetInFlightPerPod": plan.target_in_flight_per_pod,
            }
        )


# What each backend registers: (resource name suffix, Pulumi type).
SCALER_RESOURCES = {
    "prometheus-adapter": ("hpa", "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"),
    "keda": ("scaledobject", "kubernetes:keda.sh/v1alpha1:ScaledObject"),
}


def _backend_switch(name: str, backend: str) -> pulumi.ResourceOptions:
    """Options that make a switch of autoscaler one replacement, the old object deleted before the new one is created.

    The HPA and the ScaledObject are one Pulumi resource across a switch: each aliases the other's name and type, so
    `pulumi up` diffs the new object against the old one's state instead of creating one and deleting the other at
    the end. pulumi-kubernetes does not replace on a change of kind by itself (v4.20.0 provider/pkg/provider/diff.go:
    22-37 forces replacement only for metadata and per-kind fields), hence replace_on_changes on kind;
    delete_before_replace makes the engine delete the old object first (pulumi/pulumi pkg/resource/deploy/
    step_generator.go generateStepsFromDiff: the goal's deleteBeforeReplace overrides the provider's answer, then a
    DeleteReplacementStep precedes the CreateReplacementStep). The provider deletes what the old state holds
    (v4.20.0 provider/pkg/await/await.go Deletion: ResourceClientForObject(c.Outputs), the old live object's kind).

    So switching to KEDA deletes our HPA before the ScaledObject exists: KEDA's webhook finds no HPA on the target
    (kedacore/keda v2.20.2 apis/keda/v1alpha1/scaledobject_webhook.go:256-313) and keeps its guard for every other
    HPA, two HPAs never scale one Deployment, and an `up` that fails after the delete leaves no HPA beside the
    ScaledObject (the Deployment keeps its replicas until the next `up`). Switching back deletes the ScaledObject
    first, in the foreground (pulumi-kubernetes v4.20.0 provider/pkg/metadata/overrides.go:68-77), so KEDA's own
    HPA, which it owns (controllers/keda/hpa.go:187 SetControllerReference), is gone before ours is created.
    """
    other = "prometheus-adapter" if backend == "keda" else "keda"
    suffix, type_ = SCALER_RESOURCES[other]
    return pulumi.ResourceOptions(
        aliases=[pulumi.Alias(name=f"{name}-{suffix}", type_=type_)],
        replace_on_changes=["kind"],
        delete_before_replace=True,
    )


def _custom(
    name: str, build: Callable[[str], dict], namespace: pulumi.Input[str], opts: pulumi.ResourceOptions
) -> k8s.apiextensions.CustomResource:
    api_version, kind, metadata, spec = namespaced_manifest(build, namespace)
    return k8s.apiextensions.CustomResource(name, api_version=api_version, kind=kind, metadata=metadata, spec=spec, opts=opts)


def model_autoscalers(
    name: str,
    models: Sequence[ModelConfig],
    plans: dict[str, ServingPlan],
    namespace: pulumi.Input[str],
    monitoring: MonitoringConfig,
    opts: pulumi.ResourceOptions,
    metrics_stack: Optional[MetricsStack] = None,
) -> dict[str, ModelAutoscaling]:
    """One ModelAutoscaling per model, named ``<name>-<model>-autoscaling`` (``metrics_stack`` serves their metrics)."""
    return {
        m.name: ModelAutoscaling(
            f"{name}-{m.name}-autoscaling",
            ModelAutoscalingArgs(
                model=m, plan=plans[m.name], namespace=namespace, monitoring=monitoring, metrics_stack=metrics_stack
            ),
            opts=opts,
        )
        for m in models
    }
