"""G6 readiness-waits-for-model: a model fetch whose failure the pod's script swallows leaves the pod Ready with no
model (policies/reading/swallowed_fetch.py)."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by, workload

POLICY = "readiness-waits-for-model"


def _ollama(init_script: str | None, server_args: list | None = None) -> dict:
    server: dict = {
        "name": "ollama",
        "image": "ollama/ollama:0.6.5",
        "ports": [{"containerPort": 11434}],
        "readinessProbe": {"httpGet": {"path": "/api/tags", "port": 11434}},
    }
    if server_args:
        server.update({"command": ["/bin/sh", "-c"], "args": server_args})
    puller = {"name": "model-puller", "image": "ollama/ollama:0.6.5", "command": ["/bin/sh", "-c"], "args": [init_script]}
    return workload("ollama", [server], init_containers=[puller] if init_script is not None else None)


# ahoffer/aiagent k8s/ollama.yaml@42ed47fa1bc0299a84be79b4958d2350a27936d7 (spent set 38) and ahoffer/aiforge k8s/ollama.yaml@4c8d0f7a8d690efbbca37cb963d81c9e984749a8
# (spent set 26), both labelled "none": the init container starts `ollama serve &`, then
# `timeout 600 ollama pull "$AGENT_MODEL" || echo "Model pull failed or timed out"`.
_AHOFFER = 'ollama serve &\nsleep 5\ntimeout 600 ollama pull "$AGENT_MODEL" || echo "Model pull failed or timed out"\n'


@pytest.mark.parametrize(
    "objs",
    [
        [_ollama(_AHOFFER)],
        # The entrypoint shape common in public scripts: the server in the background, the pull `|| true`, then wait.
        [_ollama(None, ["ollama serve & sleep 3\nollama pull llama3 || true\nwait\n"])],
        [_ollama("hf download Qwen/Qwen3-8B --local-dir /models || exit 0\n")],
    ],
)
def test_a_swallowed_fetch_is_advice(objs):
    found = [m for _, m in found_by(objs, POLICY) if "swallows the failure" in m]
    assert len(found) == 1, found_by(objs, POLICY)
    assert all(level == "advisory" for level, _ in found_by(objs, POLICY))


@pytest.mark.parametrize(
    "script",
    [
        'ollama serve &\nsleep 5\nollama pull "$AGENT_MODEL"\n',  # the failure fails the init container
        'ollama pull llama3 || { echo "pull failed"; exit 1; }\n',  # reported, then failed
        "for i in 1 2 3; do ollama pull llama3 && break || sleep 5; done\n",  # a retry loop
        "ollama list || true\nollama pull llama3\n",  # the swallowed command is no fetch
    ],
)
def test_careful_pulls_stay_silent(script):
    assert not [m for _, m in found_by([_ollama(script)], POLICY) if "swallows the failure" in m]
