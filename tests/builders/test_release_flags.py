"""Engine flags per release: an image gets only the flags and environment variables its vLLM release has,
and the pod's drain / keep-alive numbers are the timeout chain's."""

from __future__ import annotations

import pytest

from components.builders import vllm_service as build
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError
from components.vllm_flags import first_release, has, release_of
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


def plan_with(image=None, **engine):
    cfg = stack_config("dev")
    model = cfg["llm-serving:models"][0]
    if image:
        model["image"] = image
    model["engine"].update(engine)
    stack = load_stack_config(cfg)
    m = stack.models[0]
    plan = plan_stack(stack)[m.name]
    return m, plan, build.inference_service(m, plan, stack.namespace, m.pool, "hf-token")


def rendered_names(isvc):
    c = isvc["spec"]["predictor"]["containers"][0]
    flags = [a.split("=", 1)[0] for a in c["args"] if a.startswith("--")]
    envs = [e["name"] for e in c["env"] if e["name"].startswith("VLLM_")]
    return c, flags, envs


@pytest.mark.parametrize("tag", ["v0.9.1", "v0.12.0", "v0.16.0", "v0.18.0", "v0.28.0", "v0.29.0", "v0.33.0"])
def test_every_rendered_flag_and_env_exists_in_the_release(tag):
    _, plan, isvc = plan_with(f"vllm/vllm-openai:{tag}")
    _, flags, envs = rendered_names(isvc)
    assert plan.release.version == tag[1:]
    missing = [n for n in flags + envs if not has(n, plan.release.version)]
    assert missing == []
    assert validate_object(isvc) == []


def test_v0_12_gets_only_what_its_parser_accepts():
    m, plan, isvc = plan_with("vllm/vllm-openai:v0.12.0")
    c, flags, envs = rendered_names(isvc)
    assert "--max-num-queued-reqs" not in flags and plan.max_num_queued_reqs is None
    assert "--shutdown-timeout" not in flags
    assert "--disable-access-log-for-endpoints" not in flags
    assert envs == ["VLLM_HTTP_TIMEOUT_KEEP_ALIVE"]
    # No server drain in 0.12: SIGTERM cancels the server, so the preStop sleep carries the request.
    assert c["lifecycle"]["preStop"]["sleep"]["seconds"] == 15 + 300
    assert isvc["spec"]["predictor"]["terminationGracePeriodSeconds"] == 330
    reasons = {d.setting: d.reason for d in plan.derivations}
    assert reasons["maxNumBatchedTokens"].startswith("vLLM 0.12.0's default for L40S")
    assert reasons["maxNumQueuedReqs"].startswith("vLLM 0.12.0 has no --max-num-queued-reqs (first in 0.29.0)")
    assert "vLLM 0.33" not in " ".join(reasons.values())


def test_v0_33_gets_admission_control_and_a_server_drain():
    _, plan, isvc = plan_with()
    c, flags, envs = rendered_names(isvc)
    # vLLM counts running requests against the flag (config/scheduler.py, 0.33.0): the batch plus the queue.
    assert f"--max-num-queued-reqs={plan.max_num_seqs + plan.max_num_queued_reqs}" in c["args"]
    assert "--shutdown-timeout=300" in c["args"]
    assert "--disable-access-log-for-endpoints=/health,/metrics" in c["args"]
    assert envs == ["VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "VLLM_ENGINE_READY_TIMEOUT_S"]
    assert {d.setting: d.reason for d in plan.derivations}["maxNumBatchedTokens"].startswith("vLLM 0.33.0's default")


def test_each_consumer_of_the_chain_agrees_with_it():
    _, plan, isvc = plan_with()
    chain = plan.timeouts
    pred = isvc["spec"]["predictor"]
    c = pred["containers"][0]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert pred["terminationGracePeriodSeconds"] == chain.termination_grace_seconds == plan.termination_grace_seconds
    assert c["lifecycle"]["preStop"]["sleep"]["seconds"] == chain.pre_stop_seconds == plan.pre_stop_seconds
    # No KServe layer: Standard mode reads spec.predictor.timeout only for a Gateway API HTTPRoute
    # (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/ingress/httproute_reconciler.go:277).
    assert "timeout" not in pred
    assert env["VLLM_HTTP_TIMEOUT_KEEP_ALIVE"] == str(chain.vllm_keep_alive_seconds)
    assert env["VLLM_ENGINE_READY_TIMEOUT_S"] == str(chain.engine_ready_timeout_seconds)
    assert f"--shutdown-timeout={chain.shutdown_timeout_seconds}" in c["args"]
    assert plan.report()["timeouts"]["termination_grace_seconds"] == chain.termination_grace_seconds


def test_an_explicit_queue_on_a_release_without_admission_control_is_a_config_error():
    with pytest.raises(ConfigError) as exc:
        plan_with("vllm/vllm-openai:v0.12.0", maxNumQueuedReqs=8)
    assert str(exc.value.problems[0]) == (
        "models[0].engine.maxNumQueuedReqs = 8: vLLM 0.12.0 has no --max-num-queued-reqs (first in vLLM 0.29.0); "
        "use an image of that release or newer"
    )


def test_a_release_without_a_settable_keep_alive_is_refused():
    with pytest.raises(ConfigError) as exc:
        plan_with("vllm/vllm-openai:v0.9.0")
    assert "VLLM_HTTP_TIMEOUT_KEEP_ALIVE (first in vLLM 0.9.1)" in str(exc.value)
    assert "502" in str(exc.value)


def test_a_release_older_than_the_table_is_refused():
    with pytest.raises(ConfigError, match=r"models\[0\].image = 'vllm/vllm-openai:v0.7.3': names vLLM 0.7.3, older than 0.8.5"):
        plan_with("vllm/vllm-openai:v0.7.3")


def test_tags_without_a_release_get_the_newest_table_and_say_so():
    release = release_of("vllm/vllm-openai:latest")
    assert (release.version, release.exact) == ("0.33.0", False)
    assert release_of("vllm/vllm-openai:v0.40.1").version == "0.33.0"
    assert release_of("vllm/vllm-openai:v0.12").version == "0.12.0"


def test_first_releases_read_from_the_wheels():
    assert first_release("--max-num-queued-reqs") == "0.29.0"
    assert first_release("--shutdown-timeout") == "0.18.0"
    assert first_release("--disable-access-log-for-endpoints") == "0.16.0"
    assert first_release("--load-format") == "0.8.5"
    with pytest.raises(KeyError, match="not in the vLLM flag table"):
        first_release("--no-such-flag")


def test_max_request_seconds_beyond_the_alb_is_a_config_error():
    cfg = stack_config("dev")
    cfg["llm-serving:models"][0]["slo"]["maxRequestSeconds"] = 5000
    with pytest.raises(ConfigError) as exc:
        load_stack_config(cfg)
    text = str(exc.value)
    assert "models[0].slo.maxRequestSeconds = 5000: no timeout chain can serve it: the ALB idle timeout" in text
    assert "1-4000 s" in text and "at most 3585 s" in text
