"""Cold review of session 52's data rules (brief review52b): hostile input never raises.

Each object below is a form a new or widened rule of the session reads (G101 app settings, G103 GPU node labels, G4
serving readiness with LiteLLM's database, S44/S65 app routes, the vllm-stack and local-ai chart releases) with one
field of the wrong type or size. Found by mutating every field of the rules' own test fixtures (wrong types, huge and
empty values) and running the pack with ``failures`` as ``policies check`` does: each raised before this review
(TypeError: a dict or list where a name is hashed or a boolean command iterated; ValueError: int() of a chart
version of 4,300+ digits or of a non-ASCII digit such as U+00B2, which str.isdigit accepts; OverflowError: a percentage
of 1.5e308 replicas). The last four cases are older rules (S56, the engine download credential, the GPU rollout surge,
the vLLM served name for a path) the same mutation run reached.
"""

from __future__ import annotations

import pytest

from policies.framework import Resource, Violation
from policies.registry import evaluate


def _resource(obj: dict) -> Resource:
    group_version = obj["apiVersion"]
    token = f"core/{group_version}" if "/" not in group_version else group_version
    return Resource(type=f"kubernetes:{token}:{obj['kind']}", name=f"{obj['kind']}/{obj['metadata']['name']}", props=obj)


def _deployment(container: dict, **pod: object) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "app"},
        "spec": {
            "selector": {"matchLabels": {"app": "app"}},
            "template": {"metadata": {"labels": {"app": "app"}}, "spec": {**pod, "containers": [container]}},
        },
    }


def _release(chart: str, version: str) -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": chart},
        "spec": {
            "chart": {"spec": {"chart": chart, "version": version, "sourceRef": {"kind": "HelmRepository", "name": "r"}}},
            "values": {
                "servingEngineSpec": {
                    "modelSpec": [{"name": "a", "repository": "vllm/vllm-openai", "tag": "v0.9.0", "modelURL": "m/a"}]
                }
            },
        },
    }


LITELLM = {
    "name": "litellm",
    "image": "ghcr.io/berriai/litellm:main-v1.77.7",
    "env": [{"name": {"a": {"b": [1]}}, "value": "x"}, {"name": "DATABASE_URL", "value": "postgres://db"}],
    "readinessProbe": {"tcpSocket": {"port": 4000}},
}
NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {"template": {"spec": {"requirements": [{"key": ["nvidia.com/gpu"], "operator": "Exists"}]}}},
}
GPU_POD = _deployment(
    {"name": "vllm", "image": "vllm/vllm-openai:v0.9.0", "resources": {"limits": {"nvidia.com/gpu": 1}}},
    affinity={
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": {"a": 1}, "operator": "In", "values": ["x"]}]}]
            }
        }
    },
)

VLLM = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.9.0",
    "args": ["--model", "m/a", "--enable-lora", "--lora-modules", "ad=/adapters/ad"],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": []},
    "spec": {
        "supportedModelFormats": [{"name": "vllm"}],
        "containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.9.0", "args": ["--served-model-name", "a"]}],
    },
}

CASES = {
    "vLLM command a boolean (S56 LoRA names)": [_deployment({**VLLM, "command": True})],
    "NIM cache mount named by a map (engine download credential)": [
        _deployment(
            {
                "name": "nim",
                "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3",
                "volumeMounts": [{"name": {}, "mountPath": "/opt/nim/.cache"}],
            },
            volumes=[{"name": "cache", "hostPath": {"path": "/data"}}],
        )
    ],
    "GPU Deployment with replicas -1.5e308 and maxUnavailable x%": [
        {
            **_deployment(VLLM),
            "spec": {
                **_deployment(VLLM)["spec"],
                "replicas": -1.5e308,
                "strategy": {"rollingUpdate": {"maxUnavailable": "x%"}},
            },
        }
    ],
    "ServingRuntime named by a list": [RUNTIME],
    "litellm env name a map (G4 readiness_env, S44 root_path_env)": [_deployment(LITELLM)],
    "GPU label keys a list and a map (G103)": [NODEPOOL, GPU_POD],
    **{
        f"{chart} chart version {label}": [_release(chart, version)]
        for chart in ("vllm-stack", "local-ai")
        for label, version in (("of 5,000 digits", "9" * 5000 + ".1.2"), ("with U+00B2", "0.1.\u00b2"))
    },
}


@pytest.mark.parametrize("objs", CASES.values(), ids=list(CASES))
def test_hostile_forms_raise_nowhere(objs):
    failures: list[Violation] = []
    evaluate([_resource(o) for o in objs], None, failures=failures)
    assert [(f.policy, f.message) for f in failures] == []
