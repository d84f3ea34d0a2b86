"""Helm releases of the metrics plumbing: Prometheus Adapter (rules per model), kube-prometheus-stack, KEDA.

Pure functions returning each release's chart, pinned version, repository, namespace and
values. Versions: prometheus-community/helm-charts tags prometheus-adapter-5.3.0 and
kube-prometheus-stack-88.5.3; tests check every value path against that chart's values.yaml.
The adapter's rule format: kubernetes-sigs/prometheus-adapter v0.12.0, docs/config.md.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence
from urllib.parse import urlsplit

from ..builders.autoscaling import RUNNING, WAITING, in_flight_metric_name, model_selector
from ..builders.helm import Chart, release
from ..config import ModelConfig, MonitoringConfig
from .serving_backend import serving_backend

PROMETHEUS_COMMUNITY = "https://prometheus-community.github.io/helm-charts"
KEDA_REPO = "https://kedacore.github.io/charts"


# prometheus-community/helm-charts, tags prometheus-adapter-5.3.0 and kube-prometheus-stack-88.5.3.
PROMETHEUS_ADAPTER = Chart("prometheus-adapter", "5.3.0", PROMETHEUS_COMMUNITY)
KUBE_PROMETHEUS_STACK = Chart("kube-prometheus-stack", "88.5.3", PROMETHEUS_COMMUNITY)
KEDA = Chart("keda", "2.20.2", KEDA_REPO)

# kube-prometheus-stack names its Prometheus Service "<fullname>-prometheus" (port 9090); a fixed
# fullnameOverride keeps that name independent of the release name.
KPS_FULLNAME = "kube-prometheus"
PROMETHEUS_PORT = 9090
# How often the adapter rediscovers series: a new pod's metric exists for the HPA only after a
# relist (kubernetes-sigs/prometheus-adapter v0.12.0 docs/config.md, "Others"), so a shorter interval than the chart's 1m shortens scale-out.
RELIST_INTERVAL = "30s"


def prometheus_url(cfg: MonitoringConfig) -> str:
    """Where Prometheus answers: the configured URL, or the Service of the kube-prometheus-stack we install."""
    if cfg.prometheus.url:
        return cfg.prometheus.url.rstrip("/")
    return f"http://{KPS_FULLNAME}-prometheus.{cfg.namespace}.svc:{PROMETHEUS_PORT}"


def installs_prometheus(cfg: MonitoringConfig) -> bool:
    """True when the platform installs kube-prometheus-stack (no existing Prometheus configured)."""
    return cfg.prometheus.url is None


def adapter_rule(m: ModelConfig, namespace: str) -> dict[str, Any]:
    """One custom-metrics rule: the model's per-pod requests in flight, under a colon-free name.

    Discovery is scoped to the model (its namespace and served model name), so each model gets
    its own metric and no rule serves another model's pods. The query sums running and waiting
    per pod in one selector, so a pod is never dropped by a failed join.
    """
    return {
        "seriesQuery": f'{RUNNING}{{{model_selector(m.name, namespace)},pod!=""}}',
        "resources": {"overrides": {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}},
        "name": {"matches": f"^{RUNNING}$", "as": in_flight_metric_name(m.name)},
        "metricsQuery": (
            f'sum by (<<.GroupBy>>) ({{__name__=~"<<.Series>>|{WAITING}",model_name="{m.name}",<<.LabelMatchers>>}})'
        ),
    }


def _url_parts(url: str) -> tuple[str, int, str]:
    """The chart joins `prometheus.url`, `:port` and `path`; split a full URL into those three."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{parts.hostname}", port, parts.path.rstrip("/")


def adapter_values(models: Sequence[ModelConfig], namespace: str, cfg: MonitoringConfig) -> dict[str, Any]:
    """Values of the prometheus-adapter chart: our Prometheus, and only the per-model rules.

    The chart's default rules are off: they expose every series namespace-wide, which is what
    the per-model rules avoid.
    """
    base, port, path = _url_parts(prometheus_url(cfg))
    return {
        "prometheus": {"url": base, "port": port, "path": path},
        "metricsRelistInterval": RELIST_INTERVAL,
        "rules": {
            "default": False,
            # A model its back-end does not autoscale (a multi-node Ray cluster) has no HPA, so no metric to serve.
            "custom": [
                adapter_rule(m, namespace)
                for m in models
                if m.autoscaling.backend == "prometheus-adapter" and serving_backend(m).scale_target(m) is not None
            ],
            "external": [],
        },
    }


def adapter_config(values: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """The adapter's config.yaml as prometheus-adapter 5.3.0 renders it from ``values`` (None: no ConfigMap).

    charts/prometheus-adapter/templates/configmap.yaml at prometheus-adapter-5.3.0 (commit e6e041b):
    line 1 renders the ConfigMap only without ``rules.existing``; lines 15-17 write ``rules:`` and the
    chart's six namespace-wide default rules only when ``rules.default`` is true; lines 85-86 append
    ``rules.custom`` as given; lines 89-91 ``externalRules`` from ``rules.external`` when not empty;
    lines 93-95 ``resourceRules`` from ``rules.resource``. The defaults are not reproduced here: a
    config that would hold them says so under ``"defaultRules": True``.
    """
    rules = values.get("rules") or {}
    if rules.get("existing"):
        return None
    config: dict[str, Any] = {}
    if rules.get("default") or rules.get("custom"):
        config["rules"] = list(rules.get("custom") or [])
        if rules.get("default"):
            config["defaultRules"] = True
    if rules.get("external"):
        config["externalRules"] = list(rules["external"])
    if rules.get("resource"):
        config["resourceRules"] = rules["resource"]
    return config


def kube_prometheus_stack_values() -> dict[str, Any]:
    """Values of kube-prometheus-stack: Prometheus picks up every PodMonitor and PrometheusRule.

    By default it only selects objects labelled with its own release (the *NilUsesHelmValues
    switches); ours carry the model's labels instead. kube-state-metrics stays on: the restart
    and HPA alerts read it.
    """
    return {
        "fullnameOverride": KPS_FULLNAME,
        "grafana": {"enabled": False},
        "prometheus": {
            "prometheusSpec": {
                "podMonitorSelectorNilUsesHelmValues": False,
                "ruleSelectorNilUsesHelmValues": False,
                "serviceMonitorSelectorNilUsesHelmValues": False,
                "scrapeInterval": "15s",
            }
        },
    }


def keda_values() -> dict[str, Any]:
    """Values of the KEDA chart: its defaults (the operator and its metrics server)."""
    return {}


def metrics_releases(models: Sequence[ModelConfig], namespace: str, cfg: MonitoringConfig) -> list[dict[str, Any]]:
    """Every release the stack's autoscaling needs, in install order."""
    releases = []
    if installs_prometheus(cfg):
        releases.append(release(KUBE_PROMETHEUS_STACK, "kube-prometheus-stack", cfg.namespace, kube_prometheus_stack_values()))
    if any(m.autoscaling.backend == "prometheus-adapter" for m in models):
        releases.append(release(PROMETHEUS_ADAPTER, "prometheus-adapter", cfg.namespace, adapter_values(models, namespace, cfg)))
    if any(m.autoscaling.backend == "keda" for m in models):
        releases.append(release(KEDA, "keda", cfg.namespace, keda_values()))
    return releases
