"""Autoscaling and monitoring config: every field documents its default and every bad value is named."""

from __future__ import annotations

import pytest

from components.config import AlertsConfig, AutoscalingConfig, MonitoringConfig, PrometheusConfig, load_stack_config
from components.errors import ConfigError


@pytest.mark.parametrize("model", [AutoscalingConfig, MonitoringConfig, PrometheusConfig, AlertsConfig])
def test_every_field_documents_its_default(model):
    for name, field in model.model_fields.items():
        assert field.description, f"{model.__name__}.{name}"
        if not field.is_required():
            assert "Default" in field.description, f"{model.__name__}.{name} does not state its default"


def test_defaults_install_prometheus_and_use_the_adapter(dev_config):
    cfg = load_stack_config(dev_config)
    assert cfg.monitoring.prometheus.url is None and cfg.monitoring.namespace == "monitoring"
    assert cfg.models[0].autoscaling.backend == "prometheus-adapter"
    assert cfg.models[0].autoscaling.scale_down_stabilization_seconds == 300
    assert cfg.monitoring.alerts.kv_cache_usage == 0.95


BAD = [
    (
        ["llm-serving:models", 0, "autoscaling"],
        {"backend": "knative"},
        "models[0].autoscaling.backend = 'knative': input should be 'prometheus-adapter' or 'keda'",
    ),
    (
        ["llm-serving:models", 0, "autoscaling"],
        {"scaleDownStabilizationSeconds": -1},
        "models[0].autoscaling.scaleDownStabilizationSeconds = -1: input should be greater than or equal to 0",
    ),
    (
        ["llm-serving:models", 0, "autoscaling"],
        {"targetInFlightPerPod": "12"},
        "models[0].autoscaling.targetInFlightPerPod = '12': input should be a valid integer",
    ),
    (["llm-serving:monitoring"], {"namespace": "Monitoring"}, "monitoring.namespace = 'Monitoring': must be a DNS-1035 label"),
    (
        ["llm-serving:monitoring"],
        {"prometheus": {"url": "prometheus:9090"}},
        "monitoring.prometheus.url = 'prometheus:9090': must be an http(s) URL",
    ),
    (
        ["llm-serving:monitoring"],
        {"prometheus": {"url": "http://user:pw@prom:9090"}},
        "monitoring.prometheus.url = 'http://user:pw@prom:9090': must be an http(s) URL",
    ),
    (
        ["llm-serving:monitoring"],
        {"prometheus": {"monitorLabels": {"release": "a b"}}},
        'monitoring.prometheus.monitorLabels = {"release": "a b"}: the value of label \'release\' is not a Kubernetes label value',
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"kvCacheUsage": 95}},
        "monitoring.alerts.kvCacheUsage = 95: input should be less than or equal to 1",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"queueFraction": 0}},
        "monitoring.alerts.queueFraction = 0: input should be greater than 0",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"preemptionsPerMinute": -1}},
        "monitoring.alerts.preemptionsPerMinute = -1: input should be greater than or equal to 0",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"restarts": 0.5}},
        "monitoring.alerts.restarts = 0.5: input should be a valid integer",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"admissionRejectionsPerMinute": -2}},
        "monitoring.alerts.admissionRejectionsPerMinute = -2: input should be greater than or equal to 0",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"forSeconds": 7200}},
        "monitoring.alerts.forSeconds = 7200: input should be less than or equal to 3600",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"atMaxReplicasSeconds": 10}},
        "monitoring.alerts.atMaxReplicasSeconds = 10: input should be greater than or equal to 60",
    ),
    (
        ["llm-serving:monitoring"],
        {"alerts": {"ttftSeconds": 3}},
        "monitoring.alerts.ttftSeconds: unknown key; allowed keys here: queueFraction",
    ),
]


def _set(cfg, path, value):
    node = cfg
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


@pytest.mark.parametrize("path,value,expected", BAD, ids=[b[2].split(" ")[0] for b in BAD])
def test_bad_value_names_field_value_and_rule(dev_config, path, value, expected):
    _set(dev_config, path, value)
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    lines = [str(p) for p in err.value.problems]
    assert any(line.startswith(expected) for line in lines), lines
