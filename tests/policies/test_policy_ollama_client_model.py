"""S57 ollama-client-model-pulled: a client asks the run's Ollama for a model the run pulls (advice).

Firing forms (brief none48: labellers of spent sets found no row for them): the Ollama server pulls llama3 in an init
container (``ollama serve & sleep 2 && ollama pull llama3``, the form of the code index's Ollama Helm templates) while
an agent's OLLAMA_MODEL (literal, or from a ConfigMap of the files) asks for mistral; an Open WebUI DEFAULT_MODELS
naming a model no pull names. ollama/ollama v0.32.15 server/routes.go:3107-3116: a model not in the store is answered
404 "model ... not found, try pulling it first".
Careful forms: the names agree (``llama3`` == ``llama3:latest`` == ``library/llama3``, types/model/name.go:39-42); a
pull by a variable the files do not resolve; a run that pulls nothing; no Ollama server in the run; a Hub id.
"""

import copy

from policy_fixtures import found_by

POLICY = "ollama-client-model-pulled"


def _deployment(name, pod):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ai"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": pod}},
    }


def _server(pull="ollama pull llama3"):
    return _deployment(
        "ollama",
        {
            "initContainers": [
                {
                    "name": "pull",
                    "image": "ollama/ollama:0.6.8",
                    "command": ["sh", "-c", f"ollama serve & sleep 2 && {pull}"],
                    "volumeMounts": [{"name": "data", "mountPath": "/root/.ollama"}],
                }
            ],
            "containers": [
                {
                    "name": "ollama",
                    "image": "ollama/ollama:0.6.8",
                    "ports": [{"containerPort": 11434}],
                    "volumeMounts": [{"name": "data", "mountPath": "/root/.ollama"}],
                }
            ],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "ollama"}}],
        },
    )


def _agent(env):
    return _deployment("agent", {"containers": [{"name": "agent", "image": "example/agent:1.0", "env": env}]})


URL = {"name": "OLLAMA_BASE_URL", "value": "http://ollama.ai.svc.cluster.local:11434"}


def test_a_client_asking_for_a_model_the_run_does_not_pull():
    ((level, message),) = found_by([_server(), _agent([URL, {"name": "OLLAMA_MODEL", "value": "mistral"}])], POLICY)
    assert level == "advisory"
    assert message.startswith("container agent: OLLAMA_MODEL asks Ollama for mistral, but the run pulls only llama3:latest")
    # Through a ConfigMap of the files, and a generic name in a container that reaches an Ollama.
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "agent", "namespace": "ai"},
        "data": {"MODEL_NAME": "qwen2.5:7b"},
    }
    agent = _agent([URL])
    agent["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "agent"}}]
    assert len(found_by([_server(), agent, config], POLICY)) == 1
    # Open WebUI's DEFAULT_MODELS list.
    ui = _agent([URL, {"name": "DEFAULT_MODELS", "value": "llama3,phi3"}])
    assert [m.split(":")[0] for _, m in found_by([_server(), ui], POLICY)] == ["container agent"]


def test_careful_forms_are_silent():
    for asked in ("llama3", "llama3:latest", "library/llama3", "LLAMA3"):
        assert found_by([_server(), _agent([URL, {"name": "OLLAMA_MODEL", "value": asked}])], POLICY) == []
    asks = _agent([URL, {"name": "OLLAMA_MODEL", "value": "mistral"}])
    assert found_by([_server(pull="ollama pull $MODEL"), copy.deepcopy(asks)], POLICY) == []  # unresolved pull
    assert found_by([_server(pull="echo ready"), copy.deepcopy(asks)], POLICY) == []  # the run pulls nothing
    assert found_by([copy.deepcopy(asks)], POLICY) == []  # no Ollama server in the run
    hub = _agent([URL, {"name": "MODEL_NAME", "value": "meta-llama/Llama-3.1-8B-Instruct"}])
    assert found_by([_server(), hub], POLICY) == []
    # A generic MODEL_NAME in a container that reaches no Ollama is not read.
    assert found_by([_server(), _agent([{"name": "MODEL_NAME", "value": "mistral"}])], POLICY) == []
    # A Job that pulls the asked model for the run.
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pull", "namespace": "ai"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "pull",
                            "image": "ollama/ollama:0.6.8",
                            "command": ["sh", "-c", "OLLAMA_HOST=ollama:11434 ollama pull mistral"],
                        }
                    ],
                }
            }
        },
    }
    assert found_by([_server(), copy.deepcopy(asks), job], POLICY) == []
