"""Misses of spent held-out sets 53-55 (session 46, tail46a), fixed by their general form: each a cut-down of the
labelled file that fires, a second, differently written third-party form that fires, and a careful form that stays
silent.

- S31 serving-start-installs / serving-code-pinned: `pip install` at the start of any pod, not only a model server's:
  danielpenchev98/vllm-k8s deploy/model-download/job.yaml at 9a41b320c1c831e9e2f9e71c0b41aa10fb699197 (a download
  Job, pinned), felipemoz/vllm-on-azure k8s/gateway-deployment.yaml at 8e99e5add1cda234d9bfe65eb81420a093e2e3cb (an init
  container's argv, a range), questcollector/llmops-manifests gradio/gradio.yaml at
  103bc00e32a1bd5e6861705afbabd27bf0faf0e7 (bash -c, bare names).
- G4/G8/G10 on serving-path apps (components/serving_apps.toml): danielpenchev98/vllm-k8s
  deploy/components/litellm/deployment.yaml at f5c77a7f71be5fdbb2d35bae4b79395d87449181 and explicitworkload/llamacpp-oai
  litellm/litellm-deployment.yaml at c7f7e400c256104d82114a57b22608b03d03103e; second forms roen019/LiteLLM-K8s-Deploy
  local-manifests/litellm.yaml at 738ba83bbf2dd948cf7b80dc4be2300d6d58fa76 and aihpi/litellm-k8s base/litellm/
  deployment.yaml at e8ed2fb01932f83c9348a6ad00a0869139f238ef (a rebuilt image, known by its command); careful form
  Ran-Mewo/presudio-litellm-k8s helm/templates/deployment.yaml at 5794be327ae26eab5631781b77afbac8752c3d0c.
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


# --- G4/G8/G10: serving-path apps ------------------------------------------------------------------------------------

LITELLM = _deployment(
    "litellm",
    {
        "nodeSelector": {"workload": "cpu"},
        "containers": [
            {
                "name": "litellm",
                "image": "ghcr.io/berriai/litellm:v1.103.0",
                "args": ["--config", "/app/config.yaml", "--port", "4000"],
                "ports": [{"name": "http", "containerPort": 4000}],
            }
        ],
    },
)
ROEN = _deployment(
    "litellm",
    {
        "containers": [
            {
                "name": "litellm",
                "image": "ghcr.io/berriai/litellm:main-latest",
                "ports": [{"containerPort": 4000}],
                "command": ["litellm", "--config", "/app/config.yaml", "--port", "4000"],
            }
        ]
    },
    namespace="litellm",
)
AIHPI = _deployment(
    "litellm-proxy",
    {
        "containers": [
            {
                "name": "litellm",
                "image": "ghcr.io/aihpi/tool-litellm:aihpi-provider",
                "command": ["litellm"],
                "args": ["--config", "/etc/litellm/config.yaml", "--port", "4000", "--num_workers", "1"],
                "ports": [{"containerPort": 4000}],
            }
        ]
    },
)
CAREFUL_PROXY = _deployment(
    "litellm",
    {
        "containers": [
            {
                "name": "litellm",
                "image": "ghcr.io/berriai/litellm-database:main-v1.72.2-stable",
                "ports": [{"name": "http", "containerPort": 4000}],
                "livenessProbe": {"httpGet": {"path": "/health/liveliness", "port": "http"}},
                "readinessProbe": {"httpGet": {"path": "/health/readiness", "port": "http"}, "initialDelaySeconds": 15},
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
            }
        ]
    },
)


def test_a_proxy_with_no_probe_and_no_resources_gets_advice():
    for proxy in (LITELLM, ROEN, AIHPI):
        ((level, ready),) = found_by([proxy], "serving-readiness-probe")
        assert level == "advisory" and ready == (
            "container litellm: no readinessProbe on this LiteLLM proxy, which every model request goes through, so it "
            "receives requests before it has loaded its configuration and after it fails; probe GET /health/readiness "
            "(port 4000 unless moved)"
        )
        ((_, requests),) = found_by([proxy], "serving-resource-requests")
        assert requests.startswith("container litellm: no cpu or memory request on this LiteLLM proxy")
        ((_, limit),) = found_by([proxy], "serving-memory-limit")
        assert limit.startswith("container litellm: no resources.limits.memory on this LiteLLM proxy")


def test_a_careful_proxy_and_a_one_off_run_are_silent():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "litellm-check"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [copy.deepcopy(ROEN)["spec"]["template"]["spec"]["containers"][0]],
                }
            }
        },
    }
    for careful in (CAREFUL_PROXY, job):
        for policy in ("serving-readiness-probe", "serving-resource-requests", "serving-memory-limit"):
            assert found_by([careful], policy) == [], (careful["kind"], policy)


def test_the_apps_table_recognises_by_image_name_and_command():
    from policies.reading.gateway_apps import app_of

    assert [
        (app.name if (app := app_of(c)) else None)
        for c in (
            {"image": "docker.io/litellm/litellm:v1.80.0"},
            {"image": "registry.local/mirror/litellm-non_root:1.2"},
            {"image": "python:3.11", "command": ["python", "-m", "vllm_router.app"]},
            {"image": "lmcache/lmstack-router:latest"},
            {"image": "python:3.11", "command": ["python", "/app/litellm_wrapper.py"]},
        )
    ] == ["litellm", "litellm", "vllm-router", "vllm-router", None]


def test_an_apps_row_without_its_source_fails_the_load(tmp_path):
    import pytest

    from components import serving_apps

    bad = tmp_path / "apps.toml"
    bad.write_text(
        '[apps.x]\ndisplay = "X"\nimages = ["x/x"]\nnames = []\ncommands = []\nmodules = []\nport = 80\n'
        'readiness = "/ready"\n[apps.x.sources]\nrecognise = "x"\n'
    )
    with pytest.raises(ValueError, match="sources.endpoints"):
        serving_apps.load(bad)
