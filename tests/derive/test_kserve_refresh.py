"""`pulumi refresh` after KServe's defaulting webhook: every field it writes into our InferenceServices is either
set by us to the value it writes or ignored by the component (builders/vllm_service.py KSERVE_DEFAULTED_FIELDS).

The stored object is derived from kserve/kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go
(components/derive/kserve.py default_inference_service) with each stack's own inferenceservice-config.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from components.builders.vllm_service import KSERVE_DEFAULTED_FIELDS
from components.derive import Release, Rendered
from components.derive import kserve as ks
from stacks.offline import load_stack_file, run_program
from stacks.plan import rendered_objects


def _leaves(value: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(value, dict):
        out: dict[tuple[str, ...], Any] = {}
        for key, item in value.items():
            out.update(_leaves(item, (*path, str(key))))
        return out
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(_leaves(item, (*path, f"[{index}]")))
        return out
    return {path: value}


def _pulumi_path(path: tuple[str, ...]) -> str:
    """A leaf path in Pulumi's property-path syntax (keys with dots or slashes quoted)."""
    text = ""
    for part in path:
        if part.startswith("["):
            text += part
        elif "." in part or "/" in part:
            text += f'["{part}"]'
        else:
            text += f".{part}" if text else part
    return text


def _changed(ours: dict, stored: dict) -> set[str]:
    a, b = _leaves(ours), _leaves(stored)
    return {_pulumi_path(p) for p in set(a) | set(b) if a.get(p) != b.get(p)}


@pytest.fixture(scope="module", params=["dev", "staging", "prod"])
def stack(request):
    recording = run_program(load_stack_file(request.param))
    return request.param, recording, rendered_objects(recording)


def test_every_defaulted_field_is_ours_or_ignored(stack):
    name, _, rendered = stack
    cfg = ks.isvc_config(rendered)
    caches = rendered.of_kind("serving.kserve.io/v1alpha1", "LocalModelCache")
    changed: set[str] = set()
    for isvc in rendered.of_kind("serving.kserve.io/v1beta1", "InferenceService"):
        stored, _ = ks.default_inference_service(isvc, cfg, caches)
        changed |= _changed(dict(isvc), stored)
    assert changed <= set(KSERVE_DEFAULTED_FIELDS), f"{name}: {sorted(changed - set(KSERVE_DEFAULTED_FIELDS))}"
    if name == "prod":  # chat-8b reads a LocalModelCache: the defaulter labels it (504-593)
        assert 'metadata.labels["internal.serving.kserve.io/localmodel"]' in changed


def test_the_inference_services_ignore_those_fields(stack):
    _, recording, _ = stack
    isvcs = [r for r in recording.resources if r.type == "kubernetes:serving.kserve.io/v1beta1:InferenceService"]
    assert isvcs and all(r.ignore_changes == KSERVE_DEFAULTED_FIELDS for r in isvcs)


def test_a_cluster_default_cpu_limit_would_be_a_refresh_diff_without_ours():
    """inference_service_defaults.go:86-93: with the chart's 1-CPU default and no CPU limit of ours, the stored object
    gains spec.predictor.containers[0].resources.limits.cpu, a field nobody ignores (why the limit is explicit then)."""
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "m", "annotations": {"serving.kserve.io/deploymentMode": "Standard"}},
        "spec": {
            "predictor": {
                "containers": [
                    {
                        "name": "kserve-container",
                        "resources": {"requests": {"cpu": "6", "memory": "1Gi"}, "limits": {"memory": "1Gi"}},
                    }
                ]
            }
        },
    }
    rendered = Rendered(objects=(isvc,), releases=(Release("kserve", "x/kserve-resources", "v0.20.0", "kserve", {}),))
    stored, _ = ks.default_inference_service(isvc, ks.isvc_config(rendered), [])
    assert _changed(isvc, stored) == {"spec.predictor.containers[0].resources.limits.cpu"}
    assert yaml.safe_dump(stored)  # a plain, serialisable object
