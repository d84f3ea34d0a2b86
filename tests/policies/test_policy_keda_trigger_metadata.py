"""S58 keda-trigger-metadata-complete.

Fires (mandatory): set 42, fuhengwu2021/coderepo 08/code/keda_scaledobject.yaml@b874b4465a8d857006eb7a9b08fe7a01f28bde6d,
a prometheus trigger with serverAddress, metricName and threshold but no query (kedacore/keda v2.20.2
pkg/scalers/prometheus_scaler.go:49-52, typed_config.go:247-271 'missing required parameter').
Fires (advice): magebase/base-infra infra/pipeline/base-infrastructure/extra-manifests/keda/scaledobjects/
uat-scaledobject.yaml.tpl@9e3449814d8dc4088dc40ae591beadf4ff9b3619, cpu and memory triggers with metadata.type
Utilization, a parameter KEDA refuses from v2.18 (cpu_memory_scaler.go:24 deprecated tag).
Silent (the careful form): Samir-Kesare/DevOps-Optimization template.md@24ed633c7172e968b456e4761f230ffb959fc5ca, a
prometheus trigger with serverAddress, metricName, query and threshold; a parameter given as <name>FromEnv or left to a
TriggerAuthentication; a trigger type the table does not list; metadata that is a template string.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from components.keda_scalers import scaler_table
from policies.registry import evaluate

_SET42 = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "inference-scaledobject"},
    "spec": {
        "scaleTargetRef": {"name": "inference-deployment"},
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus:9090",
                    "metricName": "inference_queue_length",
                    "threshold": "50",
                },
            }
        ],
    },
}
_MAGEBASE = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "uat-cpu-scaledobject", "namespace": "yb"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "yugabyte.com/v1alpha1", "kind": "YBCluster", "name": "uat-cluster"},
        "minReplicaCount": 0,
        "maxReplicaCount": 4,
        "triggers": [{"type": "cpu", "metadata": {"type": "Utilization", "value": "65", "activationThreshold": "25"}}],
    },
}
_CAREFUL = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "adapter-service-keda-scaledobject"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "adapter-service"},
        "minReplicaCount": 3,
        "maxReplicaCount": 5,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://rancher-monitoring-devops-prometheus.cattle-monitoring-system:9090",
                    "metricName": "container_network_receive_bytes_total",
                    "query": "sum(irate(container_network_receive_bytes_total[5m]))",
                    "threshold": "1100",
                    "ignoreNullValues": "true",
                },
            }
        ],
    },
}


def _s58(*objs: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message)
        for v in evaluate([manifest(o) for o in objs], None)
        if v.policy == "keda-trigger-metadata-complete"
    ]


def test_table_reads_the_common_scalers():
    table = scaler_table()
    required = {t: {n for p in s.required for n in p.names} for t, s in table.scalers.items()}
    assert table.release == "v2.20.2"
    assert required["prometheus"] == {"serverAddress", "query", "threshold"}
    assert {"start", "end", "timezone", "desiredReplicas"} <= required["cron"]
    assert "value" in required["cpu"] and "queueName" in required["rabbitmq"] and "queueURL" in required["aws-sqs-queue"]
    assert "listName" in required["redis"] and "url" in required["metrics-api"]


def test_prometheus_trigger_without_query_blocks():
    found = _s58(_SET42)
    assert [e for e, _ in found] == ["mandatory"], found
    assert "no query" in found[0][1] and "prometheus_scaler.go" in found[0][1]


def test_deprecated_cpu_type_is_advice():
    found = _s58(_MAGEBASE)
    assert [e for e, _ in found] == ["advisory"], found
    assert "metadata.type" in found[0][1] and "v2.18" in found[0][1]


def test_careful_forms_are_silent():
    assert _s58(_CAREFUL) == []
    from_env = copy.deepcopy(_SET42)
    sqs = {"type": "aws-sqs-queue", "metadata": {"queueURLFromEnv": "QUEUE_URL"}, "authenticationRef": {"name": "aws"}}
    from_env["spec"]["triggers"] = [sqs]
    assert _s58(from_env) == []
    unknown = copy.deepcopy(_SET42)
    unknown["spec"]["triggers"] = [{"type": "my-external-thing", "metadata": {}}]
    assert _s58(unknown) == []
    templated = copy.deepcopy(_SET42)
    templated["spec"]["triggers"][0]["metadata"] = "{{ .Values.metadata }}"
    assert _s58(templated) == []


def test_scaled_job_and_auth_only_params():
    job = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledJob",
        "metadata": {"name": "q"},
        "spec": {"jobTargetRef": {"template": {}}, "triggers": [{"type": "rabbitmq", "metadata": {"mode": "QueueLength"}}]},
    }
    found = _s58(job)
    assert [e for e, _ in found] == ["mandatory"] and "queueName" in found[0][1] and "host" in found[0][1]
    job["spec"]["triggers"][0]["authenticationRef"] = {"name": "rabbit"}
    found = _s58(job)
    assert len(found) == 1 and "queueName" in found[0][1] and "host" not in found[0][1].split("requires")[0]
