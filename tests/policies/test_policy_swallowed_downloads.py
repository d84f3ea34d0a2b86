"""S45 reads a script that swallows a failed model download: no ``set -e`` and another command after the download.

Firing forms, written out minimally:
- megghaana/How-to-Deploy-an-Open-Source-LLM-on-Kubernetes ollama-deployment.yaml at
  c5380b75b0c1f7d1a263d2743aa8ad0bf5ea4f41 (spent set 21): Job ollama-pull-mistral, ``/bin/sh -c`` with ``sleep 40``,
  ``curl -X POST http://ollama-service:11434/api/pull ...`` and then ``echo "Model pull complete!"``;
- Jonsy13/ollama-k8s-rag k8s/ollama.yaml at 3f5b63642f0300b3437c8337ab3876117630ee3c (spent set 20, labelled there
  with no catalogue row): init container model-loader runs ``ollama serve &``, ``ollama pull all-minilm``,
  ``ollama pull tinyllama``, ``echo ...`` and ``kill $SERVER_PID``.
The shell's exit status is its last command's, and only ``set -e`` stops it at a failed one (POSIX Shell Command
Language 2.8.2, and the ``set -e`` description). Careful forms that stay silent: ``set -e``, ``sh -ec``,
``|| exit 1`` or ``&&`` after the download, the download as the last command, a script that tests ``$?``, and a
long-running server container (its exit status is not the signal).
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import found_by, workload

_PULL_SCRIPT = (
    'echo "Waiting for Ollama to be ready..."\nsleep 40\ncurl -X POST http://ollama-service:11434/api/pull \\\n'
    '  -H "Content-Type: application/json" \\\n  -d \'{"name": "mistral:7b"}\' \\\n  --max-time 600\n'
    'echo "Model pull complete!"\n'
)


def _job(script: str, command: list[str] | None = None) -> dict:
    container = {"name": "ollama-pull", "image": "curlimages/curl:8.10.1", "command": [*(command or ["/bin/sh", "-c"]), script]}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "ollama-pull-mistral", "namespace": "llm-stack"},
        "spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [container]}}},
    }


def test_a_job_that_swallows_a_failed_pull():
    # The pull asks for one answer ("stream": false) and fails on an error status (-f): only the echo after it, with
    # no set -e, hides the failure.
    script = _PULL_SCRIPT.replace("curl -X POST", "curl -f -X POST").replace('"mistral:7b"}', '"mistral:7b", "stream": false}')
    [(level, message)] = found_by([_job(script)], "model-download-fails-loudly")
    assert level == "advisory"
    assert message == (
        "container ollama-pull: the script runs on after `curl http://ollama-service:11434/api/pull` with no set -e and "
        "no && or || after it, so a failed download still ends with the last command's status (0): the container "
        "succeeds without the model, and `sleep` is all that waits for the server before the pull, so a slow start "
        "fails it too; add `set -e` (or `sh -ec`), or `|| exit 1` after the download"
    )


def test_a_streamed_api_pull_succeeds_on_a_failed_pull():
    # megghaana's Job as written (spent set 21), and Laszlo-Lazuer/deployable-offline-local-llm k8s/ollama.yaml@2f451df0
    # (spent set 35, label filed NONE): Ollama streams the pull (HTTP 200) and reports a failure in the body
    # (ollama/ollama v0.32.15 server/routes.go:1133-1160), so neither set -e nor -f catches it.
    [(level, message)] = found_by([_job(_PULL_SCRIPT)], "model-download-fails-loudly")
    assert level == "advisory"
    assert message.startswith(
        "container ollama-pull: curl http://ollama-service:11434/api/pull streams the pull's progress with HTTP 200 and "
        'reports a failed pull in the body ({"error": ...}), so curl exits 0 even with -f and set -e'
    )
    # second repository: egdcrypto/microk8s-gpu-stack applications/ollama/ollama-gpu.yaml@645a125a (spent set 16), the
    # pull as the script's last command
    last = 'until curl -s http://ollama:11434/api/tags > /dev/null; do sleep 5; done\ncurl -X POST http://ollama:11434/api/pull -d \'{"name": "llama2:7b"}\'\n'
    assert [m.split(":")[0] for _, m in found_by([_job(last)], "model-download-fails-loudly")] == ["container ollama-pull"]
    quiet = 'set -e\ncurl -f -X POST http://ollama:11434/api/pull -d \'{"name": "llama2:7b", "stream": false}\'\n'
    assert found_by([_job(quiet)], "model-download-fails-loudly") == []


_LOADER_SCRIPT = (
    'ollama serve &\nSERVER_PID=$!\nsleep 5\necho "Pulling all-minilm model for embeddings..."\nollama pull all-minilm\n'
    'echo "Pulling tinyllama model for text generation..."\nollama pull tinyllama\necho "Models loaded successfully"\n'
    "kill $SERVER_PID\n"
)


def _ollama(script: str) -> dict:
    loader = {"name": "model-loader", "image": "ollama/ollama:0.5.7", "command": ["/bin/sh", "-c"], "args": [script]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {
                "metadata": {"labels": {"app": "ollama"}},
                "spec": {"initContainers": [loader], "containers": [{"name": "ollama", "image": "ollama/ollama:0.5.7"}]},
            },
        },
    }


def test_an_init_container_that_swallows_a_failed_pull():
    [(level, message)] = found_by([_ollama(_LOADER_SCRIPT)], "model-download-fails-loudly")
    assert level == "advisory"
    assert message.startswith("container model-loader: the script runs on after `ollama pull` with no set -e")


# The pull with one answer and -f: a failure is an error status, so only the script's handling of it is judged below.
_ANSWERED_PULL = _PULL_SCRIPT.replace("curl -X POST", "curl -f -X POST").replace(
    '"mistral:7b"}', '"mistral:7b", "stream": false}'
)


def test_careful_scripts_stay_silent():
    assert found_by([_job("set -e\n" + _ANSWERED_PULL)], "model-download-fails-loudly") == []
    assert found_by([_job("set -euo pipefail\n" + _ANSWERED_PULL)], "model-download-fails-loudly") == []
    assert found_by([_job(_ANSWERED_PULL, ["/bin/sh", "-ec"])], "model-download-fails-loudly") == []
    exits = _ANSWERED_PULL.replace("--max-time 600\n", "--max-time 600 || exit 1\n")
    assert found_by([_job(exits)], "model-download-fails-loudly") == []
    chained = _ANSWERED_PULL.replace("--max-time 600\n", "--max-time 600 &&\n")
    assert found_by([_job(chained)], "model-download-fails-loudly") == []
    last = _ANSWERED_PULL.rsplit("echo", 1)[0]
    assert found_by([_job(last)], "model-download-fails-loudly") == []
    tested = _ANSWERED_PULL + "if [ $? -ne 0 ]; then exit 1; fi\n"
    assert found_by([_job(tested)], "model-download-fails-loudly") == []
    # The same script as the server container's own command: the server keeps running, its exit status is no signal.
    serving = _ollama(_LOADER_SCRIPT)
    pod = serving["spec"]["template"]["spec"]
    pod["containers"] = [dict(copy.deepcopy(pod["initContainers"][0]), name="ollama")]
    del pod["initContainers"]
    assert found_by([serving], "model-download-fails-loudly") == []


# Spent set 26: ahoffer/aiforge k8s/ollama.yaml at 4c8d0f7a8d690efbbca37cb963d81c9e984749a8, init container
# model-puller (labelled there with no catalogue row: the pod becomes Ready without the model). The script waits for
# the server, then answers each failed pull with `|| echo`, which exits 0.
_FALLBACK_SCRIPT = (
    "ollama serve &\nsleep 5\nuntil ollama list >/dev/null 2>&1; do sleep 2; done\n"
    'timeout 600 ollama pull "$AGENT_MODEL" || echo "Model pull failed or timed out"\n'
    'timeout 120 ollama pull "$EMBEDDING_MODEL" || echo "Embedding model pull failed or timed out"\n'
)


def test_a_pull_whose_failure_falls_back_to_echo():
    [(level, message)] = found_by([_ollama(_FALLBACK_SCRIPT)], "model-download-fails-loudly")
    assert level == "advisory"
    assert message == (
        "container model-loader: the script answers a failed `ollama pull` with `|| echo`, which succeeds (set -e "
        "does not stop a command before ||), and nothing later checks the model: the container succeeds without it "
        "and the server starts with no model; end the fallback with `exit 1` (`|| { echo ...; exit 1; }`)"
    )


def test_set_e_does_not_stop_a_fallback_to_true():
    script = "set -e\nollama serve &\nsleep 5\nollama pull llama3.2 || true\n"
    [(_, message)] = found_by([_ollama(script)], "model-download-fails-loudly")
    assert "with `|| true`" in message


def test_careful_fallbacks_stay_silent():
    # A fallback that still fails, grouped or not.
    grouped = _FALLBACK_SCRIPT.replace('|| echo "Model pull failed or timed out"', '|| { echo "failed"; exit 1; }')
    grouped = grouped.replace('|| echo "Embedding model pull failed or timed out"', "|| exit 1")
    assert found_by([_ollama(grouped)], "model-download-fails-loudly") == []
    # johnibm/ollama-chatbot deployments/ollama-gpu.yaml at 6fa3ccda1a939864c9d0b2c3862c1a44b4e00c14, init container
    # model-init: `ollama pull zephyr:latest || echo ...`, then `until ollama list | grep -q "zephyr:latest" ...; do
    # sleep 2; done`: the script checks the model after the fallback, so a failed pull never passes as done.
    checked = (
        "set -e\nollama serve &\nOLLAMA_PID=$!\nuntil curl -s http://localhost:11434/api/tags > /dev/null; do\n  sleep 1\n"
        'done\nollama pull zephyr:latest || echo "Failed to pull zephyr model"\n'
        'until ollama list | grep -q "zephyr:latest"; do\n  sleep 2\ndone\nkill $OLLAMA_PID\n'
    )
    assert found_by([_ollama(checked)], "model-download-fails-loudly") == []


# Session 47: every pod form that runs a pull script -------------------------------------------------------------------
# Constructed forms (no named third-party file at hand): the shapes public Ollama manifests write, a postStart hook
# `sleep 20; for model in $PRELOAD_MODELS; do ollama pull $model; done` (egel/k8s-ollama ollama-all.yaml, commented out
# there), a server script `ollama serve & sleep 3; ollama pull mistral; wait`, and a puller beside the server.


def _server(script: str | None = None, hook: str | None = None, sidecar: str | None = None) -> dict:
    server: dict = {"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"containerPort": 11434}]}
    if script:
        server.update(command=["/bin/sh", "-c"], args=[script])
    if hook:
        server["lifecycle"] = {"postStart": {"exec": {"command": ["/bin/sh", "-c", hook]}}}
    containers = [server]
    if sidecar:
        containers.append({"name": "puller", "image": "ollama/ollama:0.5.7", "command": ["/bin/sh", "-c", sidecar]})
    return workload("ollama", containers)


def _found(doc: dict) -> list[tuple[str, str]]:
    return found_by([doc], "model-download-fails-loudly")


def test_a_post_start_hook_that_swallows_a_failed_pull():
    hook = "sleep 20; for model in llama3.2 nomic-embed-text; do echo $model; ollama pull $model; done; echo ready"
    [(level, message)] = _found(_server(hook=hook))
    assert level == "advisory"
    assert message == (
        "container ollama lifecycle.postStart: the script runs on after `ollama pull` with no set -e and no && or || "
        "after it, so a failed download still ends with the last command's status (0): the hook succeeds and the "
        "container runs on without the model, and `sleep` is all that waits for the server before the pull, so a slow "
        "start fails it too; add `set -e` (or `sh -ec`), or `|| exit 1` after the download"
    )
    streamed = 'sleep 5; curl -s http://localhost:11434/api/pull -d \'{"name": "llama3.2"}\''
    assert [m.split(":")[0] for _, m in _found(_server(hook=streamed))] == ["container ollama lifecycle.postStart"]


def test_a_puller_beside_the_server_that_swallows_a_failed_pull_and_sleeps():
    pull = 'curl -f http://localhost:11434/api/pull -d \'{"name": "llama3.2", "stream": false}\''
    doc = _server(sidecar=f"sleep 10; {pull}; echo done; sleep infinity")
    doc["spec"]["template"]["spec"]["containers"][1]["image"] = "curlimages/curl:8.10.1"
    [(level, message)] = _found(doc)
    assert level == "advisory"
    assert message.startswith("container puller: the script runs on after `curl http://localhost:11434/api/pull`")
    assert "the container keeps running (its script blocks at the end) and nothing pulls the model again" in message


def test_a_server_script_that_pulls_after_only_sleeping():
    [(level, message)] = _found(_server(script="ollama serve &\nsleep 3\nollama pull mistral\nwait\n"))
    assert level == "advisory"
    assert message.startswith(
        "container ollama: the script runs `ollama pull` beside the server after only `sleep` waited for the server (a "
        "slower start fails it), with no set -e and no && or || after it, and the script runs on"
    )


def test_a_puller_beside_the_server_that_streams_the_pull_and_sleeps():
    # hacrex/AI-Infra-Ollama-K8s deployment.yaml at ef538db85acd6e456aea55840eaaf4c27f100c25 (cut down): container
    # load-model (curlimages/curl) polls /api/tags, posts to /api/pull with --fail and no "stream": false, echoes and
    # sleeps forever: a failed pull arrives in the streamed body with HTTP 200, and the puller never tries again.
    script = (
        "until curl --fail --silent http://localhost:11434/api/tags >/dev/null; do\n  sleep 5\ndone\n"
        "curl --fail --show-error -X POST http://localhost:11434/api/pull \\\n  -H 'Content-Type: application/json' "
        '\\\n  -d \'{"name":"llama3.2"}\'\necho "Model pull completed."\nsleep infinity\n'
    )
    doc = _server(sidecar=script)
    doc["spec"]["template"]["spec"]["containers"][1].update(name="load-model", image="curlimages/curl")
    [(level, message)] = _found(doc)
    assert level == "advisory"
    assert message.startswith("container load-model: curl http://localhost:11434/api/pull streams the pull's progress")
    assert "the container keeps running (its script blocks at the end) and nothing pulls the model again" in message


def test_careful_hooks_sidecars_and_server_scripts_stay_silent():
    assert _found(_server(hook="set -e; sleep 20; ollama pull llama3.2; echo ready")) == []
    assert _found(_server(hook="sleep 20; ollama pull llama3.2")) == []  # the pull is the hook's status
    # A puller that exits after the pull is restarted (restartPolicy Always), and a loop that pulls again is a sync.
    pull = 'curl -f http://localhost:11434/api/pull -d \'{"name": "llama3.2", "stream": false}\''
    for script in (f"sleep 10; {pull}; echo done", f"while true; do {pull}; sleep 3600; done", f"set -e; {pull}; sleep infinity"):
        doc = _server(sidecar=script)
        doc["spec"]["template"]["spec"]["containers"][1]["image"] = "curlimages/curl:8.10.1"
        assert _found(doc) == [], script
    streamed = _server(sidecar='while true; do curl http://localhost:11434/api/pull -d \'{"name": "m"}\'; sleep 600; done')
    streamed["spec"]["template"]["spec"]["containers"][1]["image"] = "curlimages/curl:8.10.1"
    assert _found(streamed) == []
    # The server polls before pulling and stops on a failed pull (set -e, `|| exit 1`), or checks the model later, or
    # pulls again in a sync loop.
    polled = "ollama serve &\nuntil ollama list >/dev/null 2>&1; do sleep 1; done\nollama pull mistral\nwait\n"
    assert _found(_server(script="set -e\n" + polled)) == []
    assert _found(_server(script=polled.replace("pull mistral", "pull mistral || exit 1"))) == []
    assert _found(_server(script=polled.replace("wait", "ollama show mistral\nwait"))) == []
    synced = "ollama serve &\nwhile true; do ollama pull mistral; sleep 3600; done\n"
    assert _found(_server(script=synced)) == []
    assert _found(_server(script="set -e\nollama serve &\nsleep 3\nollama pull mistral\nwait\n")) == []
    assert _found(_server(script="ollama serve &\nsleep 3\nollama pull mistral || exit 1\nwait\n")) == []


def test_a_pull_behind_a_variable_assignment_is_a_download():
    # Spent set 51: HaxxonHax/ollama-k8s-RPi ollama/k8s/pull-ollama-models-job.yaml@61b9bbcf, Job pull-ollama-models:
    # `OLLAMA_HOST=http://ollama:11434 ollama pull "$model"` in a loop after `sleep 10`, then `ollama create`, no set -e.
    # The assignment before the command name is no command of its own (POSIX Shell Command Language 2.9.1).
    script = (
        'sleep 10\nMODELS=(\n  gemma3:1b-it-q4_K_M\n)\nfor model in "${MODELS[@]}"; do\n'
        '  OLLAMA_HOST=http://ollama:11434 ollama pull "$model"\ndone\ncd /opt/ollama-modelfiles\n'
        "OLLAMA_HOST=http://ollama:11434 ollama create gemma3:pirate\n"
    )
    [(level, message)] = found_by([_job(script, ["/bin/bash", "-c"])], "model-download-fails-loudly")
    assert level == "advisory"
    assert message.startswith("container ollama-pull: the script runs on after `ollama pull` with no set -e")
    assert "`sleep` is all that waits for the server before the pull" in message
    assert found_by([_job("set -e\n" + script, ["/bin/bash", "-c"])], "model-download-fails-loudly") == []


def _hooked(command: list[str]) -> dict:
    server = {"name": "ollama", "image": "alpine/ollama:latest", "lifecycle": {"postStart": {"exec": {"command": command}}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": {"containers": [server]}},
        },
    }


def test_a_backgrounded_pull_in_a_post_start_hook_is_silent_on_failure():
    # Spent set 90: barbaria888/KubeOps-AI k8s/ollama.yaml@3a157731, postStart `sleep 5 && ollama pull tinyllama:latest &`:
    # an asynchronous list's status is zero (POSIX 2.9.3.1), so the hook succeeds whatever the pull does.
    [(level, message)] = found_by(
        [_hooked(["/bin/sh", "-c", "sleep 5 && ollama pull tinyllama:latest &"])], "model-download-fails-loudly"
    )
    assert level == "advisory"
    assert message.startswith(
        "container ollama lifecycle.postStart: the script runs `ollama pull` in the background (`&`) and nothing "
        "collects its exit status"
    )
    assert "the hook succeeds and the container runs on without the model" in message
    checked = "ollama pull tinyllama:latest & PID=$!; wait $PID || exit 1"
    assert found_by([_hooked(["/bin/sh", "-c", checked])], "model-download-fails-loudly") == []
    foreground = "until ollama list; do sleep 1; done; ollama pull tinyllama:latest"
    assert found_by([_hooked(["/bin/sh", "-c", foreground])], "model-download-fails-loudly") == []


# Session 52 (brief scripts52): a server's own script that polls the server, then pulls with no check -------------------


def test_a_server_script_that_polls_then_swallows_a_failed_pull():
    # Spent set 100: Babas10/developer-hub-env k8s/ollama/deployment.yaml@9d34586dfe5566fac9bca5e6a7c21245eec6d731
    # (labelled S45): `ollama serve &`, an until-loop on `ollama list`, `ollama pull qwen2.5:1.5b` with no set -e and
    # no check, an echo and `wait`: a failed pull leaves the server running with no model and nothing restarts it.
    script = (
        'ollama serve &\nuntil ollama list >/dev/null 2>&1; do\n  echo "Waiting for ollama server to start..."\n'
        '  sleep 2\ndone\necho "Pulling qwen2.5:1.5b..."\nollama pull qwen2.5:1.5b\necho "Model ready."\nwait\n'
    )
    doc = _server()
    doc["spec"]["template"]["spec"]["containers"][0].update(command=["/bin/bash", "-c", script])
    [(level, message)] = _found(doc)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: the script runs `ollama pull` beside the server with no set -e and no && or || after it, so "
        "a failed pull (a registry error, a full disk, a server that stopped answering) is swallowed"
    )


_ENTRYPOINT = (
    "#!/bin/bash\nollama serve &\nsleep 10\nif [ -f /tmp/models-to-pull.txt ]; then\n"
    '    while IFS= read -r model; do\n        echo "Pulling model: $model"\n        ollama pull "$model"\n'
    "    done < /tmp/models-to-pull.txt\nfi\nwait\n"
)


def _mounted(script: str, command: list[str] | None = None) -> list[dict]:
    """Spent set 102: rgratis/ai-dev-environment@590f6ff0207b6a90c2c5f8880e77a262f59765a8 k8s/ollama/configmap.yaml
    (ConfigMap ollama-config, key entrypoint.sh, labelled S45) and k8s/ollama/deployment.yaml, cut down: the server
    runs the mounted entrypoint.sh."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ollama-config", "namespace": "ai"},
        "data": {"models-to-pull.txt": "codellama:7b-instruct\nmistral:7b-instruct\n", "entrypoint.sh": script},
    }
    doc = _server()
    doc["metadata"]["namespace"] = "ai"
    pod = doc["spec"]["template"]["spec"]
    pod["containers"][0].update(
        command=command or ["/bin/bash", "/entrypoint.sh"],
        volumeMounts=[
            {"name": "ollama-config", "mountPath": "/tmp/models-to-pull.txt", "subPath": "models-to-pull.txt"},
            {"name": "ollama-config", "mountPath": "/entrypoint.sh", "subPath": "entrypoint.sh"},
        ],
    )
    pod["volumes"] = [{"name": "ollama-config", "configMap": {"name": "ollama-config", "defaultMode": 493}}]
    return [config_map, doc]


def test_a_mounted_entrypoint_that_sleeps_then_swallows_each_pull():
    # A `while read` loop over a model list is no wait for the server: `sleep 10` is all that waits.
    [(level, message)] = found_by(_mounted(_ENTRYPOINT), "model-download-fails-loudly")
    assert level == "advisory"
    assert message.startswith(
        "container ollama: the script /entrypoint.sh runs `ollama pull` beside the server after only `sleep` waited"
    )
    # Said on the ConfigMap too, where the script is written (and labelled).
    [(level, message)] = found_by(_mounted(_ENTRYPOINT), "script-map-pull-checked")
    assert level == "advisory"
    assert message.startswith(
        "key entrypoint.sh (run as /entrypoint.sh by container ollama of Deployment ollama) runs `ollama pull` beside "
        "the server after only `sleep` waited"
    )


def test_careful_mounted_entrypoints_stay_silent():
    polled = _ENTRYPOINT.replace("sleep 10", "until ollama list >/dev/null 2>&1; do sleep 1; done")
    for script in (
        _ENTRYPOINT.replace("#!/bin/bash\n", "#!/bin/bash -e\n"),
        _ENTRYPOINT.replace("#!/bin/bash\n", "#!/bin/bash\nset -o errexit\n"),
        polled.replace('ollama pull "$model"', 'ollama pull "$model" || exit 1'),
        polled.replace("wait\n", "ollama list | grep -q mistral || exit 1\nwait\n"),
    ):
        for policy in ("model-download-fails-loudly", "script-map-pull-checked"):
            assert found_by(_mounted(script), policy) == [], (policy, script)
    # `bash -e` on the container's command line, and a ConfigMap no container runs.
    assert found_by(_mounted(_ENTRYPOINT, ["/bin/bash", "-e", "/entrypoint.sh"]), "script-map-pull-checked") == []
    assert found_by(_mounted(_ENTRYPOINT)[:1], "script-map-pull-checked") == []


def _mounted_job(script: str) -> list[dict]:
    """A Job that runs a pull script of a ConfigMap it mounts (the inline forms above, moved into a file: census class
    9's ConfigMap entrypoint.sh forms)."""
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pull"}, "data": {"pull.sh": script}}
    job = _job("")
    container = job["spec"]["template"]["spec"]["containers"][0]
    container.update(command=["/bin/sh", "/scripts/pull.sh"], volumeMounts=[{"name": "s", "mountPath": "/scripts"}])
    job["spec"]["template"]["spec"]["volumes"] = [{"name": "s", "configMap": {"name": "pull"}}]
    return [config_map, job]


def test_a_mounted_job_script_that_swallows_a_failed_pull():
    script = "#!/bin/sh\nexport OLLAMA_HOST=http://ollama:11434\nollama pull mistral\necho done\n"
    [(level, message)] = found_by(_mounted_job(script), "model-download-fails-loudly")
    assert level == "advisory"
    assert message.startswith(
        "container ollama-pull: the script /scripts/pull.sh runs on after `ollama pull` with no set -e and no && or ||"
    )
    for careful in (
        script.replace("#!/bin/sh\n", "#!/bin/sh -e\n"),
        script.replace("mistral\n", "mistral || exit 1\n"),
        script.replace("echo done\n", ""),
    ):
        assert found_by(_mounted_job(careful), "model-download-fails-loudly") == [], careful


def test_errexit_given_as_a_long_shell_option_stays_silent():
    """review53: `bash -o errexit -c SCRIPT` turns errexit on as `bash -e` does (POSIX sh: "-o option ... errexit
    Equivalent to -e"), on the container's command line or on the shell that runs a mounted script."""
    serving = "ollama serve &\nsleep 5\nollama pull llama3.2\nwait"
    server = _server()
    server["spec"]["template"]["spec"]["containers"][0].update(command=["/bin/bash", "-o", "errexit", "-c"], args=[serving])
    assert _found(server) == []
    assert _found(_job("sleep 5\nollama pull mistral\necho done", ["/bin/sh", "-o", "errexit", "-c"])) == []
    command = ["/bin/bash", "-o", "errexit", "/entrypoint.sh"]
    for policy in ("model-download-fails-loudly", "script-map-pull-checked"):
        assert found_by(_mounted(_ENTRYPOINT, command), policy) == [], policy
    # the same scripts without it still fire
    assert len(_found(_job("sleep 5\nollama pull mistral\necho done"))) == 1
    assert len(found_by(_mounted(_ENTRYPOINT, ["/bin/bash", "/entrypoint.sh"]), "script-map-pull-checked")) == 1
    nounset = ["/bin/bash", "-o", "nounset", "/entrypoint.sh"]  # another long option: the script is still read
    assert len(found_by(_mounted(_ENTRYPOINT, nounset), "script-map-pull-checked")) == 1
