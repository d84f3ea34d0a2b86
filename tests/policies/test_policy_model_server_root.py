"""G28 model-server-runs-as-root (advice): a model server whose securityContext pins it to root.

Fires on the forms of spent set 85 (sulibot/home-ops@34144891668675714f3e2086e0d212b7db7c7de0:
kubernetes/apps/tier-2-applications/ollama/app/helmrelease.yaml, app-template defaultPodOptions runAsUser 0: see
test_policy_app_template.py) and set 52 (misohu/charmed-llm-autoscaling manifests/mixtral-llmisvc.yaml, runAsNonRoot
false); silent where a non-zero runAsUser wins, and on a serving-path app that writes only runAsNonRoot: false (spent set
56's LiteLLM trap). A serving-path app or chat UI pinned by runAsUser: 0 is advised on (spent set 107
cyberglitchlabs/clouddrop@c1269f51dc635fd9c19d6d1795c0a9d4f19178df kubernetes/apps/ai/litellm/app/helmrelease.yaml,
app-template defaultPodOptions runAsUser 0 / fsGroup 0 on the LiteLLM proxy).
"""

from __future__ import annotations

import copy

from policies import evaluate
from policies.framework import Resource

DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def _deployment(container_context: dict | None, pod_context: dict | None, image: str = "vllm/vllm-openai:v0.11.0") -> Resource:
    container: dict = {"name": "server", "image": image, "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]}
    if container_context is not None:
        container["securityContext"] = container_context
    pod: dict = {"containers": [container]}
    if pod_context is not None:
        pod["securityContext"] = pod_context
    return Resource(type=DEPLOYMENT, name="llm", props={"spec": {"template": {"spec": pod}}})


def _found(resource: Resource) -> list:
    return [v for v in evaluate([resource]) if v.policy == "model-server-runs-as-root"]


def test_root_pinned_model_servers_are_advised():
    (finding,) = _found(_deployment({"runAsNonRoot": False}, None))
    assert finding.catalog == "G28" and finding.enforcement == "advisory" and "runAsNonRoot: false" in finding.message
    (finding,) = _found(_deployment(None, {"runAsUser": 0, "fsGroup": 0}))
    assert "runAsUser: 0" in finding.message and "vLLM" in finding.message


def test_careful_forms_are_silent():
    assert _found(_deployment({"runAsNonRoot": True, "runAsUser": 1000}, None)) == []
    assert _found(_deployment({"runAsUser": 1000}, {"runAsUser": 0, "runAsNonRoot": False})) == []  # the container wins
    assert _found(_deployment(None, None)) == []  # unset: the image decides, not pinned in the files
    assert _found(_deployment({"runAsUser": True}, None)) == []  # not a user id
    litellm = _deployment({"runAsNonRoot": False}, None, image="ghcr.io/berriai/litellm:main-v1.77.7-stable")
    litellm.props["spec"]["template"]["spec"]["containers"][0].pop("args")
    assert _found(copy.deepcopy(litellm)) == []


def _litellm(container_context: dict | None, pod_context: dict | None) -> Resource:
    litellm = _deployment(container_context, pod_context, image="ghcr.io/berriai/litellm:v1.95.0")
    litellm.props["spec"]["template"]["spec"]["containers"][0]["args"] = ["--config", "/app/config.yaml", "--port", "4000"]
    return litellm


def test_serving_app_pinned_to_uid_0_is_advised():
    # clouddrop's form: the pod's securityContext runAsNonRoot false, runAsUser 0, fsGroup 0; the container sets none.
    (finding,) = _found(_litellm({"allowPrivilegeEscalation": False}, {"runAsNonRoot": False, "runAsUser": 0, "fsGroup": 0}))
    assert finding.enforcement == "advisory"
    assert finding.message.startswith("container server: securityContext runAsUser: 0 pins this LiteLLM proxy to root")


def test_serving_app_careful_forms_are_silent():
    assert _found(_litellm(None, {"runAsNonRoot": False})) == []  # set 56's trap: the image's own user stays
    assert _found(_litellm({"runAsUser": 1000}, {"runAsUser": 0})) == []  # the container's user wins
    assert _found(_litellm(None, None)) == []
