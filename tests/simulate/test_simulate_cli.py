"""`python -m stacks simulate`: exit codes, determinism (same seed, same bytes), what the report carries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stacks.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
STEADY = str(ROOT / "examples" / "traffic" / "steady.yaml")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "simulate", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The same short simulation twice, with --out."""
    outs = []
    for i in range(2):
        out = tmp_path_factory.mktemp(f"sim{i}")
        proc = _cli("prod", "--traffic", STEADY, "--duration", "90s", "--seed", "7", "--format", "json", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        outs.append((proc.stdout, out))
    return outs


def test_same_seed_gives_identical_bytes(two_runs):
    (a, out_a), (b, out_b) = two_runs
    assert a == b
    names = sorted(p.name for p in out_a.iterdir())
    assert names == ["chat-8b.png", "llama-405b.png", "llama-70b.png", "qwen3-32b.png", "report.json", "report.md"]
    for name in names:
        assert (out_a / name).read_bytes() == (out_b / name).read_bytes(), name


def test_png_carries_no_software_or_date_chunk(two_runs):
    data = (two_runs[0][1] / "chat-8b.png").read_bytes()
    assert data.startswith(b"\x89PNG") and b"matplotlib" not in data and b"Creation Time" not in data


def test_report_has_both_runs_and_every_figure(two_runs):
    report = json.loads(two_runs[0][0])
    assert set(report["runs"]) == {"derived", "seed_defaults"}
    m = report["runs"]["derived"]["chat-8b"]
    for key in (
        "ttft_s",
        "tpot_s",
        "e2e_s",
        "output_tokens_per_s",
        "errors_503",
        "errors_504",
        "cut_streams",
        "cut_by_alb_idle",
        "cut_by_route_timeout",
        "cut_by_drain",
        "preemptions",
        "peak_kv_usage",
        "replicas",
        "time_to_scale_out_s",
        "series",
    ):
        assert key in m
    assert len(m["series"]["t"]) == len(m["series"]["replicas_ready"]) > 0
    # The derived run reads the rendered settings; the defaults run the seeds'.
    # The rendered --max-num-queued-reqs: chat-8b's 88 running + its queue of 22 (vLLM counts both against it).
    assert report["settings"]["derived"]["chat-8b"]["max_num_seqs"] == 88
    assert report["settings"]["derived"]["chat-8b"]["max_num_queued_reqs"] == 88 + 22
    assert report["settings"]["derived"]["chat-8b"]["alb_idle_s"] == 615
    assert report["settings"]["seed defaults"]["chat-8b"]["alb_idle_s"] == 60
    assert report["settings"]["seed defaults"]["chat-8b"]["scaling"] == "cpu"
    assert report["settings"]["seed defaults"]["chat-8b"]["max_num_queued_reqs"] is None
    md = (two_runs[0][1] / "report.md").read_text()
    assert "![chat-8b](chat-8b.png)" in md


@pytest.mark.parametrize(
    "args, message",
    [
        (["prod", "--traffic", "missing.yaml"], "--traffic = 'missing.yaml': no such file"),
        (["prod", "--traffic", STEADY, "--duration", "soon"], "--duration = 'soon': must be seconds"),
        (["prod", "--traffic", STEADY, "--seed", "x"], "--seed = 'x': must be an integer"),
    ],
)
def test_bad_input_exits_2_naming_the_flag(args, message, capsys):
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_profile_naming_an_unknown_model_exits_2(tmp_path, capsys):
    bad = tmp_path / "p.yaml"
    bad.write_text(
        "models:\n  nope:\n    arrivals: {rate: 1}\n    promptTokens: {kind: constant, value: 3}\n"
        "    outputTokens: {kind: constant, value: 3}\n"
    )
    assert main(["simulate", "prod", "--traffic", str(bad), "--duration", "10s"]) == 2
    assert "models.nope: the stack serves no model of that name" in capsys.readouterr().err


def test_invalid_yaml_exits_2(tmp_path, capsys):
    bad = tmp_path / "p.yaml"
    bad.write_text("models: [\n")
    assert main(["simulate", "prod", "--traffic", str(bad)]) == 2
    assert "is not valid YAML" in capsys.readouterr().err
