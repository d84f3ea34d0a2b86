"""G63 widened: a URL to a name only a desktop container engine resolves (host.docker.internal), and a URL to
``NAME.NS.svc...`` where the files put nothing at all in NS (advice both).

Firing forms: cncf/llm-in-action@64ff29db8732253d0178ca14b2d67994d9ab7541 kubernetes/deployment.yaml (spent set 76,
labelled G63: OLLAMA_BASE_URL http://host.docker.internal:11434 on the Streamlit app keynote), and
kcjones91/k8s-applications@2eaadd1d4024fb15647796efe7f642bf6b96b0df apps/open-webui/deployment.yaml (spent set 75,
labelled G63: OLLAMA_BASE_URL http://ollama.ollama.svc.cluster.local:11434 while the files deploy vLLM only, in namespace
vllm). Silent: the pod maps the name (hostAliases), the URL names a namespace the files hold, a Service of that name
whose namespace is left out.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G63 = "in-cluster-url-resolves"


def _deployment(name: str, namespace: str | None, env: dict[str, str], image: str = "ghcr.io/cncf/keynote:1.0") -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    container = {"name": name, "image": image, "env": [{"name": k, "value": v} for k, v in env.items()]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _service(name: str, namespace: str | None, port: int) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta,
        "spec": {"selector": {"app": name}, "ports": [{"port": port}]},
    }


KEYNOTE = _deployment("keynote", None, {"OLLAMA_BASE_URL": "http://host.docker.internal:11434"})


def test_a_desktop_host_is_advice():
    ((level, message),) = found_by([KEYNOTE, _service("keynote", None, 8501)], G63)
    assert level == "advisory"
    assert message.startswith(
        "container keynote env OLLAMA_BASE_URL = http://host.docker.internal:11434 names host.docker.internal, which only "
        "a desktop container engine"
    )
    assert [lv for lv, _ in found_by([KEYNOTE], G63)] == ["advisory"]  # no Service in the files: still read


def test_a_desktop_host_the_pod_maps_stays_silent():
    mapped = copy.deepcopy(KEYNOTE)
    mapped["spec"]["template"]["spec"]["hostAliases"] = [{"ip": "10.0.0.5", "hostnames": ["host.docker.internal"]}]
    assert found_by([mapped], G63) == []


WEBUI = _deployment(
    "open-webui",
    "open-webui",
    {
        "OLLAMA_BASE_URL": "http://ollama.ollama.svc.cluster.local:11434",
        "OPENAI_API_BASE_URL": "http://vllm.vllm.svc.cluster.local/v1",
    },
    image="ghcr.io/open-webui/open-webui:v0.6.18",
)
VLLM = [_deployment("vllm", "vllm", {}, image="vllm/vllm-openai:v0.10.1"), _service("vllm", "vllm", 80)]


def test_a_url_to_a_namespace_the_files_leave_empty_is_advice():
    found = found_by([WEBUI, _service("open-webui", "open-webui", 8080), *VLLM], G63)
    assert [lv for lv, _ in found] == ["advisory"]
    assert found[0][1].startswith(
        "container open-webui env OLLAMA_BASE_URL = http://ollama.ollama.svc.cluster.local:11434 names Service ollama in "
        "namespace ollama, where none of the files read puts anything"
    )


def test_a_namespace_the_files_hold_or_a_floating_service_stays_silent_here():
    # the files deploy Ollama in namespace ollama: the URL resolves
    ollama = [_deployment("ollama", "ollama", {}, image="ollama/ollama:0.6.0"), _service("ollama", "ollama", 11434)]
    assert found_by([WEBUI, *VLLM, *ollama], G63) == []
    # Service ollama with its namespace left out (applied with -n ollama): _unplaced_port's reading, port 11434 offered
    assert found_by([WEBUI, *VLLM, _service("ollama", None, 11434)], G63) == []
