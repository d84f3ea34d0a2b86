"""Switching a model between the Prometheus Adapter's HPA and KEDA in one `pulumi up`, with KEDA's guard kept on.

KEDA's validating webhook, at the pinned v2.20.2, lists the HPAs of the ScaledObject's namespace and refuses it when one
it does not own scales the same target (kedacore/keda apis/keda/v1alpha1/scaledobject_webhook.go:256-313, verifyHpas).
``keda_admits`` below follows those lines. The HPA and the ScaledObject are one Pulumi resource across a switch
(components/autoscaling.py _backend_switch: each aliases the other, replace_on_changes kind, delete_before_replace), so
the engine deletes the old object before it creates the new one; ``objects_when_created`` follows the engine's order
(pulumi/pulumi pkg/resource/deploy/step_generator.go generateStepsFromDiff: a replacement with deleteBeforeReplace is a
DeleteReplacementStep, then the CreateReplacementStep; without an alias the old resource is a plain delete, generated
after every create: GenerateDeletes) and the tests run the webhook on what is there at that moment.
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
HPA_TYPE = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
SO_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledObject"


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


def objects_when_created(new: Any, old_type: str, old_name: str, old_object: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The old object still in the cluster when the engine creates ``new`` (a Recorded), the old one being the state
    of resource ``old_type::old_name`` that the program no longer registers."""
    taken_over = f"{old_type}::{old_name}" in new.aliases
    replaced = taken_over and "kind" in new.replace_on_changes  # the kinds differ: the provider alone would update
    if replaced and new.delete_before_replace:
        return []  # DeleteReplacementStep first
    return [old_object]  # created beside it; the old one goes at the end (or, aliased without replace, never)


@pytest.fixture(scope="module")
def prod():
    """prod's recording and stack config."""
    from stacks.offline import load_stack_file, run_program

    return run_program(load_stack_file("prod")), load_stack_config(stack_config("prod"))


@pytest.fixture(scope="module")
def switched(prod):
    """qwen3-32b of prod (KEDA) and the same model as it was on the adapter, with the objects each renders."""
    _, cfg = prod
    after = next(m for m in cfg.models if m.name == "qwen3-32b")
    assert after.autoscaling.backend == "keda"
    before = after.model_copy(update={"autoscaling": after.autoscaling.model_copy(update={"backend": "prometheus-adapter"})})
    plan = plan_stack(cfg)["qwen3-32b"]
    hpa = autoscaling.horizontal_pod_autoscaler(before, plan, "llm")
    so = autoscaling.scaled_object(after, plan, "llm", "http://prometheus:9090")
    return hpa, so


def test_keda_refuses_a_scaled_object_beside_an_hpa_it_does_not_own(switched):
    # The guard our HPAs no longer switch off: any HPA left on the target makes KEDA refuse the ScaledObject.
    hpa, so = switched
    assert hpa["spec"]["scaleTargetRef"] == so["spec"]["scaleTargetRef"]  # the same predictor Deployment
    assert keda_admits(so, [hpa]) == (
        "the workload 'qwen3-32b-predictor' of type 'apps/v1.Deployment' is already managed by the hpa 'qwen3-32b'"
    )
    opted_out = {**hpa, "metadata": {**hpa["metadata"], "annotations": {VALIDATIONS: "false"}}}
    assert keda_admits(so, [opted_out]) is None  # what the annotation did (:274), for good


def test_no_adapter_hpa_switches_kedas_guard_off(prod):
    recording, _ = prod
    hpas = [r for r in recording.resources if r.type == HPA_TYPE]
    assert {r.name for r in hpas} == {"prod-chat-8b-autoscaling-hpa", "prod-llama-70b-autoscaling-hpa"}
    for r in hpas:
        assert VALIDATIONS not in ((r.inputs.get("metadata") or {}).get("annotations") or {}), r.name


def test_switching_to_keda_deletes_the_old_hpa_before_the_scaled_object_is_created(prod, switched):
    recording, _ = prod
    hpa, so = switched
    (new,) = [r for r in recording.resources if r.name == "prod-qwen3-32b-autoscaling-scaledobject"]
    assert new.type == SO_TYPE
    present = objects_when_created(new, HPA_TYPE, "prod-qwen3-32b-autoscaling-hpa", hpa)
    assert present == [] and keda_admits(so, present) is None


def test_switching_back_deletes_the_scaled_object_first(prod):
    # The HPA takes over the ScaledObject's state the same way; KEDA's keda-hpa-<model> goes with the ScaledObject
    # (controllers/keda/hpa.go:187, owned by it; pulumi-kubernetes deletes in the foreground, metadata/overrides.go:68-77).
    recording, _ = prod
    for model in ("chat-8b", "llama-70b"):
        (new,) = [r for r in recording.resources if r.name == f"prod-{model}-autoscaling-hpa"]
        assert objects_when_created(new, SO_TYPE, f"prod-{model}-autoscaling-scaledobject", {"kind": "ScaledObject"}) == []


def test_without_the_resource_options_the_switch_would_be_refused(prod, switched):
    # The mutation this file guards against: a ScaledObject registered as a resource of its own.
    recording, _ = prod
    hpa, so = switched
    (new,) = [r for r in recording.resources if r.name == "prod-qwen3-32b-autoscaling-scaledobject"]
    for broken in (
        new.__class__(**{**new.__dict__, "aliases": ()}),
        new.__class__(**{**new.__dict__, "delete_before_replace": False}),
        new.__class__(**{**new.__dict__, "replace_on_changes": ()}),
    ):
        present = objects_when_created(broken, HPA_TYPE, "prod-qwen3-32b-autoscaling-hpa", hpa)
        assert keda_admits(so, present) is not None
