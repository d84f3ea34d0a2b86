"""What benchmarks/fidelity.py replays of each release's request path: async scheduling and the tokenizer's batching
wait (components/simulate/engine.py ASYNC_SCHEDULING and MICROBATCH_TOKENIZER_WAIT_S), as the releases' wheels show."""

from __future__ import annotations

import pytest
import simpy

from components.simulate import engine
from tests.simulate.helpers import load_fidelity, replica

fidelity = load_fidelity()


def _point(release, flags="", pp=1, renderer=None) -> dict:
    p = {"engine": {"flags": flags}, "pp": pp, "workload": {}}
    if renderer is not None:
        p["workload"]["chat_template"] = {"renderer": renderer}
    if release is not None:
        p["release"] = release
    return p


@pytest.mark.parametrize(
    ("release", "flags", "pp", "async_on"),
    [
        # vllm/config/scheduler.py ``async_scheduling: bool = False`` through 0.13.0 (0.11.0:138, 0.13.0:133) ...
        ("0.10.2", "vllm serve m", 1, False),
        ("0.11.0", "vllm serve m", 1, False),
        # ... unless asked for, which 0.11.0 refuses with pipeline parallelism (engine/arg_utils.py:1295).
        ("0.11.0", "vllm serve m --async-scheduling -tp 2", 1, True),
        ("0.10.2", "vllm serve m --async-scheduling -pp 2", 2, False),
        # ``default=None`` from 0.14.0 and config/vllm.py turns it on (0.14.0:628, 0.19.0:788, 0.33.0:1719).
        ("0.15.1", "", 1, True),
        ("0.18.0", "--enforce-eager", 1, True),
        ("0.19.0", "", 1, True),
        (None, "", 1, False),  # the V0-era earlier points
    ],
)
def test_async_scheduling_by_release(release, flags, pp, async_on):
    assert fidelity.release_frontend(_point(release, flags, pp))["async_scheduling"] is async_on


@pytest.mark.parametrize(
    ("release", "wait"),
    [
        # AsyncMicrobatchTokenizer(batch_wait_timeout_s=0.002): 0.10.0 vllm/utils/__init__.py:521, 0.11.0 :477,
        # 0.15.1 vllm/utils/async_utils.py:72, 0.19.0 :36; not in 0.29.0 or 0.33.0 (renderers/base.py thread pool).
        ("0.10.1", 0.002),
        ("0.11.0", 0.002),
        ("0.19.0", 0.002),
        ("0.29.0", 0.0),
        ("0.33.0", 0.0),
        (None, 0.0),
    ],
)
def test_tokenizer_wait_by_release(release, wait):
    assert fidelity.release_frontend(_point(release))["tokenizer_wait_seconds"] == wait


@pytest.mark.parametrize(
    ("release", "renderer", "parsed"),
    [
        # 0.11.0 entrypoints/chat_utils.py resolve_chat_template_kwargs parses the Jinja template per request (1590)...
        ("0.11.0", "jinja: the model's Hugging Face chat template", True),
        # ... not for gpt-oss (openai_harmony, serving_chat.py 146) nor the completions endpoint (no template) ...
        ("0.11.0", "harmony: openai_harmony", False),
        ("0.11.0", None, False),
        # ... 0.10.2 has no such call, and 0.11.1 onwards cache it (chat_utils.py 1535 lru_cache; 0.18.0 renderers/hf.py).
        ("0.10.2", "jinja: the model's Hugging Face chat template", False),
        ("0.11.1", "jinja: the model's Hugging Face chat template", False),
        ("0.18.0", "jinja: the model's Hugging Face chat template", False),
    ],
)
def test_template_parse_by_release_and_renderer(release, renderer, parsed):
    got = fidelity.release_frontend(_point(release, renderer=renderer))["template_seconds"]
    assert got == (engine.JINJA_PARSE_SECONDS if parsed else 0.0)


def test_a_stated_async_scheduling_wins_and_the_counted_points_agree_with_their_release():
    """The data file states each point's async scheduling with its source; where it does, that is what is replayed,
    and it agrees with the release rule above for every counted point but the pipeline-parallel one."""
    assert fidelity.release_frontend({**_point("0.19.0"), "engine": {"async_scheduling": False}})["async_scheduling"] is False
    data = fidelity.json.loads(fidelity.POINTS.read_text())
    for p in data["points"]:
        stated = p["engine"]["async_scheduling"]
        derived = fidelity.release_frontend({**p, "engine": {**p["engine"], "async_scheduling": None}})["async_scheduling"]
        assert fidelity.release_frontend(p)["async_scheduling"] is (stated and p.get("pp", 1) == 1), p["id"]
        if p.get("pp", 1) == 1:
            assert derived is stated, p["id"]


def test_the_stacks_pinned_release_schedules_asynchronously():
    """The stacks pin vLLM 0.33.0, where async scheduling is on unless something disables it (config/vllm.py
    1685-1719: pooling models, executors without it); a Replica starts with it, and without the tokenizer wait."""
    assert engine.ASYNC_SCHEDULING is True
    assert engine.MICROBATCH_TOKENIZER_WAIT_S == 0.002
    env = simpy.Environment()
    rep = replica(env)
    assert rep.async_scheduling and rep.tokenizer_wait_seconds == 0.0 and rep.template_seconds == 0.0
    # A pipeline-parallel replica: its PP step is already the wait for one pass of the pipeline.
    rep.roof.pp = 2
    assert not engine.Replica(env, 2, rep.roof, 4, 512, 100, 16, None, lambda r: None, lambda r: None).async_scheduling
