"""S6 gpu-workload-no-resource-metric-hpa: a GPU model server scaled on CPU/memory usage read through any scaler.

Third-party form (held-out set 11, now development material, /work/eval11/PROVENANCE.md row 2):
lahlfors/cybernetic-governance-engine deployment/k8s/vllm-inference-scaler-draft.yaml @2bcc2f2e64f749a27aad59a5ebb0033106c61656,
a KEDA ScaledObject whose gcp-stackdriver trigger filters on kubernetes.io/container/cpu/core_usage_time beside a
prometheus trigger, scaling vllm-inference (not in its files). Minimal hand-written forms below.
"""

from policy_fixtures import DEPLOYMENT_TYPE, HPA_TYPE, SCALED_OBJECT_TYPE, deployment_props, hpa_props, resource

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY
from policies.registry import evaluate

_STACKDRIVER = {
    "type": "gcp-stackdriver",
    "metadata": {
        "projectId": "p",
        "filter": 'metric.type="kubernetes.io/container/cpu/core_usage_time" resource.type="k8s_container"',
    },
}
_REQUESTS = {
    "type": "prometheus",
    "metadata": {"serverAddress": "http://p:9090", "query": "sum(rate(http_requests_total[2m]))", "threshold": "0.1"},
}
_QUEUE = {
    "type": "prometheus",
    "metadata": {"serverAddress": "http://p:9090", "query": "sum(vllm:num_requests_waiting)", "threshold": "5"},
}


def _keda(name, target, *trigger_list, namespace="governance-stack"):
    props = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"scaleTargetRef": {"name": target}, "minReplicaCount": 1, "triggers": list(trigger_list)},
    }
    return resource(SCALED_OBJECT_TYPE, props)


def _found(*resources):
    return [(v.enforcement, v.message) for v in evaluate(list(resources), None, policies=[POLICY]) if "CPU/memory" in v.message]


def test_stackdriver_cpu_trigger_hinted_by_name_is_advice():
    ((level, message),) = _found(_keda("vllm-inference-scaler", "vllm-inference", _STACKDRIVER, _REQUESTS))
    assert level == "advisory" and "spec.triggers[0]" in message and "core_usage_time" in message


def test_cpu_triggers_of_any_scaler_on_a_gpu_deployment_of_the_files_are_advice():
    deployment = deployment_props()
    name, namespace = deployment["metadata"]["name"], deployment["metadata"].get("namespace", "llm")
    cadvisor = {
        "type": "prometheus",
        "metadata": {"query": 'sum(rate(container_cpu_usage_seconds_total{pod=~"chat.*"}[1m]))', "threshold": "2"},
    }
    datadog = {"type": "datadog", "metadata": {"query": "avg:kubernetes.cpu.usage.total{app:chat}", "queryValue": "7"}}
    cloudwatch = {"type": "aws-cloudwatch", "metadata": {"metricName": "pod_cpu_utilization", "targetMetricValue": "60"}}
    keda_cpu = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "70"}}
    for trigger in (_STACKDRIVER, cadvisor, datadog, cloudwatch, keda_cpu):
        so = _keda("scaler", name, trigger, _QUEUE, namespace=namespace)
        ((level, message),) = _found(resource(DEPLOYMENT_TYPE, deployment), so)
        assert level == "advisory" and "is a GPU workload" in message, trigger  # S6 CPU/memory rows are advice


def test_hpa_external_stackdriver_cpu_metric_hinted_is_advice():
    hpa = hpa_props()
    hpa["metadata"] = {"name": "vllm-chat", "namespace": "llm"}
    hpa["spec"]["scaleTargetRef"]["name"] = "vllm-chat"
    hpa["spec"]["metrics"] = [
        {
            "type": "External",
            "external": {
                "metric": {"name": "kubernetes.io|container|cpu|core_usage_time"},
                "target": {"type": "AverageValue", "averageValue": "1"},
            },
        }
    ]
    ((level, message),) = _found(resource(HPA_TYPE, hpa))
    assert level == "advisory" and "core_usage_time" in message


def test_careful_forms_stay_silent():
    # A load signal only; a CPU web tier scaled on CPU; the all-cpu case is S6's own reason, not repeated here.
    deployment = deployment_props()
    name, namespace = deployment["metadata"]["name"], deployment["metadata"].get("namespace", "llm")
    assert _found(resource(DEPLOYMENT_TYPE, deployment), _keda("s", name, _QUEUE, namespace=namespace)) == []
    assert _found(_keda("web-frontend", "web-frontend", _STACKDRIVER, _REQUESTS)) == []
    keda_cpu = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "70"}}
    assert _found(resource(DEPLOYMENT_TYPE, deployment), _keda("s", name, keda_cpu, namespace=namespace)) == []
    # GPU utilisation and GPU memory are not CPU/memory usage.
    dcgm = {"type": "prometheus", "metadata": {"query": "avg(DCGM_FI_DEV_GPU_UTIL)", "threshold": "80"}}
    assert _found(resource(DEPLOYMENT_TYPE, deployment), _keda("s", name, dcgm, namespace=namespace)) == []
