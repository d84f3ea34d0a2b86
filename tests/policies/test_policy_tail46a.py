"""Misses of spent held-out sets 53-55 (session 46, tail46a), fixed by their general form: each a cut-down of the
labelled file that fires, a second, differently written third-party form that fires, and a careful form that stays
silent.

- S31 serving-start-installs / serving-code-pinned: `pip install` at the start of any pod, not only a model server's:
  danielpenchev98/vllm-k8s deploy/model-download/job.yaml at 9a41b320c1c831e9e2f9e71c0b41aa10fb699197 (a download
  Job, pinned), felipemoz/vllm-on-azure k8s/gateway-deployment.yaml at 8e99e5add1cda234d9bfe65eb81420a093e2e3cb (an init
  container's argv, a range), questcollector/llmops-manifests gradio/gradio.yaml at
  103bc00e32a1bd5e6861705afbabd27bf0faf0e7 (bash -c, bare names).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by


def _deployment(name: str, pod: dict, namespace: str = "llm") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod},
        },
    }


# --- S31: installs at the start of any pod ----------------------------------------------------------------------------

DOWNLOAD_JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "model-download", "namespace": "llm"},
    "spec": {
        "backoffLimit": 2,
        "template": {
            "spec": {
                "restartPolicy": "OnFailure",
                "containers": [
                    {
                        "name": "download",
                        "image": "python:3.12-slim",
                        "command": ["sh", "-c"],
                        "args": [
                            'pip install --no-cache-dir "huggingface_hub==1.33.0" && hf download "${MODEL_ID}" '
                            '--revision "${MODEL_REVISION}" --local-dir "/models/${MODEL_NAME}"'
                        ],
                    }
                ],
            }
        },
    },
}
GATEWAY = _deployment(
    "vllm-gateway",
    {
        "initContainers": [
            {
                "name": "install-deps",
                "image": "python:3.12-slim",
                "command": ["pip", "install", "--target=/deps", "aiohttp>=3.9.0"],
            }
        ],
        "containers": [{"name": "gateway", "image": "python:3.12-slim", "command": ["python", "/app/gateway.py"]}],
    },
)
GRADIO = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "gradio", "namespace": "llm"},
    "spec": {
        "containers": [
            {
                "name": "gradio",
                "image": "python:3.11",
                "command": ["/bin/bash", "-c"],
                "args": [
                    "PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip install --quiet \\\n"
                    "  --no-warn-script-location gradio openai\npython3 /mnt/gradio/app.py\n"
                ],
            }
        ]
    },
}
# A second form: a public Helm chart's helper template (stored version 53105370739 of the code index) that renders a
# Flask API whose init container runs `pip install --quiet --target=/deps flask==3.0.0 flask-cors==4.0.0` (argv).
FLASK = _deployment(
    "flights-app",
    {
        "initContainers": [
            {
                "name": "install-deps",
                "image": "python:3.11-slim",
                "command": ["pip", "install", "--quiet", "--target=/deps", "flask==3.0.0", "flask-cors==4.0.0"],
            }
        ],
        "containers": [{"name": "flask", "image": "python:3.11-slim", "command": ["python", "/app/service.py"]}],
    },
)


def test_a_download_job_installs_at_every_run():
    ((level, message),) = found_by([DOWNLOAD_JOB], "serving-start-installs")
    assert level == "advisory" and message.startswith(
        "container download: installs huggingface_hub==1.33.0 at every run (each retry too)"
    )


def test_an_init_container_of_a_proxy_installs_a_range_at_every_start():
    ((level, message),) = found_by([GATEWAY], "serving-start-installs")
    assert level == "advisory" and "installs aiohttp>=3.9.0 at every start" in message
    assert "a range still takes the newest release" in message
    ((_, second),) = found_by([FLASK], "serving-start-installs")
    assert "installs flask==3.0.0, flask-cors==4.0.0 at every start" in second


def test_bare_names_in_a_ui_pod_are_unpinned_installs():
    got = sorted(m for _, m in found_by([GRADIO], "serving-code-pinned"))
    assert [m.split(":")[1].strip() for m in got] == [
        "installs gradio with no pinned version at every start, so each restart may run a release nobody tested; pin it "
        "(name==version) or bake it into the image",
        "installs openai with no pinned version at every start, so each restart may run a release nobody tested; pin it "
        "(name==version) or bake it into the image",
    ]


def test_packages_baked_into_the_image_are_silent():
    baked = copy.deepcopy(GATEWAY)
    del baked["spec"]["template"]["spec"]["initContainers"]
    requirements = copy.deepcopy(GATEWAY)  # a requirements file names no package the manifest shows
    requirements["spec"]["template"]["spec"]["initContainers"][0]["command"] = ["pip", "install", "-r", "/app/req.txt"]
    for careful in (baked, requirements):
        assert found_by([careful], "serving-start-installs") == found_by([careful], "serving-code-pinned") == []
