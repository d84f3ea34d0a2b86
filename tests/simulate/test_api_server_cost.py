"""What benchmarks/api_server_cost.py measured of vLLM 0.10.2's, 0.11.0's and 0.11.1's API server
(benchmarks/data/api_server_cost-<release>.json), and
what the simulator's API-server constants (components/simulate/engine.py) say about it: the measurement is evidence
read by these tests, not by the simulator."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from components.simulate import engine
from tests.simulate.helpers import load_benchmark, load_fidelity

ROOT = Path(__file__).resolve().parents[2]
POINTS = json.loads((ROOT / "benchmarks" / "data" / "fidelity_points.json").read_text())["points"]
RELEASES = ("0.10.2", "0.11.0", "0.11.1")
DATA = {r: json.loads((ROOT / "benchmarks" / "data" / f"api_server_cost-{r}.json").read_text()) for r in RELEASES}


COST = load_benchmark("api_server_cost")
PATHS = {r: COST.path_costs(d) for r, d in DATA.items()}
PIECES = {
    "validate",
    "content_format",
    "parse_messages",
    "template_parse",
    "template_render",
    "apply_hf_chat_template",
    "tokenize",
    "sampling_params",
    "process_inputs",
    "engine_request",
    "output_state",
}


@pytest.mark.parametrize("release", RELEASES)
def test_each_file_is_its_release_with_every_piece_the_script_times(release):
    data = DATA[release]
    assert data["vllm"] == release and data["packages"]["vllm"] == release
    for name in ("qwen3", "deepseek-r1"):
        assert set(data["jinja"][name]) >= PIECES
        assert data["templates"][name]["chars"] == data["jinja"][name]["template_chars"]
    assert set(data["harmony"]) >= {"harmony_render", "harmony_parse"}
    assert set(data["per_token"]) == {"output_processor", "sse_chunk"}
    assert sorted(h["tokens"] for h in data["http"]) == [4, 64]
    assert data["burst"]["requests"] == 1000
    # The stored summary is what path_costs computes from the pieces.
    assert data["paths"] == PATHS[release]


@pytest.mark.parametrize("release", RELEASES)
def test_the_template_parse_is_paid_per_request_only_where_fidelity_replays_it(release):
    """0.11.0 parses the chat template per request (entrypoints/chat_utils.py 1590), 0.11.1 finds the parse in its
    lru_cache (1535) and 0.10.2 has no such call: measured, 0.11.0's parse is milliseconds and the others' nothing, which
    is the rule benchmarks/fidelity.py release_frontend applies (template_seconds for 0.11.0 Jinja chat runs alone)."""
    fidelity = load_fidelity()
    point = {"release": release, "engine": {"flags": ""}, "workload": {"chat_template": {"renderer": "jinja: the model's"}}}
    replayed = fidelity.release_frontend(point)["template_seconds"] > 0
    for name in ("qwen3", "deepseek-r1"):
        parse = DATA[release]["jinja"][name]["template_parse"]
        assert (parse is not None and parse > 1000) is replayed, (release, name)
        if replayed:
            assert parse > 0.85 * PATHS[release][f"jinja/{name}"]["per_request"]


def test_without_the_parse_no_request_path_costs_an_order_more_than_another():
    """Every release's paths but 0.11.0's Jinja one are within 2x of each other and under 1.5 ms here."""
    paths = [v["per_request"] for r, p in PATHS.items() for k, v in p.items() if not (r == "0.11.0" and k.startswith("jinja"))]
    assert max(paths) < 2 * min(paths)
    assert max(paths) < 1500  # microseconds, on the measuring machine


def _published(pid_part: str) -> list[float]:
    return [p["published"]["req_per_s"] for p in POINTS if pid_part in p["id"]]


def test_no_one_host_factor_makes_the_api_server_bound_both_burst_families():
    """The 0.11.0 Qwen3-235B-FP8 burst on H100 (random 128-token prompts, 4-token answers, 1,000 at once) published
    161 req/s through the Jinja path: the points' host runs that path in at most 1/161 s a request, so its CPU is at
    least this much faster than the measuring machine's. At that speed the harmony path lets in several times what the
    gpt-oss bursts of the same page published: those are bounded by something other than the API server's request
    path, and the fitted FRONTEND_SECONDS is not that path's cost."""
    paths = PATHS["0.11.0"]
    (qwen,) = _published("h100-qwen3-235b-a22b-fp8-tp4-random128-4")
    per_request_s = (paths["jinja/qwen3"]["per_request"] + 4 * paths["jinja/qwen3"]["per_token"]) * 1e-6
    host_factor = (1 / qwen) / per_request_s
    assert host_factor < 0.7
    harmony_s = (paths["harmony"]["per_request"] + 4 * paths["harmony"]["per_token"]) * 1e-6 * host_factor
    gpt_oss = _published("gpt-oss-20b-tp1-random128-4") + _published("gpt-oss-120b-tp2-random128-4")
    assert len(gpt_oss) == 3
    assert 1 / harmony_s > 4 * max(gpt_oss)
    # vLLM's own benchmark client, 1,000 requests at once, costs under a millisecond a request here.
    assert all(d["burst"]["client_per_request"] < 1000 for d in DATA.values())
    # The fitted per-request time is many times the measured path without the parse at that host speed.
    assert engine.FRONTEND_SECONDS > 5 * PATHS["0.11.1"]["jinja/qwen3"]["per_request"] * 1e-6 * host_factor


def test_a_streamed_token_costs_the_api_server_tens_of_microseconds():
    for paths in PATHS.values():
        for path in paths.values():
            assert 10 < path["per_token"] < 50


def test_the_quicktok_readers_follow_the_packages_layout(tmp_path):
    """quicktok-v1 0.4.0's data files: .vocab is a u32 count then (u16 length, bytes, u32 rank) per token; .special
    a u32 count then (u32 id, u16 length, bytes)."""
    vocab = struct.pack("<I", 2) + struct.pack("<H", 1) + b"!" + struct.pack("<I", 0)
    vocab += struct.pack("<H", 3) + b"abc" + struct.pack("<I", 1)
    (tmp_path / "v.vocab").write_bytes(vocab)
    assert COST._read_ranks(tmp_path / "v.vocab") == {b"!": 0, b"abc": 1}
    special = struct.pack("<I", 1) + struct.pack("<IH", 151643, 13) + b"<|endoftext|>"
    (tmp_path / "s.special").write_bytes(special)
    assert COST._read_special(tmp_path / "s.special") == {"<|endoftext|>": 151643}
    COST._write_tiktoken({b"abc": 1, b"!": 0}, tmp_path / "t.tiktoken")
    assert (tmp_path / "t.tiktoken").read_text() == "IQ== 0\nYWJj 1\n"


@pytest.mark.parametrize("output_len", [4, 128])
def test_the_payload_is_the_011_bench_clients(output_len):
    """0.11.0 benchmarks/lib/endpoint_request_func.py 237-268 (openai-chat): the prompt as one text part."""
    p = COST.chat_payload("hi", output_len)
    assert p["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert (p["temperature"], p["max_completion_tokens"], p["stream"]) == (0.0, output_len, True)
    assert p["stream_options"] == {"include_usage": True}
