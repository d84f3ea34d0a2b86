"""S61: the prefill and decode servers of one LLMInferenceService agree on KV transfer (policies/vllm/prefill_decode_kv.py).

The careful form is KServe v0.20.0's own P/D sample (kserve/kserve@v0.20.0
docs/samples/llmisvc/single-node-gpu/llm-inference-service-pd-qwen2-7b-gpu.yaml), written out here: NixlConnector on
both sides through VLLM_ADDITIONAL_ARGS (kv_consumer / kv_producer) and VLLM_NIXL_SIDE_CHANNEL_HOST from status.podIP.
"""

from __future__ import annotations

import copy

import yaml

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate

_RESOURCES = {
    "limits": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"},
    "requests": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"},
}


def _side(role: str) -> dict:
    return {
        "containers": [
            {
                "name": "main",
                "env": [
                    {"name": "VLLM_NIXL_SIDE_CHANNEL_HOST", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                    {
                        "name": "VLLM_ADDITIONAL_ARGS",
                        "value": '--kv_transfer_config \'{"kv_connector":"NixlConnector","kv_role":"%s"}\'' % role,
                    },
                ],
                "resources": copy.deepcopy(_RESOURCES),
            }
        ]
    }


def _pd() -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "qwen2-7b-instruct-pd", "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "model": {"uri": "hf://Qwen/Qwen2.5-7B-Instruct", "name": "Qwen/Qwen2.5-7B-Instruct"},
            "router": {"route": {}, "gateway": {}, "scheduler": {}},
            "template": _side("kv_consumer"),
            "prefill": {"replicas": 2, "template": _side("kv_producer")},
        },
    }


def _s61(tmp_path, svc: dict) -> list[tuple[str, str]]:
    path = tmp_path / "pd.yaml"
    path.write_text(yaml.safe_dump(svc))
    return [
        (v.enforcement, v.message)
        for v in evaluate(resources_of(read_manifests([str(path)])))
        if v.policy == "prefill-decode-kv-agree"
    ]


def test_kserves_pd_sample_is_silent(tmp_path):
    assert _s61(tmp_path, _pd()) == []


def test_a_prefill_without_the_kv_connector_is_advised(tmp_path):
    svc = _pd()
    svc["spec"]["prefill"]["template"]["containers"][0]["env"] = svc["spec"]["prefill"]["template"]["containers"][0]["env"][:1]
    [(enforcement, message)] = _s61(tmp_path, svc)
    assert enforcement == "advisory"
    assert message.startswith(
        "prefill (spec.prefill.template) container main starts vLLM with no --kv-transfer-config while decode "
        "(spec.template) sets one (NixlConnector)"
    )


def test_connectors_that_differ_are_advised(tmp_path):
    svc = _pd()
    env = svc["spec"]["prefill"]["template"]["containers"][0]["env"]
    env[1]["value"] = env[1]["value"].replace("NixlConnector", "LMCacheConnectorV1")
    [(_, message)] = _s61(tmp_path, svc)
    assert "uses kv_connector NixlConnector but prefill (spec.prefill.template) uses LMCacheConnectorV1" in message


def test_a_side_channel_host_on_one_side_only_is_advised(tmp_path):
    svc = _pd()
    svc["spec"]["prefill"]["template"]["containers"][0]["env"] = svc["spec"]["prefill"]["template"]["containers"][0]["env"][1:]
    [(_, message)] = _s61(tmp_path, svc)
    assert message.startswith(
        "prefill (spec.prefill.template) container main uses NixlConnector without VLLM_NIXL_SIDE_CHANNEL_HOST"
    )


def test_flags_the_files_cannot_see_and_services_without_prefill_are_silent(tmp_path):
    svc = _pd()
    env = svc["spec"]["prefill"]["template"]["containers"][0]["env"]
    env[1] = {"name": "VLLM_ADDITIONAL_ARGS", "valueFrom": {"configMapKeyRef": {"name": "pd", "key": "prefill"}}}
    assert _s61(tmp_path, svc) == []
    single = _pd()
    del single["spec"]["prefill"]
    assert _s61(tmp_path, single) == []
    # The user's own args (the script's "$@") count as much as VLLM_ADDITIONAL_ARGS.
    svc = _pd()
    main = svc["spec"]["prefill"]["template"]["containers"][0]
    main["args"] = ["--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}']
    main["env"] = main["env"][:1]
    assert _s61(tmp_path, svc) == []


def test_dotted_kv_transfer_keys_are_one_config(tmp_path):
    """vLLM folds ``--kv-transfer-config.kv_connector X`` into the option's JSON (vllm 0.33.0
    vllm/utils/argparse_utils.py:461-499): a prefill written that way agrees with a decode written as JSON, and a
    dotted connector that differs is still told apart."""
    svc = _pd()
    main = svc["spec"]["prefill"]["template"]["containers"][0]
    main["env"][1]["value"] = "--kv-transfer-config.kv_connector NixlConnector --kv_transfer_config.kv_role=kv_producer"
    assert _s61(tmp_path, svc) == []
    main["env"][1]["value"] = "--kv-transfer-config.kv_connector LMCacheConnectorV1"
    [(_, message)] = _s61(tmp_path, svc)
    assert "uses kv_connector NixlConnector but prefill (spec.prefill.template) uses LMCacheConnectorV1" in message
