"""S16 llm-startup-probe-budget: a startup budget above the minimum, shorter than the download of a large checkpoint.

Form: shawnawshk/llm-on-eks@7c70018e3bce2da6f96d2c6311ba61f7c60c976e k8s-manifest/lws/lws.yaml (spent set 120, S16
advisory by both labellers): SGLang serves deepseek-ai/DeepSeek-R1 (~641 GiB) downloaded at start into a hostPath cache,
under a startupProbe of 180 + 60 x 30 s = 1980 s; the same form as a vLLM Deployment here. At the planner's own rate
(components/capacity/layout.py HUB_DOWNLOAD_GIB_PER_SECOND, 0.5 GiB/s) it fits, so it fires only at the labellers'
slower rate (config), and by default with its budget cut to 180 + 30 x 30 s. Careful forms that stay silent, mutations
of it: HF_HUB_OFFLINE=1 (weights pre-staged), a model the budget downloads (Llama 3.1 8B), a budget that covers it.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from components.capacity import layout
from policies.registry import evaluate
from policies.vllm import startup_probe_budget
from policies.vllm.startup_probe_budget import POLICY

_DEEPSEEK = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "deepseek-r1", "namespace": "default"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "deepseek-r1"}},
        "template": {
            "metadata": {"labels": {"app": "deepseek-r1"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["--model", "deepseek-ai/DeepSeek-R1", "--tensor-parallel-size", "8", "--port", "8000"],
                        "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 8}},
                        "startupProbe": {
                            "tcpSocket": {"port": 8000},
                            "initialDelaySeconds": 180,
                            "periodSeconds": 30,
                            "failureThreshold": 30,
                        },
                        "volumeMounts": [{"name": "cache", "mountPath": "/root/.cache/huggingface"}],
                    }
                ],
                "volumes": [{"name": "cache", "hostPath": {"path": "/mnt/models/deepseek", "type": "DirectoryOrCreate"}}],
            },
        },
    },
}


def _found(obj: dict) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([manifest(obj)], None, policies=[POLICY])]


def test_a_budget_shorter_than_the_download_is_advice():
    ((level, message),) = _found(_DEEPSEEK)
    assert level == "advisory"
    assert message.startswith(
        "container vllm: startupProbe budget (initialDelaySeconds 180 + failureThreshold 30 x periodSeconds 30) is 1080s, "
        "while the server downloads deepseek-ai/DeepSeek-R1 (about 641 GiB) from the Hub at start: at 0.5 GiB/s the "
        "download and load alone take about 24 min"
    )


def _container(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_offline_small_or_covered_stays_silent():
    offline = copy.deepcopy(_DEEPSEEK)
    _container(offline)["env"] = [{"name": "HF_HUB_OFFLINE", "value": "1"}]
    assert _found(offline) == []
    small = copy.deepcopy(_DEEPSEEK)
    _container(small)["args"][1] = "meta-llama/Llama-3.1-8B-Instruct"
    assert _found(small) == []
    covered = copy.deepcopy(_DEEPSEEK)
    _container(covered)["startupProbe"]["failureThreshold"] = 60  # 1980 s, the file as written
    assert _found(covered) == []


def test_the_assumed_rate_is_configurable():
    as_written = copy.deepcopy(_DEEPSEEK)
    _container(as_written)["startupProbe"]["failureThreshold"] = 60
    slower = {POLICY.name: {"assumedDownloadGiBps": 0.25}}
    assert [v.enforcement for v in evaluate([manifest(as_written)], slower, policies=[POLICY])] == ["advisory"]
    faster = {POLICY.name: {"assumedDownloadGiBps": 2.0}}
    assert [v for v in evaluate([manifest(_DEEPSEEK)], faster, policies=[POLICY])] == []


def test_the_default_rate_is_the_planners():
    assert startup_probe_budget.HUB_DOWNLOAD_GIB_PER_SECOND == layout.HUB_DOWNLOAD_GIB_PER_SECOND
