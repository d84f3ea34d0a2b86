"""S9 on NGINX Inc.'s controller (nginxinc/kubernetes-ingress): nginx.org/proxy-read-timeout, 60 s when unset.

Facts (policies/reading/edge.py): nginxinc/kubernetes-ingress v4.0.1 internal/configs/annotations.go:203-209 reads
nginx.org/proxy-read-timeout; internal/configs/config_params.go:211 ProxyReadTimeout "60s"; internal/k8s/controller.go:77
the IngressClass controller name nginx.org/ingress-controller. Both it and ingress-nginx may use the class "nginx":
the annotations (or the IngressClass of the set) tell them apart.

Fire: set 38 yurilchuk/ollama-kubernetes ollama-kube.yaml (IngressClass ollama-ingressclass with controller
nginx.org/ingress-controller, Ingress ollama-ingress to ollama-service, no timeout annotation; label S9 on
Ingress/ollama-ingress); the class-"nginx" form of the controller's own examples (nginxinc/kubernetes-ingress v4.0.1
examples/ingress-resources/basic-auth/cafe-ingress.yaml: ingressClassName nginx with nginx.org/ keys only), in front
of a model and without a read timeout. Silent: a public F5 lab
form in front of Ollama with nginx.org/proxy-read-timeout "120s" (found with find_string), and "3600".
"""

from __future__ import annotations

from test_policy_edge_forms import found, ingress, service

from policies.reading import edge

S9 = "llm-route-timeout-not-default"

OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"containerPort": 11434}]}]},
        },
    },
}
OLLAMA_SERVICE = service("ollama-service", {"app": "ollama"}, 80)
CLASS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "IngressClass",
    "metadata": {"name": "ollama-ingressclass"},
    "spec": {"controller": "nginx.org/ingress-controller"},
}
UNSET = (
    "nginx.org/proxy-read-timeout 60s (unset: NGINX Ingress Controller's default unless its ConfigMap changes it) in "
    "front of an LLM (ollama-service) cuts a request that sends no byte for 60s (a long prefill, a non-streamed reply)"
)


def test_an_ingress_class_of_nginx_incs_controller_leaves_its_60_second_read_timeout():
    bare = ingress("ollama-ingress", "ollama-service", 80, class_name="ollama-ingressclass")
    assert found([bare, CLASS, OLLAMA, OLLAMA_SERVICE], S9) == [("advisory", UNSET)]


def test_nginx_org_annotations_on_class_nginx_are_nginx_incs():
    inc = ingress(
        "ollama-ingress", "ollama-service", 80, class_name="nginx", annotations={"nginx.org/client-max-body-size": "4m"}
    )
    assert found([inc, OLLAMA, OLLAMA_SERVICE], S9) == [("advisory", UNSET)]
    # ingress-nginx's own key on the same class still reads as ingress-nginx.
    community = ingress(
        "ollama-ingress",
        "ollama-service",
        80,
        class_name="nginx",
        annotations={"nginx.ingress.kubernetes.io/proxy-read-timeout": "300"},
    )
    assert found([community, OLLAMA, OLLAMA_SERVICE], S9) == []
    assert edge.is_nginx_ingress(_res(community)) and not edge.is_nginx_ingress(_res(inc))


def test_a_long_nginx_org_read_timeout_is_silent():
    for value in ("120s", "3600", "5m"):
        careful = ingress(
            "ollama-http-ic",
            "ollama-service",
            80,
            class_name="nginx-ingress",
            annotations={"nginx.org/proxy-connect-timeout": "120s", "nginx.org/proxy-read-timeout": value},
        )
        assert found([careful, OLLAMA, OLLAMA_SERVICE], S9) == [], value
    # An ingress-nginx annotation is not read for NGINX Inc.'s controller.
    wrong_key = ingress(
        "ollama-ingress",
        "ollama-service",
        80,
        class_name="ollama-ingressclass",
        annotations={"nginx.ingress.kubernetes.io/proxy-read-timeout": "300"},
    )
    assert found([wrong_key, CLASS, OLLAMA, OLLAMA_SERVICE], S9) == [("advisory", UNSET)]


def test_nginx_time_syntax():
    assert [edge.nginx_time_seconds(v) for v in ("60s", "300", "1m30s", "500ms", "1h", "sixty")] == [
        60.0,
        300.0,
        90.0,
        0.5,
        3600.0,
        None,
    ]


def _res(obj: dict):
    from policy_fixtures import manifest

    return manifest(obj)


def test_an_explicit_nginx_org_read_timeout_below_the_longest_request_is_advice():
    # timeout-chain-ordered reads NGINX Inc.'s key as it reads ingress-nginx's (test_policy_edge_forms.py
    # test_an_explicit_gke_or_nginx_timeout_below_the_longest_request_blocks): between two reads, so advice.
    from test_policy_edge_forms import VLLM_DRAINING

    inc = ingress("llm", "vllm", 8000, class_name="nginx", annotations={"nginx.org/proxy-read-timeout": "5m"})
    plain = service("vllm", {"app": "vllm"}, 8000)
    ((level, message),) = found([VLLM_DRAINING, plain, inc], "timeout-chain-ordered")
    assert level == "advisory" and "(nginx.org/proxy-read-timeout=300) cuts them at 300s" in message
    inc["metadata"]["annotations"]["nginx.org/proxy-read-timeout"] = "15m"
    assert found([VLLM_DRAINING, plain, inc], "timeout-chain-ordered") == []
