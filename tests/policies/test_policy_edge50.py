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

from policy_fixtures import found_by

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
