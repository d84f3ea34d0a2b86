"""`python -m stacks plan` end to end for the ingress path and the timeout chain (the issue's "done when")."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.conftest import STACKS
from tests.kube_schemas import validate_object
from tests.plan.test_plan_cli import run


@pytest.fixture(scope="module")
def prod(tmp_path_factory):
    out = tmp_path_factory.mktemp("prod-ingress")
    proc = run("plan", "prod", "--format", "json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), out


def load(out, rel):
    return yaml.safe_load((out / "kubernetes" / rel).read_text())


def seconds(text):
    assert text.endswith("s")
    return int(text[:-1])


def test_prod_renders_the_whole_chain_ordered_and_schema_valid(prod):
    report, out = prod
    ing = load(out, "istio-ingress/ingress-llm.yaml")
    attrs = ing["metadata"]["annotations"]["alb.ingress.kubernetes.io/load-balancer-attributes"]
    idle = int(attrs.split("=")[1])
    assert attrs.startswith("idle_timeout.timeout_seconds=") and 60 < idle <= 4000
    for m in report["models"]:
        vs = load(out, f"llm/virtualservice-{m['name']}.yaml")
        dr = load(out, f"llm/destinationrule-{m['name']}.yaml")
        for obj in (vs, dr):
            assert validate_object(obj) == []
        route = vs["spec"]["http"][-1]
        assert seconds(route["timeout"]) <= idle
        assert seconds(route["retries"]["perTryTimeout"]) < seconds(route["timeout"])
        assert m["timeouts"]["route_timeout_seconds"] == seconds(route["timeout"])
        if not (out / "kubernetes" / "llm" / f"inferenceservice-{m['name']}.yaml").exists():
            continue  # the multi-node model runs on a RayCluster (issue 10's builder reads the same chain)
        isvc = load(out, f"llm/inferenceservice-{m['name']}.yaml")
        assert validate_object(isvc) == []
        pred = isvc["spec"]["predictor"]
        assert "timeout" not in pred  # read only by KServe's Gateway API route reconciler (timeouts.py)
        assert m["timeouts"]["longest_request_seconds"] < seconds(route["retries"]["perTryTimeout"])
        container = pred["containers"][0]
        env = {e["name"]: e.get("value") for e in container["env"]}
        upstream_idle = seconds(dr["spec"]["trafficPolicy"]["connectionPool"]["http"]["idleTimeout"])
        assert int(env["VLLM_HTTP_TIMEOUT_KEEP_ALIVE"]) > max(idle, upstream_idle)
        assert f"--max-num-queued-reqs={m['max_num_seqs'] + m['max_num_queued_reqs']}" in container["args"]
        assert (
            pred["terminationGracePeriodSeconds"]
            >= container["lifecycle"]["preStop"]["sleep"]["seconds"] + m["timeouts"]["longest_request_seconds"]
        )
    assert validate_object(ing) == []
    assert validate_object(load(out, "istio-ingress/gateway-llm-gateway.yaml")) == []


def test_prod_installs_the_controller_and_istio_as_pinned_releases(prod):
    _, out = prod
    helm = {p.name: yaml.safe_load(p.read_text()) for p in (out / "helm").rglob("*.yaml")}
    assert helm["aws-load-balancer-controller.yaml"]["version"] == "3.5.0"
    assert helm["aws-load-balancer-controller.yaml"]["values"]["vpcId"].startswith("vpc-")
    assert {helm[f"{n}.yaml"]["version"] for n in ("istio-base", "istiod", "istio-ingressgateway")} == {"1.30.3"}
    pod_identity = [json.loads(p.read_text()) for p in (out / "aws").glob("podidentityassociation-*lb-controller*.json")]
    assert [p["inputs"]["serviceAccount"] for p in pod_identity] == ["aws-load-balancer-controller"]
    (policy,) = [json.loads(p.read_text()) for p in (out / "aws").glob("policy-*lb-controller*.json")]
    assert "elasticloadbalancing:ModifyTargetGroupAttributes" in policy["inputs"]["policy"]


def test_max_request_seconds_5000_exits_2_naming_the_alb_limit(tmp_path):
    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    doc["config"]["llm-serving:models"][0]["slo"]["maxRequestSeconds"] = 5000
    path = tmp_path / "Pulumi.long.yaml"
    path.write_text(yaml.safe_dump(doc))
    proc = run("plan", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "models[0].slo.maxRequestSeconds = 5000: no timeout chain can serve it: the ALB idle timeout" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out" / "kubernetes").exists()


def test_an_old_image_gets_only_its_release_flags_end_to_end(tmp_path):
    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    doc["config"]["llm-serving:models"][0]["image"] = "vllm/vllm-openai:v0.12.0"
    path = tmp_path / "Pulumi.old.yaml"
    path.write_text(yaml.safe_dump(doc))
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    isvc = yaml.safe_load((tmp_path / "out" / "kubernetes" / "llm" / "inferenceservice-chat-8b.yaml").read_text())
    args = isvc["spec"]["predictor"]["containers"][0]["args"]
    assert not [
        a
        for a in args
        if a.split("=")[0] in ("--max-num-queued-reqs", "--shutdown-timeout", "--disable-access-log-for-endpoints")
    ]
    (model,) = json.loads(proc.stdout)["models"]
    assert model["vllm_release"] == "0.12.0"
    assert all("0.33" not in d["reason"] for d in model["derived"])


def test_the_report_shows_each_models_chain_as_a_table(prod):
    from stacks.report import render_markdown, render_text

    report, _ = prod
    text, markdown = render_text(report), render_markdown(report)
    for m in report["models"]:
        assert f"**Timeout chain of `{m['name']}`** (vLLM 0.33.0)" in markdown
        idle = m["timeouts"]["alb_idle_timeout_seconds"]
        assert f"| ALB | idle_timeout.timeout_seconds | {idle}s |" in markdown
    assert text.count("  timeout chain (vLLM 0.33.0):") == len(report["models"])
    assert "VLLM_HTTP_TIMEOUT_KEEP_ALIVE" in text and "terminationGracePeriodSeconds" in text
