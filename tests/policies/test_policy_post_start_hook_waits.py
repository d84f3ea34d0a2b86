"""G48 post-start-hook-waits: a postStart hook that calls the pod's own server before it listens (advice).

Minimal hand-written shapes of the cited third-party files (only the fields the rule reads)."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "post-start-hook-waits"


def _deployment(name: str, *containers: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": list(containers)}},
        },
    }


def _hook(*command: str) -> dict:
    return {"postStart": {"exec": {"command": list(command)}}}


def _ollama(hook: dict | None = None, **extra) -> dict:
    container = {"name": "ollama", "image": "ollama/ollama", "ports": [{"containerPort": 11434}], **extra}
    if hook is not None:
        container["lifecycle"] = hook
    return container


# Set 17: heena675/Ollama-K8s-manifests backend_deploy.yaml at b9474a7fca5ef3901cd01d06b4aaa3388e65a5de.
HEENA = _deployment("chatgpt-backend", _ollama(_hook("/bin/sh", "-c", "ollama run llama3.2:1b")))
# Set 18: yuxiaojian/ollama-k8s ollama-gpu.yaml at 79159968f6c14b53128d14ed2dfe24feaf4c64d2 (set 20's
# phucly01/ollama-k8s ollama/ollama.yaml at 152e6532 is the same loop).
YUXIAOJIAN = _deployment(
    "ollama",
    _ollama(
        _hook("/bin/sh", "-c", 'for model in $PRELOAD_MODELS; do ollama run $model ""; done'),
        env=[{"name": "PRELOAD_MODELS", "value": "llama3.1"}],
    ),
)
# Set 16: heissanjay/ollama-eks-depl kubernetes/deployment.yml at 0f871508ffb668079fbae8f41851d7a86c755782: a curl
# side container's hook posts to the Ollama container of the same pod.
HEISSANJAY = _deployment(
    "ollama",
    _ollama(),
    {
        "name": "load-model",
        "image": "curlimages/curl:latest",
        "command": ["/bin/sh", "-c"],
        "args": ["sleep infinity"],
        "lifecycle": _hook(
            "/bin/sh",
            "-c",
            "curl -X POST http://localhost:11434/api/pull -H 'Content-Type: application/json' -d '{\"name\": \"llama3.2\"}'",
        ),
    },
)
# Found with the code search: opst/knitfab-docs 04.examples/news-classification/ollama/ollama.yaml at
# 103f055f59927fa5af414b07d249727f1ae7377d (ollama/ollama:0.6.5 on one GPU, postStart `ollama pull llama3.2`).
KNITFAB = _deployment("ollama", _ollama(_hook("sh", "-c", "ollama pull llama3.2"), image="ollama/ollama:0.6.5"))


def test_an_ollama_cli_hook_racing_the_server_is_advice():
    ((level, message),) = found_by([HEENA], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: lifecycle.postStart runs `ollama run`, which fails at once while the Ollama server is not "
        "listening yet, with no wait or retry; the kubelet runs the hook beside the entrypoint and kills the container "
        "when it fails (FailedPostStartHook)"
    )
    assert [lv for lv, _ in found_by([YUXIAOJIAN], POLICY)] == ["advisory"]
    ((_, pull),) = found_by([KNITFAB], POLICY)
    assert "runs `ollama pull`" in pull


def test_a_curl_hook_on_a_port_another_container_serves_is_advice():
    ((level, message),) = found_by([HEISSANJAY], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container load-model: lifecycle.postStart runs a request to http://localhost:11434, refused while the server "
        "on port 11434 is not listening yet"
    )


# Set 15: isrealei/vllm-eks-inference-platform infra-live/vllm/llama.yaml at bd4e7cb36ac2861b6397de279fdbb791d40ba692:
# the warm-up hook loops on /health before it posts.
ISREALEI = _deployment(
    "vllm-llama3",
    {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.6.3",
        "args": ["--model", "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4"],
        "ports": [{"containerPort": 8000}],
        "lifecycle": _hook(
            "/bin/sh",
            "-c",
            "while ! curl -s http://localhost:8000/health; do sleep 1; done\n"
            'curl -s http://localhost:8000/v1/chat/completions -d \'{"model":"llama3"}\'\n',
        ),
    },
)


def test_a_hook_that_waits_for_the_server_stays_silent():
    assert found_by([ISREALEI], POLICY) == []
    until = _hook("/bin/sh", "-c", "until ollama list; do sleep 2; done; ollama pull llama3.2")
    assert found_by([_deployment("ollama", _ollama(until))], POLICY) == []


def test_a_hook_whose_failure_is_ignored_or_backgrounded_stays_silent():
    for script in ("ollama pull llama3.2 || true", "ollama pull llama3.2 &", "ollama pull llama3.2; echo done"):
        assert found_by([_deployment("ollama", _ollama(_hook("/bin/sh", "-c", script)))], POLICY) == [], script


def test_a_pull_in_an_init_container_or_against_another_host_stays_silent():
    init = _deployment("ollama", _ollama())
    init["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "pull", "image": "ollama/ollama", "command": ["/bin/sh", "-c", "ollama serve & sleep 5; ollama pull x"]}
    ]
    assert found_by([init], POLICY) == []
    remote = _ollama(_hook("ollama", "pull", "llama3.2"), env=[{"name": "OLLAMA_HOST", "value": "ollama-svc:11434"}])
    assert found_by([_deployment("client", remote)], POLICY) == []
    # A curl to a port nothing in the pod serves is not this rule's.
    other = {"name": "app", "image": "busybox", "lifecycle": _hook("/bin/sh", "-c", "curl http://localhost:9999/x")}
    assert found_by([_deployment("app", other)], POLICY) == []
