"""S6 (advice): an HPA memory metric beside a load metric on a GPU model server holds the replica count up.

Third-party forms that fire (minimal hand-written shapes, not copies):
- Ting-YuChou/LLM-Infrastructure-mvp @ a4516497828cb8eec6bc09e93d171e58376d225b k8s/deployments/vllm-deployment.yaml
  (held-out set 38, labelled S6 advisory): HPA vllm-hpa on the GPU Deployment vllm-server, cpu 80% and memory 85%
  Resource metrics beside Pods metrics llm_gpu_utilization_percent and llm_request_queue_size.
- yhxuyou/GLM-OCR @ 12bc06631b97497914b4d9a745b38015173a828c deploy/k8s/hpa.yaml (spent set 37): HPA
  glmocr-pipeline-hpa, memory 80% beside Pods metric glmocr_requests_inflight, on the GPU StatefulSet glmocr-pipeline.
Careful forms that stay silent: the same HPA on a CPU-only Deployment (a web tier may scale on memory), and a CPU
metric beside the load metric (a GPU server's low CPU never wins the HPA's maximum).
"""

from __future__ import annotations

from policy_fixtures import manifest

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY
from policies.registry import evaluate


def workload(kind="Deployment", name="vllm-server", gpu=True):
    resources = {"limits": {"nvidia.com/gpu": "1", "memory": "32Gi"}} if gpu else {"limits": {"memory": "2Gi"}}
    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.6.3", "resources": resources}
    if not gpu:
        container["image"] = "nginx:1.27"
    spec = {"template": {"spec": {"containers": [container]}}}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": "llm"}, "spec": spec}


def resource_metric(name, utilization, kind="Resource"):
    key = "resource" if kind == "Resource" else "containerResource"
    body = {"name": name, "target": {"type": "Utilization", "averageUtilization": utilization}}
    if kind == "ContainerResource":
        body["container"] = "vllm"
    return {"type": kind, key: body}


def pods_metric(name, value="4"):
    return {"type": "Pods", "pods": {"metric": {"name": name}, "target": {"type": "AverageValue", "averageValue": value}}}


def hpa(metrics, target="vllm-server", kind="Deployment", name="vllm-hpa"):
    spec = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target},
        "minReplicas": 3,
        "maxReplicas": 30,
        "metrics": metrics,
    }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": spec,
    }


def found(*objs):
    return [(v.resource, v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], policies=[POLICY])]


def test_memory_beside_load_metrics_on_a_gpu_vllm_server_is_advised():
    metrics = [resource_metric("cpu", 80), resource_metric("memory", 85), pods_metric("llm_request_queue_size")]
    [(resource, level, message)] = found(workload(), hpa(metrics))
    assert (resource, level) == ("HorizontalPodAutoscaler/vllm-hpa", "advisory")
    assert message.startswith(
        "spec.metrics[1].resource: a memory target (85% of the request) beside cpu, llm_request_queue_size; "
        "scaleTargetRef Deployment/vllm-server is a GPU workload: the HPA takes the largest replica count"
    )


def test_memory_beside_a_pods_metric_on_a_gpu_statefulset_is_advised():
    # yhxuyou/GLM-OCR glmocr-pipeline-hpa, and the same as a ContainerResource metric.
    for metric in (resource_metric("memory", 80), resource_metric("memory", 80, "ContainerResource")):
        objs = (
            workload("StatefulSet", "glmocr-pipeline"),
            hpa([metric, pods_metric("glmocr_requests_inflight", "10")], "glmocr-pipeline", "StatefulSet"),
        )
        [(_, level, message)] = found(*objs)
        assert level == "advisory" and "a memory target (80% of the request) beside glmocr_requests_inflight" in message


def test_memory_beside_a_load_metric_on_a_cpu_tier_and_cpu_beside_one_stay_silent():
    memory = [resource_metric("memory", 80), pods_metric("http_requests_inflight", "10")]
    assert found(workload(name="web", gpu=False), hpa(memory, "web", name="web-hpa")) == []
    cpu = [resource_metric("cpu", 80), pods_metric("llm_request_queue_size")]
    assert found(workload(), hpa(cpu)) == []


def _cpu_app(name, image):
    container = {"name": "app", "image": image, "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}
    spec = {"template": {"spec": {"containers": [container]}}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "llm"}, "spec": spec}


def test_spent_set_78_cpu_model_app_named_for_serving_is_advised():
    # Brayantcw/kserve_k8s_setup@(spent set 78) k8s/hpa.yaml: cpu 65%, memory 75% and two Pods metrics on the CPU
    # Deployment kserve-sentiment (image brayanmaster/kserve-sentiment:v2), which no engine row names.
    metrics = [resource_metric("cpu", 65), resource_metric("memory", 75), pods_metric("kserve_inference_rps", "50")]
    app = _cpu_app("kserve-sentiment", "brayanmaster/kserve-sentiment:v2")
    ((_, enforcement, message),) = found(app, hpa(metrics, "kserve-sentiment", name="kserve-sentiment-hpa"))
    assert enforcement == "advisory"
    assert "a memory target (75% of the request)" in message
    assert "scaleTargetRef.name 'kserve-sentiment' names a model server (kserve)" in message
    assert "its target is not in the files read" not in message


def test_a_cpu_engine_the_readers_see_is_named():
    metrics = [resource_metric("memory", 80), pods_metric("queue_depth")]
    app = _cpu_app("chat", "ollama/ollama:0.5.7")
    ((_, _, message),) = found(app, hpa(metrics, "chat", name="chat-hpa"))
    assert "scaleTargetRef Deployment/chat runs a model server (ollama)" in message
