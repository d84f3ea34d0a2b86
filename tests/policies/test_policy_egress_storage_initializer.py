"""G33 egress-allows-model-download, KServe's storage initializer: the model pods of an LLMInferenceService or an
InferenceService isolated for Egress when the storage initializer (their init container) downloads the model from
outside the cluster.

Fixture that fires: set 42, johnahull/llmd-gke pattern1/manifests/networkpolicy-allow-vllm-egress.yaml and
pattern1/manifests/llmisvc-pattern1-tpu.yaml @b8103397425f661af250bc9079f5f8c7c82c5ff4: the policy selects the
LLMInferenceService's workload pods (app.kubernetes.io/name, kserve.io/component: workload, the labels KServe gives
them) for Egress and allows 443 only to namespaceSelector {} (pods of the cluster, never an outside address), while
the storage initializer downloads hf://Qwen/Qwen2.5-3B-Instruct (kserve v0.20.0
python/storage/kserve_storage/kserve_storage.py:154-240, :614-666).
Same class, an InferenceService: its predictor pods (serving.kserve.io/inferenceservice) under a deny-all egress
policy, a gs:// storageUri.
Silent: the careful form (443 to an ipBlock 0.0.0.0/0 except the private ranges), a pvc:// model (mounted, nothing
downloaded), a policy that selects other pods. Advice: an s3:// model (the endpoint may be an in-cluster MinIO).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_NS = "llm-d-inference-scheduling"
_POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-vllm-egress", "namespace": _NS},
    "spec": {
        "podSelector": {"matchLabels": {"app.kubernetes.io/name": "qwen2-3b-pattern1", "kserve.io/component": "workload"}},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [
                    {
                        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
                    }
                ],
                "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
            },
            {"to": [{"namespaceSelector": {}}], "ports": [{"protocol": "TCP", "port": 443}]},
            {
                "to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"component": "apiserver"}}}],
                "ports": [{"protocol": "TCP", "port": 443}],
            },
        ],
    },
}
_LLMISVC = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen2-3b-pattern1", "namespace": _NS},
    "spec": {
        "model": {"uri": "hf://Qwen/Qwen2.5-3B-Instruct", "name": "Qwen/Qwen2.5-3B-Instruct"},
        "replicas": 1,
        "router": {"route": {}, "gateway": {}, "scheduler": {}},
        "template": {
            "containers": [
                {
                    "name": "main",
                    "image": "registry.redhat.io/rhaiis/vllm-tpu-rhel9:3.2.5",
                    "resources": {"limits": {"google.com/tpu": "4"}, "requests": {"google.com/tpu": "4"}},
                }
            ]
        },
    },
}
_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llama", "namespace": "models"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "huggingface"},
                "storageUri": "gs://my-bucket/llama-3-8b",
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }
        }
    },
}
_DENY_EGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "predictor-egress", "namespace": "models"},
    "spec": {
        "podSelector": {"matchLabels": {"serving.kserve.io/inferenceservice": "llama"}},
        "policyTypes": ["Egress"],
        "egress": [{"to": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 443}]}],
    },
}


def _g33(*objs: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message)
        for v in evaluate([manifest(o) for o in objs], None)
        if v.policy == "egress-allows-model-download"
    ]


def test_llmisvc_hub_download_behind_in_cluster_https_blocks():
    found = _g33(_POLICY, _LLMISVC)
    assert [e for e, _ in found] == ["mandatory"], found
    assert "hf://Qwen/Qwen2.5-3B-Instruct" in found[0][1] and "storage initializer" in found[0][1]
    assert "namespaceSelector: {}" in found[0][1]


def test_isvc_gcs_download_behind_deny_egress_blocks():
    found = _g33(_DENY_EGRESS, _ISVC)
    assert [e for e, _ in found] == ["mandatory"], found
    assert "Google Cloud Storage" in found[0][1]


def test_careful_form_with_an_outside_ip_block_is_silent():
    policy = copy.deepcopy(_POLICY)
    policy["spec"]["egress"][1] = {
        "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]}}],
        "ports": [{"protocol": "TCP", "port": 443}],
    }
    assert _g33(policy, _LLMISVC) == []


def test_mounted_model_and_other_pods_are_silent():
    mounted = copy.deepcopy(_LLMISVC)
    mounted["spec"]["model"]["uri"] = "pvc://models/qwen"
    assert _g33(_POLICY, mounted) == []
    other = copy.deepcopy(_POLICY)
    other["spec"]["podSelector"] = {"matchLabels": {"app": "something-else"}}
    assert _g33(other, _LLMISVC) == []


def test_s3_download_is_advice():
    s3 = copy.deepcopy(_ISVC)
    s3["spec"]["predictor"]["model"]["storageUri"] = "s3://models/llama"
    assert [e for e, _ in _g33(_DENY_EGRESS, s3)] == ["advisory"]
    local = copy.deepcopy(_ISVC)
    local["spec"]["predictor"]["model"]["storageUri"] = "https://minio.models.svc/llama"
    assert _g33(_DENY_EGRESS, local) == []


def _with_uri(uri: str) -> dict:
    isvc = copy.deepcopy(_ISVC)
    isvc["spec"]["predictor"]["model"]["storageUri"] = uri
    return isvc


def test_an_https_host_behind_a_private_ip_block_is_advice():
    """Review 44 #4: a user's own https:// model store (an artifact server behind a proxy or VPN) often resolves to a
    private address, and an egress rule on 443 to 10.20.0.0/16 is the sign it does: advice, not a block. The same
    host behind pods-only egress still blocks."""
    private = copy.deepcopy(_DENY_EGRESS)
    private["spec"]["egress"] = [{"to": [{"ipBlock": {"cidr": "10.20.0.0/16"}}], "ports": [{"protocol": "TCP", "port": 443}]}]
    uri = "https://models.internal-example.com/qwen.tar.gz"
    assert [e for e, _ in _g33(private, _with_uri(uri))] == ["advisory"]
    assert [e for e, _ in _g33(_DENY_EGRESS, _with_uri(uri))] == ["mandatory"]


def test_an_in_cluster_short_name_or_another_port_is_not_judged_on_443():
    """Review 44 #5: http://minio-service.kubeflow:9000 is a Service in namespace kubeflow (the pod's DNS search list
    resolves <service>.<namespace>): silent. An outside host on plain http or another port than 443 is advice, since
    the egress rules are read for HTTPS only."""
    minio = copy.deepcopy(_DENY_EGRESS)
    minio["spec"]["egress"] = [
        {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kubeflow"}}}], "ports": [{"port": 9000}]}
    ]
    assert _g33(minio, _with_uri("http://minio-service.kubeflow:9000/models/llama")) == []
    assert [e for e, _ in _g33(_DENY_EGRESS, _with_uri("http://models.example.com/llama.tar.gz"))] == ["advisory"]
    assert [e for e, _ in _g33(_DENY_EGRESS, _with_uri("https://models.example.com:8443/llama"))] == ["advisory"]


def test_a_storage_initializer_override_with_a_proxy_is_advice():
    """Review 44 #10: KServe merges an init container named storage-initializer of the object's own pod spec into the
    one it generates (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/workload_storage.go:398, :432-445), so a proxy
    variable there may carry the download through a proxy the policy allows: advice. The proxy on the main container
    only is no help (the controller does not copy it): still a block."""
    proxied = copy.deepcopy(_LLMISVC)
    proxy = [{"name": "HTTPS_PROXY", "value": "http://squid.proxy.svc.cluster.local:3128"}]
    proxied["spec"]["template"]["initContainers"] = [{"name": "storage-initializer", "env": proxy}]
    found = _g33(_POLICY, proxied)
    assert [e for e, _ in found] == ["advisory"] and "storage-initializer override" in found[0][1]
    main_only = copy.deepcopy(_LLMISVC)
    main_only["spec"]["template"]["containers"][0]["env"] = proxy
    assert [e for e, _ in _g33(_POLICY, main_only)] == ["mandatory"]


# johnahull/llm-d-xks-gke@7630140c1047f7b6e4b4f18353d96e44d10125f3 deployments/istio-kserve/pattern1-baseline/manifests/
# networkpolicies/default-deny.yaml (spent set 110, G33 blocking on both policies): every pod of the namespace isolated
# for Ingress and Egress, beside allow-vllm-egress (the 443 rule to namespaceSelector {} only).
_DENY_ALL = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "default-deny-all", "namespace": _NS},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
}


def test_the_policy_holding_the_in_cluster_https_rule_is_told_too():
    found = {
        v.resource: v.enforcement
        for v in evaluate([manifest(o) for o in (_DENY_ALL, _POLICY, _LLMISVC)], None)
        if v.policy == "egress-allows-model-download"
    }
    assert found == {
        "NetworkPolicy/default-deny-all": "mandatory",
        f"NetworkPolicy/{_POLICY['metadata']['name']}": "mandatory",
    }, found


def test_a_deny_all_beside_an_outside_rule_stays_silent():
    careful = copy.deepcopy(_POLICY)
    careful["spec"]["egress"].append(
        {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}], "ports": [{"protocol": "TCP", "port": 443}]}
    )
    assert _g33(_DENY_ALL, careful, _LLMISVC) == []
