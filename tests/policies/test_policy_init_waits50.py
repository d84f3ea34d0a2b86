"""G99 init-waits-for-own-pod (session 50, brief egress50): an init container that loops until its own pod's app
container answers never completes, because app containers start only after every init container
(kubernetes/api core/v1/types.go:4098@v0.34.0; a native sidecar, restartPolicy Always, types.go:2972-2987@v0.34.0)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G99 = "init-waits-for-own-pod"

# Spent set 85 jader-germano/portfolio-v2@b830b6ca21bb96e4bfbd35afe78b23dd42f102d9 k8s/ollama-deployment.yaml (trimmed).
PORTFOLIO = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ai-services"},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "initContainers": [
                    {
                        "name": "pull-model",
                        "image": "curlimages/curl:latest",
                        "command": ["/bin/sh", "-c"],
                        "args": [
                            'echo "Waiting for Ollama to start..."\n'
                            "until curl -s http://localhost:11434/api/tags; do sleep 5; done\n"
                            'curl -X POST http://localhost:11434/api/pull -d \'{"name": "deepseek-r1:7b"}\'\n'
                        ],
                    }
                ],
                "containers": [{"name": "ollama", "image": "ollama/ollama:latest", "ports": [{"containerPort": 11434}]}],
            },
        },
    },
}


def _with_script(script: str, **init: object) -> dict:
    obj = copy.deepcopy(PORTFOLIO)
    container = obj["spec"]["template"]["spec"]["initContainers"][0]
    container["args"] = [script]
    container.update(init)
    return obj


def test_an_init_waiting_for_its_own_pods_server_blocks():
    ((level, message),) = found_by([PORTFOLIO], G99)
    assert level == "mandatory"
    assert message.startswith("container pull-model: the init container loops until port 11434")
    assert "app container ollama" in message


def test_while_not_nc_on_a_declared_port_blocks():
    obj = _with_script("while ! nc -z 127.0.0.1 11434; do sleep 2; done; ollama pull llama3")
    ((level, _),) = found_by([obj], G99)
    assert level == "mandatory"


def test_a_loop_that_can_give_up_is_silent():
    script = "n=0\nuntil curl -s http://localhost:11434/api/tags; do n=$((n+1)); [ $n -gt 30 ] && exit 1; sleep 5; done"
    assert found_by([_with_script(script)], G99) == []


def test_a_native_sidecar_is_silent():
    assert found_by([_with_script(PORTFOLIO_SCRIPT, restartPolicy="Always")], G99) == []


def test_a_script_that_starts_the_server_itself_is_silent():
    script = "ollama serve &\nuntil curl -s http://localhost:11434/api/tags; do sleep 1; done\nollama pull llama3"
    assert found_by([_with_script(script)], G99) == []


def test_a_port_no_app_container_serves_is_silent():
    script = "until curl -s http://localhost:9999/health; do sleep 5; done"
    assert found_by([_with_script(script)], G99) == []


def test_another_host_is_silent():
    script = "until curl -s http://ollama.ai-services:11434/api/tags; do sleep 5; done"
    assert found_by([_with_script(script)], G99) == []


def test_host_network_is_silent():
    obj = copy.deepcopy(PORTFOLIO)
    obj["spec"]["template"]["spec"]["hostNetwork"] = True
    assert found_by([obj], G99) == []


def test_bad_input_is_silent():
    assert found_by([_with_script("until ; do")], G99) == []
    obj = copy.deepcopy(PORTFOLIO)
    obj["spec"]["template"]["spec"]["initContainers"] = [{"name": "x", "command": None}, "junk"]
    assert found_by([obj], G99) == []


PORTFOLIO_SCRIPT = PORTFOLIO["spec"]["template"]["spec"]["initContainers"][0]["args"][0]
