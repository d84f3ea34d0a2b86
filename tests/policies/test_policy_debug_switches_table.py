"""S36 debug-switches-off as data (components/debug_switches.toml): per-program switches read at the image's release,
generic ones on every model server, and switches a server's shell script exports.

Firing forms: LocalAI's DEBUG=true (mudler/LocalAI v4.9.0 core/cli/context/context.go:4 env LOCALAI_DEBUG,DEBUG; the
project's own examples set it, v2.19.0 f19ee465 examples/chatbot-ui-manual/docker-compose.yaml:12 ``DEBUG=true``, here
as a Deployment's env); OLLAMA_DEBUG=1 (ollama/ollama v0.32.15 envconfig/config.go:201-212, L313); NCCL_DEBUG=INFO
exported by the leader's and the worker's scripts of a vLLM LeaderWorkerSet (vllm docs/deployment/frameworks/lws.md
form); TORCH_DISTRIBUTED_DEBUG=DETAIL (PyTorch distributed docs).

Careful forms that stay silent: NCCL_DEBUG=WARN; DEBUG=true on a server that is not LocalAI (vLLM reads no DEBUG);
LocalAI DEBUG on a release before the first that reads it (v1.0.0); a debug switch in a Job that serves nothing.
"""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from components.debug_switches import DebugSwitchError, debug_switches_of

S36 = "debug-switches-off"


def _deployment(container: dict, kind: str = "Deployment") -> dict:
    spec: dict = {"template": {"metadata": {"labels": {"app": "s"}}, "spec": {"containers": [container]}}}
    if kind == "Deployment":
        spec["selector"] = {"matchLabels": {"app": "s"}}
    else:
        spec["template"]["spec"]["restartPolicy"] = "Never"
    return {
        "apiVersion": "apps/v1" if kind == "Deployment" else "batch/v1",
        "kind": kind,
        "metadata": {"name": "s"},
        "spec": spec,
    }


def _localai(image: str, name: str = "DEBUG", value: str = "true") -> dict:
    return {
        "name": "local-ai",
        "image": image,
        "args": ["phi-2"],
        "env": [{"name": name, "value": value}, {"name": "MODELS_PATH", "value": "/models"}],
        "ports": [{"containerPort": 8080}],
    }


def test_localai_debug_is_advice_at_a_release_that_reads_it():
    for image in ("localai/localai:v2.19.4-cublas-cuda12-ffmpeg", "localai/localai:latest-gpu-nvidia-cuda-12"):
        ((level, message),) = found_by([_deployment(_localai(image))], S36)
        assert level == "advisory"
        assert "env DEBUG=true turns LocalAI's debug logging on" in message
    ((_, message),) = found_by([_deployment(_localai("localai/localai:v2.20.1", "LOCALAI_DEBUG", "1"))], S36)
    assert "env LOCALAI_DEBUG=1" in message


def test_ollama_debug_is_advice():
    container = {"name": "ollama", "image": "ollama/ollama:0.6.2", "env": [{"name": "OLLAMA_DEBUG", "value": "1"}]}
    ((level, message),) = found_by([_deployment(container)], S36)
    assert level == "advisory" and "env OLLAMA_DEBUG=1 turns Ollama's debug logging on" in message
    container["env"] = [{"name": "OLLAMA_DEBUG", "value": "false"}]
    assert found_by([_deployment(container)], S36) == []


VLLM = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.10.0",
    "command": ["vllm", "serve", "Qwen/Qwen3-8B"],
    "resources": {"limits": {"nvidia.com/gpu": "1"}},
}


def test_generic_switches_on_any_server_and_in_its_script():
    container = dict(VLLM, env=[{"name": "TORCH_DISTRIBUTED_DEBUG", "value": "DETAIL"}])
    ((level, message),) = found_by([_deployment(container)], S36)
    assert level == "advisory" and "env TORCH_DISTRIBUTED_DEBUG=DETAIL" in message
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "leaderWorkerTemplate": {
                "size": 2,
                "leaderTemplate": {"spec": {"containers": [dict(VLLM, command=["/bin/bash", "-c"], args=[
                    "export NCCL_DEBUG=INFO; ray start --head --port=6379; vllm serve Qwen/Qwen3-8B "
                    "--tensor-parallel-size 8 --pipeline-parallel-size 2 --distributed-executor-backend ray"
                ])]}},
                "workerTemplate": {"spec": {"containers": [dict(VLLM, name="worker", command=["/bin/bash", "-c"], args=[
                    "NCCL_DEBUG='INFO' ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"
                ])]}},
            }
        },
    }  # fmt: skip
    messages = [m for _, m in found_by([lws], S36)]
    assert sum("env NCCL_DEBUG=INFO makes NCCL log" in m for m in messages) == 2, messages


def test_careful_forms_stay_silent():
    quiet = dict(VLLM, env=[{"name": "NCCL_DEBUG", "value": "WARN"}, {"name": "DEBUG", "value": "true"}])
    assert found_by([_deployment(quiet)], S36) == []
    scripted = dict(VLLM, command=["sh", "-c", "export NCCL_DEBUG=WARN; vllm serve Qwen/Qwen3-8B"])
    assert found_by([_deployment(scripted)], S36) == []
    assert found_by([_deployment(_localai("quay.io/go-skynet/local-ai:v1.0.0"))], S36) == []
    job = {
        "name": "bench",
        "image": "python:3.12",
        "command": ["python", "bench.py"],
        "env": [{"name": "CUDA_LAUNCH_BLOCKING", "value": "1"}, {"name": "NCCL_DEBUG", "value": "INFO"}],
    }
    assert found_by([_deployment(job, kind="Job")], S36) == []


@pytest.mark.parametrize(
    "row, field",
    [
        ({"name": "x", "on": ["1"], "level": "advice", "programs": [], "cost": "c", "source": "s"}, "name"),
        ({"name": "X", "on": ["INFO"], "level": "advice", "programs": [], "cost": "c", "source": "s"}, "on"),
        ({"name": "X", "on": ["<odd>"], "level": "advice", "programs": [], "cost": "c", "source": "s"}, "on"),
        ({"name": "X", "on": ["1"], "level": "loud", "programs": [], "cost": "c", "source": "s"}, "level"),
        ({"name": "X", "on": ["1"], "level": "advice", "programs": ["nope"], "cost": "c", "source": "s"}, "programs"),
        (
            {"name": "X", "on": ["1"], "level": "advice", "programs": [], "releases": ["1.0", "2.0"], "cost": "c", "source": "s"},
            "releases",
        ),
        ({"name": "X", "on": ["1"], "level": "advice", "programs": [], "cost": "c"}, "source"),
    ],
)
def test_a_bad_row_names_its_field(row, field):
    with pytest.raises(DebugSwitchError, match=rf"\.{field}"):
        debug_switches_of({"env": [row]})
