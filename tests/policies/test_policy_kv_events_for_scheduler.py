"""S60: an LLMInferenceService whose scheduler uses llm-d's precise-prefix-cache-scorer starts vLLM with KV events
(policies/vllm/kv_events_for_scheduler.py).

The careful form is KServe v0.20.0's own sample (kserve/kserve@v0.20.0 docs/samples/llmisvc/
precise-prefix-kv-cache-routing/llm-inference-service-qwen2-7b-gpu-kv-cache-routing.yaml), written out here: the
scorer in spec.router.scheduler.config.inline and --kv-events-config in the main container's VLLM_ADDITIONAL_ARGS.
"""

from __future__ import annotations

import copy

import yaml

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate

_EVENTS = (
    "--prefix-caching-hash-algo sha256_cbor --block-size 64 "
    '--kv-events-config \'{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://qwen-epp-service:5557",'
    '"topic":"kv@POD_IP@Qwen/Qwen2.5-7B-Instruct"}\''
)
# The sample's own value: its endpoint is a template the controller renders and its topic a ${POD_IP}, so the files
# cannot read it (unknown): silent.
_SAMPLE_EVENTS = (
    "--prefix-caching-hash-algo sha256_cbor --block-size 64 --kv_transfer_config "
    '\'{"kv_connector":"NixlConnector","kv_role":"kv_both"}\' --kv-events-config '
    '\'{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://{{ ChildName .ObjectMeta.Name `-epp-service` }}:5557",'
    '"topic":"kv@${POD_IP}@Qwen/Qwen2.5-7B-Instruct"}\''
)
_SVC = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen2-7b-kv-cache-routing"},
    "spec": {
        "model": {"uri": "hf://Qwen/Qwen2.5-7B-Instruct", "name": "Qwen/Qwen2.5-7B-Instruct"},
        "replicas": 2,
        "router": {
            "scheduler": {
                "config": {
                    "inline": {
                        "apiVersion": "inference.networking.x-k8s.io/v1alpha1",
                        "kind": "EndpointPickerConfig",
                        "plugins": [
                            {"type": "single-profile-handler"},
                            {
                                "type": "precise-prefix-cache-scorer",
                                "parameters": {"tokenProcessorConfig": {"blockSize": 64, "hashSeed": "42"}},
                            },
                            {"type": "max-score-picker"},
                        ],
                        "schedulingProfiles": [
                            {"name": "default", "plugins": [{"pluginRef": "precise-prefix-cache-scorer", "weight": 3}]}
                        ],
                    }
                }
            },
            "route": {},
            "gateway": {},
        },
        "template": {
            "containers": [
                {
                    "name": "main",
                    "env": [
                        {"name": "VLLM_ADDITIONAL_ARGS", "value": _EVENTS},
                        {"name": "PYTHONHASHSEED", "value": "42"},
                    ],
                    "resources": {"limits": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}},
                }
            ]
        },
    },
}


def _s60(tmp_path, *docs: dict) -> list[tuple[str, str]]:
    path = tmp_path / "svc.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return [
        (v.enforcement, v.message)
        for v in evaluate(resources_of(read_manifests([str(path)])))
        if v.policy == "kv-events-for-cache-scorer"
    ]


def test_kserves_precise_prefix_sample_is_silent(tmp_path):
    assert _s60(tmp_path, _SVC) == []
    svc = copy.deepcopy(_SVC)
    svc["spec"]["template"]["containers"][0]["env"][0]["value"] = _SAMPLE_EVENTS
    assert _s60(tmp_path, svc) == []  # as written upstream: a placeholder the files cannot render


def test_a_scorer_without_kv_events_is_advised(tmp_path):
    svc = copy.deepcopy(_SVC)
    svc["spec"]["template"]["containers"][0]["env"][0]["value"] = "--prefix-caching-hash-algo sha256_cbor --block-size 64"
    [(enforcement, message)] = _s60(tmp_path, svc)
    assert enforcement == "advisory"
    assert message.startswith(
        "spec.template container main: the scheduler scores pods with precise-prefix-cache-scorer, but this vLLM starts "
        "with no --kv-events-config"
    )
    svc["spec"]["template"]["containers"][0]["env"][0]["value"] = "--kv-events-config '{\"enable_kv_cache_events\":false}'"
    [(_, message)] = _s60(tmp_path, svc)
    assert "one that leaves enable_kv_cache_events off" in message


def test_a_scorer_named_by_a_base_config_counts(tmp_path):
    svc = copy.deepcopy(_SVC)
    config = {
        "apiVersion": "serving.kserve.io/v1alpha2",
        "kind": "LLMInferenceServiceConfig",
        "metadata": {"name": "precise-routing"},
        "spec": {"router": svc["spec"]["router"]},
    }
    svc["spec"]["router"] = {"scheduler": {}, "route": {}, "gateway": {}}
    svc["spec"]["baseRefs"] = [{"name": "precise-routing"}]
    svc["spec"]["template"]["containers"][0]["env"] = []
    assert len(_s60(tmp_path, config, svc)) == 1


def test_other_scorers_and_unseen_flags_are_silent(tmp_path):
    svc = copy.deepcopy(_SVC)
    svc["spec"]["template"]["containers"][0]["env"][0] = {
        "name": "VLLM_ADDITIONAL_ARGS",
        "valueFrom": {"configMapKeyRef": {"name": "a", "key": "b"}},
    }
    assert _s60(tmp_path, svc) == []
    svc = copy.deepcopy(_SVC)
    svc["spec"]["router"]["scheduler"]["config"]["inline"]["plugins"][1] = {"type": "prefix-cache-scorer"}
    svc["spec"]["template"]["containers"][0]["env"] = []
    assert _s60(tmp_path, svc) == []  # the estimating scorer needs no events
