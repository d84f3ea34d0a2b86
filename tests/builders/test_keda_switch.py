"""Switching a model from the Prometheus Adapter's HPA to KEDA succeeds in one `pulumi up`.

Pulumi creates the new ScaledObject before it deletes the old HPA. KEDA's validating webhook, at the pinned
v2.20.2, lists the HPAs of the ScaledObject's namespace and refuses it when one it does not own scales the same
target (kedacore/keda apis/keda/v1alpha1/scaledobject_webhook.go:256-313, verifyHpas). ``keda_admits`` below
follows those lines; the tests run it on what the builders render for the model before and after the switch.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import pytest

from components.builders import autoscaling
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests.conftest import stack_config

# scaledobject_types.go:55 and :57.
TRANSFER = "scaledobject.keda.sh/transfer-hpa-ownership"
VALIDATIONS = "validations.keda.sh/hpa-ownership"


def _gvk(ref: Mapping[str, Any]) -> str:
    # gvkr_types.go:47-49, GVKString: "<group>/<version>.<kind>".
    return f"{ref['apiVersion']}.{ref['kind']}"


def keda_admits(so: Mapping[str, Any], hpas: list[Mapping[str, Any]]) -> Optional[str]:
    """None when KEDA's webhook admits ``so`` beside ``hpas`` (same namespace), else its error message."""
    target = so["spec"]["scaleTargetRef"]
    gvk = _gvk(target)
    for hpa in hpas:
        if (hpa["metadata"].get("annotations") or {}).get(VALIDATIONS) == "false":  # :274
            continue
        ref = hpa["spec"]["scaleTargetRef"]
        if _gvk(ref) != gvk or ref["name"] != target["name"]:  # :286-287
            continue
        owners = hpa["metadata"].get("ownerReferences") or []
        if any(o["kind"] == so["kind"] and o["name"] == so["metadata"]["name"] for o in owners):  # :289-296
            continue
        if (so["metadata"].get("annotations") or {}).get(TRANSFER) == "true":  # :298
            config = ((so["spec"].get("advanced") or {}).get("horizontalPodAutoscalerConfig") or {}).get("name")
            if config == hpa["metadata"]["name"]:  # :299-300
                continue
            return (
                f"the existing hpa '{hpa['metadata']['name']}' for workload '{target['name']}' of type '{gvk}' must be "
                "specified by name in advanced settings to enable ownership transfer"
            )
        return f"the workload '{target['name']}' of type '{gvk}' is already managed by the hpa '{hpa['metadata']['name']}'"
    return None


@pytest.fixture(scope="module")
def switched():
    """qwen3-32b of prod (KEDA) and the same model as it was on the adapter, with the objects each renders."""
    raw = stack_config("prod")
    cfg = load_stack_config(raw)
    after = next(m for m in cfg.models if m.name == "qwen3-32b")
    assert after.autoscaling.backend == "keda"
    before = after.model_copy(update={"autoscaling": after.autoscaling.model_copy(update={"backend": "prometheus-adapter"})})
    plan = plan_stack(cfg)["qwen3-32b"]
    hpa = autoscaling.horizontal_pod_autoscaler(before, plan, "llm")
    so = autoscaling.scaled_object(after, plan, "llm", "http://prometheus:9090")
    return hpa, so


def test_the_scaled_object_is_admitted_beside_the_old_hpa(switched):
    hpa, so = switched
    assert hpa["spec"]["scaleTargetRef"] == so["spec"]["scaleTargetRef"]  # the same predictor Deployment
    assert keda_admits(so, [hpa]) is None


def test_without_the_annotation_keda_refuses_the_switch(switched):
    hpa, so = switched
    bare = {**hpa, "metadata": {k: v for k, v in hpa["metadata"].items() if k != "annotations"}}
    assert keda_admits(so, [bare]) == (
        "the workload 'qwen3-32b-predictor' of type 'apps/v1.Deployment' is already managed by the hpa 'qwen3-32b'"
    )


def test_every_adapter_hpa_carries_it():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    for m in cfg.models:
        if m.autoscaling.backend == "prometheus-adapter" and m.distributed is None:
            hpa = autoscaling.horizontal_pod_autoscaler(m, plans[m.name], "llm")
            assert hpa["metadata"]["annotations"] == {VALIDATIONS: "false"}, m.name
