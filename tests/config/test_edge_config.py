"""The edge's config keys (issue 19): each is rendered, and each bad value is refused naming its field.

Annotation names: aws-load-balancer-controller v3.5.0 ``pkg/annotations/constants.go`` (scheme :21,
wafv2-acl-arn :25, inbound-cidrs :33, ssl-policy :35); inbound-cidrs is parsed as a comma-separated
list (``pkg/ingress/model_build_listener.go:281``, ParseStringSliceAnnotation). vLLM 0.33.0 reads the key
from VLLM_API_KEY (``vllm/envs.py:829``) and adds its AuthenticationMiddleware when it is set
(``vllm/entrypoints/serve/middleware/register.py:33``).
"""

from __future__ import annotations

import copy

import pytest

from components.builders import ingress as build
from components.builders import ray_cluster as ray
from components.builders import vllm_service as vllm
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config

CERT = "arn:aws:acm:us-west-2:381492650173:certificate/6f1d2c9e-4b7a-4e35-9a08-2d5c71e4b3f6"
WAF = "arn:aws:wafv2:us-west-2:381492650173:regional/webacl/llm/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3"


def with_ingress(**keys) -> dict:
    cfg = copy.deepcopy(stack_config("dev"))
    cfg["llm-serving:ingress"].update(keys)
    return cfg


def refused(cfg: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(cfg)
    return [str(p) for p in err.value.problems]


def ingress_of(cfg: dict, api_key: bool = False) -> dict:
    stack = load_stack_config(cfg)
    plans = plan_stack(stack)
    return build.alb_ingress(stack.ingress, stack.models, plans, stack.namespace, {}, api_key)


def annotations(cfg: dict) -> dict:
    return ingress_of(cfg)["metadata"]["annotations"]


def test_each_edge_key_is_rendered_as_its_controller_annotation():
    ann = annotations(
        with_ingress(
            scheme="internet-facing",
            certificateArn=CERT,
            inboundCidrs=["203.0.113.0/24", "2001:db8::/32"],
            wafAclArn=WAF,
            sslPolicy="ELBSecurityPolicy-TLS13-1-3-2021-06",
        )
    )
    assert ann["alb.ingress.kubernetes.io/scheme"] == "internet-facing"
    assert ann["alb.ingress.kubernetes.io/inbound-cidrs"] == "203.0.113.0/24,2001:db8::/32"
    assert ann["alb.ingress.kubernetes.io/wafv2-acl-arn"] == WAF
    assert ann["alb.ingress.kubernetes.io/ssl-policy"] == "ELBSecurityPolicy-TLS13-1-3-2021-06"


def test_the_ssl_policy_defaults_to_tls_1_2_and_goes_with_the_https_listener():
    assert (
        annotations(with_ingress(certificateArn=CERT))["alb.ingress.kubernetes.io/ssl-policy"]
        == "ELBSecurityPolicy-TLS13-1-2-2021-06"
    )
    # No HTTPS listener without a certificate, so no policy to set (and nothing else rendered by default).
    ann = annotations(with_ingress())
    assert not {
        "alb.ingress.kubernetes.io/ssl-policy",
        "alb.ingress.kubernetes.io/inbound-cidrs",
        "alb.ingress.kubernetes.io/wafv2-acl-arn",
    } & set(ann)
    assert ann["alb.ingress.kubernetes.io/scheme"] == "internal"


def test_with_an_api_key_the_alb_forwards_the_guarded_prefixes_only():
    # The controller turns a Prefix path "/v1" into the ALB path patterns "/v1" and "/v1/*" and "/" into "/*"
    # (v3.5.0 pkg/ingress/model_build_listener_rules.go:278-287 buildPathPatternsForPrefixPathType), so behind the
    # key no rule forwards /invocations, /tokenize or /metrics, which vLLM 0.33.0 serves without it; the prefixes are
    # the 0.33.0 wheel's GUARDED_PREFIX (vllm/entrypoints/serve/middleware/authenticate.py:11).
    paths = {p["path"] for rule in ingress_of(with_ingress(), api_key=True)["spec"]["rules"] for p in rule["http"]["paths"]}
    assert paths == {"/v1", "/v2", "/inference", "/cohere"}
    paths = {p["path"] for rule in ingress_of(with_ingress())["spec"]["rules"] for p in rule["http"]["paths"]}
    assert paths == {"/"}


@pytest.mark.parametrize(
    "keys, message",
    [
        (
            {"sslPolicy": "ELBSecurityPolicy-2016-08"},
            "ingress.sslPolicy = 'ELBSecurityPolicy-2016-08': accepts TLS below 1.2; use ELBSecurityPolicy-TLS13-1-2-2021-06 or another "
            "TLS13-1-2, TLS13-1-3, TLS-1-2 or FS-1-2 policy",
        ),
        (
            {"sslPolicy": "TLSv1.2"},
            "ingress.sslPolicy = 'TLSv1.2': must be a predefined ALB security policy such as ELBSecurityPolicy-TLS13-1-2-2021-06 "
            "(ALBs take no custom policies)",
        ),
        (
            {"inboundCidrs": ["10.0.0.1/8"]},
            "ingress.inboundCidrs = [\"10.0.0.1/8\"]: [0] '10.0.0.1/8' is not a CIDR network: 10.0.0.1/8 has host bits set",
        ),
        (
            {"inboundCidrs": ["10.0.0.1"]},
            "ingress.inboundCidrs = [\"10.0.0.1\"]: [0] '10.0.0.1' must be a CIDR such as 203.0.113.0/24 (a prefix length is required)",
        ),
        (
            {"inboundCidrs": ["10.0.0.0/8", "10.0.0.0/8"]},
            'ingress.inboundCidrs = ["10.0.0.0/8", "10.0.0.0/8"]: lists a CIDR twice',
        ),
        (
            {"wafAclArn": "arn:aws:wafv2:us-west-2:381492650173:global/webacl/llm/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3"},
            "ingress.wafAclArn = 'arn:aws:wafv2:us-west-2:381492650173:global/webacl/llm/3c9e7a51-0b2d-4f68-8e...: "
            "must be an ARN such as arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id> (a regional web ACL)",
        ),
        (
            {"wafAclArn": "arn:aws:wafv2:us-east-1:381492650173:regional/webacl/llm/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3"},
            "ingress.wafAclArn = 'arn:aws:wafv2:us-east-1:381492650173:regional/webacl/llm/3c9e7a51-0b2d-4f68-...: "
            "is in us-east-1 and the stack (aws:region) in us-west-2: the ALB can only use one of its own region",
        ),
    ],
)
def test_bad_edge_values_are_refused_naming_the_field(keys, message):
    assert refused(with_ingress(**keys)) == [message]


@pytest.mark.parametrize(
    "arn, why",
    [
        (
            "arn:aws:acm:us-west-2:123456789012:certificate/6f1d2c9e-4b7a-4e35-9a08-2d5c71e4b3f6",
            "holds the placeholder account id 123456789012 (documentation example); use the ARN from your account",
        ),
        (
            "arn:aws:acm:us-west-2:000000000000:certificate/6f1d2c9e-4b7a-4e35-9a08-2d5c71e4b3f6",
            "holds the placeholder account id 000000000000 (documentation example); use the ARN from your account",
        ),
        (
            "arn:aws:acm:us-west-2:381492650173:certificate/00000000-0000-4000-8000-000000000000",
            "holds the placeholder id 00000000-0000-4000-8000-000000000000; use the ARN from your account",
        ),
        (
            "arn:aws:acm:us-west-2:381492650173:certificate/12345678-1234-1234-1234-123456789012",
            "holds the placeholder id 12345678-1234-1234-1234-123456789012; use the ARN from your account",
        ),
    ],
)
def test_placeholder_certificates_are_refused(arn, why):
    (message,) = refused(with_ingress(certificateArn=arn))
    assert message.startswith("ingress.certificateArn = ") and message.endswith(": " + why)


def test_partitions_other_than_aws_are_accepted():
    cfg = with_ingress(
        certificateArn="arn:aws-us-gov:acm:us-gov-west-1:381492650173:certificate/6f1d2c9e-4b7a-4e35-9a08-2d5c71e4b3f6"
    )
    cfg["aws:region"] = "us-gov-west-1"
    assert load_stack_config(cfg).ingress.certificate_arn.startswith("arn:aws-us-gov:")


def test_a_clear_text_api_key_is_refused():
    cfg = stack_config("dev")
    cfg["llm-serving:apiKey"] = "letmein"
    assert refused(cfg) == [
        "llm-serving:apiKey: must be a Pulumi secret (pulumi config set --secret); a clear-text token is refused"
    ]


def test_the_api_key_reaches_every_model_from_its_secret():
    prod = load_stack_config(stack_config("prod"))
    assert prod.has_api_key
    plans = plan_stack(prod)
    by_name = {m.name: m for m in prod.models}
    env = vllm.inference_service(by_name["chat-8b"], plans["chat-8b"], "llm", "l40s", "hf-token", "vllm-api-key")["spec"][
        "predictor"
    ]["containers"][0]["env"]
    assert env[0] == {"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": "vllm-api-key", "key": "key"}}}
    cluster = ray.ray_cluster(by_name["llama-405b"], plans["llama-405b"], "llm", "hf-token", "h100", "vllm-api-key")
    head_env = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["env"]
    assert head_env[0]["name"] == "VLLM_API_KEY"
    # The workers answer no HTTP: they do not get the key.
    worker_env = cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["env"]
    assert "VLLM_API_KEY" not in {e["name"] for e in worker_env}


@pytest.mark.parametrize("tag", ["v0.9.1", "v0.12.0", "v0.18.0", "v0.29.0", "v0.33.0"])
def test_the_api_key_variable_exists_in_the_release_the_image_names(tag):
    from components.vllm_flags import has

    cfg = stack_config("dev")
    cfg["llm-serving:models"][0]["image"] = f"vllm/vllm-openai:{tag}"
    stack = load_stack_config(cfg)
    m = stack.models[0]
    plan = plan_stack(stack)[m.name]
    env = vllm.inference_service(m, plan, "llm", m.pool, None, "vllm-api-key")["spec"]["predictor"]["containers"][0]["env"]
    assert env[0]["name"] == "VLLM_API_KEY" and has("VLLM_API_KEY", plan.release.version)


def test_a_placeholder_reservation_owner_is_refused():
    cfg = stack_config("prod")
    pool = next(i for i, p in enumerate(cfg["llm-serving:gpuPools"]) if "reserved" in p.get("capacityTypes", []))
    cfg["llm-serving:gpuPools"][pool]["capacityReservations"] = [{"tags": {"team": "llm"}, "ownerId": "123456789012"}]
    (message,) = refused(cfg)
    assert message == (
        f"gpuPools[{pool}].capacityReservations[0].ownerId = '123456789012': is the placeholder account id "
        "123456789012 (documentation example); use the account that owns the reservations"
    )


def test_a_scheme_the_controller_does_not_know_is_refused():
    # v3.5.0 pkg/config/controller_config.go:302-307 knows internal and internet-facing only.
    assert refused(with_ingress(scheme="public")) == [
        "ingress.scheme = 'public': input should be 'internal' or 'internet-facing'"
    ]


def test_a_bad_pod_identity_agent_setting_is_refused_naming_the_field():
    cfg = stack_config("dev")
    cfg["llm-serving:addons"] = {"podIdentityAgent": {"install": "yes"}}
    assert refused(cfg) == ["addons.podIdentityAgent.install = 'yes': input should be a valid boolean"]
