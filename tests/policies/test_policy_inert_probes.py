"""G4: a readinessProbe that succeeds whether or not the server answers counts as none (policies/reading/pod_probes.py
inert_exec; session 55, brief misses55).

Fires on spent set 118 ayutaz/project-sid@c3962defe49ba921f7cb3cd100cbb46cb9458719 k8s/llm-gateway.yaml (an exec
``python -c "import piano; print('ok')"`` on a gateway behind Service llm-gateway, labelled G4); silent on the same
set's firoala18/llm-inference-lab@5427668d6a55fc69376fdec73e4263e35e86bbdf k8s/postgres.yaml (``pg_isready -U
litellm``, which asks the server) and on a readiness file the app writes.
"""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from policies.reading.pod_probes import inert_exec

_IMPORT = ["python", "-c", "import piano; print('ok')"]


def _app(command: list[str], image: str = "project-sid/llm-gateway:latest", port: int = 8000) -> list[dict]:
    labels = {"app": "llm-gateway"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm-gateway", "namespace": "piano"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "llm-gateway",
                            "image": image,
                            "ports": [{"name": "http", "containerPort": port}],
                            "readinessProbe": {"exec": {"command": command}, "periodSeconds": 15},
                        }
                    ]
                },
            },
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "llm-gateway", "namespace": "piano"},
        "spec": {"selector": labels, "ports": [{"name": "http", "port": port, "targetPort": "http"}]},
    }
    return [deployment, service]


def test_an_import_only_exec_readiness_is_advice():
    assert found_by(_app(_IMPORT), "workload-readiness-probe") == [
        (
            "advisory",
            "container llm-gateway: the pod's readinessProbe only runs `python -c import piano; print('ok')`, which succeeds "
            "whether or not the app listens, and Service llm-gateway selects it: the pod is Ready as soon as its "
            "containers start, so its Service sends requests before the app listens and keeps sending them after it "
            "stops answering; probe its health endpoint",
        )
    ]


@pytest.mark.parametrize(
    "command",
    [
        ["pg_isready", "-U", "litellm"],  # firoala18/llm-inference-lab k8s/postgres.yaml: asks the server
        ["cat", "/tmp/ready"],  # a file the app writes once ready
        ["python", "-c", "import urllib.request; urllib.request.urlopen('http://localhost:8000/health')"],
        ["sh", "-c", "curl -f localhost:8000/health"],
    ],
)
def test_probes_that_ask_the_app_stay_silent(command):
    assert inert_exec({"exec": {"command": command}}) is None
    assert found_by(_app(command), "workload-readiness-probe") == []


@pytest.mark.parametrize("command", [["true"], ["/bin/true"], ["sh", "-c", "exit 0"], ["echo", "ok"], _IMPORT])
def test_commands_that_cannot_fail_are_inert(command):
    assert inert_exec({"exec": {"command": command}}) == " ".join(command)


def test_a_model_server_with_an_inert_readiness_is_advice():
    objs = _app(["python3", "-c", "import vllm"], image="vllm/vllm-openai:v0.11.0")
    container = objs[0]["spec"]["template"]["spec"]["containers"][0]
    container["args"] = ["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--port", "8000"]
    [(level, message)] = found_by(objs, "serving-readiness-probe")
    assert level == "advisory"
    assert message.startswith("container llm-gateway: readinessProbe only runs `python3 -c import vllm`, which succeeds")
    assert found_by(objs, "workload-readiness-probe") == []  # the model server's row judges it


def _ollama_with_sidecar(server_probe: list[str]) -> list[dict]:
    # Spent set 39 arunudaiyar/openweb-ollama-k8s@8534948 ollama-deploy.yaml: Ollama beside a curl sidecar whose
    # readinessProbe GETs the server's port 11434, which keeps the pod out of the Service until Ollama answers (a pod
    # is Ready only when every container is). Here the server also carries an exec probe that cannot fail.
    labels = {"app": "ollama"}
    return [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "ollama", "namespace": "ai"},
            "spec": {
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "containers": [
                            {
                                "name": "ollama",
                                "image": "ollama/ollama:0.5.7",
                                "ports": [{"containerPort": 11434}],
                                "readinessProbe": {"exec": {"command": server_probe}},
                            },
                            {
                                "name": "probe",
                                "image": "curlimages/curl:8.11.1",
                                "command": ["sleep", "infinity"],
                                "readinessProbe": {"httpGet": {"path": "/api/tags", "port": 11434}},
                            },
                        ]
                    },
                },
            },
        }
    ]


def test_an_inert_server_probe_beside_a_sidecar_probe_of_its_port_is_silent():
    # review55a: the sidecar's probe gates the pod as it does for a server with no probe of its own (set 39 trap).
    assert found_by(_ollama_with_sidecar(["true"]), "serving-readiness-probe") == []


def test_an_inert_server_probe_with_no_sidecar_is_advice():
    objs = _ollama_with_sidecar(["true"])
    objs[0]["spec"]["template"]["spec"]["containers"].pop()
    [(level, message)] = found_by(objs, "serving-readiness-probe")
    assert (level, message.split(",")[0]) == ("advisory", "container ollama: readinessProbe only runs `true`")


def test_one_inert_command_on_two_containers_is_quoted_once():
    objs = _app(_IMPORT)
    pod = objs[0]["spec"]["template"]["spec"]
    pod["containers"].append(dict(pod["containers"][0], name="llm-gateway-worker", ports=[]))
    [(_, message)] = found_by(objs, "workload-readiness-probe")
    assert message.count("import piano") == 1
