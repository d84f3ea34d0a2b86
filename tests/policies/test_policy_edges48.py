"""Edges of session 48 cycle 2 (brief edges48), each a generic third-party form that fires and a careful form that
stays silent.

- G4 serving-readiness-probe: a serving-path app whose readinessProbe GETs a path it answers as soon as its process runs
  (components/serving_apps.toml ``alive_only``: LiteLLM's /health/liveliness and /health/liveness return a constant
  text, while /health/readiness checks the database and answers 503 on failure: BerriAI/litellm
  litellm/proxy/health_endpoints/_health_endpoints.py@1376cc50f5a5ad69c2491ec926115a30283fa9d2, health_liveliness and
  health_readiness). Spent set 63 held the form: a LiteLLM Deployment with readiness on /health/liveliness.
- G85 ingress-class-named: an Ingress with ingress-nginx or ALB annotations and no class (kubernetes/ingress-nginx
  controller-v1.15.1 internal/ingress/controller/store/store.go:1066-1089 GetIngressClass; pkg/flags/flags.go:77
  --watch-ingress-without-class default false). Fires on the form of AccessibleAI/cnvrg-operator
  pkg/logging/tmpl/kibana/ingress.tpl@f645027552279e2b21ffc192d1fb354e7dd2922b (nginx proxy timeouts, no class);
  careful: geistlabs/Geist-Helm templates/ingress/inference-ingress.tpl (ingressClassName set), a default IngressClass
  of the run, the controller started with --watch-ingress-without-class.
- G62 ingress-controller-admitted, widened to a model server's callers: a default deny over the namespace, allow
  policies selecting other pods and none the vLLM pods, a ConfigMap giving VLLM_BASE_URL http://vllm:8000/v1 (the form
  of spent set 62); a caller pod whose labels no ingress rule admits; a caller isolated for Egress with no rule to the
  server. Careful: an allow policy admitting the callers on the target port, a namespaceSelector on labels the files
  cannot check, a Cilium policy in the files.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, network_policy


def _deployment(name: str, pod: dict, namespace: str = "llm", labels: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }


# --- G4: readiness on a liveness path ---------------------------------------------------------------------------------


def _probe(path: str) -> dict:
    return {"httpGet": {"path": path, "port": 4000}, "periodSeconds": 10}


LITELLM = _deployment(
    "litellm",
    {
        "containers": [
            {
                "name": "litellm",
                "image": "ghcr.io/berriai/litellm-database:main-v1.74.0-stable",
                "args": ["--config", "/app/config.yaml", "--port", "4000"],
                "ports": [{"containerPort": 4000}],
                "readinessProbe": _probe("/health/liveliness"),
                "livenessProbe": _probe("/health/liveliness"),
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
                # Spent set 63 firoala18/llm-inference-lab k8s/litellm.yaml@5427668d: a database configured.
                "env": [{"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": "litellm-db", "key": "url"}}}],
            }
        ]
    },
)


def test_readiness_on_a_liveness_path_of_a_proxy_gets_advice():
    found = found_by([LITELLM], "serving-readiness-probe")
    assert found == [
        (
            "advisory",
            "container litellm: readinessProbe GETs /health/liveliness, a liveness endpoint that LiteLLM proxy answers "
            "without checking the database it is configured with, so the pod stays Ready and receives requests while "
            "that database is unreachable; probe GET /health/readiness",
        )
    ]
    kube_name = copy.deepcopy(LITELLM)
    kube_name["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = _probe("/health/liveness")
    assert len(found_by([kube_name], "serving-readiness-probe")) == 1


def _without_env(deployment: dict) -> dict:
    bare = copy.deepcopy(deployment)
    del bare["spec"]["template"]["spec"]["containers"][0]["env"]
    return bare


def test_readiness_on_a_liveness_path_of_a_proxy_without_a_database_says_only_what_is_true():
    """Review 49 item 5 (/tmp/r49/g4.yaml): with no database, LiteLLM's /health/readiness answers 200 with db 'Not
    connected' and no other check (litellm 1.77.7 proxy/health_endpoints/_health_endpoints.py:772-787; 1.110.2
    :2309-2351), as /health/liveliness does; the config is loaded before the server answers any path. So the advice
    claims no early traffic, only that the probe checks nothing and stops meaning readiness once a database is added
    (spent sets 71 yduman/ai-platform-poc and 74 nammireddy/litellm-multi-model-gateway, labelled G4)."""
    found = found_by([_without_env(LITELLM)], "serving-readiness-probe")
    assert [level for level, _ in found] == ["advisory"]
    assert "with no database configured /health/readiness answers alike for now" in found[0][1]
    assert "while that database is unreachable" not in found[0][1]
    # A database from general_settings.database_url of the mounted config, or from an envFrom Secret of the files.
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "llm"},
        "data": {
            "config.yaml": "model_list:\n- model_name: m\n  litellm_params: {model: hosted_vllm/m, api_base: http://vllm:8000/v1}\n"
            "general_settings:\n  database_url: os.environ/PG_URL\n"
        },
    }
    mounted = _without_env(LITELLM)
    pod = mounted["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "config", "configMap": {"name": "litellm-config"}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "config", "mountPath": "/app/config.yaml", "subPath": "config.yaml"}]
    assert len(found_by([mounted, config], "serving-readiness-probe")) == 1
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "litellm-env", "namespace": "llm"},
        "stringData": {"DATABASE_URL": "postgresql://u:p@db:5432/litellm"},
    }
    from_secret = _without_env(LITELLM)
    from_secret["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"secretRef": {"name": "litellm-env"}}]
    assert len(found_by([from_secret, secret], "serving-readiness-probe")) == 1
    # A Secret outside the files: its keys are unknown, nothing proves a database (the no-database wording).
    assert ["answers alike for now" in m for _, m in found_by([from_secret], "serving-readiness-probe")] == [True]


def test_readiness_on_the_readiness_path_is_silent():
    careful = copy.deepcopy(LITELLM)
    careful["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = _probe("/health/readiness")
    assert found_by([careful], "serving-readiness-probe") == []
    tcp = copy.deepcopy(LITELLM)
    tcp["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = {"tcpSocket": {"port": 4000}}
    # Session 52 (brief expose52): a TCP check passes once the proxy listens, before its database answers (spent set
    # 93 lancerzhang/Open-LiteVertex k8s/litellm.yaml, labelled G4): advice, tests/policies/test_policy_expose52.py.
    assert ["tcpSocket check" in m for _, m in found_by([tcp], "serving-readiness-probe")] == [True]


# --- G85: an Ingress names its class ----------------------------------------------------------------------------------

G85 = "ingress-class-named"


def _ingress(annotations: dict, class_name: str | None = None) -> dict:
    spec: dict = {
        "rules": [
            {
                "host": "llm.example.com",
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "vllm", "port": {"number": 8000}}},
                        }
                    ]
                },
            }
        ]
    }
    if class_name is not None:
        spec["ingressClassName"] = class_name
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "vllm", "namespace": "llm", "annotations": annotations},
        "spec": spec,
    }


NGINX_TIMEOUTS = {
    "nginx.ingress.kubernetes.io/proxy-read-timeout": "600",
    "nginx.ingress.kubernetes.io/proxy-body-size": "5G",
}


def test_nginx_annotations_without_a_class_get_advice():
    found = found_by([_ingress(NGINX_TIMEOUTS)], G85)
    assert len(found) == 1 and found[0][0] == "advisory"
    assert found[0][1].startswith(
        "carries ingress-nginx annotations (nginx.ingress.kubernetes.io/proxy-read-timeout) but sets no "
        "spec.ingressClassName nor kubernetes.io/ingress.class annotation"
    )
    assert "--watch-ingress-without-class" in found[0][1]
    alb = _ingress({"alb.ingress.kubernetes.io/scheme": "internet-facing"})
    assert [m for _, m in found_by([alb], G85)][0].startswith("carries the AWS Load Balancer Controller annotations")


def _ingress_class(controller: str, default: bool) -> dict:
    annotations = {"ingressclass.kubernetes.io/is-default-class": "true"} if default else {}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IngressClass",
        "metadata": {"name": "nginx", "annotations": annotations},
        "spec": {"controller": controller},
    }


def test_a_named_class_a_default_class_or_the_watch_flag_is_silent():
    assert found_by([_ingress(NGINX_TIMEOUTS, "nginx")], G85) == []
    annotated = _ingress({**NGINX_TIMEOUTS, "kubernetes.io/ingress.class": "nginx"})
    assert found_by([annotated], G85) == []
    assert found_by([_ingress(NGINX_TIMEOUTS), _ingress_class("k8s.io/ingress-nginx", True)], G85) == []
    # a class of the controller that is not the default leaves the Ingress unserved
    assert len(found_by([_ingress(NGINX_TIMEOUTS), _ingress_class("k8s.io/ingress-nginx", False)], G85)) == 1
    controller = _deployment(
        "ingress-nginx-controller",
        {
            "containers": [
                {
                    "name": "controller",
                    "image": "registry.k8s.io/ingress-nginx/controller:v1.15.1",
                    "args": ["/nginx-ingress-controller", "--watch-ingress-without-class=true"],
                }
            ]
        },
        namespace="ingress-nginx",
    )
    assert found_by([_ingress(NGINX_TIMEOUTS), controller], G85) == []
    # no controller annotations (traefik takes classless Ingresses by default): not judged
    assert found_by([_ingress({"traefik.ingress.kubernetes.io/router.entrypoints": "web"})], G85) == []
    assert found_by([_ingress({})], G85) == []


# --- G62: a model server's callers ------------------------------------------------------------------------------------

G62 = "ingress-controller-admitted"


def _netpol(name: str, selector: dict, types: list, ingress: list | None = None, egress: list | None = None) -> dict:
    return network_policy(name, "llm", selector, types, ingress, egress)


DENY_ALL = _netpol("default-deny", {}, ["Ingress", "Egress"])
APP_INGRESS = _netpol(
    "application-ingress",
    {"matchExpressions": [{"key": "app", "operator": "In", "values": ["backend", "frontend"]}]},
    ["Ingress"],
    ingress=[{"from": [{"podSelector": {"matchLabels": {"app": "frontend"}}}], "ports": [{"port": 8080}]}],
)
VLLM = _deployment(
    "vllm",
    {
        "containers": [
            {
                "name": "vllm",
                "image": "vllm/vllm-openai:v0.11.0",
                "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--port", "8000"],
                "ports": [{"containerPort": 8000, "name": "http"}],
            }
        ]
    },
)
VLLM_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000, "targetPort": "http"}]},
}
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "app-config", "namespace": "llm"},
    "data": {"VLLM_BASE_URL": "http://vllm:8000/v1"},
}
BACKEND = _deployment(
    "backend",
    {"containers": [{"name": "api", "image": "acme/backend:1.2.0", "envFrom": [{"configMapRef": {"name": "app-config"}}]}]},
)


def _callers_found(objs: list[dict]) -> list[str]:
    return [m for _, m in found_by(objs, G62)]


def test_a_server_no_ingress_rule_admits_gets_advice():
    found = _callers_found([DENY_ALL, APP_INGRESS, VLLM, VLLM_SERVICE, CONFIG, BACKEND])
    assert len(found) == 1
    assert found[0].startswith(
        "isolates the pods of Deployment/vllm (a model server behind Service vllm) for Ingress, and no NetworkPolicy "
        "selecting them has an ingress rule: every connection through the Service is dropped, so its callers "
        "(Deployment/backend (VLLM_BASE_URL) call it) time out"
    )
    # the spent-set form: the caller is not in the files, the Service is
    assert len(_callers_found([DENY_ALL, APP_INGRESS, VLLM, VLLM_SERVICE, CONFIG])) == 1


VLLM_INGRESS = _netpol(
    "vllm-ingress",
    {"matchLabels": {"app": "vllm"}},
    ["Ingress"],
    ingress=[{"from": [{"podSelector": {"matchLabels": {"app": "gateway"}}}], "ports": [{"port": 8000}]}],
)


def test_a_caller_no_rule_admits_gets_advice():
    found = _callers_found([DENY_ALL, VLLM_INGRESS, VLLM, VLLM_SERVICE, CONFIG, BACKEND])
    assert len(found) == 1  # one finding a caller: its egress is judged once the server admits it
    assert found[0].startswith(
        "isolates the pods of Deployment/vllm (a model server behind Service vllm) for Ingress, and no ingress rule of "
        "the policies selecting them admits the pods of Deployment/backend on port 8000, while Deployment/backend calls "
        "it (VLLM_BASE_URL=http://vllm:8000)"
    )
    admits = copy.deepcopy(VLLM_INGRESS)
    admits["spec"]["ingress"][0]["from"].append({"podSelector": {"matchLabels": {"app": "backend"}}})
    assert _callers_found([DENY_ALL, admits, VLLM, VLLM_SERVICE, CONFIG, BACKEND]) == []
    # the caller's own egress rules are caller-egress-reaches-service's (session 49): advice, the URL is a ConfigMap's
    found_egress = found_by([DENY_ALL, admits, VLLM, VLLM_SERVICE, CONFIG, BACKEND], "caller-egress-reaches-service")
    assert len(found_egress) == 1 and found_egress[0][0] == "advisory"
    assert found_egress[0][1].startswith(
        "Deployment/backend calls Service vllm (VLLM_BASE_URL=http://vllm:8000), but its pods are isolated for Egress by NetworkPolicy "
        "default-deny and no egress rule of those policies reaches the pods of Deployment/vllm on port 8000"
    )


def test_callers_admitted_or_unknowable_are_silent():
    admits = copy.deepcopy(VLLM_INGRESS)
    admits["spec"]["ingress"][0]["from"].append({"podSelector": {"matchLabels": {"app": "backend"}}})
    egress = _netpol(
        "backend-egress",
        {"matchLabels": {"app": "backend"}},
        ["Egress"],
        egress=[{"to": [{"podSelector": {"matchLabels": {"app": "vllm"}}}], "ports": [{"port": "http"}]}],
    )
    objs = [DENY_ALL, admits, egress, VLLM, VLLM_SERVICE, CONFIG, BACKEND]
    assert _callers_found(objs) == []
    # a namespaceSelector on a label the files cannot check may hold the caller's namespace
    labelled = copy.deepcopy(VLLM_INGRESS)
    labelled["spec"]["ingress"][0]["from"] = [{"namespaceSelector": {"matchLabels": {"team": "llm"}}}]
    assert _callers_found([labelled, egress, VLLM, VLLM_SERVICE, CONFIG, BACKEND]) == []
    cilium = {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": "allow", "namespace": "llm"},
        "spec": {"endpointSelector": {}},
    }
    assert _callers_found([DENY_ALL, APP_INGRESS, VLLM, VLLM_SERVICE, CONFIG, BACKEND, cilium]) == []
    # no NetworkPolicy selects the server: nothing is isolated
    assert _callers_found([APP_INGRESS, VLLM, VLLM_SERVICE, CONFIG, BACKEND]) == []
