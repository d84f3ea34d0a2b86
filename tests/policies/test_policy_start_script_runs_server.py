"""G104 start-script-runs-server: a container's start script reaches its server, and the server's exit ends it.

Fires:
- spent set 50 surajssd/llm-k8s configs/deepseek-v2.5-lmcache/k8s/lws.yaml (labelled none, blocking; the file itself is
  not valid YAML at line 37, so its script is written out here): the LWS leader runs `multi-node-serving.sh leader ...;
  sleep inf; vllm serve deepseek-ai/DeepSeek-V2.5 ...`; `sleep inf` never returns (GNU coreutils v9.5
  doc/coreutils.texi:19029-19033), so vLLM never starts (mandatory);
- spent set 67 NursultanMakhambet/ml-ai-platform sglang/deployment.yaml (labelled none): `python3 -m
  sglang.launch_server ... || sleep infinity` with no livenessProbe (advice).
Silent: the block as the last command after a backgrounded server, a block inside a compound command, a backgrounded
block, a server followed by `|| sleep infinity` with a livenessProbe, an init container.
"""

from __future__ import annotations

from tests.policies.policy_fixtures import found_by

_POLICY = "start-script-runs-server"
_LEADER = (
    "set -x; bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$LWS_GROUP_SIZE "
    "--dashboard-host=0.0.0.0 --metrics-export-port=8080; sleep inf; vllm serve deepseek-ai/DeepSeek-V2.5 --port 8000 "
    "--tensor-parallel-size 8 --pipeline-parallel-size 2 --trust-remote-code"
)
_SGLANG = (
    "export SGLANG_USE_CPU_ENGINE=1\npip uninstall -y intel-extension-for-pytorch torchvision >/dev/null 2>&1 || true\n"
    "python3 -m sglang.launch_server --model-path TinyLlama/TinyLlama-1.1B-Chat-v1.0 --host 0.0.0.0 --port 30000 "
    "--device cpu || sleep infinity\n"
)


def _deployment(script: str, image: str = "vllm/vllm-openai:v0.8.5", **extra: object) -> dict:
    container = {"name": "server", "image": image, "command": ["sh", "-c", script], **extra}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "server"},
        "spec": {
            "selector": {"matchLabels": {"app": "server"}},
            "template": {"metadata": {"labels": {"app": "server"}}, "spec": {"containers": [container]}},
        },
    }


def test_a_block_before_the_server_start_is_blocking():
    [(level, message)] = found_by([_deployment(_LEADER)], _POLICY)
    assert level == "mandatory"
    assert message == (
        "container server: the script blocks at `sleep inf`, which never returns (GNU coreutils: 'sleep inf' sleeps "
        "indefinitely), before the command that starts the vllm server, so the server never starts: the pod runs, "
        "listens on nothing and is never Ready; drop the block (or put it after the server as a fallback) so the script "
        "reaches the server"
    )
    # what follows is no engine the table knows: advice
    [(level, message)] = found_by([_deployment("tail -f /dev/null\npython /app/serve.py\n")], _POLICY)
    assert level == "advisory"
    assert "the commands after it (`python /app/serve.py`) never run" in message


def test_a_sleep_that_outlives_the_server_without_a_liveness_probe():
    [(level, message)] = found_by([_deployment(_SGLANG, image="lmsysorg/sglang:v0.4.6-cu124")], _POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container server: the script runs `python3 -m sglang.launch_server ...` and then `sleep infinity` when it ends"
    )
    probe = {"livenessProbe": {"httpGet": {"path": "/health", "port": 30000}}}
    assert found_by([_deployment(_SGLANG, image="lmsysorg/sglang:v0.4.6-cu124", **probe)], _POLICY) == []


def test_careful_scripts_stay_silent():
    background = "vllm serve m --port 8000 &\nsleep infinity\n"
    assert found_by([_deployment(background)], _POLICY) == []
    compound = 'if [ "$DEBUG" = 1 ]; then sleep inf; fi\nvllm serve m\n'
    assert found_by([_deployment(compound)], _POLICY) == []
    backgrounded_block = "sleep inf &\nvllm serve m\n"
    assert found_by([_deployment(backgrounded_block)], _POLICY) == []
    guarded = "test -f /ready && sleep inf; vllm serve m"
    assert found_by([_deployment(guarded)], _POLICY) == []
    init = _deployment("vllm serve m")
    init["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "hold", "image": "busybox:1.36", "command": ["sh", "-c", _LEADER]}
    ]
    assert found_by([init], _POLICY) == []


def test_a_here_document_or_a_timed_sleep_is_no_block():
    """Review 51a: a here-document's lines are text written to a file, not commands the script runs, and `timeout 10
    sleep infinity` returns after ten seconds: neither keeps the script from its server."""
    for script in (
        "cat <<EOF > /tmp/hold.sh\nsleep infinity\nEOF\nvllm serve deepseek-ai/DeepSeek-V2.5",
        "cat > /tmp/hold.sh <<'EOF'\n#!/bin/sh\nsleep inf\nEOF\nchmod +x /tmp/hold.sh\nvllm serve m",
        "timeout 10 sleep infinity; vllm serve m",
    ):
        assert found_by([_deployment(script)], _POLICY) == [], script
