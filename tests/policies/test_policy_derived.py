"""S32-S34: requests within limits, derived objects valid for the API server, the progress deadline (policies/derived/)."""

from __future__ import annotations

from components.derive import Derived
from policies.derived import derived_object_valid, progress_deadline, requests_within_limits
from policies.framework import Resource
from policies.registry import evaluate

DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def _deployment(requests: dict, limits: dict, **spec) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "m-predictor", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "m"}},
            "template": {
                "metadata": {"labels": {"app": "m"}},
                "spec": {
                    "containers": [
                        {
                            "name": "kserve-container",
                            "image": "vllm/vllm-openai:v0.33.0",
                            "resources": {"requests": requests, "limits": limits},
                            "startupProbe": {
                                "httpGet": {"path": "/health", "port": 8080},
                                "periodSeconds": 10,
                                "failureThreshold": 174,
                            },
                        }
                    ]
                },
            },
            **spec,
        },
    }


def _origin(manifest: dict, rules: dict | None = None) -> Derived:
    return Derived("kserve", "InferenceService llm/m", "m", manifest, rules or {})


def _run(policy, manifest: dict, origin: Derived | None = None) -> list[str]:
    resource = Resource(type=DEPLOYMENT, name="derived-llm-deployment-m-predictor", props=manifest, origin=origin)
    return [v.message for v in evaluate([resource], policies=[policy.POLICY])]


def test_request_above_limit_names_the_controller_rule():
    manifest = _deployment({"cpu": "6"}, {"cpu": "1"})
    rule = "KServe's defaulter fills a missing limit (inference_service_defaults.go:59-96)"
    [message] = _run(
        requests_within_limits, manifest, _origin(manifest, {"spec.template.spec.containers[0].resources.limits.cpu": rule})
    )
    assert message.startswith(
        "Deployment llm/m-predictor (KServe creates it from InferenceService llm/m): container kserve-container:"
    )
    assert "resources.requests.cpu 6 exceeds resources.limits.cpu 1" in message and rule in message


def test_request_within_limit_and_quantities_compared_by_value():
    assert _run(requests_within_limits, _deployment({"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1024Mi"})) == []
    assert _run(requests_within_limits, _deployment({"memory": "2Gi"}, {"memory": "1Gi"})) != []  # our own objects too


def test_schema_check_runs_on_derived_objects_only():
    bad = _deployment({"cpu": "1"}, {"cpu": "1"})
    bad["spec"]["template"]["spec"]["containers"][0]["resource"] = {}  # a typo: strict schema refuses it
    [message] = _run(derived_object_valid, bad, _origin(bad))
    assert "KServe creates it from InferenceService llm/m" in message and "resource" in message
    assert _run(derived_object_valid, bad) == []  # not derived: not this policy's business
    good = _deployment({"cpu": "1"}, {"cpu": "1"})
    assert _run(derived_object_valid, good, _origin(good)) == []


def test_progress_deadline_against_startup_budget():
    short = _deployment({}, {})
    [message] = _run(progress_deadline, short, _origin(short))  # default 600 s < 1,740 s
    assert "spec.progressDeadlineSeconds 600 is shorter than container kserve-container's startup budget 1740 s" in message
    long = _deployment({}, {}, progressDeadlineSeconds=1800)
    assert _run(progress_deadline, long, _origin(long)) == []
    assert _run(progress_deadline, short) == []  # a Deployment someone writes: not this policy's case


def _cold(manifest: dict, fill: int, budget: int) -> Derived:
    cold = {
        "nodeLaunchSeconds": 300,
        "imagePullSeconds": 300,
        "cacheFillSeconds": fill,
        "startupBudgetSeconds": budget,
        "seconds": 600 + fill + budget,
    }
    return Derived("kserve", "InferenceService llm/m", "m", manifest, {}, {"coldReady": cold})


def test_progress_deadline_counts_node_launch_image_pull_and_cache_fill():
    """A new pod's last recorded progress is its creation: the deadline must cover node, image, cache and startup."""
    fits_warm = _deployment({}, {})
    fits_warm["spec"]["template"]["spec"]["containers"][0]["startupProbe"]["failureThreshold"] = 60  # 600 s
    [message] = _run(progress_deadline, fits_warm, _cold(fits_warm, 206, 600))
    assert "shorter than a new pod's cold path 1406 s (node launch 300 s + image pull 300 s + node cache fill 206 s" in message
    assert "startup budget 600 s, within the deadline" in message and "HPA scale-outs are not affected" in message
    assert "KubeDeploymentRolloutStuck (Progressing=false for 15 min) stays quiet" in message
    # The old qwen3-32b: a 1,740 s budget, so beyond the deadline even warm, and past 600 + 900 s cold.
    slow = _deployment({}, {})
    [message] = _run(progress_deadline, slow, _cold(slow, 0, 1740))
    assert "1740 s, also beyond the deadline" in message and "fires (2340 s > 600 + 900 s)" in message
    # A deadline that covers the cold path: nothing to say.
    covered = _deployment({}, {}, progressDeadlineSeconds=2400)
    assert _run(progress_deadline, covered, _cold(covered, 0, 1740)) == []
