"""G11 gpu-memory-request-equals-limit judges an LLMInferenceServiceConfig no LLMInferenceService of the files names.

Firing form: opendatahub-io/odh-model-controller server/samples/workload-single-node.yaml
@57b43aad41aea718861b6c70b38a16794fc4ac8e (spent set 31, labelled G11): LLMInferenceServiceConfig single-node-gpu,
container main with one GPU, memory request 16Gi and limit 32Gi: every service built on it is Burstable.
Careful forms: KServe's own sample config kserve v0.20.0 docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_default.yaml
(no resources: the service sets them), and a config a service of the files names (judged on the service, merged).
"""

import copy

from policy_fixtures import manifest

from policies.k8s_generic.gpu_memory_request_equals_limit import POLICY
from policies.registry import evaluate

SINGLE_NODE = {
    "apiVersion": "serving.kserve.io/v1alpha2",
    "kind": "LLMInferenceServiceConfig",
    "metadata": {"name": "single-node-gpu"},
    "spec": {
        "template": {
            "containers": [
                {
                    "name": "main",
                    "resources": {
                        "limits": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"},
                        "requests": {"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
                    },
                }
            ]
        }
    },
}
SERVICE = {
    "apiVersion": "serving.kserve.io/v1alpha2",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen"},
    "spec": {"model": {"uri": "hf://Qwen/Qwen3-0.6B", "name": "Qwen/Qwen3-0.6B"}, "baseRefs": [{"name": "single-node-gpu"}]},
}


def _found(*objs):
    return [(v.resource, v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_unclaimed_config_with_burstable_gpu_container_is_advice():
    assert _found(SINGLE_NODE) == [
        (
            "LLMInferenceServiceConfig/single-node-gpu",
            "advisory",
            "spec.template container main: memory request 16Gi differs from its limit 32Gi in a GPU pod, which makes it "
            "Burstable and an early eviction candidate under node memory pressure; request what you limit",
        )
    ]


def test_careful_forms_stay_silent():
    sample = {
        "apiVersion": "serving.kserve.io/v1alpha2",
        "kind": "LLMInferenceServiceConfig",
        "metadata": {"name": "llmisvc-intelligent-inference-scheduling"},
        "spec": {"template": {"containers": [{"name": "main", "image": "ghcr.io/llm-d/llm-d-cuda:v0.8.0"}]}},
    }
    assert _found(sample) == []
    guaranteed = copy.deepcopy(SINGLE_NODE)
    guaranteed["spec"]["template"]["containers"][0]["resources"]["requests"]["memory"] = "32Gi"
    assert _found(guaranteed) == []
    # Named by a service of the files: judged there, with the config merged in, not twice.
    assert [name for name, _, _ in _found(SINGLE_NODE, SERVICE)] == ["LLMInferenceService/qwen"]
