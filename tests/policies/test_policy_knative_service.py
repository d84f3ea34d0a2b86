"""Knative autoscaling annotations beyond an explicit min-scale of 0 on a model server's Knative Service: no min-scale
(the cluster's default, 0 as shipped) and initial-scale 0 are S5 advice; scale-down-delay below the floor is S8 (advice
when unset: the cluster's config-autoscaler default; blocking when set below it)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

# jkwong888/gke-kueue-dws knative/llama3-knative-service.yaml at e5c468eefb76372863e053dd4d2ccc4d56abe1e7 (cut down):
# vLLM on one A100 in a Knative Service, no autoscaling annotation at all.
LLAMA3 = {
    "apiVersion": "serving.knative.dev/v1",
    "kind": "Service",
    "metadata": {"name": "llama3"},
    "spec": {
        "template": {
            "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "a100-80gb"}},
            "spec": {
                "nodeSelector": {"cloud.google.com/gke-nodepool": "kueue-dev-a100-80gb-nodepool"},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "command": [
                            "python3",
                            "-m",
                            "vllm.entrypoints.openai.api_server",
                            "--model",
                            "meta-llama/Meta-Llama-3.1-8B-Instruct",
                        ],
                        "ports": [{"containerPort": 8000, "protocol": "TCP"}],
                        "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
            },
        }
    },
}


def with_annotations(annotations: dict) -> dict:
    service = copy.deepcopy(LLAMA3)
    service["spec"]["template"]["metadata"]["annotations"] = annotations
    return service


def test_a_model_server_knative_service_with_no_min_scale_is_advice():
    assert found_by([LLAMA3], "llm-no-scale-to-zero") == [
        (
            "advisory",
            "spec.template.metadata.annotations: no autoscaling.knative.dev/min-scale, so the revision takes the "
            "cluster's default, 0 as Knative ships it (config-autoscaler min-scale 0, enable-scale-to-zero true), and "
            "the model server scales to zero when idle; an LLM replica takes minutes to return (GPU node, image pull, "
            "weight load), so the first request after idling times out; set it to at least 1",
        )
    ]
    ((level, message),) = found_by([LLAMA3], "llm-hpa-behavior")
    assert level == "advisory"
    assert message.startswith(
        "Knative's KPA scales this Knative Service's GPU model server in with autoscaling.knative.dev/scale-down-delay "
        "unset (Knative's 0s) after a stable window of 60s (Knative default), below 300 s"
    )


def test_initial_scale_zero_is_advice_and_so_is_a_short_delay():
    service = with_annotations(
        {
            "autoscaling.knative.dev/min-scale": "1",
            "autoscaling.knative.dev/initial-scale": "0",
            "autoscaling.knative.dev/scale-down-delay": "30s",
        }
    )
    ((level, message),) = found_by([service], "llm-no-scale-to-zero")
    assert level == "advisory"
    assert message.startswith(
        'spec.template.metadata.annotations: autoscaling.knative.dev/initial-scale is "0": Knative refuses it unless '
        "the cluster sets allow-zero-initial-scale (default false)"
    )
    # A short delay judges the house floor (300 s), not a failure of serving: advice (session 52, fresh set 97's KServe
    # KEDA sample drew a wrong blocking finding for a window of 120 s).
    ((level, message),) = found_by([service], "llm-hpa-behavior")
    assert level == "advisory" and "scale-down-delay 30s after a stable window" in message


def test_a_knative_service_pinned_by_min_and_max_scale_never_scales_in():
    # min-scale equal to max-scale: the KPA holds the count, so no scale-down-delay matters (S8 silent).
    pinned = with_annotations({"autoscaling.knative.dev/min-scale": "1", "autoscaling.knative.dev/max-scale": "1"})
    assert found_by([pinned], "llm-hpa-behavior") == []
    pinned["spec"]["template"]["metadata"]["annotations"]["autoscaling.knative.dev/max-scale"] = "3"
    assert [level for level, _ in found_by([pinned], "llm-hpa-behavior")] == ["advisory"]


def test_a_careful_knative_service_and_one_that_serves_no_model_are_silent():
    careful = with_annotations({"autoscaling.knative.dev/min-scale": "1", "autoscaling.knative.dev/scale-down-delay": "10m"})
    # Knative's own sample (knative/docs code-samples/serving/hello-world/helloworld-go/service.yaml): no model server.
    hello = {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "helloworld-go", "namespace": "default"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "ghcr.io/knative/helloworld-go:latest", "env": [{"name": "TARGET", "value": "Go Sample v1"}]}
                    ]
                }
            }
        },
    }
    # Knative's HPA class never scales to zero (its floor is 1): no default-floor advice.
    hpa_class = with_annotations(
        {"autoscaling.knative.dev/class": "hpa.autoscaling.knative.dev", "autoscaling.knative.dev/metric": "cpu"}
    )
    assert found_by([careful, hello], "llm-no-scale-to-zero") == []
    assert found_by([careful, hello], "llm-hpa-behavior") == []
    assert found_by([hpa_class], "llm-no-scale-to-zero") == []


# jkwong888/gke-kueue-dws knative/gemma3-knative-service-cc.yaml at e5c468eefb76372863e053dd4d2ccc4d56abe1e7 (cut down):
# vLLM with --max-num-seqs 4 in a Knative Service with no target: Knative aims each pod at 100 x 0.7 = 70 in flight.
GEMMA3 = {
    "apiVersion": "serving.knative.dev/v1",
    "kind": "Service",
    "metadata": {"name": "gemma3-vllm"},
    "spec": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "command": [
                            "python3",
                            "-m",
                            "vllm.entrypoints.openai.api_server",
                            "--port=$(SERVING_PORT)",
                            "--model=$(HF_HOME)/$(MODEL_NAME)",
                            "--max-num-seqs",
                            "4",
                            "--max-model-len",
                            "40000",
                        ],
                        "env": [{"name": "SERVING_PORT", "value": "8000"}],
                        "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            }
        }
    },
}


def test_a_concurrency_target_above_the_engine_batch_is_advice():
    ((level, message),) = [f for f in found_by([GEMMA3], "autoscaling-signal-not-throughput")]
    assert level == "advisory"
    assert message == (
        "spec.template.metadata.annotations: Knative aims each pod at 70 requests in flight (no target: Knative's "
        "default 100 x utilization 0.7), but vLLM runs at most 4 at once (--max-num-seqs 4): the rest wait in its "
        "queue, and Knative adds a replica only once each pod holds about 66 waiting requests; set "
        "autoscaling.knative.dev/target so that target x utilization is at most 4"
    )
    # containerConcurrency caps an annotation target (knative-v1.23.0 resources/target.go:49-55).
    capped = copy.deepcopy(GEMMA3)
    capped["spec"]["template"]["metadata"] = {"annotations": {"autoscaling.knative.dev/target": "50"}}
    capped["spec"]["template"]["spec"]["containerConcurrency"] = 20
    ((_, message),) = found_by([capped], "autoscaling-signal-not-throughput")
    assert (
        "at 14 requests in flight (autoscaling.knative.dev/target 50 capped by containerConcurrency 20 x utilization 0.7)"
        in message
    )


def test_a_target_within_the_batch_or_an_unknown_batch_is_silent():
    fits = copy.deepcopy(GEMMA3)
    fits["spec"]["template"]["metadata"] = {
        "annotations": {"autoscaling.knative.dev/target": "4", "autoscaling.knative.dev/target-utilization-percentage": "90"}
    }
    # No --max-num-seqs: vLLM's default depends on the GPU and the release, so nothing is compared.
    unknown = copy.deepcopy(GEMMA3)
    unknown["spec"]["template"]["spec"]["containers"][0]["command"] = ["vllm", "serve", "google/gemma-3-4b-it"]
    assert found_by([fits, unknown, LLAMA3], "autoscaling-signal-not-throughput") == []


def test_an_inference_service_scale_target_above_the_batch_is_advice():
    # KServe writes spec.predictor.scaleTarget as the revision's target (kserve v0.20.0 utils.go:56-67); the model's
    # args cap vLLM at 16 sequences. In RawDeployment mode there is no Knative revision: silent.
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen", "annotations": {"serving.kserve.io/deploymentMode": "Serverless"}},
        "spec": {
            "predictor": {
                "scaleMetric": "concurrency",
                "scaleTarget": 100,
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "args": ["--model_name=qwen", "--model_id=Qwen/Qwen2.5-7B-Instruct", "--max-num-seqs=16"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                },
            }
        },
    }
    ((level, message),) = found_by([isvc], "autoscaling-signal-not-throughput")
    assert level == "advisory" and message.startswith("spec.predictor: Knative aims each pod at 70 requests in flight")
    raw = copy.deepcopy(isvc)
    raw["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] = "RawDeployment"
    assert found_by([raw], "autoscaling-signal-not-throughput") == []


def test_a_stable_window_at_the_floor_makes_a_short_delay_advice():
    # Cold review finding 12: the KPA sizes on the load averaged over the stable window (knative/serving knative-v1.23.0
    # pkg/autoscaler/scaling/autoscaler.go:196), so with window 10m a short dip barely moves the count; an average is
    # not the HPA's max over its window, hence advice rather than silence.
    annotations = {
        "autoscaling.knative.dev/min-scale": "1",
        "autoscaling.knative.dev/window": "10m",
        "autoscaling.knative.dev/scale-down-delay": "0s",
    }
    ((level, message),) = found_by([with_annotations(annotations)], "llm-hpa-behavior")
    assert level == "advisory"
    assert "(advisory: the stable window of 10m averages the load" in message
    # A window below the floor is no brake: the short delay is reported without the averaging note (still advice: a
    # house threshold, not a failure).
    annotations["autoscaling.knative.dev/window"] = "2m"
    ((level, message),) = found_by([with_annotations(annotations)], "llm-hpa-behavior")
    assert level == "advisory" and "averages the load" not in message and "below 300 s" in message
