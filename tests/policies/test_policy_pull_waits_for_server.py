"""S45 pull-waits-for-server: a pod script that starts the server in the background calls it after only `sleep N`.

The Ollama CLI checks the server once before every client verb and exits when nothing listens (ollama/ollama v0.32.15
cmd/cmd.go:2079-2091 checkServerHeartbeat, cmd/start_default.go:12-14 "could not connect to ollama server"), so a
server slower than the sleep fails the call. Firing forms, written out from spent sets:
- kunalsingh286/k8s-llm-deployment-platform k8s/deployment.yaml@36a24f88 (set 58), init container ollama-pull-model;
- biswa123642/local-k8s-ai-agent k8s/ollama.yaml@aa428151 (set 88), init container pull-model;
- asifkhan03/ollamaverse K8S-Manifests/python/ollama-tinyllama.yaml@4fc16261 (set 84), the server's own command.
Careful forms stay silent: a poll before the call, a curl that retries refused connections, a call whose failure the
script swallows (model-download-fails-loudly's), a step between the start and the call that is not judged.
"""

from __future__ import annotations

from tests.policies.policy_fixtures import found_by, workload

_POLICY = "pull-waits-for-server"


def _pod(script: str, *, init: bool = True, shell: tuple[str, ...] = ("sh", "-c")) -> dict:
    scripted = {"name": "pull-model", "image": "ollama/ollama:0.5.7", "command": [*shell, script]}
    server = {"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"containerPort": 11434}]}
    if init:
        return workload("ollama", [server], init_containers=[scripted])
    return workload("ollama", [dict(scripted, name="ollama")])


def test_an_init_container_that_pulls_after_a_fixed_sleep():
    # set 58 and set 88 as written
    [(level, message)] = found_by([_pod("ollama serve & \\\nsleep 5 && \\\nollama pull ${MODEL_NAME}\n")], _POLICY)
    assert level == "advisory"
    assert message == (
        "container pull-model: the script starts `ollama serve` in the background and runs `ollama pull` after only "
        "`sleep 5`, with no readiness check: the Ollama CLI asks once and exits when nothing listens ('could not "
        "connect to ollama server', ollama v0.32.15 cmd/cmd.go:2079-2091), so a start slower than that fails the call "
        "and the init container fails and the kubelet restarts it with back-off: the pod waits in Init until a start "
        "wins the race; wait for the server to answer first (`until ollama list >/dev/null 2>&1; do sleep 1; done`)"
    )
    [(_, message)] = found_by([_pod("ollama serve & sleep 5 && ollama pull mistral && pkill ollama")], _POLICY)
    assert "runs `ollama pull` after only `sleep 5`" in message


def test_a_server_script_that_runs_its_model_after_a_fixed_sleep():
    # set 84 as written: the && chain ends the shell (and the server) when the run fails
    script = "ollama serve & sleep 3 && ollama run $OLLAMA_MODEL && wait"
    [(_, message)] = found_by([_pod(script, init=False)], _POLICY)
    assert message.startswith("container ollama: the script starts `ollama serve` in the background and runs `ollama run`")
    assert "the shell exits, taking the server with it, and the container restarts" in message
    # an HTTP server called with curl after a sleep, under set -e
    http = "python3 -m http.server 8000 &\nsleep 10\ncurl -X POST http://localhost:8000/load\nwait\n"
    [(_, message)] = found_by([_pod(http, init=False, shell=("sh", "-ec"))], _POLICY)
    assert "runs `curl http://localhost:8000/load` after only `sleep 10`" in message


def test_careful_scripts_stay_silent():
    polled = "ollama serve &\nuntil ollama list >/dev/null 2>&1; do sleep 1; done\nollama pull mistral\n"
    assert found_by([_pod(polled)], _POLICY) == []
    listed = "ollama serve & sleep 5 && ollama list && ollama pull mistral"
    assert found_by([_pod(listed)], _POLICY) == []
    retried = "vllm serve m &\nsleep 30\ncurl --retry 30 --retry-connrefused http://localhost:8000/v1/models\nwait\n"
    assert found_by([_pod(retried, init=False, shell=("sh", "-ec"))], _POLICY) == []
    # swallowed (no set -e, a command after it): model-download-fails-loudly reports it, not this policy
    swallowed = "ollama serve &\nsleep 5\nollama pull mistral\necho done\n"
    assert found_by([_pod(swallowed)], _POLICY) == []
    # another step between the start and the call is not judged
    other = "ollama serve &\n/scripts/wait-for-it.sh localhost:11434\nollama pull mistral\n"
    assert found_by([_pod(other)], _POLICY) == []
    # a remote server (no backgrounded start in the script)
    remote = "sleep 10 && OLLAMA_HOST=http://ollama:11434 ollama pull mistral"
    assert found_by([_pod(remote)], _POLICY) == []


def test_a_config_map_entrypoint_the_server_runs_is_read_too():
    # The same race in an entrypoint.sh of a ConfigMap of the files that the server container mounts and runs (the
    # form of spent set 11 Pranav5255/llm-on-kube-cluster-local k8s/base/ollama.yaml@43dc8307, a mounted entrypoint.sh).
    script = '#!/bin/sh\nollama serve &\nsleep 5\nollama pull "$MODEL" && wait\n'
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ollama-entry"},
        "data": {"entrypoint.sh": script},
    }
    pod = _pod("/scripts/entrypoint.sh", init=False)
    spec = pod["spec"]["template"]["spec"]
    spec["containers"][0]["volumeMounts"] = [{"name": "entry", "mountPath": "/scripts"}]
    spec["volumes"] = [{"name": "entry", "configMap": {"name": "ollama-entry", "defaultMode": 493}}]
    [(_, message)] = found_by([config_map, pod], _POLICY)
    assert message.startswith(
        "container ollama: the script /scripts/entrypoint.sh it runs starts `ollama serve` in the background and runs "
        "`ollama pull` after only `sleep 5`"
    )
    polled = script.replace("sleep 5", "until ollama list >/dev/null 2>&1; do sleep 1; done")
    config_map["data"]["entrypoint.sh"] = polled
    assert found_by([config_map, pod], _POLICY) == []


def test_a_one_shot_list_tested_with_or_waits_for_nothing():
    # spent set 122 Ofor-David/gke-llm-platform@be324c9f k8s/charts/ollama/templates/deployment.yaml, init container
    # pull-model as written: `ollama list` asks once; when nothing listens yet, grep fails and the pull after || runs
    # at once against the server still starting, and its failure ends the script.
    script = 'ollama serve &\nsleep 5\nollama list | grep -q "qwen2.5-coder:1.5b" || ollama pull qwen2.5-coder:1.5b\n'
    [(level, message)] = found_by([_pod(script)], _POLICY)
    assert level == "advisory"
    assert "runs `ollama pull` after only `sleep 5`, with no readiness check" in message
    # careful: the same test inside a loop waits; with no backgrounded server it is a client of another pod's
    looped = "ollama serve &\nuntil ollama list | grep -q NAME; do sleep 1; done\nollama pull m || ollama pull m\n"
    assert found_by([_pod(looped)], _POLICY) == []
    remote = 'ollama list | grep -q "m" || ollama pull m\n'
    assert found_by([_pod(remote)], _POLICY) == []
