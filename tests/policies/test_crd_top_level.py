"""S26 crd-validation-rules: custom resources whose fields sit at the wrong level (policies/crd/top_level.py).

Fixture that fires: set 33, ctava-msft/apim-mcp-aks-kaito k8s/kaito-workspace.yaml
@3fbdb54c0766ec9ad53e9f3750091bbbcbe0b6ef: a KAITO Workspace with resource and inference under a spec the Workspace
CRD does not have (kaito-project/kaito v0.12.0 api/v1alpha1/workspace_types.go:201-203); pruned, it has neither
inference nor tuning, which KAITO's webhook refuses (api/v1alpha1/workspace_validation.go:105-107).
Careful third-party form that stays silent: kaito-project/kaito examples/inference/kaito_workspace_phi_3_mini_128k.yaml
@v0.12.0 (0894eb2b), resource and inference at the top level. Second form of the class on a pinned CRD: an
InferenceService whose predictor sits beside spec.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_WRONG = {
    "apiVersion": "kaito.sh/v1alpha1",
    "kind": "Workspace",
    "metadata": {"name": "phi-3-mini-workspace", "namespace": "default"},
    "spec": {
        "inference": {"preset": {"name": "phi-3-mini-4k-instruct"}},
        "resource": {"count": 1, "instanceType": "Standard_NC6s_v3", "labelSelector": {"matchLabels": {"kaito": "true"}}},
    },
}
_CAREFUL = {
    "apiVersion": "kaito.sh/v1beta1",
    "kind": "Workspace",
    "metadata": {"name": "workspace-phi-3-mini"},
    "resource": {"instanceType": "Standard_NC24ads_A100_v4", "labelSelector": {"matchLabels": {"apps": "phi-3"}}},
    "inference": {"preset": {"name": "phi-3-mini-128k-instruct"}},
}


def _s26(obj: dict) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([manifest(obj)], None) if v.policy == "crd-validation-rules"]


def test_a_kaito_workspace_with_a_spec_is_advice():
    ((level, message),) = _s26(_WRONG)
    assert level == "advisory"
    assert message.startswith(
        "spec: Workspace (kaito.sh) has no spec (resource, inference written there): resource, inference, tuning are "
        "top-level fields (kaito-project/kaito v0.12.0 api/v1alpha1/workspace_types.go:201-203"
    )
    assert '"Either Inference or Tuning must be specified, not neither"' in message


def test_a_workspace_with_neither_inference_nor_tuning_is_advice():
    bare = {k: v for k, v in _CAREFUL.items() if k != "inference"}
    ((level, message),) = _s26(bare)
    assert level == "advisory"
    assert message.startswith("resource, inference, tuning: the Workspace has neither inference nor tuning")


def test_a_spec_field_beside_spec_on_a_pinned_crd_is_advice():
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "x", "namespace": "llm"},
        "predictor": {"model": {"modelFormat": {"name": "huggingface"}, "storageUri": "hf://org/m"}},
    }
    ((level, message),) = _s26(isvc)
    assert level == "advisory"
    assert message.startswith("predictor: written at the top of the object, but it is a field of spec")


def test_careful_forms_stay_silent():
    assert _s26(_CAREFUL) == []
    tuning = copy.deepcopy(_CAREFUL)
    tuning["tuning"] = tuning.pop("inference")
    assert _s26(tuning) == []
