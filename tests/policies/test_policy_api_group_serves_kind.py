"""G40 api-group-serves-kind: a kind of a CRD the pack pins, under an API group no CRD serves it in.

Fires: set 42, fuhengwu2021/coderepo 09/code/llmd/llm-d-multi-model/vllm-llminference.yaml
@b874b4465a8d857006eb7a9b08fe7a01f28bde6d: LLMInferenceService in llm-d.ai/v1alpha1, a kind only KServe defines (in
serving.kserve.io: kserve/kserve v0.20.0 config/crd/full/llmisvc/serving.kserve.io_llminferenceservices.yaml); llm-d's
own group serves ModelService and config kinds, none of this name. Same class: an InferenceService written
kserve.io/v1beta1 (a form seen in public code), refused the same way.
Silent: llm-d.ai/v1alpha1 ModelService (llm-d/llm-d-model-service's CRD: a kind the pack does not pin, so nothing is
known of its groups); the kind under its own group; a CustomResourceDefinition of the files that defines the kind in
that group; ServiceMonitor in azmonitoring.coreos.com (Azure Monitor managed Prometheus). Advice: InferenceService in
KFServing's former group serving.kubeflow.org.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_SET42 = {
    "apiVersion": "llm-d.ai/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "vllm-llama-32-1b", "labels": {"app": "vllm", "model": "llama-32-1b"}},
    "spec": {
        "model": {"name": "meta-llama/Llama-3.2-1B-Instruct", "path": "meta-llama/Llama-3.2-1B-Instruct"},
        "inferenceServer": {"type": "vllm", "image": "vllm/vllm-openai:v0.12.0"},
    },
}
_ISVC = {
    "apiVersion": "kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llama-chat"},
    "spec": {"predictor": {"model": {"modelFormat": {"name": "pytorch"}, "storageUri": "s3://models/llama-2-7b"}}},
}


def _g40(*objs: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None) if v.policy == "api-group-serves-kind"
    ]


def test_llmisvc_in_llm_d_group_is_advice():
    # llm-d.ai is another project's group whose kinds the pack does not pin: the files do not prove that no CRD serves
    # LLMInferenceService there (review 44 #1), so the finding is advice; the set-42 label is still found.
    found = _g40(_SET42)
    assert [e for e, _ in found] == ["advisory"], found
    assert "llm-d.ai" in found[0][1] and "serving.kserve.io" in found[0][1] and "no matches for kind" in found[0][1]


def test_isvc_in_a_made_up_group_is_refused_and_kfserving_is_advice():
    # kserve.io is KServe's own domain (serving.kserve.io serves InferenceService): KServe's CRDs list its kinds.
    assert [e for e, _ in _g40(_ISVC)] == ["mandatory"]
    old = copy.deepcopy(_ISVC)
    old["apiVersion"] = "serving.kubeflow.org/v1beta1"
    found = _g40(old)
    assert [e for e, _ in found] == ["advisory"] and "KFServing" in found[0][1]


def test_served_groups_and_unpinned_kinds_are_silent():
    good = copy.deepcopy(_SET42)
    good["apiVersion"] = "serving.kserve.io/v1alpha1"
    assert _g40(good) == []
    model_service = {"apiVersion": "llm-d.ai/v1alpha1", "kind": "ModelService", "metadata": {"name": "m"}, "spec": {}}
    assert _g40(model_service) == []
    azure = {"apiVersion": "azmonitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": {"name": "s"}, "spec": {}}
    assert _g40(azure) == []


def test_a_crd_of_the_files_defining_the_kind_is_silent():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "llminferenceservices.llm-d.ai"},
        "spec": {
            "group": "llm-d.ai",
            "names": {"kind": "LLMInferenceService", "plural": "llminferenceservices"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}
            ],
        },
    }
    assert _g40(crd, _SET42) == []


def test_other_projects_kinds_of_the_same_name_are_advice():
    """Review 44 #1: Gloo (gateway.solo.io) and App Mesh (appmesh.k8s.aws) define a VirtualService, LLMKube
    (inference.llmkube.dev) an InferenceService, the Cluster Observability Operator (monitoring.rhobs) a
    ServiceMonitor: the run cannot prove no controller serves them, so none blocks."""
    others = [
        ("gateway.solo.io/v1", "VirtualService"),
        ("appmesh.k8s.aws/v1beta2", "VirtualService"),
        ("inference.llmkube.dev/v1alpha1", "InferenceService"),
        ("monitoring.rhobs/v1", "ServiceMonitor"),
    ]
    for api_version, kind in others:
        obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, "spec": {}}
        found = _g40(obj)
        assert [e for e, _ in found] == ["advisory"], (api_version, found)
        assert "unless another project's CRD defines" in found[0][1]
    # A pinned group that does not serve the kind still blocks: ServiceMonitor is no Istio kind.
    wrong = {"apiVersion": "networking.istio.io/v1", "kind": "ServiceMonitor", "metadata": {"name": "x"}, "spec": {}}
    assert [e for e, _ in _g40(wrong)] == ["mandatory"]


# Set 44: devfloor9/engineering-playbook deploy/nvidia-platform/dynamo-vllm/deploy-aggregated.yaml (head of the file):
# DynamoDeployment in nvidia.com/v1alpha1, a kind only Dynamo's first operator served (ai-dynamo/dynamo
# deploy/dynamo/operator/config/crd/bases/nvidia.com_dynamodeployments.yaml@75eb8477), renamed DynamoGraphDeployment.
_SET44_DYNAMO = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoDeployment",
    "metadata": {"name": "vllm-aggregated", "namespace": "dynamo-system"},
    "spec": {"model": {"name": "Qwen/Qwen3-30B-A3B-FP8"}, "serving": {"mode": "aggregated", "engine": "vllm"}},
}
# Same class, a second form: ai-dynamo/dynamo deploy/compoundai/operator/config/samples/
# nvidia.com_v1alpha1_compoundaideployment.yaml@a9912febc18338955e837cca9508e0baf83aa4aa, a CompoundAIDeployment (the
# name before Dynamo's), which no later Dynamo CRD serves.
_COMPOUND_AI = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "CompoundAIDeployment",
    "metadata": {"name": "compoundaideployment-sample"},
    "spec": {"compoundAINim": "frontend:2c4romhs6s33e4w7"},
}


def test_kinds_only_an_early_dynamo_served_are_advice():
    for obj, now in ((_SET44_DYNAMO, "DynamoGraphDeployment"), (_COMPOUND_AI, "DynamoGraphDeployment")):
        found = _g40(obj)
        assert [e for e, _ in found] == ["advisory"], found
        assert "no matches for kind" in found[0][1] and now in found[0][1]


def test_current_dynamo_kinds_and_a_crd_of_the_files_are_silent():
    # Careful form: the current kind (ai-dynamo/dynamo deploy/operator/config/crd/bases/
    # nvidia.com_dynamographdeployments.yaml) and the GPU operator's ClusterPolicy in the same group stay silent.
    good = copy.deepcopy(_SET44_DYNAMO)
    good["kind"] = "DynamoGraphDeployment"
    good["spec"] = {"services": {}}
    policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"}, "spec": {}}
    assert _g40(good, policy) == []
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "dynamodeployments.nvidia.com"},
        "spec": {"group": "nvidia.com", "names": {"kind": "DynamoDeployment", "plural": "dynamodeployments"}},
    }
    assert _g40(crd, _SET44_DYNAMO) == []


# Spent set 99: kubvernor/kubvernor resources/inference-model.yaml, InferenceModel inference.networking.x-k8s.io/v1alpha2,
# a kind only the Inference Extension v0.1.0-v0.5.1 served (config/crd/bases/inference.networking.x-k8s.io_inferencemodels
# .yaml@v0.5.1); v1.0.0's config/crd/bases holds inferencepools and inferenceobjectives only.
_SET99_MODEL = {
    "apiVersion": "inference.networking.x-k8s.io/v1alpha2",
    "kind": "InferenceModel",
    "metadata": {"name": "food-review"},
    "spec": {"modelName": "food-review", "criticality": "Standard", "poolRef": {"name": "vllm-llama3-8b-instruct"}},
}


def test_inference_model_is_advice_and_inference_objective_is_silent():
    found = _g40(_SET99_MODEL)
    assert [e for e, _ in found] == ["advisory"], found
    assert "InferenceObjective (inference.networking.x-k8s.io/v1alpha2)" in found[0][1]
    objective = copy.deepcopy(_SET99_MODEL)
    objective["kind"] = "InferenceObjective"
    objective["spec"] = {"priority": 10, "poolRef": {"name": "vllm-llama3-8b-instruct"}}
    assert _g40(objective) == []
