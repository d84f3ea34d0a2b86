"""Serving shapes issue 21 reads, each with a fixture written from its public docs, the careful form quiet beside the
mutation that fires: a RayService's PDB (KubeRay creates none), a Gateway API HTTPRoute to an InferencePool, and
AIBrix's PodAutoscaler on a 0-1 KV-cache fraction."""

from __future__ import annotations

import copy

from policy_fixtures import PDB_TYPE, messages, resource

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY as S6
from policies.k8s_generic.serving_app_pdb import POLICY as PDB_POLICY
from policies.timeouts.llm_route_timeout import POLICY as ROUTE_POLICY

RAY_SERVICE_TYPE = "kubernetes:ray.io/v1:RayService"

# KubeRay's ray-service.llm-serve.yaml, trimmed to what the PDB check reads.
RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "ray-serve-llm", "namespace": "llm"},
    "spec": {
        "serveConfigV2": "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n",
        "rayClusterConfig": {
            "headGroupSpec": {
                "rayStartParams": {"num-gpus": "0"},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-llm:2.52.0-py311-cu128"}]}},
            },
            "workerGroupSpecs": [
                {
                    "groupName": "gpu-group",
                    "replicas": 2,
                    "maxReplicas": 2,
                    "template": {
                        "metadata": {"labels": {"app": "ray-serve-llm"}},
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-worker",
                                    "image": "rayproject/ray-llm:2.52.0-py311-cu128",
                                    "resources": {"limits": {"nvidia.com/gpu": "4"}},
                                }
                            ]
                        },
                    },
                }
            ],
        },
    },
}
# A PDB on the labels KubeRay puts on every worker (ray-operator/controllers/ray/common/pod.go labelPod, v1.7.0).
RAY_PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "ray-workers", "namespace": "llm"},
    "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"ray.io/node-type": "worker", "ray.io/group": "gpu-group"}}},
}


def test_a_ray_service_with_a_worker_pdb_is_quiet():
    assert (
        messages(PDB_POLICY, resource(RAY_SERVICE_TYPE, copy.deepcopy(RAY_SERVICE)), resource(PDB_TYPE, copy.deepcopy(RAY_PDB)))
        == []
    )
    by_template_label = copy.deepcopy(RAY_PDB)
    by_template_label["spec"]["selector"] = {"matchLabels": {"app": "ray-serve-llm"}}
    assert (
        messages(PDB_POLICY, resource(RAY_SERVICE_TYPE, copy.deepcopy(RAY_SERVICE)), resource(PDB_TYPE, by_template_label)) == []
    )


def test_a_ray_service_without_one_fires():
    assert messages(PDB_POLICY, resource(RAY_SERVICE_TYPE, copy.deepcopy(RAY_SERVICE))) == [
        "RayService ray-serve-llm: no PodDisruptionBudget selects its GPU worker pods (KubeRay creates none), so a node "
        "drain or Karpenter consolidation can evict every Serve replica at once; add a PDB with maxUnavailable: 1 on "
        "ray.io/node-type: worker and the group's labels"
    ]
    elsewhere = copy.deepcopy(RAY_PDB)
    elsewhere["metadata"]["namespace"] = "other"
    assert len(messages(PDB_POLICY, resource(RAY_SERVICE_TYPE, copy.deepcopy(RAY_SERVICE)), resource(PDB_TYPE, elsewhere))) == 1


HTTPROUTE_TYPE = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute"
# The Gateway API Inference Extension's quickstart route (config/manifests/gateway/httproute.yaml), plus the timeout a
# careful author adds (Gateway API v1 HTTPRouteRule.timeouts.request).
ROUTE = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "HTTPRoute",
    "metadata": {"name": "llm-route"},
    "spec": {
        "parentRefs": [{"kind": "Gateway", "name": "inference-gateway"}],
        "rules": [
            {
                "backendRefs": [
                    {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "vllm-llama3-8b-instruct"}
                ],
                "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                "timeouts": {"request": "600s"},
            }
        ],
    },
}


def test_a_route_to_an_inference_pool_with_a_long_timeout_is_quiet():
    assert messages(ROUTE_POLICY, resource(HTTPROUTE_TYPE, copy.deepcopy(ROUTE))) == []


def test_a_route_to_an_inference_pool_without_a_timeout_fires():
    route = copy.deepcopy(ROUTE)
    del route["spec"]["rules"][0]["timeouts"]
    (msg,) = messages(ROUTE_POLICY, resource(HTTPROUTE_TYPE, route))
    assert msg.startswith(
        "spec.rules[0]: no timeouts.request on a route to an LLM (InferencePool vllm-llama3-8b-instruct): "
        "the gateway's default applies (Envoy Gateway 15s, KServe 60s)"
    )
    route["spec"]["rules"][0]["timeouts"] = {"request": "15s"}
    assert len(messages(ROUTE_POLICY, resource(HTTPROUTE_TYPE, route))) == 1


AIBRIX_TYPE = "kubernetes:autoscaling.aibrix.ai/v1alpha1:PodAutoscaler"
# AIBrix's samples/autoscaling/kpa.yaml: 0.5 of the 0-1 gpu_cache_usage_perc gauge.
AIBRIX = {
    "apiVersion": "autoscaling.aibrix.ai/v1alpha1",
    "kind": "PodAutoscaler",
    "metadata": {"name": "llama-kpa", "namespace": "llm"},
    "spec": {
        "scalingStrategy": "KPA",
        "minReplicas": 1,
        "maxReplicas": 8,
        "metricsSources": [
            {
                "metricSourceType": "pod",
                "protocolType": "http",
                "port": "8000",
                "path": "metrics",
                "targetMetric": "gpu_cache_usage_perc",
                "targetValue": "0.5",
            }
        ],
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llama"},
    },
}


def test_aibrix_fraction_target_is_quiet_and_a_percentage_fires():
    assert messages(S6, resource(AIBRIX_TYPE, copy.deepcopy(AIBRIX))) == []
    percent = copy.deepcopy(AIBRIX)
    percent["spec"]["metricsSources"][0]["targetValue"] = "50"
    (msg,) = messages(S6, resource(AIBRIX_TYPE, percent))
    assert msg.startswith(
        "spec.metricsSources[0].targetValue = 50 on gpu_cache_usage_perc: vllm:kv_cache_usage_perc is a fraction from 0 to 1"
    )


SCALED_OBJECT_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledObject"
# production-stack's KEDA tutorial ScaledObject (tutorials/assets/keda-scaled-object.yaml), with the aggregation and the
# namespace matcher a careful author writes (an unscoped series counts every tenant's pods: query_series.py): KEDA's prometheus scaler refuses a result of more than one element (kedacore/keda v2.20.2
# pkg/scalers/prometheus_scaler.go L273-274: "prometheus query %s returned multiple elements").
SCALED_OBJECT = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {
        "scaleTargetRef": {"name": "vllm-llama3-deployment-vllm"},
        "minReplicaCount": 1,
        "maxReplicaCount": 2,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus-operated.monitoring.svc:9090",
                    "query": 'sum(vllm:num_requests_waiting{namespace="llm"})',
                    "threshold": "5",
                },
            }
        ],
    },
}


def test_an_aggregated_keda_query_is_quiet_and_a_per_pod_one_fires():
    from policies.autoscaling.custom_metric_is_served import POLICY as S7

    assert messages(S7, resource(SCALED_OBJECT_TYPE, copy.deepcopy(SCALED_OBJECT))) == []
    for query in ('vllm:num_requests_waiting{namespace="llm"}', 'vllm:num_requests_running{model_name="llama"}'):
        per_pod = copy.deepcopy(SCALED_OBJECT)
        per_pod["spec"]["triggers"][0]["metadata"]["query"] = query
        assert messages(S7, resource(SCALED_OBJECT_TYPE, per_pod)) == [
            f"spec.triggers[0].metadata.query {query} returns one series per vLLM pod, and KEDA's prometheus scaler fails "
            f"on a result of more than one element, so the trigger errors as soon as two replicas run; aggregate it "
            f"(sum(...) or avg(...))"
        ]


def test_a_per_pod_keda_query_with_one_replica_at_most_is_advice():
    # Review 32 R19 (/work/review/s25/s7.yaml): minReplicaCount 0, maxReplicaCount 1. Two pods run only during a
    # rollout's surge, so KEDA's "returned multiple elements" (kedacore/keda v2.20.2 pkg/scalers/
    # prometheus_scaler.go L273-274) is brief and not proven: advisory, saying why; max 2 stays mandatory.
    from policies.autoscaling.custom_metric_is_served import POLICY as S7
    from policies.registry import evaluate

    def levels(obj: dict) -> list[tuple[str, str]]:
        return [(v.enforcement, v.message) for v in evaluate([resource(SCALED_OBJECT_TYPE, obj)], policies=[S7])]

    one = copy.deepcopy(SCALED_OBJECT)
    one["spec"].update(minReplicaCount=0, maxReplicaCount=1)
    one["spec"]["triggers"][0]["metadata"]["query"] = 'vllm:num_requests_running{model_name="qwen"}'
    ((level, msg),) = levels(one)
    assert level == "advisory" and msg.endswith("during a rollout's surge, when the trigger errors)")
    one["spec"]["maxReplicaCount"] = 2
    ((level, _),) = levels(one)
    assert level == "mandatory"


def test_a_kserve_external_prometheus_query_is_read_like_a_keda_trigger():
    """KServe copies an InferenceService's external metric query into its ScaledObject's prometheus trigger unchanged
    (kserve v0.20.0 reconcilers/keda/keda_reconciler.go:115-126). Shape of set 6's erkerc/rhoai-autoscaling
    inferenceservice-autoscale.yaml @ dadfb7b9: query 'vllm:num_requests_running', backend prometheus."""
    from policies.autoscaling.custom_metric_is_served import POLICY as S7
    from policies.kube import ISVC_TYPE

    def isvc(query: str, backend: str = "prometheus") -> dict:
        metric = {"backend": backend, "query": query, "serverAddress": "https://thanos-querier.openshift-monitoring.svc:9092"}
        return {
            "apiVersion": "serving.kserve.io/v1beta1",
            "kind": "InferenceService",
            "metadata": {"name": "qwen25-7b-instruct", "annotations": {"serving.kserve.io/autoscalerClass": "keda"}},
            "spec": {
                "predictor": {
                    "minReplicas": 1,
                    "maxReplicas": 3,
                    "autoScaling": {"metrics": [{"type": "External", "external": {"metric": metric, "target": {"value": "1"}}}]},
                    "model": {"modelFormat": {"name": "vLLM"}, "runtime": "qwen"},
                }
            },
        }

    per_pod, unscoped = messages(S7, resource(ISVC_TYPE, isvc("vllm:num_requests_running")))
    assert per_pod == (
        "spec.predictor.autoScaling.metrics[0].external.metric.query vllm:num_requests_running returns one series per "
        "vLLM pod, and KEDA's prometheus scaler fails on a result of more than one element, so the trigger errors as "
        "soon as two replicas run; aggregate it (sum(...) or avg(...))"
    )
    # The same query selects the series with no matcher: every tenant's vLLM pods (policies/autoscaling/query_series.py).
    assert " selects vllm:num_requests_running with no label matcher " in unscoped
    # Careful forms: an aggregated query, and a backend that is not Prometheus.
    assert messages(S7, resource(ISVC_TYPE, isvc('sum(vllm:num_requests_running{namespace="autoscaling-demo"})'))) == []
    assert messages(S7, resource(ISVC_TYPE, isvc("vllm:num_requests_running", backend="graphite"))) == []


# KServe's Hugging Face server as its docs deploy Llama 3.1 8B (modelFormat huggingface, --model_id, default backend auto,
# which runs vLLM where it supports the architecture: kserve v0.20.0 huggingfaceserver/__main__.py L60-70, L134-139), in
# RawDeployment mode, made careful.
KSERVE_HF = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {
        "name": "llama3-8b",
        "namespace": "llm",
        "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment", "serving.kserve.io/autoscalerClass": "external"},
    },
    "spec": {
        "predictor": {
            "nodeSelector": {"karpenter.k8s.aws/instance-gpu-name": "l40s"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "model": {
                "modelFormat": {"name": "huggingface"},
                "args": ["--model_name=llama3", "--model_id=meta-llama/Llama-3.1-8B-Instruct", "--max_model_len=8192"],
                "resources": {
                    "limits": {"nvidia.com/gpu": "1", "memory": "48Gi"},
                    "requests": {"nvidia.com/gpu": "1", "memory": "48Gi", "cpu": "6", "ephemeral-storage": "40Gi"},
                },
            },
        }
    },
}


def test_kserve_hf_server_on_its_vllm_backend_is_read_for_context_length_and_disk():
    from policies.gpu.ephemeral_storage import POLICY as S19
    from policies.vllm.max_model_len_unset import POLICY as S2_UNSET

    isvc = lambda props: resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", props)  # noqa: E731
    careful = copy.deepcopy(KSERVE_HF)
    assert messages(S2_UNSET, isvc(careful)) == [] and messages(S19, isvc(careful)) == []
    unset = copy.deepcopy(KSERVE_HF)
    unset["spec"]["predictor"]["model"]["args"].remove("--max_model_len=8192")
    assert messages(S2_UNSET, isvc(unset)) == [
        "spec.predictor.model: --max-model-len is not set, so vLLM serves the model's full context (131,072 tokens for "
        "meta-llama/Llama-3.1-8B-Instruct); one such request must fit the KV cache or the engine refuses to start; set "
        "the length you serve"
    ]
    # The transformers backend has no KV pool to size: the context-length check does not apply.
    unset["spec"]["predictor"]["model"]["args"].append("--backend=huggingface")
    assert messages(S2_UNSET, isvc(unset)) == []
    no_disk = copy.deepcopy(KSERVE_HF)
    del no_disk["spec"]["predictor"]["model"]["resources"]["requests"]["ephemeral-storage"]
    (msg,) = messages(S19, isvc(no_disk))
    assert msg.startswith(
        "spec.predictor.model: downloads meta-llama/Llama-3.1-8B-Instruct from the Hugging Face Hub into "
        "/tmp/huggingface/hub on the node's ephemeral storage"
    )


def test_serverless_kpa_scale_down_delay():
    """Knative's KPA on a Serverless GPU InferenceService: KServe copies the annotations to the revision template (kserve
    v0.20.0 ksvc_reconciler.go L192-204); Knative's scale-down-delay default is 0s after a 60 s stable window."""
    from policy_fixtures import isvc, isvc_props

    from policies.autoscaling.hpa_behavior import POLICY as S8
    from policies.registry import evaluate

    props = isvc_props()
    props["metadata"]["annotations"] = {
        "serving.kserve.io/deploymentMode": "Serverless",
        "autoscaling.knative.dev/scale-down-delay": "10m",
    }
    assert messages(S8, isvc(props)) == []
    props["metadata"]["annotations"]["autoscaling.knative.dev/scale-down-delay"] = "2m"
    assert messages(S8, isvc(props)) == [
        "deploymentMode Serverless (annotation): Knative's KPA scales this GPU InferenceService in with "
        "autoscaling.knative.dev/scale-down-delay 2m after a stable window of 60s (Knative default), below 300 s: a GPU "
        "replica removed on a short dip takes minutes to come back; set autoscaling.knative.dev/scale-down-delay to at "
        "least 300s"
    ]
    del props["metadata"]["annotations"]["autoscaling.knative.dev/scale-down-delay"]
    # Unset: Knative's (or the cluster's) default, a flapping risk the manifest did not choose; advice (set 22).
    (violation,) = evaluate([isvc(props)], None, policies=[S8])
    assert violation.enforcement == "advisory" and "scale-down-delay unset (Knative's 0s)" in violation.message
    # A 10m stable window averages a short dip away (knative-v1.23.0 autoscaler.go:196): advice (cold review finding 12).
    props["metadata"]["annotations"]["autoscaling.knative.dev/window"] = "10m"
    (violation,) = evaluate([isvc(props)], None, policies=[S8])
    assert violation.enforcement == "advisory" and "(advisory: the stable window of 10m" in violation.message
    del props["metadata"]["annotations"]["autoscaling.knative.dev/window"]
    # RawDeployment: no KPA (the HPA's behavior is judged instead).
    props["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] = "RawDeployment"
    assert messages(S8, isvc(props)) == []


def test_serverless_kpa_pinned_replicas_never_scale_in():
    """thepetk/odh-kubeflow-model-registry-setup inferenceservice.yaml@90d19baa68d39800957d262ae1edc5634e7665ea: a
    Serverless GPU InferenceService with minReplicas 1 and maxReplicas 1. KServe writes min-scale 1 and max-scale 1 on
    the revision (kserve v0.20.0 pkg/controller/v1alpha1/utils/utils.go:69-80), so the KPA never removes the replica and
    no scale-down-delay matters (set 22's one wrong blocking finding)."""
    from policy_fixtures import isvc, isvc_props

    from policies.autoscaling.hpa_behavior import POLICY as S8

    props = isvc_props()
    props["metadata"]["annotations"] = {"serving.kserve.io/deploymentMode": "Serverless"}
    props["spec"]["predictor"].update({"minReplicas": 1, "maxReplicas": 1})
    assert messages(S8, isvc(props)) == []
    # maxReplicas 0 is unbounded in KServe: the KPA scales in again, and the unset delay is advice.
    props["spec"]["predictor"]["maxReplicas"] = 0
    assert "scale-down-delay unset (Knative's 0s)" in messages(S8, isvc(props))[0]
    props["spec"]["predictor"].update({"minReplicas": 2, "maxReplicas": 2})
    assert messages(S8, isvc(props)) == []


def test_serverless_kpa_without_max_replicas_is_advice():
    """AlexanderOllman/PodManager inferenceservice.yaml (spent set 22: S8 advisory, no maxReplicas): KServe writes no
    max-scale for maxReplicas 0 (kserve v0.20.0 pkg/controller/v1alpha1/utils/utils.go:76-80) and Knative's max-scale
    defaults to 0, unbounded (knative-v1.23.0 pkg/autoscaler/config/config.go:65)."""
    from policy_fixtures import isvc, isvc_props

    from policies.autoscaling.hpa_behavior import POLICY as S8
    from policies.registry import evaluate

    props = isvc_props()
    props["metadata"]["annotations"] = {
        "serving.kserve.io/deploymentMode": "Serverless",
        "autoscaling.knative.dev/scale-down-delay": "10m",
    }
    props["spec"]["predictor"].pop("maxReplicas", None)
    (violation,) = evaluate([isvc(props)], None, policies=[S8])
    assert violation.enforcement == "advisory"
    assert "spec.predictor.maxReplicas is not set (0: unbounded)" in violation.message
    # A ceiling, or a max-scale annotation of its own, bounds it.
    props["spec"]["predictor"]["maxReplicas"] = 4
    assert messages(S8, isvc(props)) == []
    props["spec"]["predictor"].pop("maxReplicas")
    props["spec"]["predictor"]["annotations"] = {"autoscaling.knative.dev/max-scale": "4"}
    assert messages(S8, isvc(props)) == []
