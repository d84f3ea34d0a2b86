"""S17 on a huggingface_hub download called from a GPU pod's script with no revision (advice).

Fixture: the shape of set 6's kcns008/llm-on-k8s openshift-glm46-llamacpp/manifests/05-deployment.yaml @ a70fdb0a
(an init container whose shell script runs a Python heredoc calling snapshot_download(repo_id=..., local_dir=...,
allow_patterns=...) with no revision). huggingface_hub v1.28.0 defaults the revision to "main"
(_snapshot_download.py:229-230, file_download.py:962-963, constants.py:60).
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from policies.framework import finding_level
from policies.models.model_source_pinned import POLICY

_SCRIPT = """set -e
pip install -q huggingface-hub==0.34.4
python3 << 'PYEOF'
import os
from huggingface_hub import snapshot_download
snapshot_download(
    repo_id=os.environ['MODEL_REPO'],
    local_dir=f"/model-cache/{os.environ['MODEL_REPO']}",
    allow_patterns=[f"*{os.environ['QUANT_TYPE']}*"],
    token=os.environ.get('HF_TOKEN'),
)
PYEOF
"""
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "glm46-llamacpp", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "glm46"}},
        "template": {
            "metadata": {"labels": {"app": "glm46"}},
            "spec": {
                "initContainers": [
                    {"name": "model-downloader", "image": "python:3.11-slim", "command": ["/bin/bash", "-c"], "args": [_SCRIPT]}
                ],
                "containers": [
                    {
                        "name": "llama-server",
                        "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
                        "args": ["-m", "/model-cache/model.gguf", "--port", "8080"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
            },
        },
    },
}


def _r(doc: dict):
    return resource(f"kubernetes:{doc['apiVersion']}:{doc['kind']}", copy.deepcopy(doc))


def _with_script(script: str) -> dict:
    doc = copy.deepcopy(_DEPLOYMENT)
    doc["spec"]["template"]["spec"]["initContainers"][0]["args"] = [script]
    return doc


def test_a_download_call_without_a_revision_is_advice():
    (found,) = [m for m in messages(POLICY, _r(_DEPLOYMENT)) if "huggingface_hub" in m]
    assert found == (
        "container model-downloader: calls huggingface_hub snapshot_download(...) with no revision, so every start "
        "downloads whatever the repository's main branch holds then; pass revision=<commit SHA>"
    )
    raw = POLICY.check_resource(_r(_DEPLOYMENT), {"trustRemoteCodeModels": [], "requireCommitSha": False})
    assert [finding_level("mandatory", m) for m in raw if "huggingface_hub" in m] == ["advisory"]
    literal = _with_script(
        "python -c \"from huggingface_hub import hf_hub_download; hf_hub_download(repo_id='Qwen/X', filename='a')\""
    )
    assert [m for m in messages(POLICY, _r(literal)) if "hf_hub_download(Qwen/X)" in m]


def test_careful_forms_stay_silent():
    pinned = _with_script(_SCRIPT.replace("token=", "revision='0123456789abcdef0123456789abcdef01234567', token="))
    offline = _with_script(_SCRIPT.replace("token=", "local_files_only=True, token="))
    forwarded = _with_script(_SCRIPT.replace("token=os.environ.get('HF_TOKEN'),", "**options,"))
    for doc in (pinned, offline, forwarded):
        assert [m for m in messages(POLICY, _r(doc)) if "huggingface_hub" in m] == []
    # A pod with no GPU and no model server is no serving pod (a CPU batch job that prepares a cache).
    job = copy.deepcopy(_DEPLOYMENT)
    job["spec"]["template"]["spec"]["containers"] = [{"name": "done", "image": "busybox:1.36", "command": ["true"]}]
    assert [m for m in messages(POLICY, _r(job)) if "huggingface_hub" in m] == []


def test_a_cpu_model_server_pod_is_read_too():
    # The llama.cpp server on the CPU still serves what the init container downloads (spent set 21: husseinalamutu/
    # sovereign-k8s-llm k8s/05-initcontainer-download.yaml, labelled S17): advice, as for a GPU pod.
    cpu = copy.deepcopy(_DEPLOYMENT)
    del cpu["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert len([m for m in messages(POLICY, _r(cpu)) if "huggingface_hub" in m]) == 1
