"""G62 ingress-controller-admitted: NetworkPolicies that isolate a namespace for Ingress and admit only its own pods,
while an Ingress or HTTPRoute sends traffic to a Service there (advice).

Minimal hand-written shapes of the cited third-party files (only the fields the rule reads)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "ingress-controller-admitted"


def _netpol(name: str, namespace: str, selector: dict | None, ingress: list | None, types: list | None = None) -> dict:
    spec: dict = {"podSelector": selector if selector is not None else {}}
    if types is not None:
        spec["policyTypes"] = types
    if ingress is not None:
        spec["ingress"] = ingress
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _from_pods(app: str, port: int) -> list:
    return [{"from": [{"podSelector": {"matchLabels": {"app": app}}}], "ports": [{"protocol": "TCP", "port": port}]}]


def _ingress(name: str, namespace: str, *services: tuple[str, int]) -> dict:
    paths = [
        {"path": f"/{i}", "pathType": "Prefix", "backend": {"service": {"name": s, "port": {"number": p}}}}
        for i, (s, p) in enumerate(services)
    ]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"ingressClassName": "nginx", "rules": [{"host": "ollama.ai.com", "http": {"paths": paths}}]},
    }


# Spent set 37: qais001-pr/Multi-Tenant-AI-Inference-And-Traffic-Hub at e3d9eb8acc6958e9f70d0c4c7ce71fcf667cdf16,
# k8s/networkpolicies/all-deny.yaml (default-deny-all, Ingress, every pod of ollamahub), allow-backend-to-ollama.yaml
# and allow-frontend-to-backend.yaml (podSelector peers only), k8s/ingress_cert/ingress.yaml (nginx, / and /api to
# web-app-service:80 and backend-service:8000). Labelled there blocking with no catalogue row.
QAIS = [
    _netpol("default-deny-all", "ollamahub", {}, None, ["Ingress"]),
    _netpol(
        "allow-backend-to-ollama",
        "ollamahub",
        {"matchLabels": {"app": "ollama"}},
        _from_pods("backend-deployment-label", 11434),
        ["Ingress"],
    ),
    _netpol(
        "allow-frontend-to-backend",
        "ollamahub",
        {"matchLabels": {"app": "backend-deployment-label"}},
        _from_pods("web-app-deployments", 8000),
        ["Ingress"],
    ),
    _ingress("ollama-ingress", "ollamahub", ("web-app-service", 80), ("backend-service", 8000)),
]

# urvil38/kubepaas-generator templates/Kubernetes/networkpolicy.tpl and ingress.tpl at
# bce3e4099132aaa01bdf3ce24d33bded3f94ddb6, rendered for a project "shop": deny-from-other-namespaces (podSelector with
# empty matchLabels, no policyTypes, one rule from podSelector {}) beside an nginx extensions/v1beta1 Ingress to
# shop-service:80 in the same namespace.
KUBEPAAS = [
    _netpol("deny-from-other-namespaces", "shop", {"matchLabels": None}, [{"from": [{"podSelector": {}}]}]),
    {
        "apiVersion": "extensions/v1beta1",
        "kind": "Ingress",
        "metadata": {"name": "shop-ingress", "namespace": "shop", "annotations": {"kubernetes.io/ingress.class": "nginx"}},
        "spec": {
            "rules": [
                {
                    "host": "shop.example.com",
                    "http": {"paths": [{"path": "/*", "backend": {"serviceName": "shop-service", "servicePort": 80}}]},
                }
            ],
            "backend": {"serviceName": "shop-service", "servicePort": 80},
        },
    },
]


def test_default_deny_with_pod_only_allows_drops_the_controller():
    [(level, message)] = found_by(QAIS, POLICY)
    assert level == "advisory"
    assert message == (
        "isolates every pod of namespace ollamahub for Ingress, and the ingress rules of allow-backend-to-ollama, "
        "allow-frontend-to-backend admit only pods of ollamahub (podSelector peers, no namespaceSelector or ipBlock), "
        "while Ingress ollama-ingress (Service web-app-service, backend-service) sends traffic to this namespace: the "
        "ingress controller runs in a namespace of its own (a cloud load balancer connects from outside the cluster), "
        "so its connections to the backend pods are dropped and requests time out; admit the controller's namespace "
        "(namespaceSelector kubernetes.io/metadata.name: <its namespace>) on the backends' ports (a controller on the "
        "host network or in this namespace may still get through)"
    )


def test_deny_from_other_namespaces_recipe_drops_the_controller():
    [(level, message)] = found_by(KUBEPAAS, POLICY)
    assert level == "advisory"
    assert message.startswith(
        "isolates every pod of namespace shop for Ingress, and the ingress rules of deny-from-other-namespaces admit "
        "only pods of shop (podSelector peers, no namespaceSelector or ipBlock), while Ingress shop-ingress (Service "
        "shop-service) sends traffic"
    )


def test_an_http_route_into_the_namespace_counts():
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "ollama", "namespace": "gateway"},
        "spec": {"rules": [{"backendRefs": [{"name": "backend-service", "namespace": "ollamahub", "port": 8000}]}]},
    }
    [(_, message)] = found_by([*QAIS[:3], route], POLICY)
    assert "while HTTPRoute ollama (Service backend-service) sends traffic" in message


def test_careful_forms_stay_silent():
    # Spent set 29: JSXSTEWART/rise-local-lead-maker kubernetes/namespace-config.yaml at 61b9a0f: default-deny-all
    # (Ingress and Egress) beside allow-ingress-from-gateway, which admits a namespaceSelector (name: ingress-nginx)
    # on 8000, and kubernetes/vllm-deployment.yaml's Ingress in llm-tenants. (Whether that label exists is
    # namespace-selector-label-exists' question.)
    jsx = [
        _netpol("default-deny-all", "llm-tenants", {}, None, ["Ingress", "Egress"]),
        _netpol(
            "allow-ingress-from-gateway",
            "llm-tenants",
            {"matchLabels": {"app": "llm-service"}},
            [{"from": [{"namespaceSelector": {"matchLabels": {"name": "ingress-nginx"}}}], "ports": [{"port": 8000}]}],
            ["Ingress"],
        ),
        _ingress("llm-ingress", "llm-tenants", ("llm-service", 8000)),
    ]
    assert found_by(jsx, POLICY) == []
    # No route into the namespace: nothing from outside is expected.
    assert found_by(QAIS[:3], POLICY) == []
    # An allow rule with an ipBlock (a pod-IP load balancer's subnets) or with no `from` (every source).
    widened = copy.deepcopy(QAIS)
    widened[2]["spec"]["ingress"].append({"from": [{"ipBlock": {"cidr": "10.0.0.0/16"}}]})
    assert found_by(widened, POLICY) == []
    open_rule = copy.deepcopy(QAIS)
    open_rule[1]["spec"]["ingress"] = [{"ports": [{"port": 11434}]}]
    assert found_by(open_rule, POLICY) == []
    # A default deny for Egress only does not isolate for Ingress.
    egress_only = copy.deepcopy(QAIS)
    egress_only[0]["spec"]["policyTypes"] = ["Egress"]
    assert found_by(egress_only, POLICY) == []
    # The controller runs in the namespace itself.
    controller = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ingress-nginx-controller", "namespace": "ollamahub"},
        "spec": {
            "selector": {"matchLabels": {"app": "ingress"}},
            "template": {
                "metadata": {"labels": {"app": "ingress"}},
                "spec": {"containers": [{"name": "controller", "image": "registry.k8s.io/ingress-nginx/controller:v1.12.1"}]},
            },
        },
    }
    assert found_by([*QAIS, controller], POLICY) == []
    # The Ingress routes to another namespace's Services.
    assert found_by([*QAIS[:3], _ingress("other", "web", ("web", 80))], POLICY) == []
