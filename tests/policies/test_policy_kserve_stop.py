"""S5 on KServe's stop annotation: a model committed with ``serving.kserve.io/stop: "true"`` serves nothing.

KServe (v0.20.0) reads the annotation case-insensitively (pkg/utils/utils.go:333-351 GetForceStopRuntime), marks the
predictor stopped (components/predictor.go:247) and deletes its Deployment (reconcilers/deployment/
deployment_reconciler.go:224-247); an LLMInferenceService's main workload is marked not ready and not rendered
(pkg/controller/v1alpha2/llmisvc/workload.go:58-60). Fixture: the shape of set 6's erkerc/rhoai-autoscaling
inferenceservice-autoscale.yaml @ dadfb7b9 (RawDeployment, KEDA autoscaling, minReplicas 1, stop 'true').
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from policies.autoscaling.no_scale_to_zero import POLICY

_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {
        "name": "qwen25-7b-instruct",
        "namespace": "autoscaling-demo",
        "annotations": {
            "serving.kserve.io/autoscalerClass": "keda",
            "serving.kserve.io/deploymentMode": "RawDeployment",
            "serving.kserve.io/stop": "true",
        },
    },
    "spec": {
        "predictor": {
            "minReplicas": 1,
            "maxReplicas": 3,
            "model": {"modelFormat": {"name": "vLLM"}, "runtime": "qwen25-7b-instruct", "storageUri": "pvc://m/hf"},
        }
    },
}


def _r(doc: dict):
    return resource(f"kubernetes:{doc['apiVersion']}:{doc['kind']}", copy.deepcopy(doc))


def test_a_committed_stop_is_advice():
    # Review 32 R12: a deliberate off switch (a model parked in GitOps) is not a scale-to-zero cold start, and the
    # files cannot say whether it was meant: advice with a message saying what the annotation does.
    from policies.registry import evaluate

    assert [(v.enforcement, v.message) for v in evaluate([_r(_ISVC)], policies=[POLICY])] == [
        (
            "advisory",
            'metadata.annotations: serving.kserve.io/stop is "true", so KServe keeps this model stopped and deletes its '
            "pods: it serves nothing until the annotation is removed; if the model is not parked on purpose, drop it "
            "from the committed manifest",
        )
    ]
    shouting = copy.deepcopy(_ISVC)
    shouting["metadata"]["annotations"]["serving.kserve.io/stop"] = "TRUE"  # strings.EqualFold
    assert len(messages(POLICY, _r(shouting))) == 1
    llmisvc = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "qwen", "annotations": {"serving.kserve.io/stop": "true"}},
        "spec": {"model": {"uri": "hf://Qwen/Qwen2.5-7B-Instruct"}},
    }
    assert len(messages(POLICY, _r(llmisvc))) == 1


def test_a_running_model_or_another_group_is_silent():
    for value in ("false", "False", ""):
        running = copy.deepcopy(_ISVC)
        running["metadata"]["annotations"]["serving.kserve.io/stop"] = value
        assert messages(POLICY, _r(running)) == []
    unannotated = copy.deepcopy(_ISVC)
    del unannotated["metadata"]["annotations"]["serving.kserve.io/stop"]
    assert messages(POLICY, _r(unannotated)) == []
    # The annotation means nothing to an HPA (another controller's object).
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm", "annotations": {"serving.kserve.io/stop": "true"}},
        "spec": {"minReplicas": 1, "maxReplicas": 2, "scaleTargetRef": {"kind": "Deployment", "name": "vllm"}},
    }
    assert messages(POLICY, _r(hpa)) == []


def test_s10_on_a_predictor_model_whose_runtime_is_elsewhere_is_advice():
    """A predictor model's drain comes from its ServingRuntime; where that runtime is not in the files read (set 6's
    erkerc/rhoai-autoscaling inferenceservice-autoscale.yaml @ dadfb7b9 names runtime qwen25-7b-instruct, the file
    beside it defines qwen3-8b), the gaps are reported as advice, never blocking; a runtime in the set is checked
    itself and the InferenceService stays silent."""
    from policies.framework import finding_level
    from policies.timeouts.termination_drains_streams import POLICY as DRAIN

    config = {"maxRequestSeconds": 300, "defaultVllmRelease": ""}
    found = DRAIN.check_resource(_r(_ISVC), config)
    assert found and {finding_level("mandatory", m) for m in found} == {"advisory"}
    assert all("its ServingRuntime is not in the files read" in m for m in found)
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "qwen25-7b-instruct", "namespace": "autoscaling-demo"},
        "spec": {
            "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "vllm/vllm-openai:v0.11.0",
                    "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                    "args": ["--port=8080", "--model=/mnt/models"],
                }
            ],
        },
    }
    assert [m for m in messages(DRAIN, _r(_ISVC), _r(runtime)) if "spec.predictor" in m] == []
