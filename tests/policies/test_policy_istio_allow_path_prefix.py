"""G65 istio-allow-path-prefix: an Istio ALLOW AuthorizationPolicy path ending in '/' with no '*' is an exact match
(istio/api 1.29.0 security/v1beta1/authorization_policy.proto:383-388), so requests under it are denied."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "istio-allow-path-prefix"

# prokube/vllm-serving helm-example/admin/istio-ingressgateway-allow-vllm-serving-authpolicy.yaml at
# 38112a4f540578934d85a32e3971372a38ec08f8 (spent set 39; labelled blocking with no catalogue row).
ALLOW = {
    "apiVersion": "security.istio.io/v1beta1",
    "kind": "AuthorizationPolicy",
    "metadata": {"name": "allow-vllm-serving-unauthenticated", "namespace": "istio-system"},
    "spec": {
        "selector": {"matchLabels": {"app": "istio-ingressgateway"}},
        "action": "ALLOW",
        "rules": [{"to": [{"operation": {"paths": ["/vllm-serving/"]}}]}],
    },
}
# A VirtualService on the gateway sending the prefix to the model (the route the policy exists for).
ROUTE = {
    "apiVersion": "networking.istio.io/v1beta1",
    "kind": "VirtualService",
    "metadata": {"name": "vllm-serving", "namespace": "vllm-serving"},
    "spec": {
        "gateways": ["kubeflow/kubeflow-gateway"],
        "hosts": ["*"],
        "http": [{"match": [{"uri": {"prefix": "/vllm-serving/"}}], "route": [{"destination": {"host": "vllm"}}]}],
    },
}
MESSAGE = (
    "spec.rules[0].to[0].operation.paths[0] '/vllm-serving/' is an exact match in Istio (only a leading or trailing "
    "'*' makes a suffix or prefix match), so this ALLOW policy lets through the request for /vllm-serving/ alone, not "
    "/vllm-serving/v1/...; a workload with an ALLOW policy denies every request none matches (403 RBAC: access "
    "denied); write '/vllm-serving/*'"
)


def test_a_folder_path_with_a_route_under_it_is_blocking():
    assert found_by([ALLOW, ROUTE], POLICY) == [
        ("mandatory", MESSAGE + " (VirtualService/vllm-serving routes prefix /vllm-serving/ there)")
    ]


def test_a_folder_path_alone_is_advice():
    assert found_by([ALLOW], POLICY) == [("advisory", MESSAGE + " (no route of these files shows requests under it)")]


def test_careful_forms_stay_silent():
    # The prefix written with '*', as Kubeflow's allow-predictor policy writes /v1/models/* (awslabs/kubeflow-manifests
    # issue 82 form), and exact paths with no trailing '/' (/metrics, /healthz).
    star = copy.deepcopy(ALLOW)
    star["spec"]["rules"][0]["to"][0]["operation"]["paths"] = ["/metrics", "/healthz", "/v1/models/*", "/v2/models/*"]
    assert found_by([star, ROUTE], POLICY) == []
    # A DENY policy's path is another matter; another ALLOW rule with no paths (or a covering prefix) lets them through.
    deny = copy.deepcopy(ALLOW)
    deny["spec"]["action"] = "DENY"
    assert found_by([deny, ROUTE], POLICY) == []
    both = copy.deepcopy(ALLOW)
    both["spec"]["rules"].append({"to": [{"operation": {"paths": ["/vllm-serving/*"]}}]})
    assert found_by([both, ROUTE], POLICY) == []
    open_rule = copy.deepcopy(ALLOW)
    open_rule["spec"]["rules"].append({"from": [{"source": {"namespaces": ["kubeflow"]}}]})
    assert found_by([open_rule, ROUTE], POLICY) == []
    # The bare root '/' (an exact match someone may mean) and a path template stay silent.
    root = copy.deepcopy(ALLOW)
    root["spec"]["rules"][0]["to"][0]["operation"]["paths"] = ["/", "/api/{*}/"]
    assert found_by([root, ROUTE], POLICY) == []
