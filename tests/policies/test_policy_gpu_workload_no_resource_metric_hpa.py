"""S6 gpu-workload-no-resource-metric-hpa (stack policy): compliant stack, one mutation per case."""

from policy_fixtures import DEPLOYMENT_TYPE, HPA_TYPE, deployment_props, hpa_props, isvc, isvc_props, messages, resource

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY
from policies.registry import evaluate

WHY = (
    "vLLM is GPU-bound, so CPU never reaches the target and replicas never scale out; scale on vLLM queue "
    "depth or KV-cache usage (vllm:num_requests_waiting, vllm:kv_cache_usage_perc)"
)
CLASS = "serving.kserve.io/autoscalerClass"
CPU_METRIC = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80.0}}}


def with_class(value):
    props = isvc_props()
    annotations = props["metadata"]["annotations"]
    if value is None:
        annotations.pop(CLASS)
    else:
        annotations[CLASS] = value
    return props


def test_compliant_stack_passes():
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa_props())) == []


def test_default_autoscaler_class_builds_a_cpu_hpa():
    assert messages(POLICY, isvc(with_class(None))) == [
        f"deploymentMode RawDeployment (annotation serving.kserve.io/deploymentMode), metadata.annotations {CLASS} is not "
        f"set and no custom metric is set, so KServe builds an HPA on 80% CPU (KServe DefaultCPUUtilization = 80); {WHY}"
    ]


def test_explicit_hpa_class():
    assert messages(POLICY, isvc(with_class("hpa"))) == [
        f"deploymentMode RawDeployment (annotation serving.kserve.io/deploymentMode), metadata.annotations {CLASS} is hpa "
        f"and no custom metric is set, so KServe builds an HPA on 80% CPU (KServe DefaultCPUUtilization = 80); {WHY}"
    ]


# Serverless (Knative) mode: KServe sets Knative's KPA class unless autoscaling.knative.dev/class is given
# (kserve v0.20.0 pkg/controller/v1alpha1/utils/utils.go L56-59) and passes scaleMetric as the Knative metric
# (L65-67); the KPA scales on concurrency, requests in flight. KServe's shipped cluster default mode is
# Serverless (config/configmap/inferenceservice.yaml L745), the setting's default.
def serverless(mode="Serverless", **annotations):
    props = with_class(None)
    if mode is None:
        del props["metadata"]["annotations"]["serving.kserve.io/deploymentMode"]
    else:
        props["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] = mode
    props["metadata"]["annotations"].update(annotations)
    return props


def test_serverless_kpa_on_concurrency_is_careful_and_stays_quiet():
    assert messages(POLICY, isvc(serverless())) == []
    assert messages(POLICY, isvc(serverless("Knative", **{"autoscaling.knative.dev/metric": "concurrency"}))) == []
    props = serverless(**{"autoscaling.knative.dev/metric": "rps"})
    assert messages(POLICY, isvc(props)) == []


def test_no_annotation_reads_the_cluster_default_mode_setting():
    assert messages(POLICY, isvc(serverless(None))) == []  # KServe's shipped default: Serverless
    assert messages(POLICY, isvc(serverless(None)), config={"kserveDefaultDeploymentMode": "RawDeployment"}) == [
        f"deploymentMode RawDeployment (no serving.kserve.io/deploymentMode annotation: setting kserveDefaultDeploymentMode), "
        f"metadata.annotations {CLASS} is not set and no custom metric is set, so KServe builds an HPA on 80% CPU "
        f"(KServe DefaultCPUUtilization = 80); {WHY}"
    ]


def test_serverless_with_knatives_hpa_class_on_cpu_fires():
    props = serverless(**{"autoscaling.knative.dev/class": "hpa.autoscaling.knative.dev"})
    assert messages(POLICY, isvc(props)) == [
        f"deploymentMode Serverless (annotation serving.kserve.io/deploymentMode) with autoscaling.knative.dev/class "
        f"hpa.autoscaling.knative.dev scales on cpu (Knative's HPA class; its KPA would scale on concurrency); {WHY}"
    ]
    props["spec"]["predictor"]["scaleMetric"] = "concurrency"
    assert messages(POLICY, isvc(props)) == []


def test_scale_metric_memory():
    props = with_class(None)
    props["spec"]["predictor"]["scaleMetric"] = "memory"
    assert messages(POLICY, isvc(props)) == [f"spec.predictor.scaleMetric is memory, so KServe's HPA scales on memory; {WHY}"]


def test_hpa_class_drops_custom_metrics():
    props = with_class("hpa")
    props["spec"]["predictor"]["autoScaling"] = {
        "metrics": [
            {"type": "PodMetric", "podmetric": {"metric": {"backend": "prometheus", "query": "vllm:num_requests_waiting"}}}
        ]
    }
    assert messages(POLICY, isvc(props)) == [
        f"metadata.annotations {CLASS} is hpa, and KServe's HPA drops the PodMetric entries of "
        f"spec.predictor.autoScaling.metrics, leaving cpu/memory; {WHY}"
    ]


def test_hpa_class_with_resource_metrics_only():
    props = with_class("hpa")
    props["spec"]["predictor"]["autoScaling"] = {"metrics": [CPU_METRIC]}
    assert messages(POLICY, isvc(props)) == [f"spec.predictor.autoScaling.metrics has only Resource (cpu/memory) metrics; {WHY}"]


def test_predictor_annotation_overrides_the_inference_service_one():
    props = with_class("hpa")
    props["spec"]["predictor"]["annotations"] = {CLASS: "external"}
    assert messages(POLICY, isvc(props)) == []


def test_keda_class_needs_a_custom_metric():
    props = with_class("keda")
    assert messages(POLICY, isvc(props)) == [
        f"metadata.annotations {CLASS} is keda but spec.predictor.autoScaling.metrics has no PodMetric or "
        f"External metric, so KEDA scales on cpu/memory; {WHY}"
    ]
    props["spec"]["predictor"]["autoScaling"] = {
        "metrics": [
            {"type": "External", "external": {"metric": {"backend": "prometheus", "query": "sum(vllm:num_requests_waiting)"}}}
        ]
    }
    assert messages(POLICY, isvc(props)) == []


def test_cpu_only_inference_service_is_out_of_scope():
    props = with_class(None)
    resources = props["spec"]["predictor"]["containers"][0]["resources"]
    for section in ("limits", "requests"):
        resources[section].pop("nvidia.com/gpu")
    assert messages(POLICY, isvc(props)) == []


def test_hpa_with_cpu_metric_on_the_predictor():
    hpa = hpa_props()
    hpa["spec"]["metrics"] = [CPU_METRIC]
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa)) == [
        f"scaleTargetRef Deployment/chat-8b-predictor is a GPU workload but every entry of spec.metrics is a "
        f"Resource metric (cpu); {WHY}"
    ]


def test_hpa_without_metrics_defaults_to_cpu():
    hpa = hpa_props()
    hpa["spec"].pop("metrics")
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa)) == [
        f"scaleTargetRef Deployment/chat-8b-predictor is a GPU workload but spec.metrics is empty, so the HPA "
        f"scales on its default of 80% CPU; {WHY}"
    ]


def test_autoscaling_v1_hpa_on_a_gpu_deployment():
    hpa = {
        "metadata": {"name": "raw", "namespace": "llm"},
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "chat-8b-raw"},
            "minReplicas": 1.0,
            "maxReplicas": 3.0,
            "targetCPUUtilizationPercentage": 80.0,
        },
    }
    stack = [resource(DEPLOYMENT_TYPE, deployment_props()), resource("kubernetes:autoscaling/v1:HorizontalPodAutoscaler", hpa)]
    assert messages(POLICY, *stack) == [
        f"scaleTargetRef Deployment/chat-8b-raw is a GPU workload but an autoscaling/v1 HPA can only scale on CPU; {WHY}"
    ]


def test_cpu_hpa_on_a_workload_in_another_namespace_is_not_matched():
    hpa = hpa_props()
    hpa["spec"]["metrics"] = [CPU_METRIC]
    hpa["metadata"]["namespace"] = "web"
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa)) == []


def test_cpu_hpa_on_a_cpu_workload_is_fine():
    hpa = hpa_props()
    hpa["spec"]["metrics"] = [CPU_METRIC]
    hpa["spec"]["scaleTargetRef"]["name"] = "frontend"
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa)) == []


def test_finding_is_reported_on_the_hpa_resource():
    hpa = hpa_props()
    hpa["spec"]["metrics"] = [CPU_METRIC]
    violations = evaluate([isvc(), resource(HPA_TYPE, hpa, name="chat-8b-hpa")], policies=[POLICY])
    assert [(v.resource, v.enforcement, v.catalog) for v in violations] == [("chat-8b-hpa", "advisory", "S6")]


# --- ScaledObjects and fraction metrics (issue 8) ---

from policy_fixtures import SCALED_OBJECT_TYPE, scaled_object_props  # noqa: E402

FRACTION_WHY = (
    "vllm:kv_cache_usage_perc is a fraction from 0 to 1, so the target is never "
    "reached and the autoscaler never scales out; give the target as a fraction (e.g. 0.8 or 800m)"
)


def test_compliant_scaled_object_passes():
    assert messages(POLICY, isvc(), resource(SCALED_OBJECT_TYPE, scaled_object_props())) == []


def test_scaled_object_on_cpu_only_for_a_gpu_predictor():
    props = scaled_object_props()
    props["spec"]["triggers"] = [{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "80"}}]
    assert messages(POLICY, isvc(), resource(SCALED_OBJECT_TYPE, props)) == [
        f"scaleTargetRef Deployment/chat-8b-predictor is a GPU workload but every entry of spec.triggers is a cpu trigger; {WHY}"
    ]


def test_scaled_object_on_cpu_for_a_workload_outside_the_set_is_not_judged():
    props = scaled_object_props()
    props["spec"]["triggers"] = [{"type": "cpu", "metadata": {"value": "80"}}]
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == []


def test_hpa_on_kv_cache_usage_given_as_a_percentage():
    props = hpa_props()
    props["spec"]["metrics"][0]["pods"] = {
        "metric": {"name": "vllm_kv_cache_usage_perc"},
        "target": {"type": "AverageValue", "averageValue": "80"},
    }
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props)) == [
        f"spec.metrics[0].pods.target.averageValue = 80 on vllm_kv_cache_usage_perc: {FRACTION_WHY}"
    ]


def test_hpa_on_kv_cache_usage_as_a_fraction_passes():
    props = hpa_props()
    props["spec"]["metrics"][0]["pods"] = {
        "metric": {"name": "vllm_kv_cache_usage_perc"},
        "target": {"type": "AverageValue", "averageValue": "800m"},
    }
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props)) == []


def test_hpa_on_an_adapter_renamed_fraction_metric_given_as_a_percentage():
    props = hpa_props()
    props["spec"]["metrics"][0]["pods"] = {
        "metric": {"name": "chat_kv_full"},
        "target": {"type": "AverageValue", "averageValue": "90"},
    }
    adapter = {
        "chart": "prometheus-adapter",
        "values": {
            "rules": {
                "default": False,
                "custom": [
                    {
                        "seriesQuery": 'vllm:kv_cache_usage_perc{namespace!="",pod!=""}',
                        "name": {"matches": "^vllm:kv_cache_usage_perc$", "as": "chat_kv_full"},
                        "metricsQuery": "max(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
                    }
                ],
            }
        },
    }
    assert messages(
        POLICY, isvc(), resource(HPA_TYPE, props), resource("kubernetes:helm.sh/v3:Release", adapter, name="adapter")
    ) == [f"spec.metrics[0].pods.target.averageValue = 90 on chat_kv_full: {FRACTION_WHY}"]


def test_scaled_object_threshold_as_a_percentage_of_a_fraction():
    props = scaled_object_props()
    props["spec"]["triggers"][0]["metadata"].update(query='avg(vllm:kv_cache_usage_perc{model_name="chat-8b"})', threshold="85")
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == [
        f"spec.triggers[0].metadata.threshold = 85 on a query of a 0-1 fraction: {FRACTION_WHY}"
    ]


def test_scaled_object_query_scaled_to_percent_passes():
    props = scaled_object_props()
    props["spec"]["triggers"][0]["metadata"].update(
        query='avg(vllm:kv_cache_usage_perc{model_name="chat-8b"}) * 100', threshold="85"
    )
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == []


# A predictor KServe cannot scale: its HPA gets maxReplicas = minReplicas (kserve v0.20.0
# pkg/controller/v1beta1/inferenceservice/reconcilers/hpa/hpa_reconciler.go:153-166: minReplicas raised to
# DefaultMinReplicas = 1, pkg/constants/constants.go:223; maxReplicas 0 when unset, raised to minReplicas). The
# CPU target is never consulted, so nothing is reported. The careful form is MegasKomnenos/deallab-qwen-tuning
# k8s/inference-service.yaml@10afdce9344f66e5bbce8f06c8919c9f4a8b0eab: RawDeployment, no autoscalerClass, a GPU
# predictor with no maxReplicas.
def fixed_size(**replicas):
    props = with_class(None)
    predictor = props["spec"]["predictor"]
    predictor.pop("minReplicas", None)
    predictor.pop("maxReplicas", None)
    predictor.update(replicas)
    return props


def test_a_predictor_without_max_replicas_runs_fixed_and_stays_quiet():
    assert messages(POLICY, isvc(fixed_size())) == []
    assert messages(POLICY, isvc(fixed_size(minReplicas=2.0, maxReplicas=2.0))) == []
    assert messages(POLICY, isvc(fixed_size(minReplicas=0.0, maxReplicas=1.0))) == []


def test_a_predictor_that_can_grow_still_fires():
    assert messages(POLICY, isvc(fixed_size(minReplicas=1.0, maxReplicas=3.0))) == [
        f"deploymentMode RawDeployment (annotation serving.kserve.io/deploymentMode), metadata.annotations {CLASS} is not "
        f"set and no custom metric is set, so KServe builds an HPA on 80% CPU (KServe DefaultCPUUtilization = 80); {WHY}"
    ]
    assert messages(POLICY, isvc(fixed_size(maxReplicas=2.0))) != []


# Knative's KPA class takes only concurrency or rps. KServe's webhook refuses a predictor scaleMetric of cpu/memory
# under it (kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_validation.go:446-463, 636-660), and Knative's
# webhook refuses an autoscaling.knative.dev/metric annotation of cpu/memory under it (knative/serving knative-v1.20.0
# pkg/apis/autoscaling/annotation_validation.go:237-260), which KServe copies onto the Knative Service it creates.
def _enforcements(props, config=None):
    pack_config = {POLICY.name: config} if config is not None else None
    return [(v.enforcement, v.message) for v in evaluate([isvc(props)], pack_config, policies=[POLICY])]


def test_serverless_scale_metric_cpu_on_the_kpa_is_refused_and_blocks():
    props = serverless()
    props["spec"]["predictor"].update(scaleMetric="cpu", scaleTarget=80)
    [(level, message)] = _enforcements(props)
    assert level == "mandatory"
    assert "spec.predictor.scaleMetric cpu with Knative's KPA class" in message
    assert "[cpu] is not a supported metric" in message


def test_serverless_knative_metric_annotation_cpu_on_the_kpa_is_refused_and_blocks():
    [(level, message)] = _enforcements(serverless(**{"autoscaling.knative.dev/metric": "cpu"}))
    assert level == "mandatory"
    assert message.startswith(
        "deploymentMode Serverless (annotation serving.kserve.io/deploymentMode): annotation "
        "autoscaling.knative.dev/metric cpu with Knative's KPA class"
    )


def test_a_refusal_read_from_the_default_mode_setting_is_advice():
    props = serverless(None)
    props["spec"]["predictor"]["scaleMetric"] = "memory"
    [(level, message)] = _enforcements(props)
    assert level == "advisory"
    assert "[memory] is not a supported metric" in message


def test_careful_serverless_forms_stay_quiet():
    props = serverless()
    props["spec"]["predictor"]["scaleMetric"] = "concurrency"
    assert _enforcements(props) == []
    # Knative's HPA class takes cpu: admitted (and then advised on as CPU scaling of a GPU workload).
    props = serverless(**{"autoscaling.knative.dev/class": "hpa.autoscaling.knative.dev"})
    props["spec"]["predictor"]["scaleMetric"] = "cpu"
    [(level, _)] = _enforcements(props)
    assert level == "advisory"
