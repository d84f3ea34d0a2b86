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
- G1 moving tags outside containers: a Kustomization's images newTag (anasgrt/llm-platform-poc
  deploy/overlays/prod/kustomization.yaml at aed6bbbc18b8fbf9198352c9dc34397f7b7e90d8) and a NIMCache's modelPuller
  (Dineshk1205/nvidiaRAG nim-caches.yaml at d9e09e640cc2b0f13148b153e2060c8c15017b56).
- S28 a rendering variable in a Secret (felipemoz/vllm-on-azure k8s/hf-secret.yaml at 8e99e5add1cda234d9bfe65eb81420a093e2e3cb).
- G22 a system priority class on a model server (egel/k8s-ollama ollama-all.yaml at db7a251c128f7c7372460dae213c7cedacfe57aa).
- S45 a pull beside the server whose failure passes (MardiantoS/chat-ai-k8s-ollama k8s/backend/ollama-deployment.yaml at
  1caae7749f5c5945a0885c195f5fe22da4cd5a6d).
- G42 a ServiceMonitor that repeats its Service's pod selector (szevy/k8s-llm-serving k8s/servicemonitor.yaml at
  8d510fc7ea03865f73a5c7c6744171252ab98707, k8s/service.yaml at 76be21d62083d2d5615a9593e51728f907de5102).
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
    # A requirements file under --require-hashes: pip refuses any entry without a hash (forms48). Without the flag the
    # file's entries may be open, and serving-code-pinned advises it (tests/policies/test_policy_forms48.py).
    requirements = copy.deepcopy(GATEWAY)
    requirements["spec"]["template"]["spec"]["initContainers"][0]["command"] = [
        "pip", "install", "--require-hashes", "-r", "/app/req.txt"
    ]  # fmt: skip
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


# --- G1: a Kustomization's newTag and a NIMCache's modelPuller ------------------------------------------------------


def _kustomization(images: list) -> dict:
    return {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "metadata": {"name": "prod"},
        "resources": ["../../base"],
        "images": images,
    }


def _nim_cache(puller: str) -> dict:
    return {
        "apiVersion": "apps.nvidia.com/v1alpha1",
        "kind": "NIMCache",
        "metadata": {"name": "meta-llama3-8b-instruct", "namespace": "nim-service"},
        "spec": {
            "source": {"ngc": {"modelPuller": puller, "pullSecret": "ngc-secret", "authSecret": "ngc-api-secret"}},
            "storage": {"pvc": {"create": True, "size": "80Gi", "volumeAccessMode": "ReadWriteOnce"}},
        },
    }


def test_a_moving_new_tag_in_an_overlay_gets_advice():
    prod = _kustomization([{"name": f"ghcr.io/anasgrt/{n}", "newTag": "main"} for n in ("qwen3-server", "rag-app")])
    got = found_by([prod], "image-tag-pinned")
    assert [level for level, _ in got] == ["advisory", "advisory"]
    assert got[0][1].startswith("images[0] ghcr.io/anasgrt/qwen3-server: newTag main is a tag that moves to each new build")
    # A second form: an overlay renaming the image and setting newTag latest (a public README's overlay, stored version
    # 45670802761 of the code index: pgadmin newName your-registry.example.com/pgadmin, newTag latest).
    renamed = _kustomization([{"name": "pgadmin", "newName": "registry.example.com/pgadmin", "newTag": "latest"}])
    ((_, message),) = found_by([renamed], "image-tag-pinned")
    assert message.startswith("images[0] registry.example.com/pgadmin: newTag latest")
    careful = _kustomization(
        [
            {"name": "postgresql", "newName": "registry.example.com/postgresql", "newTag": "18"},
            {"name": "ghcr.io/anasgrt/rag-app", "newTag": "7b63963"},
            {"name": "ghcr.io/anasgrt/qwen3-server", "newTag": "main", "digest": "sha256:" + "a" * 64},
        ]
    )
    assert found_by([careful], "image-tag-pinned") == []


def test_a_nim_cache_model_puller_at_latest_gets_advice():
    ((_, message),) = found_by([_nim_cache("nvcr.io/nim/meta/llama-3.1-8b-instruct:latest")], "image-tag-pinned")
    assert message.startswith("spec.source.ngc.modelPuller: image nvcr.io/nim/meta/llama-3.1-8b-instruct:latest uses")
    # NVIDIA/k8s-nim-operator config/samples (corpus manifests): modelPuller nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0.
    assert found_by([_nim_cache("nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0")], "image-tag-pinned") == []


# --- S28: a rendering variable in a Secret --------------------------------------------------------------------------


def _secret(name: str, data: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "vllm"},
        "type": "Opaque",
        "stringData": data,
    }


def test_a_secret_holding_an_envsubst_variable_gets_advice():
    ((level, message),) = found_by([_secret("hf-token", {"token": "${HF_TOKEN}"})], "hf-token-secret-not-placeholder")
    assert level == "advisory" and message.startswith("key token holds '${HF_TOKEN}', a variable for a rendering step")
    assert "the Hub answers with 401" in message
    # A second form: any credential key ($NGC_API_KEY under api-key in an NGC Secret).
    ((_, other),) = found_by([_secret("ngc-api", {"NGC_API_KEY": "$NGC_API_KEY"})], "secret-value-not-placeholder")
    assert other.startswith("key NGC_API_KEY holds '$NGC_API_KEY'") and "the service refuses" in other
    # Careful: a real-looking value, and a variable under a key that is no credential.
    for careful in (_secret("hf-token", {"token": "hf_" + "A1b2" * 9}), _secret("app-config", {"MODEL_NAME": "${MODEL}"})):
        assert found_by([careful], "hf-token-secret-not-placeholder") == []
        assert found_by([careful], "secret-value-not-placeholder") == []


# --- G22: a system priority class on a model server -----------------------------------------------------------------


def _ollama(pod_extra: dict, args: list | None = None) -> dict:
    container: dict = {"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"containerPort": 11434}]}
    if args is not None:
        container.update({"command": ["/bin/sh", "-c"], "args": args})
    return _deployment("ollama", {"containers": [container], **pod_extra}, namespace="ollama")


def test_a_system_priority_class_on_a_model_server_gets_advice():
    ((level, message),) = found_by([_ollama({"priorityClassName": "system-node-critical"})], "serving-priority-class")
    assert level == "advisory" and message.startswith(
        "spec.template.spec: priorityClassName system-node-critical (priority 2000001000) is Kubernetes' class"
    )
    ((_, cluster),) = found_by([_ollama({"priorityClassName": "system-cluster-critical"})], "serving-priority-class")
    assert "system-cluster-critical (priority 2000000000)" in cluster
    assert found_by([_ollama({"priorityClassName": "llm-serving-high"})], "serving-priority-class") == []


# --- S45: a pull beside the server whose failure passes --------------------------------------------------------------

BACKGROUND_PULL = (
    "ollama serve &\nserver_pid=$!\nsleep 10\nollama pull llama3.2 &\npull_pid=$!\n"
    'while kill -0 $pull_pid 2>/dev/null; do\n  sleep 30\ndone\necho "Model download completed!"\nwait $server_pid\n'
)


def test_an_unchecked_pull_beside_the_server_gets_advice():
    ((level, message),) = found_by([_ollama({}, [BACKGROUND_PULL])], "model-download-fails-loudly")
    assert level == "advisory" and "in the background, and nothing collects its exit status" in message
    # A second form: the pull backgrounded in a subshell before the server takes the foreground.
    subshell = "(sleep 5 && ollama pull llama3.2) &\nexec ollama serve\n"
    ((_, other),) = found_by([_ollama({}, [subshell])], "model-download-fails-loudly")
    assert "in the background, and nothing collects its exit status" in other


def test_a_checked_pull_is_silent():
    checked = BACKGROUND_PULL.replace('echo "Model download completed!"', "wait $pull_pid || exit 1")
    shown = "ollama serve &\nsleep 5\nollama pull llama3.2\nollama show llama3.2 || exit 1\nwait\n"
    errexit = "set -e\nollama serve &\nsleep 5\nollama pull llama3.2\nwait\n"
    for script in (checked, shown, errexit):
        assert found_by([_ollama({}, [script])], "model-download-fails-loudly") == [], script


# --- G42: a ServiceMonitor that repeats its Service's pod selector ---------------------------------------------------

MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "llm-service", "labels": {"release": "monitoring"}},
    "spec": {
        "selector": {"matchLabels": {"app": "llm-service"}},
        "endpoints": [{"port": "http", "interval": "15s", "path": "/metrics"}],
    },
}


def _service(labels: dict | None, port: dict) -> dict:
    metadata: dict = {"name": "llm-service"}
    if labels is not None:
        metadata["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata,
        "spec": {"type": "NodePort", "selector": {"app": "llm-service"}, "ports": [port]},
    }


def test_a_monitor_repeating_the_pod_selector_of_an_unlabelled_service_gets_advice():
    unlabelled = _service(None, {"port": 8000, "targetPort": 8000})
    # Said on the monitor and on the Service, the line to change (crossfile56, 89217aeb): the same advice twice.
    found = found_by([MONITOR, unlabelled], "monitor-selects-targets")
    assert len(found) == 2
    ((level, message),) = set(found)
    assert (
        level == "advisory"
        and "Service/llm-service, whose spec.selector is what the monitor repeats, carries no labels and names no port" in message
    )
    # A second form: the Service carries other labels (and still an unnamed port).
    other = _service({"tier": "inference"}, {"port": 8000, "targetPort": 8000})
    ((_, second),) = set(found_by([MONITOR, other], "monitor-selects-targets"))
    assert "carries tier=inference and names no port" in second
    # Careful: a Service naming another port may not be the monitor's target (the metrics Service may be elsewhere).
    assert found_by([MONITOR, _service(None, {"name": "web", "port": 8000})], "monitor-selects-targets") == []
    careful = _service({"app": "llm-service"}, {"name": "http", "port": 8000})
    assert found_by([MONITOR, careful], "monitor-selects-targets") == []
