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
    assert found_by([ALLOW], POLICY) == [
        ("advisory", MESSAGE + " (no route of these files shows requests under it to a workload it governs)")
    ]


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


# Review 43 item 5 (/tmp/review43/g65a): an ALLOW policy governs only the workloads it selects, in its own namespace
# (istio/api 1.29.0 security/v1beta1/authorization_policy.proto: selector "the workloads on which this authorization
# policy is applied"; outside the root namespace a policy applies in its namespace only), and /static-llm is not under
# /static/.
DOCS = {
    "apiVersion": "security.istio.io/v1",
    "kind": "AuthorizationPolicy",
    "metadata": {"name": "docs-allow", "namespace": "docs"},
    "spec": {
        "selector": {"matchLabels": {"app": "docs-site"}},
        "action": "ALLOW",
        "rules": [{"to": [{"operation": {"methods": ["GET"], "paths": ["/static/", "/index.html"]}}]}],
    },
}


def _ingress(namespace: str, path: str, service: str) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web", "namespace": namespace},
        "spec": {
            "ingressClassName": "nginx",
            "rules": [
                {
                    "http": {
                        "paths": [
                            {
                                "path": path,
                                "pathType": "Prefix",
                                "backend": {"service": {"name": service, "port": {"number": 80}}},
                            }
                        ]
                    }
                }
            ],
        },
    }


def _service(namespace: str, name: str, app: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"app": app}, "ports": [{"port": 80}]},
    }


def test_a_route_to_another_workload_or_a_sibling_path_is_advice():
    # The reviewer's form: another namespace, another workload, a sibling path.
    [(level, message)] = found_by([DOCS, _ingress("llm", "/static-llm", "vllm")], POLICY)
    assert level == "advisory" and message.endswith("(no route of these files shows requests under it to a workload it governs)")
    # The right path, but another namespace's workload, or the same namespace's other workload.
    for stack in (
        [DOCS, _ingress("llm", "/static/", "vllm"), _service("llm", "vllm", "vllm")],
        [DOCS, _ingress("docs", "/static/", "api"), _service("docs", "api", "api")],
        [DOCS, _ingress("docs", "/static/", "site")],  # the backend's Service is not in the files
    ):
        [(level, _)] = found_by(stack, POLICY)
        assert level == "advisory"
    # A sibling path on the governed workload itself.
    [(level, _)] = found_by([DOCS, _ingress("docs", "/static-assets", "site"), _service("docs", "site", "docs-site")], POLICY)
    assert level == "advisory"


def test_a_route_to_the_governed_workload_blocks():
    stack = [DOCS, _ingress("docs", "/static/css", "site"), _service("docs", "site", "docs-site")]
    [(level, message)] = found_by(stack, POLICY)
    assert level == "mandatory" and message.endswith("(Ingress/web routes prefix /static/css there)")
    # A gateway-bound VirtualService whose Gateway the files show, with a policy on that gateway's pods in the root.
    gateway = {
        "apiVersion": "networking.istio.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "public", "namespace": "edge"},
        "spec": {"selector": {"istio": "edge-gateway"}, "servers": []},
    }
    policy = copy.deepcopy(ALLOW)
    policy["spec"]["selector"] = {"matchLabels": {"istio": "edge-gateway"}}
    route = copy.deepcopy(ROUTE)
    route["spec"]["gateways"] = ["edge/public"]
    [(level, _)] = found_by([policy, route, gateway], POLICY)
    assert level == "mandatory"
    # The same policy in another (non-root) namespace than the backend governs nothing the route reaches.
    elsewhere = copy.deepcopy(ALLOW)
    elsewhere["metadata"]["namespace"] = "team-a"
    [(level, _)] = found_by([elsewhere, ROUTE], POLICY)
    assert level == "advisory"
