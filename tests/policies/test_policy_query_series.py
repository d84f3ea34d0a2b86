"""S7 and G82 read for every engine: an autoscaler's PromQL against the series the scaled server exports
(policies/autoscaling/query_series.py, components/engine_metrics.py), and a fill-in serverAddress.

Each firing form is a third party's, each silent one the careful form beside it:
- unscoped: rmehta2974/LLM_mlops@5684269878ef691652db8d14e889d6e0c7a1d6e2 alternate_learning/manifests/
  21-keda-scaledobject.yaml (sum(rate(triton_inference_request_success[1m])), no matcher), here with Triton's own name;
- no engine's series: zjinsong/amazon-eks-multi-model-gpu-sharing@9832f9e6dd33c5f0083b2d3c380ec2e5a22995ac
  manifests/keda-scaledobject.yaml (inference_waiting_requests on a vLLM Deployment; serverAddress
  http://REPLACE_ME_PROMETHEUS_ENDPOINT);
- one series per NIM pod: redhat-na-ssa/nvaie-guide@d661aa19c9c9bff654304b5b2ce6ffc616883bc8 configs/software/nim/
  keda-meta-scaledobject.yaml (query gpu_cache_usage_perc on the NIMService's Deployment);
- DCGM as a Pods metric: seans3/k8s-ai@9fb7fb325cc4237b20a5ca83fcca2aea2c8420cf vllm-gpu/hpa/
  gpu-horizontal-pod-autoscaler.yaml (prometheus.googleapis.com|dcgm_fi_dev_gpu_util|gauge).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from components.engine_metrics import engine_of, exported_by_any, exports
from components.serving_engines import ENGINES
from policies.reading.promql import Selector, selectors

S7 = "hpa-custom-metric-is-served"
G82 = "scrape-and-scaler-reach"
_NS = "llm-inference"


def _deployment(name: str, image: str, args: list, sidecar: bool = False) -> dict:
    containers = [{"name": "server", "image": image, "args": args, "resources": {"limits": {"nvidia.com/gpu": "1"}}}]
    if sidecar:
        containers.append({"name": "metrics-proxy", "image": "ghcr.io/acme/queue-exporter:1.2.0"})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": _NS},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
        },
    }


VLLM = _deployment("example-shared-inference", "vllm/vllm-openai:v0.11.0", ["--model", "Qwen/Qwen2.5-7B-Instruct"])
TRITON = _deployment("triton-llm", "nvcr.io/nvidia/tritonserver:25.01-py3", ["tritonserver", "--model-repository=/models"])


def _scaled(target: str, query: str, address: str = "http://prometheus-operated.monitoring.svc:9090", **extra) -> dict:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": f"{target}-scaler", "namespace": _NS},
        "spec": {
            "scaleTargetRef": {"name": target},
            "minReplicaCount": 1,
            "maxReplicaCount": 4,
            "triggers": [
                {"type": "prometheus", "metadata": {"serverAddress": address, "query": query, "threshold": "4", **extra}}
            ],
        },
    }


def _advice(objs: list[dict], policy: str = S7) -> list[str]:
    found = found_by(objs, policy)
    assert all(level == "advisory" for level, _ in found), found
    return [message for _, message in found]


def test_selectors_read_names_and_their_matchers():
    assert selectors('sum(rate(vllm:request_success_total{namespace="llm", model_name=~"a|b"}[5m])) by (pod)') == [
        Selector("vllm:request_success_total", ("model_name", "namespace"))
    ]
    assert selectors("max_over_time(up[5m:1m]) offset 5m > bool 3") == [Selector("up", ())]
    assert selectors('sum({__name__="sglang:num_queue_reqs", namespace="x"})') == [
        Selector("sglang:num_queue_reqs", ("namespace",))
    ]


def test_every_engine_row_exports_its_own_load_series():
    for engine in ENGINES:
        for metric in (engine.queue_metric, engine.running_metric):
            if metric:
                assert exports(engine.name, metric), (engine.name, metric)


def test_the_table_holds_each_engines_series_read_from_source():
    assert exports("tgi", "tgi_queue_size") and exports("tei", "te_queue_size")
    assert exports("triton", "nv_inference_request_success") and exports("sglang", "sglang:num_queue_reqs")
    assert exports("llama-cpp", "llamacpp:requests_deferred") and exports("nim", "gpu_cache_usage_perc")
    assert exports("vllm", "vllm:e2e_request_latency_seconds_bucket") and not exports("ollama", "ollama_requests")
    assert engine_of("te_queue_size") == "tei" and engine_of("num_requests_running") is None
    assert not exported_by_any("inference_waiting_requests")


def test_an_unscoped_engine_series_counts_every_tenant():
    query = "sum(rate(nv_inference_request_success[1m]))"
    (message,) = _advice([TRITON, _scaled("triton-llm", query)])
    assert message.startswith(
        f"spec.triggers[0].metadata.query {query} selects nv_inference_request_success with no label matcher"
    )
    assert 'nv_inference_request_success{namespace="llm-inference"}' in message


def test_a_scoped_query_or_a_keda_namespace_stays_silent():
    scoped = 'sum(rate(nv_inference_request_success{namespace="llm-inference",model="llama3"}[1m]))'
    assert _advice([TRITON, _scaled("triton-llm", scoped)]) == []
    tenancy = _scaled("triton-llm", "sum(rate(nv_inference_request_success[1m]))", namespace=_NS)
    assert _advice([TRITON, tenancy]) == []


def test_a_series_no_engine_exports_on_a_vllm_deployment():
    query = 'sum(inference_waiting_requests{service="example-shared-inference"})'
    (message,) = _advice([VLLM, _scaled("example-shared-inference", query)])
    assert message.startswith(
        "spec.triggers[0].metadata.query names inference_waiting_requests, a series no serving engine of the pack's "
        "table exports, and every container of the scaled pods is a vLLM server (vLLM: vllm:num_requests_waiting"
    )


def test_the_vllm_queue_series_or_a_sidecar_that_may_export_it_stays_silent():
    careful = 'sum(vllm:num_requests_waiting{namespace="llm-inference"})'
    assert _advice([VLLM, _scaled("example-shared-inference", careful)]) == []
    query = 'sum(inference_waiting_requests{service="example-shared-inference"})'
    with_sidecar = _deployment("example-shared-inference", "vllm/vllm-openai:v0.11.0", ["--model", "m"], sidecar=True)
    assert _advice([with_sidecar, _scaled("example-shared-inference", query)]) == []


def test_another_engines_series_on_a_vllm_deployment():
    query = 'sum(sglang:num_queue_reqs{namespace="llm-inference"})'
    (message,) = _advice([VLLM, _scaled("example-shared-inference", query)])
    assert "names sglang:num_queue_reqs, a SGLang series, and the scaled workload runs vLLM, which exports none" in message


_NIM_SERVICE = {
    "apiVersion": "apps.nvidia.com/v1alpha1",
    "kind": "NIMService",
    "metadata": {"name": "meta-llama3-8b-instruct", "namespace": _NS},
    "spec": {
        "image": {"repository": "nvcr.io/nim/meta/llama-3.1-8b-instruct", "tag": "1.3.3"},
        "authSecret": "ngc-api-secret",
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
    },
}


def test_a_bare_nim_series_returns_one_series_per_nim_pod():
    scaled = _scaled("meta-llama3-8b-instruct", "gpu_cache_usage_perc", namespace="nim")
    (message,) = _advice([_NIM_SERVICE, scaled])
    assert message.startswith(
        "spec.triggers[0].metadata.query gpu_cache_usage_perc returns one series per NIM pod (gpu_cache_usage_perc is "
        "a series each NIM server exports), and KEDA's prometheus scaler fails on a result of more than one element"
    )
    careful = _scaled("meta-llama3-8b-instruct", 'avg(gpu_cache_usage_perc{namespace="nim"})', namespace="nim")
    assert _advice([_NIM_SERVICE, careful]) == []


_DCGM_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "gemma-server-gpu-hpa", "namespace": _NS},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "example-shared-inference"},
        "minReplicas": 1,
        "maxReplicas": 5,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "prometheus.googleapis.com|dcgm_fi_dev_gpu_util|gauge"},
                    "target": {"type": "AverageValue", "averageValue": 20},
                },
            }
        ],
    },
}


def test_a_dcgm_series_as_a_pods_metric():
    (message,) = _advice([VLLM, _DCGM_HPA])
    assert message.startswith(
        "spec.metrics[0].pods.metric.name prometheus.googleapis.com|dcgm_fi_dev_gpu_util|gauge is a DCGM GPU series as "
        "a Pods metric: dcgm-exporter's series are scraped from the exporter's own pods"
    )


def test_a_dcgm_scrape_that_honours_labels_or_an_external_metric_stays_silent():
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "dcgm-exporter", "namespace": "gpu-operator"},
        "spec": {
            "selector": {"matchLabels": {"app": "nvidia-dcgm-exporter"}},
            "endpoints": [{"port": "gpu-metrics", "honorLabels": True}],
        },
    }
    assert not any("DCGM GPU series" in m for _, m in found_by([VLLM, _DCGM_HPA, monitor], S7))
    external = copy.deepcopy(_DCGM_HPA)
    metric = external["spec"]["metrics"][0]
    external["spec"]["metrics"][0] = {"type": "External", "external": metric["pods"]}
    assert not any("DCGM GPU series" in m for m in _advice([VLLM, external]))


_DCGM_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "dcgm-exporter", "namespace": "gpu-operator"},
    "spec": {
        "selector": {"matchLabels": {"app": "nvidia-dcgm-exporter"}},
        "endpoints": [{"port": "gpu-metrics", "honorLabels": True}],
    },
}


def test_a_dcgm_series_asks_no_monitor_of_the_model_servers_pods():
    # review54b: the exporter's pods are scraped, not the model server's; S7's monitor half said (mandatory) that no
    # monitor selects the vLLM pods.
    assert found_by([VLLM, _DCGM_HPA, _DCGM_MONITOR], S7) == []
    query = 'avg(DCGM_FI_DEV_GPU_UTIL{namespace="llm-inference"})'
    assert found_by([VLLM, _scaled("example-shared-inference", query), _DCGM_MONITOR], S7) == []


def test_an_engine_series_still_asks_a_monitor_of_the_model_servers_pods():
    query = 'sum(vllm:num_requests_waiting{namespace="llm-inference"})'
    found = found_by([VLLM, _scaled("example-shared-inference", query), _DCGM_MONITOR], S7)
    ((level, message),) = found
    assert level == "advisory"  # a scrape outside the files may still collect them (custom_metric_is_served._ELSEWHERE)
    assert message.startswith(
        "no PodMonitor or ServiceMonitor in this stack selects the pods of Deployment/example-shared-inference "
        "(labels {'app': 'example-shared-inference'}); no series reach Prometheus, so the autoscaler sees no load "
        "and never scales (advice: a scrape configured outside these files"
    )


def test_a_fill_in_server_address():
    query = 'sum(vllm:num_requests_waiting{namespace="llm-inference"})'
    for address, hole in (
        ("http://REPLACE_ME_PROMETHEUS_ENDPOINT", "REPLACE_ME_PROMETHEUS_ENDPOINT"),
        ("http://<prometheus-host>:9090", "<prometheus-host>"),
        ("https://prometheus.example.com", "prometheus.example.com"),
    ):
        (message,) = _advice([VLLM, _scaled("example-shared-inference", query, address=address)], G82)
        assert message.startswith(
            f"spec.triggers[0] (prometheus) serverAddress {address} holds the fill-in {hole}, not a Prometheus address"
        )
    assert _advice([VLLM, _scaled("example-shared-inference", query)], G82) == []


def test_the_community_charts_prometheus_scrapes_only_annotated_pods():
    """Goutham-Annem/eks-llm-inference@ae5b8ed8792c2a6beaa4b54433016e40fdac79e9 manifests/keda-scaledobject.yaml: the
    prometheus-community chart's server (prometheus-server.monitoring:80) asked for vllm:num_requests_waiting of a vLLM
    Deployment no prometheus.io/scrape annotation marks, and no scrape configuration in the files."""
    query = 'sum(vllm:num_requests_waiting{namespace="llm-inference"})'
    scaled = _scaled("example-shared-inference", query, address="http://prometheus-server.monitoring:80")
    (message,) = _advice([VLLM, scaled], G82)
    assert message.startswith(
        "spec.triggers[0] (prometheus) asks prometheus-server.monitoring, the prometheus-community chart's Prometheus "
        "server, for vllm:num_requests_waiting, but neither Deployment/example-shared-inference's pod template nor a "
        'Service selecting its pods is annotated prometheus.io/scrape: "true"'
    )
    annotated = copy.deepcopy(VLLM)
    annotated["spec"]["template"]["metadata"]["annotations"] = {"prometheus.io/scrape": "true", "prometheus.io/port": "8000"}
    assert _advice([annotated, scaled], G82) == []
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm", "namespace": _NS, "annotations": {"prometheus.io/scrape": "true"}},
        "spec": {"selector": {"app": "example-shared-inference"}, "ports": [{"port": 8000}]},
    }
    assert _advice([VLLM, service, scaled], G82) == []
    operated = _scaled("example-shared-inference", query, address="http://prometheus-operated.monitoring.svc:9090")
    assert _advice([VLLM, operated], G82) == []
