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

from policy_fixtures import found_by, manifest

from policies.registry import evaluate

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
    assert len(found_by([_server(), agent, config], POLICY)) == 2  # on the client and on the ConfigMap
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


# Brief clients49b item 1: the three forms spent sets 67, 68 and 70 missed.
def _config(name, data, namespace="ai"):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, "data": data}


def _from_map(variable, config):
    return {"name": variable, "valueFrom": {"configMapKeyRef": {"name": config, "key": variable}}}


def test_a_model_from_a_config_map_is_reported_on_the_config_map():
    # Chunshan-Theta/local-voice-ai@1052b7ec0e3b1784ac76ef098adcb9f4dc789892 k8s/configmap.yaml: OLLAMA_MODEL gemma3:1b
    # read through configMapKeyRef by the Next.js app, while k8s/ollama-deployment.yaml pulls only gemma3:12b.
    config = _config("voice-ai-config", {"OLLAMA_BASE_URL": "http://ollama-service:11434", "OLLAMA_MODEL": "gemma3:1b"})
    app = _agent([_from_map("OLLAMA_BASE_URL", "voice-ai-config"), _from_map("OLLAMA_MODEL", "voice-ai-config")])
    found = evaluate([manifest(o) for o in (_server("ollama pull gemma3:12b"), app, config)])
    finding, client = sorted((v for v in found if v.policy == POLICY), key=lambda v: v.resource)
    assert client.resource == "Deployment/agent" and client.message.startswith(
        "container agent: OLLAMA_MODEL (ConfigMap voice-ai-config key OLLAMA_MODEL) asks Ollama for gemma3:1b"
    )
    assert finding.resource == "ConfigMap/voice-ai-config"
    assert finding.message.startswith(
        "ConfigMap voice-ai-config key OLLAMA_MODEL (container agent of Deployment agent reads it as OLLAMA_MODEL) asks "
        "Ollama for gemma3:1b, but the run pulls only gemma3:12b"
    )


def test_an_ollama_url_from_a_secret_still_marks_an_ollama_client():
    # catdevops1/cluster-ai@4018af8e8c70e4ee54f559bfb27cd41acc1eb1ad k8s/fastapi.yaml: MODEL_NAME llama3.2:1b beside
    # OLLAMA_URL from a Secret; k8s/ollama-pull-job.yaml POSTs {"name": "llama3.2:3b"} to /api/pull.
    secret_url = {"name": "OLLAMA_URL", "valueFrom": {"secretKeyRef": {"name": "cluster-ai-secret", "key": "OLLAMA_URL"}}}
    api = _agent([secret_url, {"name": "MODEL_NAME", "value": "llama3.2:1b"}])
    pull = 'curl -X POST http://ollama:11434/api/pull -d \'{"name": "llama3.2:3b"}\''
    ((level, message),) = found_by([_server(pull), api], POLICY)
    assert message.startswith("container agent: MODEL_NAME asks Ollama for llama3.2:1b, but the run pulls only llama3.2:3b")
    # Careful: a Secret named by no OLLAMA_ variable does not make a generic MODEL_NAME an Ollama one.
    other = {"name": "API_URL", "valueFrom": {"secretKeyRef": {"name": "s", "key": "u"}}}
    assert found_by([_server(pull), _agent([other, {"name": "MODEL_NAME", "value": "llama3.2:1b"}])], POLICY) == []


def _unpulled_server(volume):
    server = _server()
    del server["spec"]["template"]["spec"]["initContainers"]
    server["spec"]["template"]["spec"]["volumes"] = [{"name": "data", **volume}]
    return server


def test_a_config_map_client_of_an_ollama_that_nothing_fills():
    # jakepage91/operating-llms-on-kubernetes@1d935471426262ef199dce11a1948508e49f6482 llm-gateway/k8s/configmap.yaml:
    # the gateway's ConfigMap (its Deployment is not among the files) sets DEFAULT_MODEL llama2 for
    # http://ollama.llm.svc.cluster.local:11434, whose store (kubernetes/ollama-deployment.yaml) is an emptyDir that no
    # pod fills.
    gateway = _config(
        "llm-gateway-config",
        {"OLLAMA_BASE_URL": "http://ollama.ai.svc.cluster.local:11434", "DEFAULT_MODEL": "llama2", "PORT": "8000"},
        namespace="llm-gateway",
    )
    ((level, message),) = found_by([_unpulled_server({"emptyDir": {}}), gateway], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "ConfigMap llm-gateway-config key DEFAULT_MODEL asks Ollama for llama2, but nothing in the files pulls a model "
        "into the run's Ollama, whose store is /root/.ollama/models on the emptyDir data"
    )
    # Careful: a store on a claim may hold models pulled by hand; a ConfigMap the server itself reads is its own.
    assert found_by([_unpulled_server({"persistentVolumeClaim": {"claimName": "c"}}), copy.deepcopy(gateway)], POLICY) == []
    own = _unpulled_server({"emptyDir": {}})
    own["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "ollama-env"}}]
    assert found_by([own, _config("ollama-env", {"OLLAMA_HOST": "0.0.0.0", "OLLAMA_MODEL": "llama2"})], POLICY) == []
    # A ConfigMap that reaches no Ollama names no Ollama model.
    plain = _config("app", {"DEFAULT_MODEL": "llama2", "API_URL": "http://vllm:8000/v1"})
    assert found_by([_unpulled_server({"emptyDir": {}}), plain], POLICY) == []
