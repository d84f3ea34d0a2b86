"""Review 41 item 5: a name or key that is not text (``name: {}``, ``name: [a]``, ``containers: 1.5``) never crashes a
policy (exit 3). The reviewer's fuzzing of spent-set objects found these sites (policies/models/gated_model_token.py
_other_endpoint, reachable through S37's generic-server path, and reading/kustomize.py patch_shaped,
gpu/ephemeral_storage.py, vllm/service_links_port.py, k8s_generic/host_path_read_only.py, reading/secrets.py,
reading/engines.py, reading/engine_flags.py, vllm/tensor_parallel_requires_dshm.py, karpenter/spot_serving.py,
models/hf_token_on_service_account.py, models/model_source_pinned.py, arch_image_selected.py's json.dumps of an
Unknown, no_literal_secret_env.py, pod_template_api_valid.py, engine_image_backend.py): every name is read through
policies.kube.name_of. Each case runs the check in-process with LLM_SERVING_DEBUG set, so an exception fails the test."""

from __future__ import annotations

import contextlib
import copy
import io

import pytest
import yaml

from policies.check import main

_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "tgi-server", "namespace": "bench", "labels": {"app": "tgi-server"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "tgi-server"}},
        "template": {
            "metadata": {"labels": {"app": "tgi-server"}},
            "spec": {
                "serviceAccountName": "tgi",
                "nodeSelector": {"karpenter.sh/capacity-type": "spot"},
                "tolerations": [{"key": "karpenter.sh/capacity-type", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [
                    {
                        "name": "tgi",
                        "image": "acme/models:llm-tgi-offline-v1",
                        "args": ["--model-id", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000", "--num-shard", "2"],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "env": [
                            {"name": "HF_ENDPOINT", "value": "https://hf-mirror.example.com"},
                            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
                            {"name": "MODEL", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "model"}}},
                            {"name": "HF_HOME", "value": "/data"},
                        ],
                        "envFrom": [{"secretRef": {"name": "hf"}}],
                        "resources": {"limits": {"nvidia.com/gpu": 2}},
                        "volumeMounts": [
                            {"name": "cache", "mountPath": "/data"},
                            {"name": "weights", "mountPath": "/models"},
                            {"name": "dshm", "mountPath": "/dev/shm"},
                            {"name": "cfg", "mountPath": "/cfg"},
                        ],
                    }
                ],
                "volumes": [
                    {"name": "cache", "emptyDir": {}},
                    {"name": "weights", "hostPath": {"path": "/mnt/models"}},
                    {"name": "dshm", "emptyDir": {"medium": "Memory"}},
                    {"name": "cfg", "configMap": {"name": "cfg"}},
                ],
            },
        },
    },
}
_OTHERS = [
    {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "tgi", "namespace": "bench"}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf", "namespace": "bench"}, "stringData": {"token": "x"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "bench"}, "data": {"model": "m"}},
    {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "tgi-server", "namespace": "bench"},
        "spec": {"selector": {"app": "tgi-server"}, "ports": [{"port": 80, "targetPort": 8000}]},
    },
]


def _paths(node: object, path: tuple = ()) -> list[tuple]:
    """Every path to a ``name`` or ``key`` field, and to the containers list, in ``node``."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("name", "key", "namespace", "containers"):
                found.append((*path, key))
            found.extend(_paths(value, (*path, key)))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found.extend(_paths(item, (*path, i)))
    return found


_POD = ("spec", "template", "spec")
# One field at a time, and a hostPath volume and its mount both named by a map (the reviewer's b3/f473.yaml).
_CASES = [((p,), bad) for p in _paths(_DEPLOYMENT) for bad in ({}, ["a"], 1.5)] + [
    (((*_POD, "volumes", 1, "name"), (*_POD, "containers", 0, "volumeMounts", 1, "name")), {}),
]


@pytest.mark.parametrize("paths,bad", _CASES, ids=[f"{'+'.join('.'.join(map(str, p)) for p in ps)}={b!r}" for ps, b in _CASES])
def test_a_name_that_is_not_text_never_crashes(tmp_path, monkeypatch, paths, bad):
    deployment = copy.deepcopy(_DEPLOYMENT)
    for path in paths:
        node = deployment
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = bad
    for other in (False, True):  # the mutated name in the Deployment, then in the objects it joins to
        objects = [deployment, *_OTHERS]
        if other:
            objects = [deployment] + [{**o, "metadata": {**o["metadata"], "name": bad}} for o in _OTHERS]
        manifest = tmp_path / "m.yaml"
        manifest.write_text(yaml.safe_dump_all(objects))
        monkeypatch.setenv("LLM_SERVING_DEBUG", "1")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main([str(manifest)])
        assert code in (0, 1, 2), (paths, bad, other, code)


_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "tgi"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "tgi-server"},
        "maxReplicas": 4,
        "behavior": {"scaleUp": {"policies": [{"type": {}, "value": 4, "periodSeconds": 60}]}},
    },
}
_GATEWAY = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "Gateway",
    "metadata": {"name": {"a": None}},
    "spec": {
        "gatewayClassName": "gke-l7-global-external-managed",
        "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}],
    },
}
_LLMISVC = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "opt-125m", "namespace": "llm-demo"},
    "spec": {
        "model": {"name": "facebook/opt-125m", "uri": "hf://facebook/opt-125m"},
        "router": {"gateway": {}, "route": {}, "scheduler": {}},
        "template": {
            "containers": [
                {"name": "main", "image": "quay.io/pierdipi/vllm-cpu:latest", "env": [{"name": {"name": 1}, "value": "DEBUG"}]}
            ]
        },
    },
}
_HEAD = {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.9.0-gpu"}, True], "nodeSelector": True}
_RAY = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "raycluster-demo"},
    "spec": {"headGroupSpec": {"rayStartParams": {}, "template": {"spec": _HEAD}}},
}
_ENV_FROM = copy.deepcopy(_DEPLOYMENT)
_ENV_FROM["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": {}}}]


@pytest.mark.parametrize("obj", [_HPA, _GATEWAY, _LLMISVC, _RAY, _ENV_FROM], ids=["hpa", "gateway", "llmisvc", "ray", "envfrom"])
def test_the_second_fuzz_batches_forms_never_crash(tmp_path, monkeypatch, obj):
    # Review 41 item 21 (fuzz batches b7, b11): engines.env_values and cache_dirs (envFrom configMapRef name: {}),
    # exposure._bare_gateways (a Gateway named by a map), llmisvc_presets.strategic_merge (an env name that is a map),
    # hpa_behavior (a policy type that is a map), components/derive/kuberay.check_pod (a container `true`,
    # nodeSelector `true`).
    manifest = tmp_path / "m.yaml"
    manifest.write_text(yaml.safe_dump_all([obj, *_OTHERS]))
    monkeypatch.setenv("LLM_SERVING_DEBUG", "1")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main([str(manifest)]) in (0, 1, 2)
