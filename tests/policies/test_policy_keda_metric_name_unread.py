"""G107 keda-metric-name-unread: a KEDA trigger's metadata.metricName, removed in KEDA 2.12 (advice).

Firing form: PhenixForge/vllm-serving-kubernetes-platform@5916fc6b076c876bb547a5ea33c9b0c878bd93a9
kubernetes/keda-scaledobject.yaml (a prometheus trigger with metricName vllm_num_requests_waiting; spent set 115's
second labeller, G107 advisory; the same form in ahmedwaleedmalik/k8s-llm-inference-platform@441dd0a3
serving/raw-vllm/scaledobject.yaml, spent set 122). Careful forms: the same trigger without metricName, and an
aws-cloudwatch trigger, whose scaler still reads metricName (kedacore/keda v2.20.2 pkg/scalers/aws_cloudwatch_scaler.go:34).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.autoscaling.keda_metric_name_unread import POLICY
from policies.registry import evaluate

PHENIX = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "vllm-autoscaler", "namespace": "vllm"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm-server"},
        "minReplicaCount": 1,
        "maxReplicaCount": 4,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus-k8s.monitoring.svc.cluster.local:9090",
                    "metricName": "vllm_num_requests_waiting",
                    "query": 'sum(vllm:num_requests_waiting{namespace="vllm"})',
                    "threshold": "5",
                },
            }
        ],
    },
}


def _found(obj):
    return [(v.enforcement, v.message) for v in evaluate([manifest(obj)], None, policies=[POLICY])]


def test_a_prometheus_trigger_naming_its_metric_is_advice():
    ((level, message),) = _found(PHENIX)
    assert level == "advisory"
    assert message == (
        "spec.triggers[0] (prometheus).metadata.metricName 'vllm_num_requests_waiting': KEDA removed metricName from "
        "trigger metadata in 2.12 (kedacore/keda#4899) and the prometheus scaler names its metric itself "
        "(s0-prometheus), so the setting does nothing and a dashboard or rule written for 'vllm_num_requests_waiting' "
        "finds no such metric; remove it"
    )


def test_careful_forms_stay_silent():
    plain = copy.deepcopy(PHENIX)
    del plain["spec"]["triggers"][0]["metadata"]["metricName"]
    assert _found(plain) == []
    cloudwatch = copy.deepcopy(PHENIX)
    cloudwatch["spec"]["triggers"][0] = {
        "type": "aws-cloudwatch",
        "metadata": {"namespace": "AWS/SQS", "metricName": "ApproximateNumberOfMessagesVisible", "targetMetricValue": "2"},
    }
    assert _found(cloudwatch) == []
    external = copy.deepcopy(PHENIX)
    external["spec"]["triggers"][0]["type"] = "external"
    assert _found(external) == []
