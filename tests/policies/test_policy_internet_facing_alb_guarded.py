"""internet-facing-alb-guarded (G32 companion): an internet-facing ALB speaks TLS 1.2+ only and keeps strangers out.

What the controller does with each annotation is read from aws-load-balancer-controller v3.5.0
(fetched; ``git show v3.5.0:<path>``):
- ``pkg/annotations/constants.go:21`` scheme, ``:25`` wafv2-acl-arn, ``:33`` inbound-cidrs, ``:35`` ssl-policy,
  ``:48`` auth-type; ``pkg/ingress/model_build_listener.go:281`` reads inbound-cidrs as a comma-separated
  list, ``:307`` ssl-policy; ``pkg/ingress/auth_config_builder.go:83`` auth-type none|oidc|cognito;
  ``pkg/ingress/model_build_load_balancer_addons.go:63`` wafv2-acl-arn;
- ``pkg/config/controller_config.go:49``: the default ssl policy ELBSecurityPolicy-2016-08 (TLS 1.0 and up),
  ``:179``: the default scheme internal; ``docs/guide/ingress/annotations.md:720`` inbound-cidrs is ignored when
  security-groups is set.
What vLLM's key guards is read from the vLLM 0.33.0 wheel (``pip download vllm==0.33.0 --no-deps``):
``vllm/entrypoints/serve/middleware/authenticate.py:11`` GUARDED_PREFIX = ("/v1", "/v2", "/inference", "/cohere"),
``:59`` a request outside them passes without a key; ``entrypoints/common/cli_args.py:339-345``: /invocations
stays unauthenticated.
"""

from __future__ import annotations

import copy
import json

import pytest

from policies.framework import Resource
from policies.ingress.internet_facing_alb_guarded import POLICY
from policies.registry import evaluate
from tests.conftest import absolute_traffic, check_in_process

ING = "kubernetes:networking.k8s.io/v1:Ingress"
ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
POLICY_NAME = POLICY.name
NO_CIDRS = "it lists no source CIDRs, so the controller admits 0.0.0.0/0"
TAIL = "(at most a /8 of IPv4 and a /32 of IPv6 count); and no ALB authentication (auth-type cognito|oidc)"
GUARDED_033 = "/cohere, /inference, /v1, /v2"  # vllm 0.33.0 wheel, entrypoints/serve/middleware/authenticate.py:11


def refused(where, key_reasons, network=NO_CIDRS, waf=False):
    waf_note = " (its WAF web ACL is no guard on its own)" if waf else ""
    return (
        f"{where} (internet-facing ALB): nothing keeps strangers out{waf_note}: the API key does not guard every path it "
        f"forwards ({key_reasons}); {network} {TAIL}"
    )


def findings(resources, config=None):
    return [v.message for v in evaluate(resources, config) if v.policy == POLICY_NAME]


def isvc(name="chat-8b", key=True):
    env = [{"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": "vllm-api-key", "key": "key"}}}] if key else []
    container = {
        "name": "kserve-container",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["vllm", "serve"],
        "args": ["m", "--port=8080"],
        "env": env,
    }
    return Resource(
        ISVC, f"{name}-isvc", {"metadata": {"name": name, "namespace": "llm"}, "spec": {"predictor": {"containers": [container]}}}
    )


def ingress(annotations=None, path="/v1", service="chat-8b-predictor", tls=True):
    ann = {"alb.ingress.kubernetes.io/scheme": "internet-facing"}
    if tls:
        ann.update(
            {
                "alb.ingress.kubernetes.io/certificate-arn": "arn:aws:acm:us-east-1:381492650173:certificate/6f1d2c9e-4b7a-4e35-9a08-2d5c71e4b3f6",
                "alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
            }
        )
    ann.update(annotations or {})
    return Resource(
        ING,
        "llm-alb",
        {
            "metadata": {"name": "llm", "namespace": "llm", "annotations": ann},
            "spec": {
                "ingressClassName": "alb",
                "rules": [
                    {
                        "host": "chat-8b.llm.example.com",
                        "http": {
                            "paths": [
                                {
                                    "path": path,
                                    "pathType": "Prefix",
                                    "backend": {"service": {"name": service, "port": {"number": 80.0}}},
                                }
                            ]
                        },
                    }
                ],
            },
        },
    )


def test_a_keyed_predictor_behind_v1_only_is_guarded():
    assert findings([ingress(), isvc()]) == []


def test_without_any_guard_it_is_refused_naming_what_is_missing():
    assert findings([ingress(), isvc(key=False)]) == [
        refused("Ingress llm/llm", "backend chat-8b-predictor runs a vLLM server without VLLM_API_KEY")
    ]


def test_a_key_does_not_guard_an_ingress_that_forwards_every_path():
    # vLLM 0.33.0 serves /invocations (the same inference) and /tokenize without checking the key.
    assert findings([ingress(path="/"), isvc()]) == [
        refused("Ingress llm/llm", f"it forwards '/', outside {GUARDED_033}, which vLLM's key does not guard")
    ]


def test_a_backend_the_stack_does_not_hold_proves_no_key():
    assert "backend elsewhere leads to no vLLM server in the stack" in findings([ingress(service="elsewhere"), isvc()])[0]


@pytest.mark.parametrize(
    "annotations",
    [
        {"alb.ingress.kubernetes.io/inbound-cidrs": "203.0.113.0/24, 2001:db8::/32"},
        # An office's /16 and a partner's /8: the widest IPv4 source the guard takes (components/aws_ids.py).
        {"alb.ingress.kubernetes.io/inbound-cidrs": "198.51.0.0/16"},
        {"alb.ingress.kubernetes.io/inbound-cidrs": "17.0.0.0/8"},
        {"alb.ingress.kubernetes.io/auth-type": "oidc"},
        {"alb.ingress.kubernetes.io/auth-type": "cognito"},
        {"alb.ingress.kubernetes.io/security-group-prefix-lists": "pl-000111"},
    ],
    ids=["cidrs", "office-16", "one-8", "oidc", "cognito", "prefix-lists"],
)
def test_each_guard_at_the_alb_is_enough(annotations):
    assert findings([ingress(annotations), isvc(key=False)]) == []


@pytest.mark.parametrize(
    "annotations",
    [
        {"alb.ingress.kubernetes.io/inbound-cidrs": "10.0.0.0/8,0.0.0.0/0"},
        {"alb.ingress.kubernetes.io/inbound-cidrs": "::/0"},
        # The controller ignores inbound-cidrs when security-groups is set (annotations.md:720).
        {"alb.ingress.kubernetes.io/inbound-cidrs": "10.0.0.0/8", "alb.ingress.kubernetes.io/security-groups": "sg-0123"},
        {"alb.ingress.kubernetes.io/wafv2-acl-arn": "none"},
        {"alb.ingress.kubernetes.io/auth-type": "none"},
        # A web ACL's rules are not visible, and a managed rule set lets /invocations through: no guard alone.
        {
            "alb.ingress.kubernetes.io/wafv2-acl-arn": "arn:aws:wafv2:us-east-1:381492650173:regional/webacl/llm/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3"
        },
        {"alb.ingress.kubernetes.io/wafv2-acl-name": "llm"},
        {"alb.ingress.kubernetes.io/waf-acl-id": "499e8b99-6671-4614-a86d-adb1810b7fbe"},
        # Split CIDRs are judged merged (ipaddress.collapse_addresses).
        {"alb.ingress.kubernetes.io/inbound-cidrs": "0.0.0.0/1,128.0.0.0/1"},
        {"alb.ingress.kubernetes.io/inbound-cidrs": "::/1,8000::/1"},
        {"alb.ingress.kubernetes.io/inbound-cidrs": "16.0.0.0/8,17.0.0.0/8"},
        {"alb.ingress.kubernetes.io/inbound-cidrs": "2001:db8::/31"},
    ],
    ids=[
        "cidr-all-v4",
        "cidr-all-v6",
        "cidrs-ignored",
        "waf-none",
        "auth-none",
        "wafv2-arn",
        "wafv2-name",
        "waf-classic",
        "split-v4",
        "split-v6",
        "two-8s",
        "v6-wider-than-32",
    ],
)
def test_what_looks_like_a_guard_but_is_not(annotations):
    assert len(findings([ingress(annotations), isvc(key=False)])) == 1


def test_the_controllers_default_ssl_policy_accepts_tls_1_0():
    ing = ingress()
    del ing.props["metadata"]["annotations"]["alb.ingress.kubernetes.io/ssl-policy"]
    assert findings([ing, isvc()]) == [
        "Ingress llm/llm (internet-facing ALB): alb.ingress.kubernetes.io/ssl-policy is unset, so the controller applies "
        "ELBSecurityPolicy-2016-08 (unless its --default-ssl-policy says otherwise), which accepts TLS 1.0 and 1.1; set "
        "ELBSecurityPolicy-TLS13-1-2-2021-06"
    ]
    # The controller's installation may change its default (flag --default-ssl-policy): advice, not a block.
    assert [v.enforcement for v in evaluate([ing, isvc()], None, policies=[POLICY])] == ["advisory"]


@pytest.mark.parametrize(
    "policy",
    [
        "ELBSecurityPolicy-2016-08",
        "ELBSecurityPolicy-TLS-1-1-2017-01",
        "ELBSecurityPolicy-TLS13-1-0-2021-06",
        "ELBSecurityPolicy-FS-1-1-2019-08",
    ],
)
def test_a_policy_below_tls_1_2_is_refused(policy):
    ing = ingress({"alb.ingress.kubernetes.io/ssl-policy": policy})
    assert findings([ing, isvc()]) == [
        f"Ingress llm/llm (internet-facing ALB): ssl-policy {policy} accepts TLS below 1.2; use ELBSecurityPolicy-TLS13-1-2-2021-06"
    ]


def test_plain_http_on_the_internet_is_refused():
    assert findings([ingress(tls=False), isvc()]) == [
        "Ingress llm/llm (internet-facing ALB): it has no HTTPS listener (no certificate-arn, spec.tls or HTTPS listen-port), "
        "so prompts cross the internet in clear text"
    ]


@pytest.mark.parametrize(
    "change",
    [
        lambda i: i.props["metadata"]["annotations"].pop("alb.ingress.kubernetes.io/scheme"),  # controller default: internal
        lambda i: i.props["metadata"]["annotations"].update({"alb.ingress.kubernetes.io/scheme": "internal"}),
        lambda i: i.props["spec"].update({"ingressClassName": "nginx"}),
    ],
    ids=["default-scheme", "internal", "not-alb"],
)
def test_internal_and_other_ingresses_are_not_read(change):
    ing = ingress(tls=False)
    change(ing)
    assert findings([ing, isvc(key=False)]) == []


def test_the_exemption_annotation_with_a_reason_silences_it():
    ing = ingress()
    ing.props["metadata"]["annotations"][POLICY.exemption_annotation] = "CloudFront with its own WAF fronts this ALB"
    assert findings([ing, isvc(key=False)]) == []


# A third-party shape: Deployment + Service + Ingress (networking.k8s.io/v1beta1) and an IngressClass whose
# IngressClassParams set the scheme and a web ACL (the controller prefers them to annotations).
THIRD_PARTY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: serving}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.33.0
        args: [--model, m, --api-key, $(KEY)]
        env:
        - name: KEY
          valueFrom: {secretKeyRef: {name: vllm, key: key}}
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: serving}
spec:
  selector: {app: vllm}
  ports: [{port: 80, targetPort: 8000}]
---
apiVersion: networking.k8s.io/v1beta1
kind: Ingress
metadata:
  name: public
  namespace: serving
  annotations:
    kubernetes.io/ingress.class: alb
    alb.ingress.kubernetes.io/scheme: internet-facing
    alb.ingress.kubernetes.io/certificate-arn: arn:aws:acm:us-west-2:381492650173:certificate/6f1d2c9e-4b7a-4e35-9a08-2d5c71e4b3f6
    alb.ingress.kubernetes.io/ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06
spec:
  rules:
  - http:
      paths:
      - {path: PATH, backend: {serviceName: vllm, servicePort: 80}}
"""

CLASS_PARAMS = """
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: public-alb}
spec:
  controller: ingress.k8s.aws/alb
  parameters: {apiGroup: elbv2.k8s.aws, kind: IngressClassParams, name: public}
---
apiVersion: elbv2.k8s.aws/v1beta1
kind: IngressClassParams
metadata: {name: public}
spec:
  scheme: internet-facing
  sslPolicy: ELBSecurityPolicy-TLS13-1-2-2021-06
  wafv2AclArn: arn:aws:wafv2:us-west-2:381492650173:regional/webacl/public/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3
  inboundCIDRs: [198.51.0.0/16]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: by-class, namespace: serving}
spec:
  ingressClassName: public-alb
  tls: [{hosts: [llm.example.com]}]
  defaultBackend: {service: {name: vllm, port: {number: 80}}}
"""


def check(tmp_path, text):
    (tmp_path / "app.yaml").write_text(text)
    proc = check_in_process(str(tmp_path), "--format", "json")  # `python -m policies check`, in this process
    return proc, [v for v in json.loads(proc.stdout)["violations"] if v["policy"] == POLICY_NAME]


def test_third_party_deployment_with_a_key_behind_v1_passes(tmp_path):
    proc, found = check(tmp_path, THIRD_PARTY.replace("PATH", "/v1"))
    assert found == [], proc.stdout


def test_third_party_ingress_forwarding_everything_is_refused(tmp_path):
    proc, found = check(tmp_path, THIRD_PARTY.replace("PATH", "/"))
    assert [v["resource"] for v in found] == ["Ingress/public"]
    assert f"it forwards '/', outside {GUARDED_033}" in found[0]["message"]
    assert proc.returncode == 1


def test_third_party_ingress_with_split_cidrs_is_refused(tmp_path):
    # The issue's bypass: two /1s are the whole IPv4 internet, and "/" reaches /invocations without the key.
    split = THIRD_PARTY.replace("PATH", "/").replace(
        "    alb.ingress.kubernetes.io/ssl-policy:",
        "    alb.ingress.kubernetes.io/inbound-cidrs: 0.0.0.0/1,128.0.0.0/1\n    alb.ingress.kubernetes.io/ssl-policy:",
    )
    proc, found = check(tmp_path, split)
    assert proc.returncode == 1, proc.stdout
    assert [v["resource"] for v in found] == ["Ingress/public"]
    assert "its source CIDRs cover every IPv4 address (merged: 0.0.0.0/0)" in found[0]["message"]
    # The careful form: an office's /16 instead.
    proc, found = check(tmp_path, split.replace("0.0.0.0/1,128.0.0.0/1", "198.51.0.0/16"))
    assert found == [], proc.stdout


def test_third_party_ingress_class_params_supply_scheme_policy_and_waf(tmp_path):
    proc, found = check(tmp_path, THIRD_PARTY.replace("PATH", "/") + CLASS_PARAMS)
    # "public" still forwards everything; "by-class" is guarded by its class's source CIDRs and TLS policy.
    assert [v["resource"] for v in found] == ["Ingress/public"]
    waf_only = CLASS_PARAMS.replace("  inboundCIDRs:", "  # inboundCIDRs:")
    _, found = check(
        tmp_path, THIRD_PARTY.replace("PATH", "/v1") + waf_only.replace("tls: [{hosts: [llm.example.com]}]", "tls: []")
    )
    assert [v["resource"] for v in found] == ["Ingress/by-class", "Ingress/by-class"]
    assert "no HTTPS listener" in found[0]["message"]
    # Its default backend forwards "/" to a keyed vLLM; the class's web ACL alone does not make that safe.
    assert "(its WAF web ACL is no guard on its own)" in found[1]["message"]
    assert f"it forwards '/', outside {GUARDED_033}" in found[1]["message"]


# The prod stack as planned, and mutations of its stack file.


@pytest.fixture(scope="module")
def prod_file():
    from stacks.offline import load_stack_file

    return load_stack_file("prod")


def _plan_violations(stack):
    from stacks.offline import run_program
    from stacks.plan import policy_resources

    return findings(policy_resources(run_program(stack)))


def test_prod_as_planned_is_guarded(prod_file):
    assert _plan_violations(prod_file) == []


NO_KEY_PROD = "; ".join(
    f"route istio-ingressgateway -> {svc}.llm runs a vLLM server without VLLM_API_KEY"
    for svc in ("chat-8b-predictor", "llama-405b", "llama-70b-predictor", "qwen3-32b-predictor")
)


def _mutated(prod_file, cidrs=None, key=False, waf=False):
    from stacks.offline import StackFile

    config = copy.deepcopy(dict(prod_file.config))
    if not key:
        del config["llm-serving:apiKey"]
    if not waf:
        del config["llm-serving:ingress"]["wafAclArn"]
    if cidrs is not None:
        config["llm-serving:ingress"]["inboundCidrs"] = cidrs
    return StackFile(name="prod", path=prod_file.path, config=config), config


def _exits_one_under_the_policy(config, tmp_path):
    import yaml

    from stacks.plan import run_plan

    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump({"config": absolute_traffic(config)}))  # slo.traffic is relative to stacks/
    result = run_plan(str(path))
    assert result.mandatory_violations == 1
    assert [v["policy"] for v in result.report["violations"] if v["enforcement"] == "mandatory"] == [POLICY_NAME]


def test_a_prod_stack_without_its_guards_is_refused(prod_file, tmp_path):
    mutated, config = _mutated(prod_file)
    assert _plan_violations(mutated) == [refused("Ingress istio-ingress/llm", NO_KEY_PROD)]
    # Through the CLI's path too: a mandatory violation (exit 1).
    _exits_one_under_the_policy(config, tmp_path)


def test_a_prod_stack_with_split_cidrs_and_no_key_is_refused(prod_file, tmp_path):
    # Issue 31's bypass: 0.0.0.0/1 + 128.0.0.0/1 planned with exit 0 while the ALB forwarded "/" with no key.
    mutated, config = _mutated(prod_file, cidrs=["0.0.0.0/1", "128.0.0.0/1"], waf=True)
    assert _plan_violations(mutated) == [
        refused(
            "Ingress istio-ingress/llm",
            NO_KEY_PROD,
            network="its source CIDRs cover every IPv4 address (merged: 0.0.0.0/0)",
            waf=True,
        )
    ]
    _exits_one_under_the_policy(config, tmp_path)


def test_a_prod_stack_behind_an_office_range_needs_no_key(prod_file):
    mutated, _ = _mutated(prod_file, cidrs=["198.51.0.0/16", "2001:db8:4000::/48"])
    assert _plan_violations(mutated) == []


def test_a_prod_stack_whose_key_misses_one_model_is_refused(prod_file):
    from stacks.offline import run_program
    from stacks.plan import policy_resources

    mutated, _ = _mutated(prod_file, key=True)
    resources = policy_resources(run_program(mutated))
    (ray,) = [r for r in resources if r.type.endswith(":RayCluster")]
    head = ray.props["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["env"] = [e for e in head["env"] if e["name"] != "VLLM_API_KEY"]
    assert findings(resources) == [
        refused(
            "Ingress istio-ingress/llm", "route istio-ingressgateway -> llama-405b.llm runs a vLLM server without VLLM_API_KEY"
        )
    ]


def test_a_prod_route_without_its_uri_match_is_refused(prod_file):
    # Without a uri match a VirtualService route forwards every path the ALB sends it; with Istio's path
    # normalization (1.30.3 listener_builder.go:344-345) /v1/../invocations arrives as /invocations.
    from stacks.offline import run_program
    from stacks.plan import policy_resources

    mutated, _ = _mutated(prod_file, key=True)
    resources = policy_resources(run_program(mutated))
    (vs,) = [r for r in resources if r.type.endswith(":VirtualService") and r.props["metadata"]["name"] == "chat-8b"]
    assert [m["uri"]["prefix"] for m in vs.props["spec"]["http"][0]["match"]] == ["/cohere", "/inference", "/v1", "/v2"]
    del vs.props["spec"]["http"][0]["match"]
    assert findings(resources) == [
        refused("Ingress istio-ingress/llm", "route chat-8b -> chat-8b-predictor.llm has no uri match, so it forwards every path")
    ]


def _levels(resources):
    return [v.enforcement for v in evaluate(resources) if v.policy == POLICY_NAME]


def test_an_alb_that_reaches_no_model_server_of_the_files_is_advice():
    # walidshaari/sample-aws-eks-auto-mode examples/spot/2048-ingress.yaml at
    # 8ebbbeb3a721a0fe73e5ebf3032876a47c7361a3: an internet-facing ALB over plain HTTP in front of the 2048 game
    # (Service service-2048), blocked twice as a model endpoint. No path reaches a model server: advice.
    game = ingress(tls=False, service="service-2048", path="/")
    game.props["metadata"].update(name="ingress-2048", namespace="game-2048")
    del game.props["spec"]["rules"][0]["host"]
    assert _levels([game, isvc()]) == ["advisory", "advisory"]
    assert all("no path of it reaches a model server of the files read" in m for m in findings([game, isvc()]))
    # Review 44 #16: spent set 21 Lavale1012/llm-inference-platform-aws-eks k8s/ingress.yaml (labelled G32 blocking):
    # Ingress and Service llm-inference in front of a llama.cpp server in a custom image the engine table does not
    # know. Its names say it fronts a model: both findings block.
    custom = ingress(tls=False, service="llm-inference", path="/")
    custom.props["metadata"]["name"] = "llm-inference"
    del custom.props["spec"]["rules"][0]["host"]
    assert _levels([custom]) == ["mandatory", "mandatory"]
    # The careful side: the same ALB in front of the model keeps both blocks.
    assert _levels([ingress(tls=False), isvc(key=False)]) == ["mandatory", "mandatory"]
