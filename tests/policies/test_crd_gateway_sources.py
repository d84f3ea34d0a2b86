"""S26 crd-validation-rules on the CRDs of tools/crd_sources.json (Envoy AI Gateway, Envoy Gateway, the Gateway API
Inference Extension), read at pinned tags from the projects' repositories; only the extracted facts are committed.

Fires (spent set 99, echarso/ai-router@a29338cd86bac8cf90c24ec4533b5c27307306e9 files under /work/spent/set99/files/echarso__ai-router):
- k8s/aigateway-routing.yaml AIServiceBackend vllm-tinyllama-backend: backendRef kind Service, group "": the CEL rule
  "BackendRef must be a Backend resource of Envoy Gateway" (envoyproxy/ai-gateway v1.1.0
  manifests/charts/ai-gateway-crds-helm/templates/aigateway.envoyproxy.io_aiservicebackends.yaml:130-135);
- k8s/aigateway-routing.yaml AIGatewayRoute openai-model-router: backendRefs with group aigateway.envoyproxy.io, kind
  AIServiceBackend: "only InferencePool from inference.networking.k8s.io group is supported" (v1.1.0
  aigateway.envoyproxy.io_aigatewayroutes.yaml:663-666);
- k8s/ai-model-router.yaml EnvoyPatchPolicy openai-model-router-lua: jsonPatches[].type an HttpConnectionManager type
  URL outside the enum (envoyproxy/gateway v1.9.0 charts/gateway-helm/charts/crds/crds/generated/
  gateway.envoyproxy.io_envoypatchpolicies.yaml).
Silent: an AIServiceBackend whose backendRef is an Envoy Gateway Backend, an AIGatewayRoute whose backendRefs name
AIServiceBackends by name alone, an EnvoyPatchPolicy patching a Listener, an InferencePool v1 in the documented form.
"""

from __future__ import annotations

import json
from pathlib import Path

from policy_fixtures import manifest

from policies.registry import evaluate

ROOT = Path(__file__).resolve().parents[2]
_BACKEND = {
    "apiVersion": "aigateway.envoyproxy.io/v1alpha1",
    "kind": "AIServiceBackend",
    "metadata": {"name": "vllm-tinyllama-backend", "namespace": "price-runner"},
    "spec": {
        "schema": {"name": "OpenAI", "version": "v1"},
        "backendRef": {"name": "vllm-tinyllama", "kind": "Service", "group": ""},
    },
}
_ROUTE = {
    "apiVersion": "aigateway.envoyproxy.io/v1alpha1",
    "kind": "AIGatewayRoute",
    "metadata": {"name": "openai-model-router", "namespace": "price-runner"},
    "spec": {
        "parentRefs": [{"name": "bestai-gateway", "kind": "Gateway", "group": "gateway.networking.k8s.io"}],
        "rules": [
            {
                "matches": [{"headers": [{"type": "Exact", "name": "x-ai-eg-model", "value": "TinyLlama"}]}],
                "backendRefs": [
                    {
                        "name": "vllm-tinyllama-backend",
                        "kind": "AIServiceBackend",
                        "group": "aigateway.envoyproxy.io",
                        "weight": 100,
                    }
                ],
            }
        ],
    },
}
_PATCH = {
    "apiVersion": "gateway.envoyproxy.io/v1alpha1",
    "kind": "EnvoyPatchPolicy",
    "metadata": {"name": "openai-model-router-lua", "namespace": "envoy-gateway-system"},
    "spec": {
        "targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "eg"},
        "type": "JSONPatch",
        "jsonPatches": [
            {
                "type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                "name": "envoy-gateway-system/eg/http",
                "operation": {"op": "add", "path": "/http_filters/0", "value": {"name": "envoy.filters.http.lua"}},
            }
        ],
    },
}


def _s26(obj: dict) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([manifest(obj)], None) if v.policy == "crd-validation-rules"]


def test_service_backend_ref_is_refused_and_a_backend_ref_is_not():
    found = _s26(_BACKEND)
    assert any(e == "mandatory" and "BackendRef must be a Backend resource" in m for e, m in found), found
    good = json.loads(json.dumps(_BACKEND))
    good["spec"]["backendRef"] = {"name": "vllm-tinyllama", "kind": "Backend", "group": "gateway.envoyproxy.io"}
    assert _s26(good) == []


def test_route_backend_ref_group_is_refused_and_a_name_alone_is_not():
    found = _s26(_ROUTE)
    assert [e for e, _ in found] == ["mandatory"] and "only InferencePool" in found[0][1], found
    good = json.loads(json.dumps(_ROUTE))
    good["spec"]["rules"][0]["backendRefs"] = [{"name": "vllm-tinyllama-backend", "weight": 100}]
    assert _s26(good) == []


def test_patch_type_outside_the_enum_is_refused_and_a_listener_is_not():
    found = _s26(_PATCH)
    assert [e for e, _ in found] == ["mandatory"] and "jsonPatches[0].type" in found[0][1], found
    good = json.loads(json.dumps(_PATCH))
    good["spec"]["jsonPatches"][0]["type"] = "type.googleapis.com/envoy.config.listener.v3.Listener"
    assert _s26(good) == []


def test_inference_pool_v1_documented_form_is_silent():
    pool = {
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {"name": "vllm-llama3-8b-instruct"},
        "spec": {
            "targetPorts": [{"number": 8000}],
            "selector": {"matchLabels": {"app": "vllm-llama3-8b-instruct"}},
            "endpointPickerRef": {"name": "vllm-llama3-8b-instruct-epp", "port": {"number": 9002}},
        },
    }
    assert _s26(pool) == []


def test_every_pinned_source_names_repo_tag_commit_path_and_sha256():
    data = json.loads((ROOT / "tools" / "crd_sources.json").read_text(encoding="utf-8"))
    kinds = {row["file"] for row in data["crds"]}
    assert "aigateway.envoyproxy.io/AIServiceBackend.yaml" in kinds and "gateway.envoyproxy.io/EnvoyPatchPolicy.yaml" in kinds
    for row in data["crds"]:
        assert row["repo"] and row["tag"] and len(row["commit"]) == 40 and row["path"] and len(row["sha256"]) == 64, row
    committed = {
        c["file"] for c in json.loads((ROOT / "policies" / "crd" / "cel_rules.json").read_text(encoding="utf-8"))["crds"]
    }
    assert {"aigateway.envoyproxy.io/AIServiceBackend.yaml", "aigateway.envoyproxy.io/AIGatewayRoute.yaml"} <= committed
