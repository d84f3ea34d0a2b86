"""Traffic profiles: the committed JSON Schema, the examples, and errors that name the field."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

from components.errors import ConfigError
from components.traffic.profile import SCHEMA_PATH, json_schema, load_profile, parse_profile, read_trace
from components.traffic.workload import arrival_times, build_workload

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "traffic").glob("*.yaml"))
BASE = {
    "arrivals": {"rate": 2},
    "promptTokens": {"kind": "constant", "value": 100},
    "outputTokens": {"kind": "constant", "value": 50},
}


def test_committed_schema_is_the_models_schema():
    assert json.loads(SCHEMA_PATH.read_text()) == json_schema()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_validate_against_the_schema_and_the_model(path):
    data = yaml.safe_load(path.read_text())
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    parse_profile(data)


def test_both_examples_ship():
    assert {p.name for p in EXAMPLES} >= {"steady.yaml", "spike.yaml"}


def _errors(doc) -> list[str]:
    with pytest.raises(ConfigError) as exc:
        parse_profile(doc)
    return [str(p) for p in exc.value.problems]


def test_errors_name_the_field_and_the_rule():
    doc = {"models": {"chat": {**BASE, "arrivals": {"rate": -1}, "streamedShare": 1.5}}}
    assert _errors(doc) == [
        "models.chat.arrivals.rate = -1: Input should be greater than 0",
        "models.chat.streamedShare = 1.5: Input should be less than or equal to 1",
    ]


def test_unknown_distribution_kind():
    doc = {"models": {"chat": {**BASE, "promptTokens": {"kind": "zipf"}}}}
    assert _errors(doc) == [
        'models.chat.promptTokens = {"kind": "zipf"}: kind must be one of constant, uniform, lognormal, empirical'
    ]


def test_unknown_key_and_trace_with_rate():
    doc = {"models": {"chat": {**BASE, "arrivals": {"rate": 1, "trace": "t.csv"}, "colour": "red"}}}
    errors = _errors(doc)
    assert "models.chat.colour = 'red': Extra inputs are not permitted" in errors
    assert any(e.startswith("models.chat.arrivals") and "excludes rate and spikes" in e for e in errors)


def test_tokens_required_without_a_trace():
    errors = _errors({"models": {"chat": {"arrivals": {"rate": 1}}}})
    assert errors == [
        'models.chat = {"arrivals": {"rate": 1}}: promptTokens and outputTokens required with a Poisson rate '
        "(a trace carries its own tokens)"
    ]


def test_bad_duration_and_weights():
    errors = _errors(
        {
            "duration": "2 weeks",
            "models": {"chat": {**BASE, "outputTokens": {"kind": "empirical", "values": [1, 2], "weights": [1]}}},
        }
    )
    assert any(e.startswith("duration = '2 weeks': must be seconds") for e in errors)
    assert any(e.startswith("models.chat.outputTokens") and "one weight per value" in e for e in errors)


def test_trace_rows_are_checked_with_their_line(tmp_path):
    good = tmp_path / "t.csv"
    good.write_text("timestampSeconds,promptTokens,outputTokens,streamed\n2.5,100,20,false\n0.5,10,5,\n")
    rows = read_trace(good, "models.m.arrivals.trace")
    assert [(r.t, r.prompt, r.output, r.streamed) for r in rows] == [(0.5, 10, 5, None), (2.5, 100, 20, False)]
    bad = tmp_path / "b.csv"
    bad.write_text("timestampSeconds,promptTokens,outputTokens\n1,100,20\n2,-3,20\n")
    with pytest.raises(ConfigError) as exc:
        read_trace(bad, "models.m.arrivals.trace")
    assert str(exc.value.problems[0]).startswith("models.m.arrivals.trace line 3 = ")
    cols = tmp_path / "c.csv"
    cols.write_text("time,prompt\n1,2\n")
    with pytest.raises(ConfigError, match="missing columns timestampSeconds, promptTokens, outputTokens"):
        read_trace(cols, "f")


def test_a_trace_profile_loads_relative_to_the_profile(tmp_path):
    (tmp_path / "t.csv").write_text("timestampSeconds,promptTokens,outputTokens\n1,100,20\n")
    (tmp_path / "p.yaml").write_text("models:\n  m:\n    arrivals: {trace: t.csv}\n")
    profile, traces = load_profile(tmp_path / "p.yaml")
    w = build_workload(profile.models["m"], 60, 4096, 0, 0, traces["m"])
    assert list(w.times) == [1.0] and list(w.prompt) == [100]


def test_spike_rate_and_thinning():
    profile = parse_profile(
        {"models": {"m": {**BASE, "arrivals": {"rate": 10, "spikes": [{"at": 100, "factor": 5, "duration": 100, "ramp": 50}]}}}}
    )
    arr = profile.models["m"].arrivals
    assert arr.rate_at(50) == 10 and arr.rate_at(125) == 30 and arr.rate_at(200) == 50 and arr.rate_at(275) == 30
    times = arrival_times(arr, 400, np.random.default_rng(1))
    base = np.sum(times < 100) / 100
    peak = np.sum((times >= 150) & (times < 250)) / 100
    assert 8 < base < 12 and 45 < peak < 55


def test_tokens_are_clipped_to_max_model_len():
    profile = parse_profile({"models": {"m": {**BASE, "promptTokens": {"kind": "constant", "value": 5000}}}})
    w = build_workload(profile.models["m"], 10, 4096, 0, 0)
    assert (w.prompt + w.output <= 4096).all()


def _stack_of(*names, sibling=None):
    from components.simulate.settings import StackSettings
    from tests.simulate.helpers import model, replace

    models = [replace(model(n), long_sibling=sibling if n == names[0] else None) for n in names]
    return StackSettings(tuple(models), (), "test")


def test_a_long_context_share_needs_the_sibling():
    from components.simulate.run import check_profile

    doc = {"models": {"chat": {**BASE, "longContext": {"share": 0.1}}}}
    with pytest.raises(ConfigError) as exc:
        check_profile(parse_profile(doc), _stack_of("chat"))
    assert str(exc.value.problems[0]) == (
        "models.chat.longContext.share = 0.1: the model has no long-context sibling "
        "(longContext in the stack file); set 0 or add one"
    )
    check_profile(parse_profile(doc), _stack_of("chat", "chat-long", sibling="chat-long"))


def test_a_run_too_large_to_hold_is_refused_before_drawing():
    from components.simulate.run import workloads

    doc = {"models": {"chat": {**BASE, "arrivals": {"rate": 100000}}}}
    with pytest.raises(ConfigError, match="above the 5,000,000 one run simulates"):
        workloads(parse_profile(doc), _stack_of("chat"), 7 * 24 * 3600, 0, {})
