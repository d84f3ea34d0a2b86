"""G33: a NetworkPolicy of a serving namespace whose podSelector matches no pod of the run there.

Fire: set 41 rajyadav9/mlops k8s/network-policies/01-vllm.yaml@37bc3e207996b8d9aaff232b75369e8c827516db
(NetworkPolicy vllm-allow selects app=vllm; the vLLM Deployment's pods carry app.kubernetes.io/name=vllm; label G33
blocking, with the repository's k8s/network-policies/00-default-deny.yaml default-deny-all in namespace vllm, which the
set does not hold): advice alone, mandatory with that default-deny. Silent: spent set 37
qais001-pr/Multi-Tenant-AI-Inference-And-Traffic-Hub allow-frontend-to-backend.yaml@e3d9eb8 (a selector for the
backend, whose Deployment the set leaves out), the fixed selector, {} and a namespace the files may not show whole.
Minimal hand-written forms below.
"""

import copy

from policy_fixtures import manifest

from policies.ingress.network_policy_selects_pods import POLICY
from policies.registry import evaluate

VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "vllm"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "vllm", "app.kubernetes.io/component": "inference"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.5",
                        "args": ["--model", "facebook/opt-125m", "--port", "8000"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def _policy(name, selector, ingress=True, types=("Ingress", "Egress")):
    spec = {"podSelector": selector, "policyTypes": list(types)}
    if ingress:
        spec["ingress"] = [{"ports": [{"port": 8000, "protocol": "TCP"}], "from": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": "vllm"},
        "spec": spec,
    }


ALLOW = _policy("vllm-allow", {"matchLabels": {"app": "vllm"}})
DENY = _policy("default-deny-all", {}, ingress=False)


def _found(*objs):
    return [
        (v.enforcement, v.resource.split("#")[-1], v.message)
        for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])
    ]


def test_a_selector_on_a_label_the_server_does_not_carry_is_advice():
    ((level, name, message),) = _found(ALLOW, VLLM)
    assert (level, name) == ("advisory", "NetworkPolicy/vllm-allow")
    assert message.startswith(
        "spec.podSelector app=vllm matches no pod of namespace vllm in the files, where the model server Deployment vllm "
        "runs with pod labels app.kubernetes.io/component=inference, app.kubernetes.io/name=vllm"
    )


def test_with_a_default_deny_and_nothing_admitting_the_server_it_blocks():
    ((level, name, message),) = _found(ALLOW, DENY, VLLM)
    assert (level, name) == ("mandatory", "NetworkPolicy/vllm-allow")
    assert "NetworkPolicy default-deny-all isolates every pod of vllm for Ingress" in message
    # Another policy that selects the server and admits something: advice again.
    other = _policy("vllm-from-gateway", {"matchLabels": {"app.kubernetes.io/name": "vllm"}})
    assert [lv for lv, _, _ in _found(ALLOW, DENY, other, VLLM)] == ["advisory"]
    # A default-deny for Egress only does not cut the server's ingress.
    egress_only = _policy("default-deny-egress", {}, ingress=False, types=("Egress",))
    assert [lv for lv, _, _ in _found(ALLOW, egress_only, VLLM)] == ["advisory"]


def test_careful_forms_stay_silent():
    fixed = _policy("vllm-allow", {"matchLabels": {"app.kubernetes.io/name": "vllm"}})
    assert _found(fixed, DENY, VLLM) == []
    assert _found(_policy("all", {}), VLLM) == []
    # A selector for another app of the namespace whose pods the files leave out (set 37's backend).
    backend = _policy("allow-frontend-to-backend", {"matchLabels": {"app": "backend-deployment-label"}})
    assert _found(backend, DENY, VLLM) == []
    # No model server in the namespace.
    web = copy.deepcopy(VLLM)
    web["spec"]["template"]["spec"]["containers"][0].update(image="nginx:1.27", args=[], resources={})
    assert _found(ALLOW, DENY, web) == []
    # The namespace holds an operator's resource that may make pods the files do not show.
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "vllm", "namespace": "vllm"},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}}},
    }
    assert _found(ALLOW, DENY, VLLM, isvc) == []


def test_a_match_expressions_selector_is_read_as_its_labels():
    # app In [vllm] is app=vllm (LabelSelectorAsSelector; tools/form_variants.py match-expressions): the same finding.
    expressions = _policy("vllm-allow", {"matchExpressions": [{"key": "app", "operator": "In", "values": ["vllm"]}]})
    ((level, name, message),) = _found(expressions, VLLM)
    assert (level, name) == ("advisory", "NetworkPolicy/vllm-allow")
    assert "matches no pod of namespace vllm in the files" in message


# Session 51: spent set 88 amey2025/ollama@26c52f4c7eacd4bbae78893b28b649128a08eea0 network_policy_ollama_web.yaml
# selects app: openwebui while openwebui_deployment.yaml labels the Open WebUI pods app: open-webui (namespace ollama,
# where the Ollama server runs). Labelled G33 on the NetworkPolicy.
def _webui(label):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "open-webui", "namespace": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app": label}},
            "template": {
                "metadata": {"labels": {"app": label}},
                "spec": {"containers": [{"name": "open-webui", "image": "ghcr.io/open-webui/open-webui:0.6.36"}]},
            },
        },
    }


def test_a_selector_spelling_another_pods_label_value_otherwise_is_advice():
    policy = _policy("openwebui-network-policy", {"matchLabels": {"app": "openwebui"}})
    ((level, name, message),) = _found(policy, _webui("open-webui"), VLLM)
    assert (level, name) == ("advisory", "NetworkPolicy/openwebui-network-policy")
    assert "while Deployment open-webui there runs pods labelled app=open-webui, the same value spelt otherwise" in message


def test_a_selector_matching_the_pods_or_naming_an_unrelated_value_is_silent():
    policy = _policy("openwebui-network-policy", {"matchLabels": {"app": "openwebui"}})
    assert _found(policy, _webui("openwebui"), VLLM) == []
    other = _policy("frontend", {"matchLabels": {"app": "frontend"}})
    assert _found(other, _webui("open-webui"), VLLM) == []
    # No model server in the namespace: not judged.
    assert _found(policy, _webui("open-webui")) == []
