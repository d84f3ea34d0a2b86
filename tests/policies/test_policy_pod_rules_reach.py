"""Session 48 (brief pods48): pod-level rules that did not reach every form a third party writes.

Each class is written out minimally from the forms the sealed sets showed (the brief describes forms, not files); each
has a careful form that must stay silent:

- S19: a GPU model server's model downloaded into a disk emptyDir WITH a sizeLimit (12Gi, 20Gi) while no container nor
  init container requests ephemeral-storage: bounded, but the scheduler places pods by requests alone
  (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage); careful:
  a request of at least the sizeLimit, or the cache on a PersistentVolumeClaim.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from policies.check import main
from tests.policies.policy_fixtures import found_by


def _deployment(name: str, pod: dict, labels: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": pod}},
    }


# -- S19: a bounded emptyDir the scheduler does not count ------------------------------------------------------------

_VLLM_CACHE = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.8.5",
    "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"],
    "env": [{"name": "HF_HOME", "value": "/models"}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
    "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
}


def _cache_pod(limit: str, server: dict | None = None) -> dict:
    volumes = [{"name": "model-cache", "emptyDir": {"sizeLimit": limit}}]
    return _deployment("vllm", {"containers": [server or _VLLM_CACHE], "volumes": volumes})


def test_s19_a_download_into_a_size_limited_emptydir_without_a_request_is_advice():
    [(level, message)] = found_by([_cache_pod("20Gi")], "gpu-pod-ephemeral-storage")
    assert level == "advisory"
    assert message.startswith(
        "container vllm: downloads Qwen/Qwen2.5-7B-Instruct from the Hugging Face Hub into /models/hub, an emptyDir "
        "with sizeLimit 20Gi on the node's disk, but the pod requests no ephemeral-storage"
    )


def test_s19_an_init_container_download_into_a_size_limited_emptydir_is_advice():
    fetch = {
        "name": "download",
        "image": "python:3.11-slim",
        "command": ["sh", "-c", "huggingface-cli download Qwen/Qwen2.5-72B-Instruct --local-dir /models/qwen"],
        "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
    }
    server = {**_VLLM_CACHE, "args": ["--model", "/models/qwen"], "env": []}
    doc = _cache_pod("12Gi", server)
    doc["spec"]["template"]["spec"]["initContainers"] = [fetch]
    [(level, message)] = found_by([doc], "gpu-pod-ephemeral-storage")
    assert level == "advisory" and "into /models/qwen, an emptyDir with sizeLimit 12Gi" in message


def test_s19_a_model_store_emptydir_with_a_size_limit_and_no_request_is_advice():
    # Nothing the rule reads fills the folder (a custom server image), but the GPU pod names it as a model store.
    server = {
        "name": "server",
        "image": "registry.example.com/team/llm-server:1.4.2",
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "volumeMounts": [{"name": "model-cache", "mountPath": "/model-cache"}],
    }
    [(level, message)] = found_by([_cache_pod("20Gi", server)], "gpu-pod-ephemeral-storage")
    assert (
        level == "advisory" and "mounts the emptyDir model-cache at /model-cache as a model store, with sizeLimit 20Gi" in message
    )


def test_s19_careful_forms_stay_silent():
    # A request of at least the sizeLimit (on any container; a limit alone stands for the request, as the API server
    # defaults it).
    for resources in (
        {"limits": {"nvidia.com/gpu": 1}, "requests": {"ephemeral-storage": "20Gi"}},
        {"limits": {"nvidia.com/gpu": 1, "ephemeral-storage": "30Gi"}},
    ):
        server = copy.deepcopy(_VLLM_CACHE)
        server["resources"] = resources
        assert found_by([_cache_pod("20Gi", server)], "gpu-pod-ephemeral-storage") == []
    # The cache on a claim.
    doc = _cache_pod("20Gi")
    doc["spec"]["template"]["spec"]["volumes"] = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "hf"}}]
    assert found_by([doc], "gpu-pod-ephemeral-storage") == []
    # A request below the limit is still advice.
    server = copy.deepcopy(_VLLM_CACHE)
    server["resources"]["requests"] = {"ephemeral-storage": "10Gi"}
    [(_, message)] = found_by([_cache_pod("20Gi", server)], "gpu-pod-ephemeral-storage")
    assert "the pod requests 10 GiB of ephemeral-storage, below that limit" in message


# -- S51 / G42: a Service port (and the ServiceMonitor scraping it) that reaches nothing on vLLM pods -------------------

_VLLM_API = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.8.5",
    "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"],
    "ports": [{"containerPort": 8000, "name": "http"}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


def _metrics_objects(target: object = 9400, container: dict | None = None, namespace: str | None = "llm") -> list[dict]:
    deployment = _deployment("vllm", {"containers": [container or _VLLM_API]})
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm", "namespace": "llm", "labels": {"app": "vllm"}},
        "spec": {
            "selector": {"app": "vllm"},
            "ports": [
                {"name": "http", "port": 8000, "targetPort": 8000},
                {"name": "metrics", "port": 9400, "targetPort": target},
            ],
        },
    }
    if namespace is None:
        del service["metadata"]["namespace"]
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "vllm"}}, "endpoints": [{"port": "metrics", "path": "/metrics"}]},
    }
    return [deployment, service, monitor]


def test_s51_a_metrics_port_on_vllm_pods_reaches_nothing():
    # vLLM serves /metrics on its API port (engine table metrics_port = port = 8000, vllm v0.33.0 cli_args.py).
    [(level, message)] = found_by(_metrics_objects(), "service-port-reaches-server")
    assert level == "advisory" and message.startswith(
        "spec.ports: port 9400 targets 9400 on the pods of Deployment/vllm, where vLLM listens on 8000 only"
    )
    # The Service with its namespace left out meets the Deployment's.
    assert len(found_by(_metrics_objects(namespace=None), "service-port-reaches-server")) == 1
    # A containerPort named metrics declares 9400: the declaration is informational, nothing listens there.
    declared = copy.deepcopy(_VLLM_API)
    declared["ports"].append({"containerPort": 9400, "name": "metrics"})
    [(_, message)] = found_by(_metrics_objects("metrics", declared), "service-port-reaches-server")
    assert "targets 9400 (the containerPort named metrics) on the pods of Deployment/vllm" in message


def test_g42_a_service_monitor_scraping_that_port_is_dangling():
    [(level, message)] = found_by(_metrics_objects(), "monitor-selects-targets")
    assert level == "advisory" and message.startswith("spec.endpoints scrape port metrics of Service/vllm, whose port 9400")
    assert "every target is down" in message


def test_s51_g42_careful_forms_stay_silent():
    # The metrics port targets the API port; or vLLM is told to listen on 9400; or a sidecar may listen there.
    served = _metrics_objects(target=8000)
    moved = copy.deepcopy(_VLLM_API)
    moved["args"] = ["--model", "Qwen/Qwen2.5-7B-Instruct", "--port", "9400"]
    sidecar = _metrics_objects()
    sidecar[0]["spec"]["template"]["spec"]["containers"].append(
        {"name": "exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3"}
    )
    for objs in (served, sidecar):
        assert found_by(objs, "service-port-reaches-server") == []
        assert found_by(objs, "monitor-selects-targets") == []
    # Moved to 9400, the metrics port is served (the Service's 8000 is then the one S51 reports).
    assert found_by(_metrics_objects(container=moved), "monitor-selects-targets") == []


# -- G63: an FQDN URL whose namespace holds the Service only once the files are applied there ------------------------


def _ollama_and_webui(url: str, namespaced: bool = False) -> list[dict]:
    ollama = _deployment("ollama", {"containers": [{"name": "ollama", "image": "ollama/ollama:0.6.5"}]})
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ollama"},
        "spec": {"selector": {"app": "ollama"}, "ports": [{"port": 11434, "targetPort": 11434}]},
    }
    webui = _deployment(
        "open-webui",
        {
            "containers": [
                {
                    "name": "open-webui",
                    "image": "ghcr.io/open-webui/open-webui:v0.6.5",
                    "env": [{"name": "OLLAMA_BASE_URL", "value": url}],
                }
            ]
        },
    )
    for obj in (ollama, webui):
        del obj["metadata"]["namespace"]
    if namespaced:
        for obj in (ollama, service):
            obj["metadata"]["namespace"] = "ollama"
    return [ollama, service, webui]


def test_g63_a_port_the_unplaced_service_does_not_offer_is_advice():
    [(level, message)] = found_by(_ollama_and_webui("http://ollama.ollama.svc.cluster.local:8000"), "in-cluster-url-resolves")
    assert level == "advisory"
    assert message.startswith(
        "container open-webui env OLLAMA_BASE_URL = http://ollama.ollama.svc.cluster.local:8000 calls port 8000 of "
        "Service ollama, which exposes 11434 only"
    )
    assert "leaves its namespace out; the URL expects it in namespace ollama" in message
    # With the namespace written, the same URL blocks (as before).
    [(level, _)] = found_by(_ollama_and_webui("http://ollama.ollama.svc.cluster.local:8000", True), "in-cluster-url-resolves")
    assert level == "mandatory"


def test_g63_careful_forms_stay_silent():
    # The port the Service offers; a name the files do not define (may come from elsewhere).
    assert found_by(_ollama_and_webui("http://ollama.ollama.svc.cluster.local:11434"), "in-cluster-url-resolves") == []
    assert found_by(_ollama_and_webui("http://other.ollama.svc.cluster.local:8000"), "in-cluster-url-resolves") == []


# -- G5 liveness on a server probed for readiness only; G4 readiness on a chat UI -----------------------------------


def _probed_vllm(**probes: dict) -> dict:
    server = {**_VLLM_API, **probes}
    return _deployment("vllm", {"containers": [server]})


_HEALTH = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10}


def test_g5_a_vllm_server_with_only_a_readiness_probe_is_advice():
    [(level, message)] = found_by([_probed_vllm(readinessProbe=_HEALTH)], "serving-liveness-probe")
    assert level == "advisory"
    assert message.startswith("container vllm: no livenessProbe on this vLLM server: if the engine hangs")
    assert "add a livenessProbe on GET /health (port 8000 unless moved), behind a startupProbe" in message


def test_g5_careful_forms_stay_silent():
    # A livenessProbe.
    assert found_by([_probed_vllm(readinessProbe=_HEALTH, livenessProbe=_HEALTH)], "serving-liveness-probe") == []


def test_g5_a_vllm_server_with_no_probe_at_all_is_advice():
    # Spent set 118 kubernetes/examples@279e8e4fe314f6cb7bc55fa3fbc21bbeaa48c0ea AI/vllm-deployment/vllm-deployment.yaml:
    # vllm/vllm-openai:v0.11.0 with no probe, labelled G5 apart from its G4 (session 55).
    [(level, message)] = found_by([_probed_vllm()], "serving-liveness-probe")
    assert level == "advisory"
    assert message.startswith(
        "container vllm: no livenessProbe on this vLLM server: if the engine hangs with its process alive, the kubelet "
        "never restarts it and with no readinessProbe either (G4) it even stays in the Service"
    )


_WEBUI = {"name": "open-webui", "image": "ghcr.io/open-webui/open-webui:0.6.18", "ports": [{"containerPort": 8080}]}


def test_g4_an_open_webui_without_a_readiness_probe_is_advice():
    [(level, message)] = found_by([_deployment("open-webui", {"containers": [_WEBUI]})], "serving-readiness-probe")
    assert level == "advisory"
    assert message.startswith("container open-webui: no readinessProbe on this Open WebUI")
    assert message.endswith("probe GET /health (port 8080 unless moved)")
    # With a readinessProbe only, G5 advises the liveness.
    ready = {**_WEBUI, "readinessProbe": {"httpGet": {"path": "/health", "port": 8080}}}
    doc = _deployment("open-webui", {"containers": [ready]})
    assert found_by([doc], "serving-readiness-probe") == []
    [(_, message)] = found_by([doc], "serving-liveness-probe")
    assert message.startswith("container open-webui: no livenessProbe on this Open WebUI")
    both = {**ready, "livenessProbe": {"httpGet": {"path": "/health", "port": 8080}}}
    assert found_by([_deployment("open-webui", {"containers": [both]})], "serving-liveness-probe") == []


# -- G27: a serving container without allowPrivilegeEscalation: false (published: said so) ------------------------------


def _published_webui(security: dict | None = None, published: bool = True) -> list[dict]:
    container = {**_WEBUI, **({"securityContext": security} if security is not None else {})}
    objs = [
        _deployment("open-webui", {"containers": [container]}),
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "open-webui", "namespace": "llm"},
            "spec": {"selector": {"app": "open-webui"}, "ports": [{"port": 80, "targetPort": 8080}]},
        },
    ]
    if published:
        objs.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "Ingress",
                "metadata": {"name": "chat", "namespace": "llm"},
                "spec": {
                    "ingressClassName": "nginx",
                    "rules": [
                        {
                            "host": "chat.example.com",
                            "http": {
                                "paths": [
                                    {
                                        "path": "/",
                                        "pathType": "Prefix",
                                        "backend": {"service": {"name": "open-webui", "port": {"number": 80}}},
                                    }
                                ]
                            },
                        }
                    ],
                },
            }
        )
    return objs


def test_g27_a_ui_with_no_security_context_behind_an_ingress_is_advice():
    [(level, message)] = found_by(_published_webui(), "serving-privilege-escalation")
    assert level == "advisory"
    assert message.startswith(
        "container open-webui: no securityContext.allowPrivilegeEscalation on this Open WebUI, published through "
        "Service open-webui (Ingress llm/chat (class nginx))"
    )
    # A model server behind a LoadBalancer Service too.
    server = _deployment("vllm", {"containers": [_VLLM_API]})
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {"type": "LoadBalancer", "selector": {"app": "vllm"}, "ports": [{"port": 80, "targetPort": 8000}]},
    }
    [(_, message)] = found_by([server, service], "serving-privilege-escalation")
    assert "on this vLLM server, published through Service vllm (its LoadBalancer type)" in message


def test_g27_careful_forms_stay_silent():
    assert found_by(_published_webui({"allowPrivilegeEscalation": False}), "serving-privilege-escalation") == []
    # Unpublished since brief pods49: still advice, without a publisher in the message (tests/policies/test_policy_pods49.py).
    [(_, message)] = found_by(_published_webui(published=False), "serving-privilege-escalation")
    assert "published through" not in message


# -- G13: a container set up for ROCm that holds no amd.com/gpu ------------------------------------------------------


def _rocm(container: dict, extra: dict | None = None) -> dict:
    return _deployment("ollama", {"containers": [container], **(extra or {})})


def test_g13_a_rocm_build_without_an_amd_gpu_is_advice():
    # ollama/ollama v0.32.15 docs/docker.mdx:65-68: the rocm tag is AMD's build; docs/gpu.mdx:88-95 HSA_OVERRIDE_GFX_VERSION.
    for container, why in (
        ({"name": "ollama", "image": "ollama/ollama:rocm"}, "image ollama/ollama:rocm is a ROCm build"),
        ({"name": "ollama", "image": "rocm/vllm:rocm6.3.1_vllm_0.8.5"}, "image rocm/vllm:rocm6.3.1_vllm_0.8.5 is a ROCm build"),
        (
            {"name": "ollama", "image": "ollama/ollama:0.6.5", "env": [{"name": "HSA_OVERRIDE_GFX_VERSION", "value": "10.3.0"}]},
            "it sets HSA_OVERRIDE_GFX_VERSION, which only AMD's ROCm runtime reads",
        ),
    ):
        [(level, message)] = found_by([_rocm(container)], "gpu-engine-has-gpu-limit")
        assert level == "advisory"
        assert message.startswith(f"container ollama: {why}, but the container holds no amd.com/gpu")


def test_g13_rocm_careful_forms_stay_silent():
    held = {"name": "ollama", "image": "ollama/ollama:rocm", "resources": {"limits": {"amd.com/gpu": 1}}}
    assert found_by([_rocm(held)], "gpu-engine-has-gpu-limit") == []
    # /dev/kfd mounted from the host: the GPU is reached on purpose.
    mounted = {"name": "ollama", "image": "ollama/ollama:rocm", "volumeMounts": [{"name": "kfd", "mountPath": "/dev/kfd"}]}
    volumes = {"volumes": [{"name": "kfd", "hostPath": {"path": "/dev/kfd"}}]}
    assert found_by([_rocm(mounted, volumes)], "gpu-engine-has-gpu-limit") == []


def test_the_gpu_vendor_table_loads_and_refuses_a_bad_row(tmp_path):
    from components.gpu_vendors import VENDORS, load_vendors, resource_vendor

    assert {v.name for v in VENDORS} >= {"nvidia", "amd"}
    assert resource_vendor("amd.com/gpu").name == "amd" and resource_vendor("gpu.intel.com/i915").name == "intel"
    assert resource_vendor("nvidia.com/mig-1g.5gb").name == "nvidia" and resource_vendor("cpu") is None
    bad = tmp_path / "v.toml"
    bad.write_text('[vendors.x]\ndisplay = "X"\n')
    with pytest.raises(ValueError, match=r"\[vendors.x\]: fields must be exactly"):
        load_vendors(bad)


# -- G53: a GPU claim whose env hides every device (in the object, or in the base a Kustomize GPU patch keeps) --------


def _gpu_env(env: list[dict], claim: bool = True) -> dict:
    container = {"name": "ollama", "image": "ollama/ollama:0.6.5", "env": env}
    if claim:
        container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    return _deployment("ollama", {"containers": [container]})


def test_g53_cuda_visible_devices_hiding_every_device_beside_a_claim_is_advice():
    for value in ("-1", ""):
        [(level, message)] = found_by(
            [_gpu_env([{"name": "CUDA_VISIBLE_DEVICES", "value": value}])], "gpu-visible-devices-left-to-plugin"
        )
        assert level == "advisory" and "that value hides every device" in message
    [(level, message)] = found_by(
        [_gpu_env([{"name": "NVIDIA_VISIBLE_DEVICES", "value": "none"}])], "gpu-visible-devices-left-to-plugin"
    )
    assert level == "advisory" and "the container gets no GPU although it claims 1" in message


def _kustomized(tmp_path, base: dict, patch: dict, capsys) -> list[tuple[str, str]]:
    (tmp_path / "base").mkdir(parents=True)
    (tmp_path / "overlays" / "gpu").mkdir(parents=True)
    (tmp_path / "base" / "deployment.yaml").write_text(yaml.safe_dump(base))
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n- deployment.yaml\n")
    (tmp_path / "overlays" / "gpu" / "gpu-patch.yaml").write_text(yaml.safe_dump(patch))
    (tmp_path / "overlays" / "gpu" / "kustomization.yaml").write_text(
        "resources:\n- ../../base\npatches:\n- path: gpu-patch.yaml\n"
    )
    main([str(tmp_path), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["violations"]
    return [(r["enforcement"], r["message"]) for r in rows if r["policy"] == "gpu-devices-hidden-by-base-env"]


def test_g53_a_kustomize_gpu_patch_keeping_the_bases_hiding_env_is_advice(tmp_path, capsys):
    base = _gpu_env([{"name": "CUDA_VISIBLE_DEVICES", "value": ""}, {"name": "OLLAMA_HOST", "value": "0.0.0.0"}], claim=False)
    # The overlay's patch: only the GPU limit (env merges by name, so the base's CUDA_VISIBLE_DEVICES stays).
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [{"name": "ollama", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}},
    }
    [(level, message)] = _kustomized(tmp_path / "a", base, patch, capsys)
    assert level == "advisory"
    assert (
        "this patch claims 1 GPU(s) for the container, whose base Deployment/ollama keeps env CUDA_VISIBLE_DEVICES=''" in message
    )
    # Careful: the patch sets the variable itself (to a device it holds), or the base hides nothing.
    patch["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "CUDA_VISIBLE_DEVICES", "value": "0"}]
    assert _kustomized(tmp_path / "b", base, patch, capsys) == []
    del patch["spec"]["template"]["spec"]["containers"][0]["env"]
    plain = _gpu_env([{"name": "OLLAMA_HOST", "value": "0.0.0.0"}], claim=False)
    assert _kustomized(tmp_path / "c", plain, patch, capsys) == []
