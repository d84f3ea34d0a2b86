"""G32 public-model-endpoint-guarded: a model published through any edge needs TLS and authentication.

Each form is a minimal hand-written shape of a real upstream file, cited where it is used (held-out sets 4 and 5 are
spent and used as development material). The controller facts the rule relies on are cited in
policies/reading/exposure.py.
"""

from __future__ import annotations

import copy

from policy_fixtures import RAISED, RAY_ROUTE, found_by

PUBLIC = "public-model-endpoint-guarded"
HTTP = {"name": "http", "protocol": "HTTP", "port": 80}


def found(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, PUBLIC)


def vllm(name: str = "vllm", *, args: list[str] | None = None, env: list[dict] | None = None) -> dict:
    container: dict = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.10.1",
        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        "args": ["--model", "/models/Llama-3.2-3B-Instruct", *(args or [])],
        "ports": [{"containerPort": 8000}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    if env:
        container["env"] = env
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def service(name: str, app: str, **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "vllm"},
        "spec": {"selector": {"app": app}, "ports": [{"port": 80, "targetPort": 8000}], **spec},
    }


def ingress(name: str, backend: str, *, annotations=None, class_name=None, tls=None) -> dict:
    spec: dict = {
        "rules": [
            {
                "host": "vllm.example.com",
                "http": {
                    "paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": backend, "port": {"number": 80}}}}
                    ]
                },
            }
        ]
    }
    if class_name:
        spec["ingressClassName"] = class_name
    if tls:
        spec["tls"] = tls
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "namespace": "vllm", "annotations": dict(annotations or {})},
        "spec": spec,
    }


# NASTP-ce/vllm-deployment k8s/ingress.yaml and k8s/deployment.yaml at e74ccbea6f50af5c4cbc419fe9315c75acc272b0
# (held-out set 5): an Ingress of class nginx (legacy annotation) to vllm-service:80, no tls, no auth annotation, in
# front of a vLLM Deployment in another file.
NASTP = ingress("vllm-ingress", "vllm-service", annotations={"kubernetes.io/ingress.class": "nginx"})


def test_an_nginx_ingress_to_a_model_without_tls_or_auth_is_advice():
    ((level, message),) = found([NASTP])
    assert level == "advisory"
    assert message == (
        "Ingress vllm/vllm-ingress (class nginx) (possibly public: class nginx: whether the controller's Service is "
        "public is not in these files) publishes Service vllm-service, which these files do not show (if it serves a "
        "model) with no TLS (prompts, answers and any key cross the network in clear text) and nothing in these files "
        "authenticates callers"
    )
    # With the model in the set it is still advice: the controller's Service decides whether nginx is public.
    ((level, message),) = found([NASTP, vllm(), service("vllm-service", "vllm")])
    assert level == "advisory" and "publishes a model (Service vllm-service)" in message


def test_an_unclassed_ingress_is_read_as_the_clusters_default_class():
    # Session 24 review R3: GKE's controller takes an Ingress with no class as an external load balancer
    # (kubernetes/ingress-gce v1.41.1 pkg/utils/utils.go:339-343); other clusters' default class decides.
    bare = ingress("vllm-ingress", "vllm-service")
    ((level, message),) = found([bare, vllm(), service("vllm-service", "vllm")])
    assert level == "advisory"
    assert "(no class) (possibly public: no class: the cluster's default IngressClass serves it (on GKE" in message


def test_careful_ingresses_are_silent():
    # kubernetes/ingress-nginx docs/examples/auth/oauth-external-auth/dashboard-ingress.yaml at
    # 22c2c61dc792c9e991c1b8c7e582c4774ad8a9e4: auth-url + auth-signin to the app, and an Ingress with tls to the
    # oauth2-proxy; here the app is a vLLM server and the app's Ingress has tls too.
    careful = ingress(
        "vllm-ingress",
        "vllm-service",
        class_name="nginx",
        tls=[{"hosts": ["vllm.example.com"], "secretName": "vllm-tls"}],
        annotations={
            "nginx.ingress.kubernetes.io/auth-url": "https://$host/oauth2/auth",
            "nginx.ingress.kubernetes.io/auth-signin": "https://$host/oauth2/start?rd=$request_uri",
        },
    )
    proxy = ingress("oauth2-proxy", "oauth2-proxy", class_name="nginx")
    model = [vllm(), service("vllm-service", "vllm")]
    assert found([careful, proxy, *model]) == []
    # An internal class, and an Ingress to a Grafana Deployment of the set (or to a backend named as a UI).
    assert found([ingress("vllm-ingress", "vllm-service", class_name="nginx-internal"), *model]) == []
    grafana = copy.deepcopy(vllm("grafana"))
    grafana["spec"]["template"]["spec"]["containers"] = [{"name": "grafana", "image": "grafana/grafana:11.2.0"}]
    assert found([ingress("grafana", "grafana", class_name="nginx"), grafana, service("grafana", "grafana")]) == []
    assert found([ingress("chat", "open-webui", class_name="nginx")]) == []


def test_the_model_servers_own_key_or_tls_alone_leave_advice_on_the_other_half():
    keyed = vllm(env=[{"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": "vllm", "key": "api-key"}}}])
    ((level, message),) = found([NASTP, keyed, service("vllm-service", "vllm")])
    assert level == "advisory" and message.endswith("with no TLS (prompts, answers and any key cross the network in clear text)")
    tls = copy.deepcopy(NASTP)
    tls["spec"]["tls"] = [{"secretName": "vllm-tls"}]
    ((level, message),) = found([tls, vllm(), service("vllm-service", "vllm")])
    assert level == "advisory" and message.endswith("with nothing in these files authenticates callers")
    both = copy.deepcopy(tls)
    assert found([both, vllm(args=["--api-key", "$(KEY)"]), service("vllm-service", "vllm")]) == []


# envoyproxy/ai-gateway examples/inference-pool/aigwroute.yaml at c217da8a539570ba3f6014a60c2687c29a945f1f (held-out
# set 4): a GatewayClass of Envoy Gateway's controller, a Gateway with one HTTP listener on port 80, and an
# AIGatewayRoute to two InferencePools (one rule matches an Authorization header, the others do not).
EG_CLASS = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "GatewayClass",
    "metadata": {"name": "inference-pool-with-aigwroute"},
    "spec": {"controllerName": "gateway.envoyproxy.io/gatewayclass-controller"},
}
EG_GATEWAY = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "Gateway",
    "metadata": {"name": "inference-pool-with-aigwroute", "namespace": "default"},
    "spec": {"gatewayClassName": "inference-pool-with-aigwroute", "listeners": [HTTP]},
}


def ai_rule(model: str, pool: str, key: str | None = None) -> dict:
    headers = [{"type": "Exact", "name": "x-ai-eg-model", "value": model}]
    if key:
        headers.append({"type": "Exact", "name": "Authorization", "value": key})
    return {
        "matches": [{"headers": headers}],
        "backendRefs": [{"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": pool}],
    }


AI_ROUTE = {
    "apiVersion": "aigateway.envoyproxy.io/v1beta1",
    "kind": "AIGatewayRoute",
    "metadata": {"name": "inference-pool-with-aigwroute", "namespace": "default"},
    "spec": {
        "parentRefs": [{"name": "inference-pool-with-aigwroute", "kind": "Gateway", "group": "gateway.networking.k8s.io"}],
        "rules": [
            ai_rule("meta-llama/Llama-3.1-8B-Instruct", "vllm-llama3-8b-instruct", "sk-test"),
            ai_rule("mistral:latest", "mistral"),
        ],
    },
}


def test_envoy_gateways_default_load_balancer_in_front_of_inference_pools_blocks():
    ((level, message),) = found([EG_CLASS, EG_GATEWAY, AI_ROUTE])
    assert level == "mandatory"
    assert message == (
        "AIGatewayRoute default/inference-pool-with-aigwroute on Gateway inference-pool-with-aigwroute (public: Envoy "
        "Gateway (GatewayClass inference-pool-with-aigwroute) exposes it through a Service of type LoadBalancer, its "
        "default with no EnvoyProxy) publishes a model (InferencePool vllm-llama3-8b-instruct, InferencePool mistral) "
        "with no TLS (prompts, answers and any key cross the network in clear text) and nothing in these files "
        "authenticates callers"
    )
    # Without the GatewayClass, the class name alone says nothing of the load balancer: advice.
    ((level, _),) = found([EG_GATEWAY, AI_ROUTE])
    assert level == "advisory"


def test_an_envoy_proxy_of_type_cluster_ip_keeps_the_gateway_internal():
    # envoyproxy/gateway v1.9.0 api/v1alpha1/envoyproxy_types.go: spec.provider.kubernetes.envoyService.type.
    proxy = {
        "apiVersion": "gateway.envoyproxy.io/v1alpha1",
        "kind": "EnvoyProxy",
        "metadata": {"name": "internal", "namespace": "default"},
        "spec": {"provider": {"type": "Kubernetes", "kubernetes": {"envoyService": {"type": "ClusterIP"}}}},
    }
    klass = copy.deepcopy(EG_CLASS)
    klass["spec"]["parametersRef"] = {
        "group": "gateway.envoyproxy.io",
        "kind": "EnvoyProxy",
        "name": "internal",
        "namespace": "default",
    }
    assert found([klass, EG_GATEWAY, AI_ROUTE, proxy]) == []
    ((level, message),) = found([klass, EG_GATEWAY, AI_ROUTE])  # the EnvoyProxy is in another file
    assert level == "advisory" and "EnvoyProxy internal, not in these files, sets its Service" in message


def test_an_https_gateway_with_an_envoy_gateway_security_policy_is_silent():
    # envoyproxy/gateway v1.9.0 (39763b1c07ec30a5526fe70434a2cfe4181de642) examples/kubernetes/tls-termination.yaml
    # (GatewayClass eg, a listener of protocol TLS with certificateRefs) and examples/kubernetes/jwt/jwt.yaml (a
    # SecurityPolicy with jwt on HTTPRoute foo); here foo routes to a vLLM Service.
    klass = {**EG_CLASS, "metadata": {"name": "eg"}}
    tls = {
        "name": "https",
        "port": 443,
        "protocol": "TLS",
        "tls": {"mode": "Terminate", "certificateRefs": [{"kind": "Secret", "name": "example-cert"}]},
    }
    gw = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "eg"},
        "spec": {"gatewayClassName": "eg", "listeners": [tls]},
    }
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "foo"},
        "spec": {
            "parentRefs": [{"name": "eg"}],
            "rules": [{"backendRefs": [{"kind": "Service", "name": "vllm-service", "port": 80}]}],
        },
    }
    jwt = {
        "apiVersion": "gateway.envoyproxy.io/v1alpha1",
        "kind": "SecurityPolicy",
        "metadata": {"name": "jwt-example"},
        "spec": {
            "targetRef": {"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "foo"},
            "jwt": {"providers": [{"name": "example", "remoteJWKS": {"uri": "https://example.com/jwks.json"}}]},
        },
    }
    model = [vllm(), service("vllm-service", "vllm")]
    assert found([klass, gw, route, jwt, *model]) == []
    # The same with a plain HTTP listener: the token crosses in clear text (advice: a guard is there).
    plain = copy.deepcopy(gw)
    plain["spec"]["listeners"] = [HTTP]
    ((level, message),) = found([klass, plain, route, jwt, *model])
    assert level == "advisory" and "no TLS" in message and "authenticates" not in message
    # And without the SecurityPolicy: public, a model, neither guard.
    ((level, _),) = found([klass, plain, route, *model])
    assert level == "mandatory"


# GoogleCloudPlatform/ai-on-gke applications/ray/rayservice-examples/ingress/httproute.yaml at
# 13552122339d612475d88050459f68ea81bee237 (held-out set 4): an HTTPRoute on Gateway external-http (not in the file)
# to rayllm-head-svc:8000 (policy_fixtures.RAY_ROUTE).


def test_a_route_on_a_gateway_named_external_in_another_file_is_advice():
    ((level, message),) = found([RAY_ROUTE])
    assert level == "advisory"
    assert message.startswith(
        "HTTPRoute <default>/serve-api-endpoint on Gateway external-http (possibly public: its Gateway external-http is "
        "not in these files (its name says it is external)) publishes Service rayllm-head-svc"
    )
    # kubernetes-sigs/gateway-api-inference-extension config/manifests/gateway/httproute.yaml (corpus 1): a route on
    # Gateway inference-gateway, whose name says nothing of its reach, in another file: not read.
    quiet = copy.deepcopy(RAY_ROUTE)
    quiet["spec"]["parentRefs"] = [{"kind": "Gateway", "name": "inference-gateway"}]
    assert found([quiet]) == []


def test_a_gke_external_gateway_in_front_of_a_model_in_the_set_blocks():
    # GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-ray/rayserve/ingress/gateway.yaml at
    # 2b5036514162a489145c5e5570bc320efbcb37bf: external-http, class gke-l7-global-external-managed, one HTTP listener.
    gw = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "external-http"},
        "spec": {"gatewayClassName": "gke-l7-global-external-managed", "listeners": [HTTP]},
    }
    route = copy.deepcopy(RAY_ROUTE)
    route["spec"]["rules"] = [{"backendRefs": [{"name": "vllm-service", "port": 80}]}]
    model = [vllm(), service("vllm-service", "vllm")]
    ((level, message),) = found([gw, route, *model])
    assert level == "mandatory" and "(public: class gke-l7-global-external-managed is an external GKE" in message
    # IAP on the model's Service (GCPBackendPolicy spec.default.iap) is a guard: the clear text stays advice.
    iap = {
        "apiVersion": "networking.gke.io/v1",
        "kind": "GCPBackendPolicy",
        "metadata": {"name": "vllm-iap"},
        "spec": {"targetRef": {"kind": "Service", "name": "vllm-service"}, "default": {"iap": {"enabled": True}}},
    }
    ((level, _),) = found([gw, route, iap, *model])
    assert level == "advisory"


def test_istio_forms():
    # Istio's built-in class istio gets a LoadBalancer Service (istio 1.30.3 classinfo.go:111); the service-type
    # annotation changes it (gatewaycommon/deploymentcontroller.go:398-401). kaito-project/kaito examples/gateway-api-inference-extension/
    # {gateway,httproute}.yaml (corpus manifests-v2): class istio, one HTTP listener, a route to an InferencePool.
    gw = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "inference-gateway"},
        "spec": {"gatewayClassName": "istio", "listeners": [HTTP]},
    }
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "llm-route"},
        "spec": {
            "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "inference-gateway"}],
            "rules": [
                {
                    "backendRefs": [
                        {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "phi-4-mini-inferencepool"}
                    ]
                }
            ],
        },
    }
    ((level, _),) = found([gw, route])
    assert level == "mandatory"
    cluster_ip = copy.deepcopy(gw)
    cluster_ip["metadata"]["annotations"] = {"networking.istio.io/service-type": "ClusterIP"}
    assert found([cluster_ip, route]) == []
    authn = {
        "apiVersion": "security.istio.io/v1",
        "kind": "RequestAuthentication",
        "metadata": {"name": "jwt", "namespace": "istio-system"},
        "spec": {"jwtRules": [{"issuer": "https://accounts.example.com"}]},
    }
    ((level, message),) = found([gw, route, authn])
    assert level == "advisory" and "authenticates" not in message
    # An Istio Gateway (networking.istio.io) with an HTTPS server and a VirtualService to the model: TLS, but no
    # authentication in the files; its ingress gateway's Service is elsewhere, so advice.
    istio_gw = {
        "apiVersion": "networking.istio.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "llm-gateway", "namespace": "vllm"},
        "spec": {
            "selector": {"istio": "ingressgateway"},
            "servers": [
                {
                    "port": {"number": 443, "name": "https", "protocol": "HTTPS"},
                    "tls": {"mode": "SIMPLE", "credentialName": "llm"},
                    "hosts": ["*"],
                }
            ],
        },
    }
    vs = {
        "apiVersion": "networking.istio.io/v1",
        "kind": "VirtualService",
        "metadata": {"name": "llm", "namespace": "vllm"},
        "spec": {"hosts": ["*"], "gateways": ["llm-gateway"], "http": [{"route": [{"destination": {"host": "vllm-service"}}]}]},
    }
    ((level, message),) = found([istio_gw, vs, vllm(), service("vllm-service", "vllm")])
    assert level == "advisory" and message.endswith("with nothing in these files authenticates callers")
    # This stack's own path: an ALB Ingress (judged by internet-facing-alb-guarded) in front of the ingress gateway
    # (its Service istio-ingressgateway, named after the selector by Istio's chart) is the edge; the gateway is not.
    alb = ingress("llm", "istio-ingressgateway", class_name="alb")
    assert found([alb, istio_gw, vs, vllm(), service("vllm-service", "vllm")]) == []


def test_openshift_routes():
    # redhat-na-ssa/demo-ai-tgis resources/base/route.yaml at 9dab4fa0f1f4c40561003c46767f6b687812136c: a Route to
    # Service tgis with edge TLS (redirecting plain HTTP) and nothing else; here the Service fronts a vLLM server.
    route = {
        "apiVersion": "route.openshift.io/v1",
        "kind": "Route",
        "metadata": {"name": "tgis", "namespace": "vllm", "labels": {"app": "tgis"}},
        "spec": {
            "tls": {"insecureEdgeTerminationPolicy": "Redirect", "termination": "edge"},
            "to": {"kind": "Service", "name": "vllm-service", "weight": 100},
            "wildcardPolicy": "None",
        },
    }
    model = [vllm(), service("vllm-service", "vllm")]
    ((level, message),) = found([route, *model])
    assert level == "advisory" and message.endswith("with nothing in these files authenticates callers")
    assert found([route, vllm(args=["--api-key", "$(KEY)"]), service("vllm-service", "vllm")]) == []
    plain = copy.deepcopy(route)
    del plain["spec"]["tls"]
    ((level, message),) = found([plain, *model])
    assert level == "advisory" and "no TLS" in message


LB = "no-load-balancer-service"
# G32 is advisory by default (docs/policies.md "Enforcement levels"); raised, a proven public endpoint blocks and the
# unproven forms (NodePort, internal, narrow source ranges, no model behind it) stay advice.


def test_a_kuberay_head_service_made_public_by_service_type():
    # ray-project/kuberay v1.7.0 (59d663aeec13760646da3db9c1cf8cfe883e30b7)
    # ray-operator/config/samples/ray-cluster.separate-ingress.yaml: headGroupSpec.serviceType NodePort (advice);
    # LoadBalancer makes the head Service a cloud load balancer (common/service.go:69), which blocks unless
    # headServiceAnnotations ask for an internal one.
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "raycluster-ingress"},
        "spec": {
            "headGroupSpec": {
                "serviceType": "NodePort",
                "rayStartParams": {},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}},
            }
        },
    }
    ((level, message),) = found_by([cluster], LB, RAISED)
    assert level == "advisory" and message.startswith("headGroupSpec.serviceType: NodePort makes KubeRay's head Service")
    cluster["spec"]["headGroupSpec"]["serviceType"] = "LoadBalancer"
    assert [level for level, _ in found_by([cluster], LB, RAISED)] == ["mandatory"]
    service = {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "llm"},
        "spec": {"rayClusterConfig": cluster["spec"]},
    }
    assert [level for level, _ in found_by([service], LB, RAISED)] == ["mandatory"]
    cluster["spec"]["headServiceAnnotations"] = {"networking.gke.io/load-balancer-type": "Internal"}
    assert [level for level, _ in found_by([cluster], LB, RAISED)] == ["advisory"]
    cluster["spec"]["headGroupSpec"]["serviceType"] = "ClusterIP"
    assert found_by([cluster], LB, RAISED) == []


def test_a_load_balancer_in_front_of_no_model_is_advice():
    # A LoadBalancer Service the set shows in front of a Grafana Deployment, or named as a UI, exposes no model: the
    # house rule stays as advice. In front of the vLLM server of the set it blocks, as before.
    grafana = copy.deepcopy(vllm("grafana"))
    grafana["spec"]["template"]["spec"]["containers"] = [{"name": "grafana", "image": "grafana/grafana:11.2.0"}]
    ((level, message),) = found_by([grafana, service("grafana", "grafana", type="LoadBalancer")], LB, RAISED)
    assert level == "advisory" and message.endswith("(it selects no model server: Deployment grafana)")
    assert [level for level, _ in found_by([service("open-webui", "open-webui", type="LoadBalancer")], LB, RAISED)] == [
        "advisory"
    ]
    assert [level for level, _ in found_by([vllm(), service("vllm-service", "vllm", type="LoadBalancer")], LB, RAISED)] == [
        "mandatory"
    ]
    assert [level for level, _ in found_by([service("vllm-service", "vllm", type="LoadBalancer")], LB, RAISED)] == ["mandatory"]


def test_a_service_of_the_set_whose_pods_are_in_another_file_is_unknown_not_a_non_model():
    # NASTP-ce/vllm-deployment keeps its Deployment in another file; with the Service beside the Ingress, what the
    # Service selects is still not in these files, so the Ingress stays reported (advice).
    ((level, message),) = found([NASTP, service("vllm-service", "vllm")])
    assert level == "advisory" and "publishes Service vllm-service, which these files do not show" in message


def test_an_nginx_source_allow_list_is_a_guard_only_when_narrow():
    # ingress-nginx's whitelist-source-range (https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/
    # annotations/#whitelist-source-range), judged as the ALB rule judges inbound-cidrs: an office range guards,
    # 0.0.0.0/0 does not.
    model = [vllm(), service("vllm-service", "vllm")]
    for ranges, guarded in (("10.0.0.0/16, 192.168.0.0/24", True), ("0.0.0.0/0", False)):
        form = copy.deepcopy(NASTP)
        form["spec"]["tls"] = [{"secretName": "vllm-tls"}]
        form["metadata"]["annotations"]["nginx.ingress.kubernetes.io/whitelist-source-range"] = ranges
        assert (found([form, *model]) == []) is guarded, ranges


# Review 32 (session 25) probes, /work/review/s25/{g32b,g32,lb}.yaml shapes: an edge the files show careful is not
# "public with neither guard".
def _istio_route_to_vllm(gw_spec: dict, *extra: dict) -> list[dict]:
    gw = {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway", "metadata": {"name": "llm-gw", "namespace": "vllm"}}
    gw["spec"] = {"gatewayClassName": "istio", "listeners": [HTTP], **gw_spec}
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "llm", "namespace": "vllm"},
        "spec": {"parentRefs": [{"name": "llm-gw"}], "rules": [{"backendRefs": [{"name": "vllm-service", "port": 80}]}]},
    }
    return [gw, route, service("vllm-service", "vllm"), *extra]


def _options(service_yaml: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "llm-gw-options", "namespace": "vllm"},
        "data": {"service": service_yaml},
    }


def test_istio_parameters_ref_configmap_sets_the_service():
    # R1: Istio merges the parametersRef ConfigMap's `service` key over the Service it generates (istio 1.30.3
    # pilot/pkg/config/kube/gatewaycommon/deploymentcontroller.go:765-766, :625). ClusterIP there: internal, silent.
    ref = {"infrastructure": {"parametersRef": {"group": "", "kind": "ConfigMap", "name": "llm-gw-options"}}}
    assert found(_istio_route_to_vllm(ref, vllm(), _options("spec:\n  type: ClusterIP\n"))) == []
    # The ConfigMap in another file: its Service is unknown, advice.
    ((level, message),) = found(_istio_route_to_vllm(ref, vllm()))
    assert level == "advisory" and "ConfigMap llm-gw-options, not in these files" in message
    # An overlay that keeps the LoadBalancer (only adds a label) and no parametersRef at all still block.
    ((level, _),) = found(_istio_route_to_vllm(ref, vllm(), _options("metadata:\n  labels:\n    team: ml\n")))
    assert level == "mandatory"
    ((level, _),) = found(_istio_route_to_vllm({}, vllm()))
    assert level == "mandatory"


NLB_TLS = {
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing",
    "service.beta.kubernetes.io/aws-load-balancer-ssl-cert": "arn:aws:acm:us-east-1:123456789012:certificate/abc",
    "service.beta.kubernetes.io/aws-load-balancer-ssl-ports": "80",
}


def test_tls_at_the_nlb_and_an_env_from_secret_key():
    # R6 (a): the AWS Load Balancer Controller terminates TLS on the ssl-ports of a Service with ssl-cert (its
    # service annotations guide, ssl-ports "Defaults to '*'"); Gateway spec.infrastructure.annotations reach that
    # Service. TLS is then there, the missing auth stays advice.
    ((level, message),) = found(_istio_route_to_vllm({"infrastructure": {"annotations": NLB_TLS}}, vllm()))
    assert level == "advisory" and "no TLS" not in message
    # ssl-ports naming another port than the listener's: still clear text, blocking.
    other = {**NLB_TLS, "service.beta.kubernetes.io/aws-load-balancer-ssl-ports": "443"}
    ((level, message),) = found(_istio_route_to_vllm({"infrastructure": {"annotations": other}}, vllm()))
    assert level == "mandatory" and "no TLS" in message
    # R6 (b): an envFrom Secret may set VLLM_API_KEY (the reason S37 accepts envFrom Secrets): the key is unknown.
    keyed_maybe = vllm()
    keyed_maybe["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"secretRef": {"name": "vllm-env"}}]
    ((level, message),) = found(_istio_route_to_vllm({}, keyed_maybe))
    assert level == "advisory" and "unless the envFrom Secret" in message
    # An envFrom ConfigMap is not a key.
    config_only = vllm()
    config_only["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "vllm-env"}}]
    ((level, _),) = found(_istio_route_to_vllm({}, config_only))
    assert level == "mandatory"


def test_load_balancer_source_ranges_guard():
    # R18: EnvoyProxy envoyService.loadBalancerSourceRanges (envoyproxy/gateway v1.9.0 api/v1alpha1/
    # shared_types.go:358-364) narrower than the ALB rule's bound is a guard like an nginx allow-list: advice.
    def setup(ranges: list[str]) -> list[dict]:
        proxy = {
            "apiVersion": "gateway.envoyproxy.io/v1alpha1",
            "kind": "EnvoyProxy",
            "metadata": {"name": "ep", "namespace": "vllm"},
            "spec": {"provider": {"type": "Kubernetes", "kubernetes": {"envoyService": {"loadBalancerSourceRanges": ranges}}}},
        }
        klass = {
            "apiVersion": "gateway.networking.k8s.io/v1",
            "kind": "GatewayClass",
            "metadata": {"name": "eg"},
            "spec": {
                "controllerName": "gateway.envoyproxy.io/gatewayclass-controller",
                "parametersRef": {"group": "gateway.envoyproxy.io", "kind": "EnvoyProxy", "name": "ep", "namespace": "vllm"},
            },
        }
        objs = _istio_route_to_vllm({}, vllm(), proxy, klass)
        objs[0]["spec"]["gatewayClassName"] = "eg"
        return objs

    ((level, message),) = found(setup(["203.0.113.0/24"]))
    assert level == "advisory" and "authenticates" not in message
    ((level, _),) = found(setup(["0.0.0.0/0"]))
    assert level == "mandatory"
    # The same on a LoadBalancer Service in front of the model (no-load-balancer-service): advice when narrow.
    lb = service("vllm-service", "vllm", type="LoadBalancer", loadBalancerSourceRanges=["10.0.0.0/8"])
    ((level, message),) = found_by([lb, vllm()], LB, RAISED)
    assert level == "advisory" and "10.0.0.0/8" in message
    wide = service("vllm-service", "vllm", type="LoadBalancer", loadBalancerSourceRanges=["0.0.0.0/0"])
    ((level, _),) = found_by([wide, vllm()], LB, RAISED)
    assert level == "mandatory"
