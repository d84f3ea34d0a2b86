"""G18 serving-app-pdb over operator-run serving groups: LLMInferenceService, NIMService, StormService, LeaderWorkerSet.

Each firing fixture follows a third-party sample (KServe v0.20.0 docs/samples/llmisvc/dp-ep, NVIDIA k8s-nim-operator
config/samples/nim/serving/advanced/multi-node, aibrix samples/disaggregation/vllm/1p1d.yaml, GKE
llm-multihost-gpus/vllm-deepseek-r1-A3.yaml), cut to the fields the rule reads; each careful form adds the PDB a
careful platform writes on the labels the operator puts on its pods (cited in policies/k8s_generic/serving_app_pdb.py)
and must stay silent.
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from policies.k8s_generic.serving_app_pdb import POLICY

_GPU = {"limits": {"nvidia.com/gpu": "8", "cpu": "64", "memory": "512Gi"}}
_LLMISVC = {
    "apiVersion": "serving.kserve.io/v1alpha2",
    "kind": "LLMInferenceService",
    "metadata": {"name": "deepseek-coder-v2", "namespace": "llm"},
    "spec": {
        "model": {"uri": "hf://deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct", "name": "deepseek-coder"},
        "replicas": 2,
        "parallelism": {"data": 16, "dataLocal": 8, "expert": True, "tensor": 1},
        "template": {"containers": [{"name": "main", "resources": _GPU}]},
        "worker": {"containers": [{"name": "main", "resources": _GPU}]},
    },
}
_NIM = {
    "apiVersion": "apps.nvidia.com/v1alpha1",
    "kind": "NIMService",
    "metadata": {"name": "deepseek-r1", "namespace": "nim-service"},
    "spec": {
        "image": {"repository": "nvcr.io/nim/deepseek-ai/deepseek-r1", "tag": "1.7.3"},
        "resources": {"limits": {"nvidia.com/gpu": 8}},
        "replicas": 1,
        "multiNode": {"parallelism": {"pipeline": 2, "tensor": 8}, "mpi": {"mpiStartTimeout": 6000}},
    },
}
_STORM = {
    "apiVersion": "orchestration.aibrix.ai/v1alpha1",
    "kind": "StormService",
    "metadata": {"name": "vllm-1p1d", "namespace": "default"},
    "spec": {
        "replicas": 1,
        "template": {
            "spec": {
                "roles": [
                    {
                        "name": role,
                        "replicas": 1,
                        "template": {
                            "metadata": {"labels": {"model.aibrix.ai/name": "qwen3-8B"}},
                            "spec": {
                                "containers": [
                                    {
                                        "name": role,
                                        "image": "vllm/vllm-openai:v0.10.0",
                                        "command": ["vllm", "serve", "/models/Qwen3-8B"],
                                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                                    }
                                ]
                            },
                        },
                    }
                    for role in ("prefill", "decode")
                ]
            }
        },
    },
}
_LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "vllm", "namespace": "default"},
    "spec": {
        "replicas": 1,
        "leaderWorkerTemplate": {
            "size": 2,
            "leaderTemplate": {
                "metadata": {"labels": {"role": "leader"}},
                "spec": {"containers": [{"name": "vllm-leader", "image": "vllm/vllm-openai:v0.8.5", "resources": _GPU}]},
            },
            "workerTemplate": {
                "spec": {"containers": [{"name": "vllm-worker", "image": "vllm/vllm-openai:v0.8.5", "resources": _GPU}]}
            },
        },
    },
}


def _pdb(namespace: str, match: dict) -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "serving", "namespace": namespace},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": match}},
    }


def _found(*docs: dict) -> list[str]:
    return messages(POLICY, *(resource(f"kubernetes:{d['apiVersion']}:{d['kind']}", copy.deepcopy(d)) for d in docs))


def test_a_multi_node_llmisvc_without_a_pdb_fires_and_names_its_group():
    assert _found(_LLMISVC) == [
        "LLMInferenceService deepseek-coder-v2: no PodDisruptionBudget selects its pods (its operator creates none), so "
        "a node drain or Karpenter consolidation can evict every replica at once; one engine spans 2 pods here, so one "
        "evicted pod stops a whole replica, and a PDB counting its pods (maxUnavailable: 1) keeps the other replicas "
        "serving; add a PDB with maxUnavailable: 1 on the labels the operator gives its pods"
    ]


def test_a_pdb_on_the_labels_kserve_gives_the_pods_is_the_careful_form():
    """KServe v0.20.0 labels every workload pod app.kubernetes.io/name: <name> (workload_single_node.go:503-509,
    workload_multi_node.go:137-160); the leader also kserve.io/component: workload."""
    assert _found(_LLMISVC, _pdb("llm", {"app.kubernetes.io/name": "deepseek-coder-v2"})) == []
    assert _found(_LLMISVC, _pdb("llm", {"kserve.io/component": "workload", "app.kubernetes.io/name": "deepseek-coder-v2"})) == []
    assert len(_found(_LLMISVC, _pdb("other", {"app.kubernetes.io/name": "deepseek-coder-v2"}))) == 1  # another namespace
    assert len(_found(_LLMISVC, _pdb("llm", {"app.kubernetes.io/name": "something-else"}))) == 1


def test_a_multi_node_nimservice_without_a_pdb_fires_and_the_pdb_on_its_lws_pods_is_careful():
    """k8s-nim-operator v3.1.2 creates no PDB; its multi-node pods carry app: <name>-lws (GetStandardSelectorLabels)."""
    [message] = _found(_NIM)
    assert message.startswith("NIMService deepseek-r1: no PodDisruptionBudget selects its pods") and "spans 2 pods" in message
    assert _found(_NIM, _pdb("nim-service", {"app": "deepseek-r1-lws"})) == []
    assert _found(_NIM, _pdb("nim-service", {"app.kubernetes.io/name": "deepseek-r1"})) == []
    single = copy.deepcopy(_NIM)
    del single["spec"]["multiNode"]
    assert "spans" not in _found(single)[0]
    assert _found(single, _pdb("nim-service", {"app": "deepseek-r1"})) == []


def test_a_stormservice_without_a_pdb_fires_and_a_pdb_on_storm_service_name_is_careful():
    """aibrix (e3e10f9e) labels each role's pods storm-service-name and role-name over the role template's labels."""
    assert len(_found(_STORM)) == 1
    assert _found(_STORM, _pdb("default", {"storm-service-name": "vllm-1p1d"})) == []
    assert _found(_STORM, _pdb("default", {"model.aibrix.ai/name": "qwen3-8B"})) == []


def test_a_leaderworkerset_names_its_group_size():
    [message] = _found(_LWS)
    assert "one engine spans 2 pods here" in message
    assert _found(_LWS, _pdb("default", {"leaderworkerset.sigs.k8s.io/name": "vllm"})) == []


def test_a_stormservice_is_read_by_its_reader_and_is_a_scale_target(tmp_path):
    """StormService roles are pod templates (storm_service_pod_specs), no longer found by the generic search; an HPA on
    a StormService of GPU roles scaling on CPU is a GPU workload on the wrong signal (S6), on a vLLM metric it is not."""
    import yaml

    from policies.check import resources_of
    from policies.kube import pod_specs, read_generically
    from policies.manifests import read_manifests
    from policies.registry import evaluate

    storm = resource("kubernetes:orchestration.aibrix.ai/v1alpha1:StormService", copy.deepcopy(_STORM))
    assert [p for p, _ in pod_specs(storm)] == [
        "spec.template.spec.roles[0].template.spec",
        "spec.template.spec.roles[1].template.spec",
    ]
    assert read_generically(storm) == []
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "storm", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "orchestration.aibrix.ai/v1alpha1", "kind": "StormService", "name": "vllm-1p1d"},
            "minReplicas": 1,
            "maxReplicas": 2,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
            ],
        },
    }
    path = tmp_path / "storm.yaml"

    def s6() -> list[str]:
        path.write_text(yaml.safe_dump_all([_STORM, hpa]))
        found = evaluate(resources_of(read_manifests([str(path)])))
        return [v.message for v in found if v.policy == "gpu-workload-no-resource-metric-hpa"]

    assert [m.split(" is a GPU")[0] for m in s6()] == ["scaleTargetRef StormService/vllm-1p1d"]
    hpa["spec"]["metrics"] = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "vllm:num_requests_waiting"}, "target": {"type": "AverageValue", "averageValue": "5"}},
        }
    ]
    assert s6() == []
