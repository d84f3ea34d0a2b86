"""The edge in front of model servers, as third parties write it (brief edge50), each a form that fires and a careful
form that stays silent.

- G40 ingress-class-annotation-deprecated: an Ingress that picks its controller by the `kubernetes.io/ingress.class`
  annotation and sets no spec.ingressClassName; k8s.io/api v0.34.9 networking/v1/types.go:279-288 documents the
  annotation as deprecated for the field. Spent set 78: Brayantcw/kserve_k8s_setup
  k8s/ingress.yaml@169e089e632e12290be333e6f6c2aacd88593c7c (three ALB Ingresses) and Kindee18/opti-inference-pipeline
  k8s/ingress.yaml@1883c46d61d3ecc6031e717fbefa8c048b638d39.
- G93 alb-https-listener-certificate: listen-ports HTTPS with no certificate source and no host to discover one by
  (kubernetes-sigs/aws-load-balancer-controller v3.5.0 pkg/ingress/model_build_listener.go:133-224,
  pkg/certs/cert_discovery.go:74-96, pkg/ingress/class_loader.go:74-86). The Kindee18 Ingress above is the form.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components import stream_buffering

# Spent set 78 Kindee18/opti-inference-pipeline k8s/ingress.yaml@1883c46d61d3ecc6031e717fbefa8c048b638d39.
KINDEE = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {
        "name": "opti-inference",
        "namespace": "inference",
        "annotations": {
            "kubernetes.io/ingress.class": "alb",
            "alb.ingress.kubernetes.io/scheme": "internet-facing",
            "alb.ingress.kubernetes.io/target-type": "ip",
            "alb.ingress.kubernetes.io/healthcheck-path": "/health",
            "alb.ingress.kubernetes.io/listen-ports": '[{"HTTPS":443}]',
            "alb.ingress.kubernetes.io/ssl-redirect": "443",
        },
    },
    "spec": {
        "rules": [
            {
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "opti-inference", "port": {"number": 80}}},
                        }
                    ]
                }
            }
        ]
    },
}


def _annotations(obj: dict) -> dict:
    return obj["metadata"]["annotations"]


# --- G40: the class annotation ----------------------------------------------------------------------------------------


def test_class_annotation_without_the_field_gets_advice():
    found = found_by([KINDEE], "ingress-class-annotation-deprecated")
    assert found == [
        (
            "advisory",
            "metadata.annotations[kubernetes.io/ingress.class] (alb) is the deprecated way to pick an Ingress controller "
            "(k8s.io/api networking/v1 IngressSpec.ingressClassName documents it as deprecated); controllers still honour "
            "it for now, but write spec.ingressClassName: alb (naming an IngressClass the controller serves) and drop the "
            "annotation",
        )
    ]
    nginx = copy.deepcopy(KINDEE)
    nginx["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "nginx"}
    assert [m for _, m in found_by([nginx], "ingress-class-annotation-deprecated")][0].startswith(
        "metadata.annotations[kubernetes.io/ingress.class] (nginx)"
    )


def test_class_field_stays_silent():
    careful = copy.deepcopy(KINDEE)
    del _annotations(careful)["kubernetes.io/ingress.class"]
    careful["spec"]["ingressClassName"] = "alb"
    assert found_by([careful], "ingress-class-annotation-deprecated") == []
    # Both set: the API server's refusal is api-object-valid's, not this advice.
    both = copy.deepcopy(KINDEE)
    both["spec"]["ingressClassName"] = "alb"
    assert found_by([both], "ingress-class-annotation-deprecated") == []


# --- G93: an HTTPS listener with no certificate -----------------------------------------------------------------------

_G93 = "alb-https-listener-certificate"
_G93_TEXT = (
    'listen-ports [{"HTTPS":443}] opens an HTTPS listener, but nothing gives it a certificate: no '
    "alb.ingress.kubernetes.io/certificate-arn, no create-acm-cert, no certificateArn in the class's IngressClassParams, "
    "and no host in spec.tls or the rules for the controller to discover one in ACM by (aws-load-balancer-controller "
    "v3.5.0 pkg/ingress/model_build_listener.go:163-184, 213-224); ELBv2 refuses an HTTPS listener without a "
    "certificate, so the controller fails to deploy the Ingress's ALB listeners and nothing is served on it; set "
    "certificate-arn (an ACM certificate) or a host whose ACM certificate the controller can find"
)
_OUTSIDE = " (the class or another member of its Ingress group, outside the files read, may give one)"


def test_https_listener_without_certificate_by_the_class_annotation_gets_advice():
    assert found_by([KINDEE], _G93) == [("advisory", _G93_TEXT + _OUTSIDE)]


def _by_class(params: dict | None = None) -> list[dict]:
    ing = copy.deepcopy(KINDEE)
    del _annotations(ing)["kubernetes.io/ingress.class"]
    ing["spec"]["ingressClassName"] = "alb"
    spec: dict = {"controller": "ingress.k8s.aws/alb"}
    objs = [ing]
    if params is not None:
        spec["parameters"] = {"apiGroup": "elbv2.k8s.aws", "kind": "IngressClassParams", "name": "alb"}
        objs.append(
            {"apiVersion": "elbv2.k8s.aws/v1beta1", "kind": "IngressClassParams", "metadata": {"name": "alb"}, "spec": params}
        )
    objs.append({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "alb"}, "spec": spec})
    return objs


def test_https_listener_without_certificate_on_a_class_of_the_files_blocks():
    assert found_by(_by_class(), _G93) == [("mandatory", _G93_TEXT)]
    assert found_by(_by_class({"scheme": "internet-facing"}), _G93) == [("mandatory", _G93_TEXT)]
    # A group may take the certificate from a member outside the files: advice.
    grouped = _by_class()
    _annotations(grouped[0])["alb.ingress.kubernetes.io/group.name"] = "platform"
    assert found_by(grouped, _G93) == [("advisory", _G93_TEXT + _OUTSIDE)]


def test_any_certificate_source_or_host_stays_silent():
    assert found_by(_by_class({"certificateArn": ["arn:aws:acm:us-east-1:123456789012:certificate/abc"]}), _G93) == []
    for key, value in (
        ("alb.ingress.kubernetes.io/certificate-arn", "arn:aws:acm:us-east-1:123456789012:certificate/abc"),
        ("alb.ingress.kubernetes.io/create-acm-cert", "true"),
        ("alb.ingress.kubernetes.io/listen-ports", '[{"HTTP":80}]'),
    ):
        careful = copy.deepcopy(KINDEE)
        _annotations(careful)[key] = value
        assert found_by([careful], _G93) == [], key
    hosted = copy.deepcopy(KINDEE)
    hosted["spec"]["rules"][0]["host"] = "api.example.com"
    assert found_by([hosted], _G93) == []
    tls = copy.deepcopy(KINDEE)
    tls["spec"]["tls"] = [{"hosts": ["api.example.com"]}]
    assert found_by([tls], _G93) == []
    unset = copy.deepcopy(KINDEE)
    del _annotations(unset)["alb.ingress.kubernetes.io/listen-ports"]
    assert found_by([unset], _G93) == []
    # Another member of the group in the files carries the certificate.
    first, second = copy.deepcopy(KINDEE), copy.deepcopy(KINDEE)
    second["metadata"]["name"] = "ui"
    for ing in (first, second):
        _annotations(ing)["alb.ingress.kubernetes.io/group.name"] = "platform"
    _annotations(second)["alb.ingress.kubernetes.io/certificate-arn"] = "arn:aws:acm:us-east-1:123456789012:certificate/abc"
    assert found_by([first, second], _G93) == []
    # Not an ALB Ingress.
    nginx = copy.deepcopy(KINDEE)
    _annotations(nginx)["kubernetes.io/ingress.class"] = "nginx"
    assert found_by([nginx], _G93) == []


# --- G94: a buffering proxy in front of a streamed model API ----------------------------------------------------------

_G94 = "proxy-streams-model-replies"


def _service(name: str, labels: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": labels, "ports": [{"port": 80, "targetPort": 80}]},
    }


def _workload(name: str, container: dict, volumes: list | None = None) -> dict:
    spec: dict = {"containers": [container]}
    if volumes:
        spec["volumes"] = volumes
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


# Spent set 76 opea-project/GenAIExamples CodeTrans/kubernetes/intel/cpu/xeon/manifest/codetrans.yaml (label filed NONE):
# nginx location /v1/codetrans -> the codetrans megaservice (env LLM_SERVICE_HOST_IP) -> llm-uservice (TGI_LLM_ENDPOINT
# from its ConfigMap) -> TGI.
_CONF = """server {
    listen 80;
    location / {
        proxy_pass http://codetrans-ui:5174;
    }
    location /v1/codetrans {
        proxy_pass http://codetrans:7777;
        proxy_set_header Host $host;
    }
}
"""


def _opea(conf: str = _CONF) -> list[dict]:
    tgi = {
        "name": "tgi",
        "image": "ghcr.io/huggingface/text-generation-inference:2.4.0-intel-cpu",
        "ports": [{"containerPort": 80}],
    }
    uservice = {
        "name": "llm-uservice",
        "image": "opea/llm-textgen:latest",
        "envFrom": [{"configMapRef": {"name": "llm-uservice-config"}}],
    }
    mega = {
        "name": "codetrans",
        "image": "opea/codetrans:latest",
        "env": [{"name": "LLM_SERVICE_HOST_IP", "value": "llm-uservice"}],
    }
    nginx = {
        "name": "nginx",
        "image": "nginx:1.27.1",
        "volumeMounts": [{"name": "conf", "mountPath": "/etc/nginx/conf.d"}],
    }
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "llm-uservice-config"},
            "data": {"TGI_LLM_ENDPOINT": "http://tgi"},
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nginx-config"}, "data": {"default.conf": conf}},
        _workload("tgi", tgi),
        _service("tgi", {"app": "tgi"}),
        _workload("llm-uservice", uservice),
        _service("llm-uservice", {"app": "llm-uservice"}),
        _workload("codetrans", mega),
        _service("codetrans", {"app": "codetrans"}),
        _workload("codetrans-nginx", nginx, [{"name": "conf", "configMap": {"name": "nginx-config"}}]),
    ]


def test_nginx_buffering_a_streamed_model_api_gets_advice():
    assert found_by(_opea(), _G94) == [
        (
            "advisory",
            "Deployment codetrans-nginx container nginx: location /v1/codetrans proxies to Service codetrans (codetrans, "
            "which calls Service llm-uservice (llm-uservice, which calls Service tgi (tgi server tgi))) with "
            "proxy_buffering unset (nginx's default: on): nginx holds a streamed reply (stream: true, server-sent events) "
            "in its buffers and passes the tokens on in bursts or at the end, unless the backend answers with "
            "X-Accel-Buffering: no; set proxy_buffering off (with proxy_http_version 1.1) in that location",
        )
    ]


def test_nginx_with_buffering_off_or_in_front_of_tgi_stays_silent():
    off = _CONF.replace("proxy_set_header Host $host;", "proxy_buffering off;")
    assert found_by(_opea(off), _G94) == []
    around = _CONF.replace("listen 80;", "listen 80;\n    proxy_buffering off;")
    assert found_by(_opea(around), _G94) == []
    # Straight in front of TGI, whose streams carry X-Accel-Buffering: no.
    direct = _CONF.replace("http://codetrans:7777", "http://tgi")
    assert found_by(_opea(direct), _G94) == []
    # A proxy to no model API.
    assert found_by(_opea(_CONF.replace("http://codetrans:7777", "http://grafana:3000")), _G94) == []


def _ingress(buffering: str) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "llm", "annotations": {"nginx.ingress.kubernetes.io/proxy-buffering": buffering}},
        "spec": {
            "ingressClassName": "nginx",
            "rules": [
                {
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "codetrans", "port": {"number": 7777}}},
                            }
                        ]
                    }
                }
            ],
        },
    }


def test_ingress_nginx_buffering_turned_on_gets_advice():
    objs = [o for o in _opea() if o["metadata"]["name"] not in ("codetrans-nginx", "nginx-config")]
    found = found_by([*objs, _ingress("on")], _G94)
    assert [e for e, _ in found] == ["advisory"]
    assert found[0][1].startswith('nginx.ingress.kubernetes.io/proxy-buffering: "on" makes ingress-nginx buffer')
    assert found_by([*objs, _ingress("off")], _G94) == []


def test_stream_buffering_table_loads_and_refuses_a_row_without_its_source(tmp_path):
    assert stream_buffering.PROXIES["nginx"].buffers and not stream_buffering.PROXIES["ingress-nginx"].buffers
    assert "router/src/server.rs:530" in stream_buffering.UNBUFFERED_ENGINES["tgi"]
    bad = tmp_path / "t.toml"
    bad.write_text('[proxies.nginx]\ndisplay = "x"\nbuffers = true\n\n[unbuffered_engines.tgi]\nsource = "s"\n')
    with pytest.raises(ValueError, match=r"\[proxies.nginx\]: unknown fields \[\], missing fields \['source'\]"):
        stream_buffering.load(bad)


# --- S44: a rewrite-target capture group the path does not have --------------------------------------------------------

_S44 = "ingress-rewrite-keeps-api-path"


def _rewrite_ingress(paths: list[tuple[str, str]], target: str = "/$1") -> dict:
    """Spent set 74 majonation/k8-ollama-deployment k8s/api/ingress.yaml@fe9b7324: rewrite-target /$1 with
    use-regex on paths /api/v1/(.*) (Prefix) and /health (Exact), backend llm-api."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "llm-api-ingress",
            "namespace": "llm-system",
            "annotations": {
                "kubernetes.io/ingress.class": "nginx",
                "nginx.ingress.kubernetes.io/use-regex": "true",
                "nginx.ingress.kubernetes.io/rewrite-target": target,
            },
        },
        "spec": {
            "rules": [
                {
                    "host": "llm-api.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": p,
                                "pathType": t,
                                "backend": {"service": {"name": "llm-api", "port": {"number": 80}}},
                            }
                            for p, t in paths
                        ]
                    },
                }
            ]
        },
    }


def test_a_capture_group_the_path_lacks_rewrites_it_to_the_root():
    found = found_by([_rewrite_ingress([("/api/v1/(.*)", "Prefix"), ("/health", "Exact")])], _S44)
    assert found == [
        (
            "advisory",
            "spec.rules[0].http.paths[1]: rewrite-target /$1 refers to a capture group the path /health does not have "
            "(nginx leaves it empty), so ingress-nginx rewrites every request URI under /health to / "
            '(rewrite "(?i)/health" /$1 break;): the API paths of Service llm-api are lost (a model server answers only '
            "its own paths); capture the rest of the path (path /health(/|$)(.*), rewrite-target /$2) unless one fixed "
            "endpoint is meant",
        )
    ]


def test_captures_the_path_has_stay_silent():
    assert found_by([_rewrite_ingress([("/api/v1/(.*)", "Prefix"), ("/llm(/|$)(.*)", "Prefix")])], _S44) == []
    assert found_by([_rewrite_ingress([("/api(/|$)(.*)", "Prefix")], "/$2")], _S44) == []
    # A non-capturing group gives no $1.
    assert len(found_by([_rewrite_ingress([("/api/(?:v1|v2)", "Prefix")])], _S44)) == 1
    # nginx variables other than captures are not judged.
    assert found_by([_rewrite_ingress([("/health", "Exact")], "/$host$1")], _S44) == []


# --- G46: an nginx directive outside the block nginx takes it in -------------------------------------------------------

_G46 = "nginx-config-accepted"

# Spent set 62 Pritiks23/Kubernetes-Request-Serving-2 k8s/api-gateway.yaml (label filed NONE, blocking).
_GATEWAY_CONF = """upstream router_backend {
  server inference-router-service:80;
}
server {
  listen 80;
  # Rate limiting
  limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;
  location /v1 {
    limit_req zone=api burst=20 nodelay;
    proxy_pass http://router_backend;
    add_header X-Gateway "gpu-inference-platform" always;
  }
  location /health {
    return 200 '{"status": "ok; map"}';
  }
}
"""


def _gateway(conf: str, mount: str = "/etc/nginx/conf.d") -> list[dict]:
    container = {"name": "gateway", "image": "nginx:alpine", "volumeMounts": [{"name": "conf", "mountPath": mount}]}
    return [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gateway-config"}, "data": {"default.conf": conf}},
        _workload("api-gateway", container, [{"name": "conf", "configMap": {"name": "gateway-config"}}]),
    ]


def test_limit_req_zone_in_a_server_block_blocks():
    text = (
        "Deployment api-gateway container gateway: /etc/nginx/conf.d/default.conf puts limit_req_zone inside a server "
        'block, but nginx takes it only in the http block: nginx stops at start ("limit_req_zone" directive is not '
        "allowed here), the container restarts in a loop and the proxy never serves; move limit_req_zone to the http block"
    )
    assert found_by(_gateway(_GATEWAY_CONF), _G46) == [("mandatory", text)]
    # A file nginx may not load: advice.
    elsewhere = found_by(_gateway(_GATEWAY_CONF, "/etc/nginx/sites-available"), _G46)
    assert [e for e, _ in elsewhere] == ["advisory"]
    assert elsewhere[0][1].endswith("(if nginx loads this file)")


def test_directives_in_their_blocks_stay_silent():
    moved = "limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n" + _GATEWAY_CONF.replace(
        "  limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n", ""
    )
    assert found_by(_gateway(moved), _G46) == []
    main = "events {}\nhttp {\n  limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n  server { listen 80; }\n}\n"
    assert found_by(_gateway(main, "/etc/nginx"), _G46) == []
    stream = "stream {\n  server { listen 9000; limit_conn_zone $binary_remote_addr zone=c:1m; }\n}\n"
    assert found_by(_gateway(stream), _G46) == []
