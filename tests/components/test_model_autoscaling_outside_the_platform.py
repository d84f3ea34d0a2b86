"""ModelAutoscaling in another stack: it refuses an HPA on a metric nothing in that stack serves, and names the fix."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from components.autoscaling import MetricsStack, ModelAutoscalingArgs
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests.conftest import stack_config


@pytest.fixture(scope="module")
def dev():
    cfg = load_stack_config(stack_config("dev"))
    model = cfg.models[0]
    assert model.autoscaling.backend == "prometheus-adapter" and model.distributed is None
    return model, plan_stack(cfg)[model.name]


def serving(*names: str) -> MetricsStack:
    """A MetricsStack as the platform leaves it (its models' names), without registering resources."""
    stack = MetricsStack.__new__(MetricsStack)
    stack.model_names = names
    return stack


def test_an_hpa_on_an_unserved_metric_is_refused_naming_the_fixes(dev):
    model, plan = dev
    with pytest.raises(ValidationError) as err:
        ModelAutoscalingArgs(model=model, plan=plan, namespace="team")
    text = str(err.value)
    assert (
        "model 'chat-8b': autoscaling.backend prometheus-adapter renders an HPA on the Pods metric "
        "vllm_requests_in_flight_chat_8b, which nothing in this stack serves (no metrics_stack is given), so it "
        "would never scale."
    ) in " ".join(text.split())
    assert "a MetricsStack whose models include 'chat-8b'" in text
    assert "builders.prometheus_adapter.adapter_rule" in text and "metric_served_elsewhere=True" in text
    assert "autoscaling.backend: keda" in text


def test_a_metrics_stack_that_serves_other_models_does_not_count(dev):
    model, plan = dev
    with pytest.raises(ValidationError, match=r"the metrics_stack given serves other-model"):
        ModelAutoscalingArgs(model=model, plan=plan, namespace="team", metrics_stack=serving("other-model"))


@pytest.mark.parametrize("extra", [{"metrics_stack": "serving"}, {"metric_served_elsewhere": True}])
def test_a_served_metric_renders(dev, extra):
    model, plan = dev
    if "metrics_stack" in extra:
        extra = {"metrics_stack": serving("chat-8b")}
    assert ModelAutoscalingArgs(model=model, plan=plan, namespace="team", **extra).model.name == "chat-8b"


def test_keda_needs_no_adapter(dev):
    model, plan = dev
    keda = model.model_copy(update={"autoscaling": model.autoscaling.model_copy(update={"backend": "keda"})})
    assert ModelAutoscalingArgs(model=keda, plan=plan, namespace="team").model.autoscaling.backend == "keda"
