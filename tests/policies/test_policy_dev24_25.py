"""Dev sets 24 and 25 (issue 32): forms the pack judged wrongly, as classes, with their third-party fixtures."""

from __future__ import annotations

import copy

from policy_fixtures import found_by
from test_policy_tp_runtime_merged import ISVC, RUNTIME

# MohammadB88/rag-anythingllm models/nvidia_nim/llama3-8b_all_resources.yaml@aea543d3cab91cbfdc326af21a266a307788c14a
# (dev set 24, trimmed to what the rules read): one NIM replica, one GPU, the default RollingUpdate, a ReadWriteOnce
# cache claim of the same file. The labeller found no problem in it: the replacement stalls only on another node.
NIM_CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "llama3-1-8b-nim-cache"},
    "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem", "resources": {"requests": {"storage": "50Gi"}}},
}
NIM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama3-1-8b-instruct", "labels": {"app": "llama3-1-8b-instruct"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llama3-1-8b-instruct"}},
        "template": {
            "metadata": {"labels": {"app": "llama3-1-8b-instruct"}},
            "spec": {
                "containers": [
                    {
                        "name": "llama3-1-8b-instruct",
                        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.12.0",
                        "ports": [{"containerPort": 8000}],
                        "env": [
                            {
                                "name": "NGC_API_KEY",
                                "valueFrom": {"secretKeyRef": {"name": "ngc-api-key", "key": "NGC_API_KEY"}},
                            }
                        ],
                        "volumeMounts": [{"name": "llama3-1-8b-nim-cache", "mountPath": "/opt/nim/.cache"}],
                        "resources": {
                            "limits": {"cpu": "8", "memory": "24Gi", "nvidia.com/gpu": "1"},
                            "requests": {"cpu": "6"},
                        },
                    }
                ],
                "volumes": [{"name": "llama3-1-8b-nim-cache", "persistentVolumeClaim": {"claimName": "llama3-1-8b-nim-cache"}}],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "imagePullSecrets": [{"name": "nim-pull-secret"}],
            },
        },
    },
}


def test_one_gpu_replica_rolling_a_read_write_once_cache_is_advice():
    assert [level for level, _ in found_by([NIM_CLAIM, NIM], "single-attach-volume-rolls")] == ["advisory"]
    recreate = copy.deepcopy(NIM)
    recreate["spec"]["strategy"] = {"type": "Recreate"}
    assert found_by([NIM_CLAIM, recreate], "single-attach-volume-rolls") == []
    # Two replicas on the one claim: a second pod on another node never attaches it, whatever the strategy; on the
    # same node ReadWriteOnce admits it, so it blocks only where the spec keeps replicas apart (review 43 #7).
    two = copy.deepcopy(recreate)
    two["spec"]["replicas"] = 2
    assert [level for level, _ in found_by([NIM_CLAIM, two], "single-attach-volume-rolls")] == ["advisory"]
    two["spec"]["template"]["spec"]["topologySpreadConstraints"] = [
        {"topologyKey": "kubernetes.io/hostname", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}
    ]
    assert [level for level, _ in found_by([NIM_CLAIM, two], "single-attach-volume-rolls")] == ["mandatory"]


# --- G45: shapes the API server refuses that the schema accepts (policies/reading/api_refusals.py) ----------------------

G45 = "pod-template-api-valid"


def _deployment(name: str, selector: dict, labels: dict, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": selector,
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


# z-george-ma/ai-tools ollama-cuda/k8s.yaml@84e8e1236c894fd8b60067c9b15b51ea9c0331b7 (dev set 24): selector app=ollama,
# template label app=ollama-cuda.
OLLAMA = {"name": "ollama-cuda", "image": "ghcr.io/z-george-ma/ai-tools/ollama-cuda:latest"}


def test_a_selector_that_does_not_select_its_template_is_refused():
    doc = _deployment("ollama-deployment", {"matchLabels": {"app": "ollama"}}, {"app": "ollama-cuda"}, OLLAMA)
    (found,) = found_by([doc], G45)
    assert found == (
        "mandatory",
        "spec.selector (app=ollama) does not select spec.template.metadata.labels (app=ollama-cuda); the API server "
        "refuses the Deployment (`selector` does not match template `labels`), so no pod is created",
    )
    # matchExpressions are read as the API server reads them.
    doc = _deployment("d", {"matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]}, {"app": "y"}, OLLAMA)
    assert [level for level, _ in found_by([doc], G45)] == ["mandatory"]


def test_a_selector_that_selects_its_template_is_silent():
    extra = {"app": "ollama", "tier": "gpu"}
    assert found_by([_deployment("d", {"matchLabels": {"app": "ollama"}}, extra, OLLAMA)], G45) == []
    expressions = {"matchExpressions": [{"key": "tier", "operator": "Exists"}, {"key": "x", "operator": "DoesNotExist"}]}
    assert found_by([_deployment("d", expressions, extra, OLLAMA)], G45) == []
    # Helm left in place: not judged.
    assert found_by([_deployment("d", {"matchLabels": {"app": "{{ .Release.Name }}"}}, {"app": "x"}, OLLAMA)], G45) == []


# MohammadB88/rag-anythingllm model_vllm/gpu_all_resources.yaml@6eec0ae7de614ea0549cc8a4b397fb48b62f2887 (dev set 24):
# `- secretRef:` with `name:` at the same column, read as {secretRef: null, name: huggingface-secret}.
def test_an_env_from_item_with_no_source_is_refused():
    container = {"name": "server", "image": "vllm/vllm-openai:v0.4.2", "envFrom": [{"secretRef": None, "name": "hf"}]}
    (found,) = found_by([_deployment("vllm", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G45)
    assert found[0] == "mandatory"
    assert "envFrom[0] has neither configMapRef nor secretRef" in found[1] and "mis-indented" in found[1]
    both = {"configMapRef": {"name": "c"}, "secretRef": {"name": "s"}}
    container = {"name": "server", "image": "vllm/vllm-openai:v0.4.2", "envFrom": [both]}
    (found,) = found_by([_deployment("vllm", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G45)
    assert "names both configMapRef and secretRef" in found[1]


def test_well_formed_env_from_is_silent():
    items = [{"secretRef": {"name": "hf"}}, {"configMapRef": {"name": "c"}, "prefix": "VLLM_"}]
    container = {"name": "server", "image": "vllm/vllm-openai:v0.4.2", "envFrom": items}
    assert found_by([_deployment("vllm", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G45) == []


# AnticipatedD/AMD_Instinct manifests/vllm-deployment.yaml@69c3983d88adcfdc6b22f542f5c5f1b3e3fe6f56 (dev set 24):
# `://amd.com: "1"` in limits and requests (meant amd.com/gpu).
def test_an_invalid_resource_name_is_refused():
    resources = {"limits": {"://amd.com": "1"}, "requests": {"://amd.com": "1"}}
    container = {"name": "vllm-rocm-core", "image": "vllm/vllm-openai:latest", "resources": resources}
    found = found_by([_deployment("vllm-qwen-amd", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G45)
    assert [level for level, _ in found] == ["mandatory", "mandatory"]
    assert "resources.limits '://amd.com' is not a valid resource name (not a qualified name)" in found[0][1]
    for name, why in (("gpu", "must be a standard resource"), ("requests.nvidia.com/gpu", "extended resource name")):
        container = {"name": "c", "image": "vllm/vllm-openai:v0.9.2", "resources": {"limits": {name: "1"}}}
        (found,) = found_by([_deployment("d", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G45)
        assert why in found[1]


def test_valid_resource_names_are_silent():
    limits = {
        "cpu": "2",
        "memory": "8Gi",
        "ephemeral-storage": "50Gi",
        "hugepages-2Mi": "1Gi",
        "amd.com/gpu": "1",
        "nvidia.com/gpu": "1",
        "nvidia.com/mig-1g.10gb": "1",
        "gpu.intel.com/i915": "1",
    }
    container = {"name": "c", "image": "vllm/vllm-openai:v0.9.2", "resources": {"limits": limits}}
    assert found_by([_deployment("d", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G45) == []


# --- S38: the moving nightly tags run vLLM's main branch (components/serving_engines.toml, vllm tags) ------------------

S38 = "engine-options-exist"


def _served(image: str, command: list[str], args: list[str]) -> dict:
    container = {"name": "vllm", "image": image, "command": command, "args": args}
    return _deployment("vllm-general", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)


def test_nightly_tags_are_judged_at_the_newest_release_as_advice():
    # rrumana/k8s-homelab-2 cluster/apps/ai/vllm-general/vllm-general-deployment.yaml (dev set 24) runs
    # rocm/vllm-dev:nightly with `vllm serve`; vLLM's ROCm guide pulls that tag "to get the latest image". --device was
    # dropped in 0.10.0 (components/vllm_cli_flags.json), so no release the tag can run today has it.
    for image, command in (("rocm/vllm-dev:nightly", ["vllm", "serve"]), ("vllm/vllm-openai:nightly", [])):
        found = found_by([_served(image, command, ["Qwen/Qwen2.5-1.5B-Instruct", "--device", "cpu"])], S38)
        assert [level for level, _ in found] == ["advisory"], image
        assert "which image " + image + " runs today (the tag moves)" in found[0][1]
    # A dated nightly build names no release: not judged where some release has the option.
    pinned = _served("rocm/vllm-dev:nightly_main_20260118", ["vllm", "serve"], ["Qwen/Qwen2.5-1.5B-Instruct", "--device", "cpu"])
    assert found_by([pinned], S38) == []


# --- S26: number bounds of the CRD schemas (policies/crd/schemas.json, policies/crd/unpinned_bounds.py) ---------------

S26 = "crd-validation-rules"


def test_a_kubeai_model_below_its_crd_minimum_is_refused():
    # maxlim0/kubeai apps/workloads/kubeai/model-llama-3-1-8b-instruct-vllm.yaml@f1c4e9a0a82ecad7fe92f4635881a4386a4f6455
    # (dev set 25): maxReplicas 0 against the Model CRD's Minimum=1.
    model = {
        "apiVersion": "kubeai.org/v1",
        "kind": "Model",
        "metadata": {"name": "qwen", "namespace": "kubeai"},
        "spec": {
            "features": ["TextGeneration"],
            "owner": "google",
            "url": "hf://google/gemma-3-4b-it",
            "engine": "VLLM",
            "resourceProfile": "doks-nvidia:1",
            "args": ["--max-model-len=4096", "--gpu-memory-utilization=0.75"],
            "minReplicas": 0,
            "maxReplicas": 0,
            "replicas": 0,
        },
    }
    assert found_by([model], S26) == [
        (
            "mandatory",
            "spec.maxReplicas: the API server refuses this object: 0 should be greater than or equal to 1 (Invalid "
            "value) (minimum of the Model CRD, substratusai/kubeai v0.21.0 api/k8s/v1/model_types.go:105)",
        )
    ]
    # maxlim0/kubeai cdr-model-qwen2-5-3b-instruct.yaml@3d8c288a: minReplicas 0, maxReplicas 4 are within the bounds.
    model["spec"].update({"maxReplicas": 4, "targetRequests": 2})
    del model["spec"]["replicas"]
    assert found_by([model], S26) == []


def test_a_pinned_crd_number_outside_its_schema_bounds_is_refused():
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "llm"},
        "spec": {
            "parentRefs": [{"name": "gw"}],
            "rules": [{"backendRefs": [{"name": "vllm", "port": 8000, "weight": 100}]}],
        },
    }
    assert found_by([route], S26) == []
    route["spec"]["rules"][0]["backendRefs"][0]["port"] = 0
    ((level, message),) = found_by([route], S26)
    assert level == "mandatory"
    assert message.startswith(
        "spec.rules[0].backendRefs[0].port: the API server refuses this object: 0 should be greater than or equal to 1"
    )


def test_a_malformed_device_resource_brings_no_device():
    # AnticipatedD/AMD_Instinct (dev set 24): `://amd.com` is no resource at all, so the CUDA image has no GPU (G13);
    # a well-formed amd.com/gpu is another vendor's device: on the CUDA image it is G13's wrong build (set 26
    # mo11om/LuminaLocal, test_policy_engine_gpu_limit.py), on a ROCm build it is silent.
    def vllm(name: str, image: str = "vllm/vllm-openai:latest") -> dict:
        resources = {"limits": {name: "1"}, "requests": {name: "1"}}
        container = {"name": "vllm-rocm-core", "image": image, "resources": resources}
        container["args"] = ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
        return _deployment("vllm-qwen-amd", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)

    assert [level for level, _ in found_by([vllm("://amd.com")], "gpu-engine-has-gpu-limit")] == ["mandatory"]
    ((_, message),) = found_by([vllm("amd.com/gpu")], "gpu-engine-has-gpu-limit")
    assert "given amd.com/gpu, not nvidia.com/gpu" in message
    assert found_by([vllm("amd.com/gpu", "rocm/vllm:latest")], "gpu-engine-has-gpu-limit") == []


# --- G6: a TCP readiness check on a server that listens while it loads (engine table listens_while_loading) ------------

G4 = "serving-readiness-probe"
G6 = "readiness-waits-for-model"


def _llama(readiness: dict, image: str = "rocm/llama.cpp:llama.cpp-b6652.amd0_rocm7.0.0_ubuntu24.04_server") -> dict:
    # rrumana/k8s-homelab-2 cluster/apps/ai/llama-backend/llama-static-a-deployment.yaml@8c3fcda882cbff72004119e67c83eae7
    # (dev set 24): /app/llama-server with startup, readiness and liveness probes on tcpSocket port http.
    container = {
        "name": "llama-server",
        "image": image,
        "command": ["/app/llama-server"],
        "args": ["--model", "/models/model.gguf", "--host", "0.0.0.0", "--port", "8000", "--ctx-size", "8192"],
        "ports": [{"containerPort": 8000, "name": "http"}],
        "readinessProbe": readiness,
        "resources": {"limits": {"amd.com/gpu": "1"}},
    }
    return _deployment("llama-static-a", {"matchLabels": {"app": "l"}}, {"app": "l"}, container)


def test_a_tcp_readiness_check_on_llama_server_is_advice():
    tcp = _llama({"tcpSocket": {"port": "http"}, "periodSeconds": 10})
    found = found_by([tcp], G6)
    assert [level for level, _ in found] == ["advisory"]
    assert "readinessProbe only opens a TCP connection, but llama.cpp server listens while it loads" in found[0][1]
    assert found_by([tcp], G4) == []  # a readiness probe is there: G4 has nothing to say
    assert found_by([_llama({"httpGet": {"path": "/health", "port": "http"}})], G6) == []


def test_a_tcp_readiness_check_on_vllm_is_silent():
    # vLLM starts its HTTP server only after the engine is built (components/serving_engines.toml vllm endpoints).
    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.9.2",
        "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"],
        "readinessProbe": {"tcpSocket": {"port": 8000}},
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    assert found_by([_deployment("vllm", {"matchLabels": {"a": "b"}}, {"a": "b"}, container)], G4) == []


# --- S9: the OpenShift router's 30 s server timeout (llm-route-timeout-not-default) ------------------------------------

S9 = "llm-route-timeout-not-default"


def _route(annotations: dict | None = None) -> dict:
    # MohammadB88/rag-anythingllm model_vllm/gpu_all_resources.yaml@6eec0ae7 (dev set 24): an edge Route to the vLLM
    # Service with no haproxy.router.openshift.io/timeout.
    route = {
        "apiVersion": "route.openshift.io/v1",
        "kind": "Route",
        "metadata": {"name": "vllm", "labels": {"app": "vllm"}},
        "spec": {"to": {"kind": "Service", "name": "vllm", "weight": 100}, "port": {"targetPort": 8000}},
    }
    route["spec"]["tls"] = {"termination": "edge"}
    if annotations:
        route["metadata"]["annotations"] = annotations
    return route


def _vllm_app() -> list[dict]:
    container = {"name": "server", "image": "vllm/vllm-openai:v0.9.2", "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]}
    container["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm"},
        "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000, "targetPort": 8000}]},
    }
    return [_deployment("vllm", {"matchLabels": {"app": "vllm"}}, {"app": "vllm"}, container), service]


def test_an_openshift_route_left_at_the_router_default_is_advice():
    found = [m for level, m in found_by([*_vllm_app(), _route()], S9) if m.startswith("Route vllm")]
    assert found == [
        "Route vllm: router timeout 30s (unset: the OpenShift router's 30s, unless its IngressController moves it) in "
        "front of an LLM (vllm) cuts a request that sends no byte for that long (a long prefill, a non-streamed reply) "
        "with 504; set the annotation haproxy.router.openshift.io/timeout above the longest request"
    ]
    # HAProxy reads a bare number as milliseconds: 30000 is the same 30 s.
    assert [m for _, m in found_by([*_vllm_app(), _route({OPENSHIFT: "30000"})], S9) if m.startswith("Route")]
    assert [m for _, m in found_by([*_vllm_app(), _route({OPENSHIFT: "10m"})], S9) if m.startswith("Route")] == []


OPENSHIFT = "haproxy.router.openshift.io/timeout"


# --- G1 and S31 on a KServe runtime that builds its server at start ------------------------------------------------------

# sankapoo/serving-runtimes llama-cpp-runtime.yaml (dev set 25): llama.cpp's moving `full` image, and a container that
# pip-installs llama-cpp-python and its web stack, unpinned, before `python3 -m llama_cpp.server`.
RUNTIME_SCRIPT = (
    "pip install --upgrade --no-cache-dir --target=/tmp/.local llama-cpp-python uvicorn fastapi && "
    "export PYTHONPATH=/tmp/.local:$PYTHONPATH && "
    "python3 -m llama_cpp.server --model /mnt/models/model-Q4_K_M.gguf --host 0.0.0.0 --port 8000"
)


def _llama_runtime(image: str, script: str = RUNTIME_SCRIPT) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "llama-cpp-runtime"},
        "spec": {
            "supportedModelFormats": [{"name": "gguf", "version": "1", "autoSelect": True}],
            "containers": [{"name": "kserve-container", "image": image, "command": ["/bin/bash", "-c"], "args": [script]}],
        },
    }


def test_a_publishers_moving_tag_counts_whatever_runs_in_the_image():
    found = found_by([_llama_runtime("ghcr.io/ggml-org/llama.cpp:full")], "image-tag-pinned")
    assert [level for level, _ in found] == ["advisory"]
    assert "uses full, a tag llama.cpp server moves to each new build" in found[0][1]
    assert found_by([_llama_runtime("ghcr.io/ggml-org/llama.cpp:full-b6652")], "image-tag-pinned") == []


def test_a_runtime_that_installs_unpinned_packages_at_start_is_reported():
    found = found_by([_llama_runtime("ghcr.io/ggml-org/llama.cpp:full-b6652")], "serving-code-pinned")
    assert {m.split(": ", 1)[1].split(" with")[0] for _, m in found} == {
        "installs llama-cpp-python",
        "installs uvicorn",
        "installs fastapi",
    }
    pinned = RUNTIME_SCRIPT.replace(
        "llama-cpp-python uvicorn fastapi", "llama-cpp-python==0.3.16 uvicorn==0.35.0 fastapi==0.116.1"
    )
    assert found_by([_llama_runtime("ghcr.io/ggml-org/llama.cpp:full-b6652", pinned)], "serving-code-pinned") == []


# --- G32: an LLMInferenceService on a gateway with OpenDataHub's token check off ----------------------------------------


def _llmisvc(annotations: dict) -> dict:
    # nirjhar17/synapxe-opencode-demo llminferenceservice.yaml (dev set 25), trimmed: enable-auth "false" with
    # router.gateway refs and router.route {}.
    return {
        "apiVersion": "serving.kserve.io/v1alpha2",
        "kind": "LLMInferenceService",
        "metadata": {"name": "qwen3-coder", "namespace": "ai-serving", "annotations": annotations},
        "spec": {
            "model": {"uri": "hf://Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", "name": "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"},
            "replicas": 1,
            "router": {"gateway": {"refs": [{"name": "maas-default-gateway", "namespace": "openshift-ingress"}]}, "route": {}},
        },
    }


def test_an_llm_inference_service_with_auth_off_on_a_gateway_is_advice():
    off = found_by([_llmisvc({"security.opendatahub.io/enable-auth": "false"})], "public-model-endpoint-guarded")
    assert [level for level, _ in off] == ["advisory"]
    assert found_by([_llmisvc({})], "public-model-endpoint-guarded") == []  # on unless "false" (IsAuthEnabled)


# --- S34: a Serverless InferenceService whose startup budget alone fills Knative's progress deadline --------------------


def test_a_knative_revision_whose_startup_budget_fills_the_progress_deadline_is_advice():
    # kwkoo/kserve-vllm (dev set 25): the runtime's startupProbe 60 x 10 s, Knative's default 600 s deadline.
    runtime = copy.deepcopy(RUNTIME)
    runtime["spec"]["containers"][0]["startupProbe"] = {
        "httpGet": {"path": "/version", "port": 8080},
        "failureThreshold": 60,
        "periodSeconds": 10,
    }
    found = found_by([ISVC, runtime], "progress-deadline-covers-startup")
    assert [level for level, _ in found] == ["advisory"]
    assert "startupProbe allows 600 s, which alone fills Knative's default progress deadline 600 s" in found[0][1]
    longer = copy.deepcopy(ISVC)
    longer["metadata"]["annotations"] = {"serving.knative.dev/progress-deadline": "1800s"}
    assert found_by([longer, runtime], "progress-deadline-covers-startup") == []
    raw = copy.deepcopy(ISVC)
    raw["metadata"]["annotations"] = {"serving.kserve.io/deploymentMode": "RawDeployment"}
    assert found_by([raw, runtime], "progress-deadline-covers-startup") == []
