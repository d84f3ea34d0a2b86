"""S7 hpa-custom-metric-is-served: an engine series spelled in a form the engine does not export.

Fixtures are minimal hand-written forms of third-party ScaledObjects (held-out set 9, now development material,
/work/eval9/PROVENANCE.md): adminless-io/aks-llm-platform gitops/apps/llm/base/scaledobject.yaml@6b5fdadb83b761da5a6
5760f608df8e13dfdbedf (``sum(vllm_num_requests_running)``) and yack300/llm-platform-on-eks k8s/vllm/keda-scaledobject.yaml
@0322d0524b7de0ddeccae0373926f118f1843cad (``sum(vllm_num_requests_waiting)``). vLLM exports the colon spelling
(vllm v0.33.0 vllm/v1/metrics/loggers.py L527/L537, components/vllm_metrics.py).
"""

import copy

from policy_fixtures import SCALED_OBJECT_TYPE, isvc_props, resource, scaled_object_props

from policies.autoscaling.custom_metric_is_served import POLICY
from policies.kube import ISVC_TYPE
from policies.reading.engine_metric_names import misspelled
from policies.registry import evaluate


def _scaled_object(query: str):
    props = scaled_object_props()
    props["spec"]["triggers"][0]["metadata"]["query"] = query
    return resource(SCALED_OBJECT_TYPE, props)


def _levels(*resources):
    # The advice on a series selected with no label matcher is another reading (tests/policies/test_policy_query_series.py).
    found = [(v.enforcement, v.message) for v in evaluate(list(resources), None, policies=[POLICY])]
    return [f for f in found if " with no label matcher " not in f[1]]


def test_underscore_spelling_of_an_exported_vllm_series_blocks_and_names_the_right_one():
    for query, right in (
        ("sum(vllm_num_requests_running)", "vllm:num_requests_running"),  # adminless-io form
        ("sum(vllm_num_requests_waiting)", "vllm:num_requests_waiting"),  # yack300 form
        ('avg(vllm_kv_cache_usage_perc{namespace="llm"})', "vllm:kv_cache_usage_perc"),
    ):
        found = _levels(_scaled_object(query))
        assert len(found) == 1, (query, found)
        level, message = found[0]
        assert level == "mandatory" and f"it exports {right}" in message, message


def test_other_colon_engines_come_from_the_engine_table():
    # SGLang exports sglang:num_queue_reqs (components/serving_engines.toml, collector.py at 001067ff).
    ((level, message),) = _levels(_scaled_object("sum(sglang_num_queue_reqs)"))
    assert level == "mandatory" and "sglang:num_queue_reqs" in message


def test_an_underscore_name_the_table_does_not_hold_is_advice():
    ((level, message),) = _levels(_scaled_object("sum(vllm_pending_requests)"))
    assert level == "advisory" and "vllm_pending_requests" in message


def test_careful_forms_stay_silent():
    for query in (
        'sum(vllm:num_requests_waiting{model_name="chat-8b"})',
        "sum(job:vllm_num_requests_waiting:sum)",  # a recording rule (level:metric:operations)
        'sum(rate(http_requests_total{app="vllm_router"}[1m]))',  # a label value, not a series
        "sum(tgi_queue_size)",  # TGI's names carry no colon
    ):
        assert _levels(_scaled_object(query)) == [], query
    assert misspelled("sum(vllm:num_requests_running)") == []


def test_kserve_external_metric_query_is_read():
    props = isvc_props()
    props["spec"]["predictor"]["autoScaling"] = {
        "metrics": [
            {
                "type": "External",
                "external": {
                    "metric": {"backend": "prometheus", "query": "sum(vllm_num_requests_waiting)"},
                    "target": {"type": "Value", "value": "4"},
                },
            }
        ]
    }
    found = [m for lvl, m in _levels(resource(ISVC_TYPE, copy.deepcopy(props))) if "does not export" in m]
    assert found and "vllm:num_requests_waiting" in found[0]
