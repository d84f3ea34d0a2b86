"""S62 chat-ui-reaches-a-backend and G61 proxy-backend-in-pod on chat UIs: Open WebUI's backend variables as its release
resolves them (components/chat_uis.toml, open-webui/open-webui 0.6.18 backend/open_webui/config.py L845-956 and
Dockerfile L52-66 at b8912aa671281ee577981a2a481d8c2b233d2938).

Firing forms, fresh sets 54-55: chiheb08/openwebUI-Kubernetes openwebui-deployment.yaml (no backend variable: the
image's OLLAMA_BASE_URL=/ollama becomes http://host.docker.internal:11434), DevOpswithAnkita/ollama-openwebui-k8s
k8s-Deployment/openwebui-deploy.yml (only the legacy OLLAMA_API_BASE_URL, which the image's OLLAMA_BASE_URL hides),
mshahzeb/k8s-llm-stack open-webui.yaml (OLLAMA_BASE_URLS=http://localhost:30434, G61). A second, differently written
form: a demo script's embedded manifest in the code index (file id 30210606978: flow-style ``env: [{ name:
OLLAMA_API_BASE_URL, value: http://ollama:11434 }]``, non-root securityContext, an init container).
"""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

S62, G61 = "chat-ui-reaches-a-backend", "proxy-backend-in-pod"


def _webui(env: list[dict] | None = None, image: str = "ghcr.io/open-webui/open-webui:main", **spec) -> dict:
    container: dict = {"name": "openwebui", "image": image, "ports": [{"containerPort": 8080}]}
    if env is not None:
        container["env"] = env
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "openwebui", "namespace": "openwebui"},
        "spec": {
            "selector": {"matchLabels": {"app": "openwebui"}},
            "template": {"metadata": {"labels": {"app": "openwebui"}}, "spec": {"containers": [container], **spec}},
        },
    }


LEGACY = [{"name": "OLLAMA_API_BASE_URL", "value": "http://ollama:11434"}]


def test_a_webui_given_no_backend_or_only_the_legacy_variable_is_advice():
    ((level, message),) = found_by([_webui()], S62)
    assert level == "advisory" and "http://host.docker.internal:11434" in message and "OPENAI_API_KEY" in message
    ((level, message),) = found_by([_webui(LEGACY)], S62)
    assert level == "advisory" and "reads it only while OLLAMA_BASE_URL is empty" in message
    # The code index's flow-style form: the legacy variable beside a non-root pod and an init container.
    flow = _webui(LEGACY, image="ghcr.io/open-webui/open-webui:latest")
    pod = flow["spec"]["template"]["spec"]
    pod["securityContext"] = {"runAsNonRoot": True, "runAsUser": 1000}
    pod["initContainers"] = [{"name": "fix-perms", "image": "busybox:1.36", "command": ["sh", "-c", "chmod -R 0777 /data"]}]
    assert [level for level, _ in found_by([flow], S62)] == ["advisory"]


@pytest.mark.parametrize(
    "env, image, spec",
    [
        ([{"name": "OLLAMA_BASE_URL", "value": "http://ollama:11434"}], "", {}),
        ([{"name": "OLLAMA_BASE_URLS", "value": "http://ollama-0:11434;http://ollama-1:11434"}], "", {}),
        ([{"name": "OLLAMA_BASE_URL", "value": ""}, *LEGACY], "", {}),  # emptied: the legacy variable is read
        ([{"name": "K8S_FLAG", "value": "true"}], "", {}),  # the chart's in-cluster default
        ([{"name": "OPENAI_API_BASE_URL", "value": "http://vllm.llm.svc.cluster.local:8000/v1"}], "", {}),
        ([{"name": "OPENAI_API_KEY", "valueFrom": {"secretKeyRef": {"name": "openai", "key": "key"}}}], "", {}),
        ([{"name": "OLLAMA_BASE_URL", "valueFrom": {"configMapKeyRef": {"name": "webui", "key": "url"}}}], "", {}),
        (None, "ghcr.io/open-webui/open-webui:ollama", {}),  # Ollama inside the image
        (None, "", {"hostAliases": [{"ip": "10.0.0.5", "hostnames": ["host.docker.internal"]}]}),
        ([{"name": "ENV", "value": "dev"}], "", {}),  # not production: /ollama is proxied as written
    ],
)
def test_careful_forms_stay_silent(env, image, spec):
    assert found_by([_webui(env, image or "ghcr.io/open-webui/open-webui:main", **spec)], S62) == []


def test_an_env_from_may_set_the_backend():
    deployment = _webui()
    deployment["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "webui-env"}}]
    assert found_by([deployment], S62) == []


def test_a_webui_backend_on_its_own_localhost_is_advice():
    ((level, message),) = found_by([_webui([{"name": "OLLAMA_BASE_URLS", "value": "http://localhost:30434"}])], G61)
    assert level == "advisory" and "OLLAMA_BASE_URLS=http://localhost:30434" in message
    openai = _webui([{"name": "OPENAI_API_BASE_URL", "value": "http://127.0.0.1:8000/v1"}])
    assert [level for level, _ in found_by([openai], G61)] == ["advisory"]


def test_a_localhost_backend_the_pod_serves_stays_silent():
    # Ollama in the same pod, declaring its port.
    sidecar = _webui([{"name": "OLLAMA_BASE_URL", "value": "http://localhost:11434"}])
    sidecar["spec"]["template"]["spec"]["containers"].append(
        {"name": "ollama", "image": "ollama/ollama:0.3.5", "ports": [{"containerPort": 11434}]}
    )
    assert found_by([sidecar], G61) == []
    # The :ollama image runs Ollama inside: /ollama resolves to its localhost:11434, as does a value naming it.
    assert found_by([_webui(image="ghcr.io/open-webui/open-webui:ollama")], G61) == []
    bundled = _webui(
        [{"name": "OLLAMA_BASE_URL", "value": "http://127.0.0.1:11434"}], image="ghcr.io/open-webui/open-webui:v0.6.18-ollama"
    )
    assert found_by([bundled], G61) == []
    # A Service name is not the pod's own address.
    assert found_by([_webui([{"name": "OLLAMA_BASE_URL", "value": "http://ollama:11434"}])], G61) == []
