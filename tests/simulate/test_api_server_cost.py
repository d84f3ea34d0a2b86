"""What benchmarks/api_server_cost.py measured of vLLM 0.11.0's API server (benchmarks/data/api_server_cost.json), and
what the simulator's API-server constants (components/simulate/engine.py) say about it: the measurement is evidence
read by these tests, not by the simulator."""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path

import pytest

from components.simulate import engine

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "benchmarks" / "data" / "api_server_cost.json").read_text())
POINTS = json.loads((ROOT / "benchmarks" / "data" / "fidelity_points.json").read_text())["points"]


def _script():
    spec = importlib.util.spec_from_file_location("api_server_cost", ROOT / "benchmarks" / "api_server_cost.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


COST = _script()
PATHS = COST.path_costs(DATA)


def test_the_measurement_is_vllm_0110_with_every_piece_the_script_times():
    assert DATA["vllm"] == "0.11.0" and DATA["packages"]["vllm"] == "0.11.0"
    for name in ("qwen3", "deepseek-r1"):
        assert set(DATA["jinja"][name]) >= {
            "validate",
            "content_format",
            "parse_messages",
            "template_parse",
            "template_render",
            "apply_hf_chat_template",
            "tokenize",
            "sampling_params",
            "processor_params",
            "engine_request",
            "output_state",
        }
        assert DATA["templates"][name]["chars"] == DATA["jinja"][name]["template_chars"]
    assert set(DATA["harmony"]) >= {"harmony_render", "harmony_parse"}
    assert set(DATA["per_token"]) == {"output_processor", "sse_chunk"}
    assert sorted(h["tokens"] for h in DATA["http"]) == [4, 64]
    assert DATA["burst"]["requests"] == 1000
    # The stored summary is what path_costs computes from the pieces.
    assert DATA["paths"] == PATHS


def test_the_uncached_template_parse_is_most_of_0110s_jinja_path():
    """0.11.0 parses the whole chat template per request (entrypoints/chat_utils.py 1590); everything else the API
    server does for a request, HTTP included, is a tenth of it or less."""
    for name in ("qwen3", "deepseek-r1"):
        parsed, cached = PATHS[f"jinja-0.11.0/{name}"]["per_request"], PATHS[f"jinja-cached/{name}"]["per_request"]
        assert parsed > 8 * cached, name
        assert DATA["jinja"][name]["template_parse"] > 0.85 * parsed, name
    # Once the parse is cached (0.11.1 on), the paths differ by less than 2x: no renderer costs an order more.
    others = [PATHS[k]["per_request"] for k in ("jinja-cached/qwen3", "jinja-cached/deepseek-r1", "harmony", "completions")]
    assert max(others) < 2 * min(others)
    assert max(others) < 1500  # microseconds, on the measuring machine


def _published(pid_part: str) -> list[float]:
    return [p["published"]["req_per_s"] for p in POINTS if pid_part in p["id"]]


def test_no_one_host_factor_makes_the_api_server_bound_both_burst_families():
    """The 0.11.0 Qwen3-235B-FP8 burst on H100 (random 128-token prompts, 4-token answers, 1,000 at once) published
    161 req/s through the Jinja path: the points' host runs that path at most 1/161 s a request, so its CPU is at least
    this much faster than the measuring machine's. At that speed the harmony path lets in several times what the
    gpt-oss bursts of the same page published: those are bounded by something other than the API server's request
    path, and the fitted FRONTEND_SECONDS is not that path's cost."""
    (qwen,) = _published("h100-qwen3-235b-a22b-fp8-tp4-random128-4")
    per_request_s = (PATHS["jinja-0.11.0/qwen3"]["per_request"] + 4 * PATHS["jinja-0.11.0/qwen3"]["per_token"]) * 1e-6
    host_factor = (1 / qwen) / per_request_s
    assert host_factor < 0.7
    harmony_s = (PATHS["harmony"]["per_request"] + 4 * PATHS["harmony"]["per_token"]) * 1e-6 * host_factor
    gpt_oss = _published("gpt-oss-20b-tp1-random128-4") + _published("gpt-oss-120b-tp2-random128-4")
    assert len(gpt_oss) == 3
    assert 1 / harmony_s > 4 * max(gpt_oss)
    # The client (vLLM's benchmark client, 1,000 requests at once) costs less than a millisecond a request here.
    assert DATA["burst"]["client_per_request"] < 1000
    # The fitted per-request time is many times the measured path at that host speed (the parse aside).
    assert engine.FRONTEND_SECONDS > 5 * PATHS["jinja-cached/qwen3"]["per_request"] * 1e-6 * host_factor


def test_a_streamed_token_costs_the_api_server_tens_of_microseconds():
    for path in PATHS.values():
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
