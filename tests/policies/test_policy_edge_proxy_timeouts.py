"""S9 through a reverse proxy: an edge (OpenShift Route, Ingress) in front of an nginx proxy or an LLM gateway app that
stands in front of a model server, and the edge defaults as data (components/edge_timeouts.toml).

The form (brief edge47, a class fresh sets missed): an OpenShift Route with no haproxy.router.openshift.io/timeout in
front of an nginx proxy whose mounted nginx.conf allows 600 s (proxy_read_timeout) for streamed completions to a vLLM
Service. The router's HAProxy `timeout server` defaults to 30 s (openshift/router
4b401a86dccc657a8a5254c2794a312241f40e87 images/router/haproxy/conf/haproxy-config.template:167, :688-689); nginx's
proxy_read_timeout defaults to 60 s (nginx/nginx release-1.31.4 src/http/modules/ngx_http_proxy_module.c:3734-3735).
A hand-written shape: no third-party file of the corpora has it.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components import edge_timeouts
from policies.reading.nginx_conf import read_config

S9 = "llm-route-timeout-not-default"
OPENSHIFT = "haproxy.router.openshift.io/timeout"

NGINX_CONF = """
upstream vllm_upstream {
    server vllm.llm.svc.cluster.local:8000;   # the model's Service
}
server {
    listen 8080;
    location /v1/ {
        proxy_pass http://vllm_upstream;
        proxy_http_version 1.1;
        proxy_buffering off;            # stream tokens as they come
        proxy_read_timeout 600s;
        proxy_send_timeout 600s;
    }
}
"""


def _deployment(name: str, container: dict, volumes: list | None = None) -> dict:
    spec: dict = {"containers": [container]}
    if volumes:
        spec["volumes"] = volumes
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


def _service(name: str, port: int) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"selector": {"app": name}, "ports": [{"port": port, "targetPort": port}]},
    }


def _stack(conf: str = NGINX_CONF, annotations: dict | None = None) -> list[dict]:
    vllm = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["--model", "Qwen/Qwen2.5-7B-Instruct"],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    proxy = {
        "name": "nginx",
        "image": "nginxinc/nginx-unprivileged:1.27",
        "ports": [{"containerPort": 8080}],
        "volumeMounts": [{"name": "conf", "mountPath": "/etc/nginx/conf.d"}],
    }
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "llm-proxy-conf", "namespace": "llm"},
        "data": {"default.conf": conf},
    }
    route = {
        "apiVersion": "route.openshift.io/v1",
        "kind": "Route",
        "metadata": {"name": "llm-api", "namespace": "llm", "annotations": annotations or {}},
        "spec": {"to": {"kind": "Service", "name": "llm-proxy"}, "port": {"targetPort": 8080}, "tls": {"termination": "edge"}},
    }
    return [
        _deployment("vllm", vllm),
        _service("vllm", 8000),
        _deployment("llm-proxy", proxy, [{"name": "conf", "configMap": {"name": "llm-proxy-conf"}}]),
        _service("llm-proxy", 8080),
        config,
        route,
    ]


def _route_findings(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, S9) if m.startswith("Route llm-api")]


def test_a_route_left_at_30s_in_front_of_an_nginx_proxy_to_vllm_that_waits_600s():
    assert _route_findings(_stack()) == [
        (
            "advisory",
            "Route llm-api: router timeout 30s (unset: the OpenShift router's 30s, unless its IngressController moves it) "
            "in front of Service llm-proxy (nginx proxy llm-proxy to an LLM (vllm)) cuts a request that sends no byte for "
            "that long (a long prefill, a non-streamed reply) with 504, before the nginx proxy llm-proxy to an LLM (vllm) "
            "behind it, which waits 600s (proxy_read_timeout); set the annotation haproxy.router.openshift.io/timeout "
            "above the longest request",
        )
    ]


def test_a_route_set_above_the_minimum_but_below_the_proxys_wait_is_still_an_inversion():
    ((level, message),) = _route_findings(_stack(annotations={OPENSHIFT: "120s"}))
    assert level == "advisory" and "router timeout 120s in front of Service llm-proxy" in message
    assert "which waits 600s (proxy_read_timeout)" in message


def test_careful_routes_stay_silent():
    # The annotation at or above the proxy's 600 s; a proxy that sets no proxy_read_timeout (nginx's 60 s) in front
    # of a Service that is no model, behind a Route set to 10 minutes.
    assert _route_findings(_stack(annotations={OPENSHIFT: "10m"})) == []
    other = NGINX_CONF.replace("vllm.llm.svc.cluster.local", "grafana").replace("proxy_read_timeout 600s;", "")
    assert _route_findings(_stack(other, annotations={OPENSHIFT: "10m"})) == []
    # Without the annotation a proxy to a known non-model Service that sets no read timeout is not this rule's concern.
    assert _route_findings(_stack(other)) == []
    # review47b item 2: a plain web app's nginx that waits 300 s for its backend (uploads), behind a Route left at
    # the router's default: the proxy fronts no model (the run's vLLM is beside it), so this LLM rule stays silent.
    web = NGINX_CONF.replace("vllm.llm.svc.cluster.local", "wiki-backend").replace("600s", "300s")
    assert _route_findings(_stack(web)) == []


def test_an_ingress_nginx_edge_in_front_of_the_proxy_reads_the_same_inversion():
    objs = _stack()
    objs[-1] = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "llm-api",
            "namespace": "llm",
            "annotations": {"nginx.ingress.kubernetes.io/proxy-read-timeout": "300"},
        },
        "spec": {
            "ingressClassName": "nginx",
            "rules": [
                {
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "llm-proxy", "port": {"number": 8080}}},
                            }
                        ]
                    }
                }
            ],
        },
    }
    messages = [m for _, m in found_by(objs, S9) if "llm-proxy" in m]
    assert messages == [
        "nginx.ingress.kubernetes.io/proxy-read-timeout 300s in front of Service llm-proxy (nginx proxy llm-proxy to an "
        "LLM (vllm)) cuts a request that sends no byte for 300s (a long prefill, a non-streamed reply), before the nginx "
        "proxy llm-proxy to an LLM (vllm) behind it, which waits 600s (proxy_read_timeout)"
    ]
    careful = copy.deepcopy(objs)
    careful[-1]["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"] = "600"
    assert [m for _, m in found_by(careful, S9) if "llm-proxy" in m] == []


def test_the_nginx_reader():
    assert read_config(NGINX_CONF) == (("vllm",), (600.0,))
    # A target holding a variable, an address and an outside host name no Service; comments are not read.
    assert read_config("location / { proxy_pass http://$backend; }  # proxy_read_timeout 5s;") == ((), ())
    assert read_config("location / { proxy_pass http://10.0.0.7:8000; proxy_read_timeout 1m30s; }") == ((), (90.0,))


def test_upstream_blocks_are_read_to_their_own_brace_and_an_unclosed_one_ends_the_reading():
    closed = "upstream llm { server vllm.models.svc:8000; } location / { proxy_pass http://llm; }"
    assert read_config(closed) == (("vllm",), ())
    # review47b item 1: every unclosed head used to rescan the rest of the text (79 s for 20,000 of them); now the
    # first unclosed head ends the block reading, and what came before it still counts.
    unclosed = closed + " upstream other {" * 20_000 + " location /x { proxy_read_timeout 600s; }"
    assert read_config(unclosed) == (("vllm",), (600.0,))


def test_edge_defaults_are_data_with_their_sources():
    rows = edge_timeouts.EDGES
    assert rows["openshift-router"].seconds == 30 and "haproxy-config.template:167" in rows["openshift-router"].source
    assert rows["ingress-nginx"].seconds == 60 and "controller-v1.15.1" in rows["ingress-nginx"].source
    assert rows["nginx"].seconds == 60 and "ngx_http_proxy_module.c:3734-3735" in rows["nginx"].source
    assert rows["gke-backend"].seconds == 30 and rows["gke-backend"].counts == "response"
    # Traefik bounds no response by default (ForwardingTimeouts.SetDefaults sets no responseHeaderTimeout; its
    # entry points' readTimeout of 60 s reads the request only); Istio disables Envoy's 15 s route timeout.
    assert rows["traefik"].seconds == 0 and rows["istio-virtualservice"].seconds == 0
    assert rows["envoy-route"].seconds == 15 and rows["alb"].seconds == 60


@pytest.mark.parametrize(
    "row, problem",
    [
        ('display = "x"\nsetting = "x"\nseconds = 30\ncounts = "idle"\n', "missing fields"),
        ('display = "x"\nsetting = "x"\nseconds = -1\ncounts = "idle"\nsource = "s"\n', "seconds"),
        ('display = "x"\nsetting = "x"\nseconds = 0\ncounts = "idle"\nsource = "s"\n', "counts"),
    ],
)
def test_a_bad_row_fails_the_load_naming_it(tmp_path, row, problem):
    path = tmp_path / "edge_timeouts.toml"
    path.write_text("[edges.bad]\n" + row)
    with pytest.raises(ValueError, match=r"\[edges.bad\]: .*" + problem):
        edge_timeouts.load(path)


# Session 49: an nginx proxy in front of the nginx proxy above (spent set 62 Pritiks23/Kubernetes-Request-Serving-2
# k8s/api-gateway.yaml: a gateway nginx with no proxy_read_timeout, nginx's 60 s, in front of the router nginx's 300 s in
# front of vLLM, whose Service the files leave out). Labelled S9 on ConfigMap/gateway-config.
GATEWAY_CONF = """
upstream router_backend {
  server llm-proxy:8080;
}
server {
  listen 80;
  location /v1 {
    proxy_pass http://router_backend;
  }
}
"""


def _gateway(conf: str = GATEWAY_CONF) -> list[dict]:
    container = {"name": "gateway", "image": "nginx:alpine", "volumeMounts": [{"name": "c", "mountPath": "/etc/nginx/conf.d"}]}
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gateway-config", "namespace": "llm"}}
    config["data"] = {"default.conf": conf}
    return [_deployment("api-gateway", container, [{"name": "c", "configMap": {"name": "gateway-config"}}]), config]


def _chained(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, S9) if "nginx waits" in m]


def test_an_nginx_in_front_of_an_nginx_proxy_that_waits_longer_is_advised_on_its_config_map():
    ((level, message),) = _chained(_stack()[:-1] + _gateway())
    assert level == "advisory"
    assert message.startswith(
        "Deployment api-gateway container gateway: nginx waits 60s for its backend (proxy_read_timeout unset: nginx's "
        "default) in front of Service llm-proxy (nginx proxy llm-proxy to an LLM (vllm)), which waits 600s"
    )
    # The model's Service left out of the files (as in the spent file): the proxy to "vllm-service" still counts.
    stack = [
        o
        for o in _stack(NGINX_CONF.replace("vllm.llm.svc.cluster.local", "vllm-service"))[:-1]
        if o["metadata"]["name"] != "vllm" or o["kind"] != "Service"
    ]
    assert len(_chained(stack + _gateway())) == 1


def test_an_nginx_in_front_that_waits_as_long_stays_silent():
    assert _chained(_stack()[:-1] + _gateway(GATEWAY_CONF.replace("proxy_pass", "proxy_read_timeout 10m; proxy_pass"))) == []
    # The proxy behind sets nothing (nginx's 60 s on both), or sends to no model.
    assert _chained(_stack(NGINX_CONF.replace("proxy_read_timeout 600s;", ""))[:-1] + _gateway()) == []
    web = NGINX_CONF.replace("vllm.llm.svc.cluster.local", "wiki-backend")
    assert _chained(_stack(web)[:-1] + _gateway()) == []
