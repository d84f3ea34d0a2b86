"""G89 completion-runs-no-server: an init container or a Job's container runs no model server.

ollama/ollama v0.32.15 Dockerfile L319-320: ENTRYPOINT ["/bin/ollama"] CMD ["serve"] (the engine table's entrypoint and
image_cmd), so the image given no command and no args runs `ollama serve`, which never exits. Firing form: spent set 70
punkplod23/gemmalocalllm@19fa9d7caf7399c38b62efcd1132dd260bd60cd7 k8s/ollama-model-loader.yaml, a Job whose container
gives only image ollama/ollama:latest. An init container never exiting keeps the pod from starting (kubernetes.io
init-containers): blocking there, advice for a Job.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "completion-runs-no-server"

LOADER = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "ollama-model-loader"},
    "spec": {
        "template": {
            "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "model-loader", "image": "ollama/ollama:latest"}]}
        }
    },
}


def _init(container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "app", "namespace": "ai"},
        "spec": {
            "selector": {"matchLabels": {"app": "app"}},
            "template": {
                "metadata": {"labels": {"app": "app"}},
                "spec": {
                    "initContainers": [{"name": "fetch", **container}],
                    "containers": [{"name": "app", "image": "example/app:1.0"}],
                },
            },
        },
    }


def test_a_job_given_an_engine_image_and_no_command_is_advice():
    ((level, message),) = found_by([LOADER], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container model-loader: image ollama/ollama:latest with no command and no args runs its entrypoint `ollama serve`"
    )
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "loader"},
        "spec": {"schedule": "@daily", "jobTemplate": {"spec": copy.deepcopy(LOADER["spec"])}},
    }
    assert [level for level, _ in found_by([cron], POLICY)] == ["advisory"]


def test_an_init_container_running_a_server_blocks():
    ((level, message),) = found_by([_init({"image": "docker.io/ollama/ollama:0.6.8"})], POLICY)
    assert level == "mandatory"
    assert message.startswith("init container fetch: image docker.io/ollama/ollama:0.6.8 with no command and no args")
    # The server as the container's own command, vLLM's too (args flags to its `vllm serve` entrypoint).
    explicit = _init({"image": "example/tools:1", "command": ["/bin/ollama", "serve"]})
    vllm = _init({"image": "vllm/vllm-openai:v0.8.5", "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]})
    for obj in (explicit, vllm):
        assert [level for level, _ in found_by([obj], POLICY)] == ["mandatory"]


def test_careful_forms_are_silent():
    careful = [
        {"image": "ollama/ollama:0.6.8", "args": ["pull", "llama3"]},  # args replace the CMD: `ollama pull`
        {"image": "ollama/ollama:0.6.8", "command": ["sh", "-c", "ollama serve & sleep 5 && ollama pull llama3"]},
        {"image": "example/ollama:1.0"},  # a rebuild may set another CMD
        {"image": "vllm/vllm-openai:v0.8.5"},  # no args and no CMD in the table: not read
        {"image": "vllm/vllm-openai:v0.8.5", "command": ["python3", "-m", "vllm.entrypoints.openai.run_batch"]},
        {"image": "ollama/ollama:0.6.8", "command": ["timeout", "600", "ollama", "serve"]},
        {"image": "ollama/ollama:0.6.8", "restartPolicy": "Always"},  # a native sidecar runs on by design
    ]
    for container in careful:
        assert found_by([_init(copy.deepcopy(container))], POLICY) == [], container
    # The server as a Deployment's regular container is what it is for.
    server = _init({"image": "busybox:1.36", "command": ["true"]})
    server["spec"]["template"]["spec"]["containers"] = [{"name": "ollama", "image": "ollama/ollama:0.6.8"}]
    assert found_by([server], POLICY) == []


def test_bad_input_never_tracebacks():
    for container in ({"image": 5}, {"image": None, "command": "ollama serve"}, {"args": [None, {}]}, {"command": [["x"]]}):
        found_by([_init(container)], POLICY)
    odd = copy.deepcopy(LOADER)
    odd["spec"]["template"]["spec"]["containers"] = [None, "x", {"name": {}, "image": ["ollama/ollama"]}]
    found_by([odd], POLICY)


def test_malformed_args_are_unknown_not_absent():
    """Review 49b #5: `args: [{a: 1}]` is refused by the API server (S26 blocks it); what the image would run is
    unknown, so G89 makes no claim (it said "no command and no args")."""
    for args in ([{"a": 1}], ["serve", 5], "serve", {"a": 1}):
        assert found_by([_init({"image": "ollama/ollama:0.6.8", "args": args})], POLICY) == [], args
    # Careful form: an empty or null args list is no args, and still blocks.
    for args in ([], None):
        assert [level for level, _ in found_by([_init({"image": "ollama/ollama:0.6.8", "args": args})], POLICY)] == ["mandatory"]
