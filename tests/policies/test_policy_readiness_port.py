"""G4: a readinessProbe on a port the model server does not listen on never succeeds.

Fixture: the shape of set 6's bkauf/ai-ml-tooling sglang-deployment.yaml @ 4a6caa760d4b693d5c5a86f85a20501b72833749
(an SGLang Deployment started with ``--port 30000`` whose readinessProbe and containerPort say 8000).
SGLang and vLLM listen on ``--port`` (components/serving_engines.toml settings.port; defaults 30000 and 8000).
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from policies.k8s_generic.serving_readiness_probe import POLICY

_SGLANG = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "sglang-test", "namespace": "default"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "sglang-test"}},
        "template": {
            "metadata": {"labels": {"app": "sglang-test"}},
            "spec": {
                "containers": [
                    {
                        "name": "inference-server",
                        "image": "lmsysorg/sglang:v0.5.2",
                        "command": ["python3", "-m", "sglang.launch_server"],
                        "args": ["--model-path", "google/gemma-3-4b-it", "--host", "0.0.0.0", "--port", "30000"],
                        "ports": [{"containerPort": 8000, "name": "metrics"}],
                        "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}


def _r(doc: dict):
    return resource(f"kubernetes:{doc['apiVersion']}:{doc['kind']}", copy.deepcopy(doc))


def _server(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]


def test_a_probe_on_a_port_the_server_does_not_listen_on_blocks():
    assert messages(POLICY, _r(_SGLANG)) == [
        "container inference-server: readinessProbe GETs port 8000, but SGLang listens on 30000 (--port 30000) and "
        "nothing else in the pod does, so the probe never succeeds and the pod never becomes Ready; probe port 30000"
    ]
    # The named port resolves to the same 8000.
    named = copy.deepcopy(_SGLANG)
    _server(named)["readinessProbe"]["httpGet"]["port"] = "metrics"
    assert len(messages(POLICY, _r(named))) == 1
    # vLLM with no --port listens on 8000: a probe on 8080 never succeeds.
    vllm = copy.deepcopy(_SGLANG)
    _server(vllm).update(image="vllm/vllm-openai:v0.11.0", command=["vllm", "serve"], args=["Qwen/Qwen2.5-7B-Instruct"])
    _server(vllm)["readinessProbe"]["httpGet"]["port"] = 8080
    (found,) = messages(POLICY, _r(vllm))
    assert "vLLM listens on 8000 (its default port 8000)" in found


def test_careful_forms_stay_silent():
    right = copy.deepcopy(_SGLANG)
    _server(right)["readinessProbe"]["httpGet"]["port"] = 30000
    assert messages(POLICY, _r(right)) == []
    # Another container shares the pod's network: it may be what listens on 8000 (a proxy in front of the server).
    proxied = copy.deepcopy(_SGLANG)
    proxied["spec"]["template"]["spec"]["containers"].append({"name": "proxy", "image": "envoyproxy/envoy:v1.31.0"})
    assert messages(POLICY, _r(proxied)) == []
    sidecar = copy.deepcopy(_SGLANG)
    sidecar["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0", "restartPolicy": "Always"}
    ]
    assert messages(POLICY, _r(sidecar)) == []
    # A port the manifest does not resolve, a Unix socket, a TCP probe: not proven.
    for args in (["--model-path", "m", "--port", "$(PORT)"], ["--model-path", "m", "--port", "30000", "--config", "c.yaml"]):
        unresolved = copy.deepcopy(_SGLANG)
        _server(unresolved)["args"] = args
        assert messages(POLICY, _r(unresolved)) == []
    uds = copy.deepcopy(_SGLANG)
    _server(uds).update(image="vllm/vllm-openai:v0.11.0", command=["vllm", "serve"], args=["m", "--uds", "/tmp/s.sock"])
    assert messages(POLICY, _r(uds)) == []
    tcp = copy.deepcopy(_SGLANG)
    _server(tcp)["readinessProbe"] = {"tcpSocket": {"port": 8000}}
    assert messages(POLICY, _r(tcp)) == []
    # TGI's port setting (--port, PORT; its images ENV PORT=80) is in the table since session 49: a probe on 80 is right.
    tgi = copy.deepcopy(_SGLANG)
    _server(tgi).update(image="ghcr.io/huggingface/text-generation-inference:3.3.7", command=None, args=["--port", "80"])
    _server(tgi).pop("command")
    _server(tgi)["readinessProbe"]["httpGet"]["port"] = 80
    assert messages(POLICY, _r(tgi)) == []


def _vllm(command: list[str] | None, args: list[str], probe: int = 8080, **extra) -> dict:
    doc = copy.deepcopy(_SGLANG)
    _server(doc).update(image="vllm/vllm-openai:v0.10.1", args=args, **extra)
    if command is None:
        _server(doc).pop("command")
    else:
        _server(doc)["command"] = command
    _server(doc).pop("ports")
    _server(doc)["readinessProbe"]["httpGet"]["port"] = probe
    return doc


def test_a_variable_split_into_options_leaves_the_port_unknown():
    """Review 32 R11 (probes /work/review/s25/g4.yaml vllmcfg, g4b.yaml vllmenv/vllmargs, g4d.yaml dollarat): a
    shell-split `$EXTRA_ARGS`, a `$(EXTRA_ARGS)` the kubelet leaves for an envFrom ConfigMap, or the script's `"$@"`
    (the args after `sh -c SCRIPT --`, the way KServe's LLMInferenceService preset passes args: kserve v0.20.0
    config/llmisvcconfig/config-llm-template.yaml:145-179) may carry `--port`: the port is not proven."""
    configmap = {"name": "VLLM_EXTRA_ARGS", "valueFrom": {"configMapKeyRef": {"name": "vllm-args", "key": "extra"}}}
    for doc in (
        _vllm(["/bin/sh", "-c"], ["vllm serve $MODEL $VLLM_EXTRA_ARGS"], env=[{"name": "MODEL", "value": "m"}, configmap]),
        _vllm(None, ["--model", "Qwen/Qwen2.5-7B-Instruct", "$(EXTRA_ARGS)"], envFrom=[{"configMapRef": {"name": "e"}}]),
        _vllm(["bash", "-c", "source /config/env.sh && vllm serve Qwen/Qwen2.5-7B-Instruct $EXTRA_ARGS"], []),
        _vllm(["/bin/sh", "-c", 'exec vllm serve "$@"', "--"], ["Qwen/Qwen2.5-7B-Instruct", "--port", "8080"]),
    ):
        assert messages(POLICY, _r(doc)) == []
    # Still proven: a variable that is the positional model or an option's value, on a probe off the default port.
    for doc in (
        _vllm(["/bin/sh", "-c"], ["vllm serve $MODEL"], env=[{"name": "MODEL", "valueFrom": {"secretKeyRef": {}}}]),
        _vllm(["/bin/sh", "-c"], ["vllm serve m --served-model-name $NAME --enforce-eager"]),
    ):
        (found,) = messages(POLICY, _r(doc))
        assert "vLLM listens on 8000 (its default port 8000)" in found


# grandiv/fragrance-palette-scalable k8s/tgi.yaml (spent set 54), cut: TGI with no --port, probed on 80. The
# publisher's images set ENV PORT=80 (huggingface/text-generation-inference v3.3.7 Dockerfile L144-149, v2.0.0
# L171-173; components/serving_engines.toml tgi image_port), which the launcher reads (launcher/src/main.rs L772-774).
_TGI = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "tgi-deployment", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "tgi"}},
        "template": {
            "metadata": {"labels": {"app": "tgi"}},
            "spec": {
                "containers": [
                    {
                        "name": "tgi",
                        "image": "ghcr.io/huggingface/text-generation-inference:2.4.0",
                        "args": ["--model-id", "meta-llama/Llama-3.2-1B"],
                        "ports": [{"containerPort": 80}],
                        "readinessProbe": {"httpGet": {"path": "/health", "port": 80}},
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}


def test_tgi_listens_on_its_images_port_80():
    assert messages(POLICY, resource("kubernetes:apps/v1:Deployment", _TGI)) == []
    moved = copy.deepcopy(_TGI)
    moved["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["port"] = 3000
    (message,) = messages(POLICY, resource("kubernetes:apps/v1:Deployment", moved))
    assert "readinessProbe GETs port 3000, but Hugging Face TGI listens on 80 (the image's ENV PORT=80)" in message
    # PORT from a source the files do not resolve: the port is unknown, nothing is judged.
    secret = copy.deepcopy(moved)
    secret["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "PORT", "valueFrom": {"secretKeyRef": {"name": "tgi", "key": "port"}}}
    ]
    assert messages(POLICY, resource("kubernetes:apps/v1:Deployment", secret)) == []
