"""The advisory plan policy llm-simulated-slo: it fires on a model the simulation shows over its SLO, stays silent
within it and on anything else, and the plan simulates only when a model declares slo.traffic."""

from __future__ import annotations

import pytest
import yaml

from components.errors import ConfigError
from policies.framework import Resource
from policies.registry import evaluate
from policies.simulation.simulated_slo import POLICY, RESULT_TYPE
from tests.conftest import ROOT, stack_config


def _result(**props) -> Resource:
    base = {"profile": "p.yaml", "requests": 1000, "ttftP95Seconds": 2.0, "ttftSloSeconds": 5.0, "errors504": 0, "errors503": 0}
    return Resource(type=RESULT_TYPE, name="chat-8b", props={**base, **props})


def _messages(resources) -> list[str]:
    return [v.message for v in evaluate(resources, policies=[POLICY])]


def test_fires_on_ttft_504_and_503_over_the_slo():
    assert _messages([_result(ttftP95Seconds=7.5, errors504=5, errors503=20)]) == [
        "chat-8b: 20 503s (refused) = 2.00% of requests, above 1.00% under p.yaml (1000 requests simulated)",
        "chat-8b: 5 504s (timeouts) = 0.50% of requests, above 0.10% under p.yaml (1000 requests simulated)",
        "chat-8b: simulated P95 TTFT 7.50s exceeds slo.timeToFirstTokenSeconds 5s under p.yaml (1000 requests simulated)",
    ]


def test_silent_within_the_slo_and_at_the_limits():
    assert _messages([_result(ttftP95Seconds=5.0, errors504=1, errors503=10)]) == []


def test_silent_on_real_resources_without_simulation_results():
    # What the Pulumi CLI's pack and `policies check` see: manifests, never simulation results.
    deployment = Resource(type="kubernetes:apps/v1:Deployment", name="vllm", props={"kind": "Deployment", "spec": {}})
    assert _messages([deployment]) == []


def test_limits_are_configurable():
    v = evaluate([_result(errors503=20)], config={POLICY.name: {"max503Rate": 0.05}}, policies=[POLICY])
    assert v == []


def _stack(tmp_path, profile: str | None) -> str:
    cfg = stack_config("dev")
    if profile is not None:
        (tmp_path / "load.yaml").write_text(profile)
        cfg["llm-serving:models"][0]["slo"]["traffic"] = "load.yaml"
    path = tmp_path / "Pulumi.simslo.yaml"
    path.write_text(yaml.safe_dump({"config": cfg}, sort_keys=False))
    return str(path)


HEAVY = (
    "duration: 2m\nmodels:\n  chat-8b:\n    arrivals: {rate: 60}\n"
    "    promptTokens: {kind: constant, value: 2000}\n    outputTokens: {kind: constant, value: 300}\n"
)


def test_plan_reports_a_model_over_its_slo_under_its_declared_profile(tmp_path):
    from stacks.plan import run_plan

    report = run_plan(_stack(tmp_path, HEAVY)).report
    found = [v for v in report["violations"] if v["policy"] == "llm-simulated-slo"]
    assert found and all(v["enforcement"] == "advisory" and v["resource"] == "chat-8b" for v in found)
    assert any("503s (refused)" in v["message"] for v in found)
    # The finding points at the slo.traffic line of the stack file.
    lines = (tmp_path / "Pulumi.simslo.yaml").read_text().splitlines()
    assert all("traffic:" in lines[v["line"] - 1] for v in found)


def test_plan_without_a_declared_profile_does_not_simulate(monkeypatch):
    import stacks.simulate
    from stacks.plan import run_plan

    def boom(*args, **kwargs):
        raise AssertionError("simulated without slo.traffic")

    monkeypatch.setattr(stacks.simulate, "slo_results", boom)
    report = run_plan("dev").report
    assert not [v for v in report["violations"] if v["policy"] == "llm-simulated-slo"]


def test_a_missing_profile_names_the_field(tmp_path):
    from stacks.plan import run_plan

    path = _stack(tmp_path, HEAVY)
    (tmp_path / "load.yaml").unlink()
    with pytest.raises(ConfigError) as exc:
        run_plan(path)
    assert str(exc.value.problems[0]) == (
        "models[0].slo.traffic = 'load.yaml': no such traffic profile (the path is relative to the stack file)"
    )


def test_the_key_is_documented():
    assert "slo.traffic" in (ROOT / "docs" / "simulate.md").read_text()
