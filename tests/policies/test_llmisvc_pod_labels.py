"""policies/reading/llmisvc_pods.llmisvc_pod_labels: the labels KServe gives each pod template of an
LLMInferenceService, read at kserve v0.20.0 (pkg/constants/constants.go:444-448; the multi-node prefill group's pods
carry the -prefill forms, pkg/controller/v1alpha2/llmisvc/workload_multi_node.go:285, :295; review 44 #7)."""

from __future__ import annotations

from policy_fixtures import manifest

from policies.reading.llmisvc_pods import llmisvc_pod_labels

_POD = {"containers": [{"name": "main", "image": "vllm/vllm-openai:v0.11.0"}]}
_LLMISVC = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "ds"},
    "spec": {
        "template": _POD,
        "worker": _POD,
        "prefill": {"template": _POD, "worker": _POD},
    },
}


def test_multi_node_groups_decode_and_prefill():
    components = sorted(labels["app.kubernetes.io/component"] for labels in llmisvc_pod_labels(manifest(_LLMISVC), "ds"))
    assert components == [
        "llminferenceservice-workload-leader",
        "llminferenceservice-workload-leader-prefill",
        "llminferenceservice-workload-worker",
        "llminferenceservice-workload-worker-prefill",
    ]
