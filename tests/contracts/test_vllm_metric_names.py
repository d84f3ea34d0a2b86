"""Every vLLM series an alert, adapter rule or KEDA trigger names exists in the release the image names.

The table (components/vllm_metrics.py) was read from each release's wheel, vllm/v1/metrics/loggers.py;
these tests walk what the plan renders for every shipped stack.
"""

from __future__ import annotations

import json

import pytest
import yaml

from components import vllm_metrics as metrics
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.vllm_flags import release_of
from tests.conftest import stack_config


def _exprs(obj):
    """Every string inside a rendered object that names a vllm: series."""
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _exprs(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _exprs(v)
    elif isinstance(obj, str) and "vllm:" in obj:
        yield obj


@pytest.mark.parametrize("name", ["dev", "staging", "prod"])
def test_every_rendered_vllm_series_exists_in_the_models_release(name, planned):
    out = planned(name).out  # python -m stacks plan NAME --format json, exit 0 (tests.conftest.planned)
    cfg = load_stack_config(stack_config(name))
    versions = {release_of(m.image).version for m in cfg.models}
    seen: set[str] = set()
    files = [*(out / "kubernetes").rglob("*.yaml"), *(out / "helm").rglob("*.yaml")]
    for f in files:
        for doc in yaml.safe_load_all(f.read_text()):
            for expr in _exprs(doc):
                for series in metrics.series_in(expr):
                    seen.add(series)
                    for v in versions:
                        assert metrics.has_series(series, v), f"{f.name}: {series} is not exported by vLLM {v}"
    # The queue, KV cache, preemption, TTFT and admission-rejection alerts and the adapter's in-flight rule.
    assert {
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
        "vllm:num_preemptions_total",
        "vllm:time_to_first_token_seconds_bucket",
        "vllm:admission_rejections_total",
    } <= seen


def test_admission_rejections_exists_in_033_as_a_counter():
    # vllm 0.33.0 vllm/v1/metrics/loggers.py:847 self._counter_cls(name="vllm:admission_rejections"): scraped as _total.
    fam = metrics.family_of("vllm:admission_rejections_total")
    assert (fam.kind, fam.first_release, fam.line) == ("counter", "0.32.0", 847)
    assert metrics.has_series("vllm:admission_rejections_total", "0.33.0")
    assert not metrics.has_series("vllm:admission_rejections_total", "0.31.0")
    assert "vllm:admission_rejections" not in metrics.SERIES  # only the _total series is scraped


def test_an_older_release_gets_no_alert_on_a_series_it_lacks(prod_config):
    from components.builders.monitoring import alert_rules

    raw = json.loads(json.dumps(prod_config))
    raw["llm-serving:models"][0]["image"] = "vllm/vllm-openai:v0.30.0"
    cfg = load_stack_config(raw)
    plans = plan_stack(cfg)
    m = cfg.models[0]
    names = [r["alert"] for r in alert_rules(m, plans[m.name], "llm", cfg.monitoring.alerts)]
    assert "LlmAdmissionRejections" not in names and "LlmKvCacheNearlyFull" in names


def test_unknown_series_is_refused():
    with pytest.raises(KeyError, match="not in the vLLM metric table"):
        metrics.has_series("vllm:made_up_total", "0.33.0")
