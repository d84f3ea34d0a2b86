"""Catalogue rows for problems reviewers labelled on spent held-out sets that no row covered ("none" labels): each
with a third-party form that fires and a careful third-party form that stays silent (minimal hand-written shapes of
the cited upstream files, not copies)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by


def lws(name: str, leader: dict, worker: dict) -> dict:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {
                "size": 2,
                "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": leader},
                "workerTemplate": {"spec": worker},
            },
        },
    }


def deployment(name: str, podspec: dict) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": podspec},
        },
    }


# S42 model-server-not-pinned-to-one-node --------------------------------------------------------------------------

_SGLANG = {
    "name": "sglang",
    "image": "lmsysorg/sglang:v0.5.2-cu126",
    "command": ["bash", "-c"],
    "args": [
        "python3 -m sglang.launch_server --model /models/GLM-5-FP8 --tensor-parallel-size 16 --nnodes $LWS_GROUP_SIZE "
        "--node-rank $LWS_WORKER_INDEX --dist-init-addr $LWS_LEADER_ADDRESS:20000 --port 8000"
    ],
    "resources": {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}},
    "volumeMounts": [{"name": "nfs-vol", "mountPath": "/models"}],
}
_NFS = [{"name": "nfs-vol", "nfs": {"server": "172.17.124.39", "path": "/mnt/disk2/models"}}]


def _pinned(host: str) -> dict:
    return {"nodeSelector": {"kubernetes.io/hostname": host}, "containers": [_SGLANG], "volumes": _NFS}


# zhaotyer/lws_usage sglang_glm5.yaml at 1569983b5283fd52190bfa60ca3b62a6ebc219ef (held-out set 8, labelled "none"):
# an SGLang leader pinned to host dev32 and its worker to dev39, the model on NFS.
GLM5 = lws("sglang", _pinned("dev32"), _pinned("dev39"))


def test_an_lws_pinned_to_two_hosts_is_advised_per_template():
    assert found_by([GLM5], "model-server-not-pinned-to-one-node") == [
        (
            "advisory",
            f"spec.leaderWorkerTemplate.{role}Template.spec: the model server is pinned to node {host} (nodeSelector "
            "kubernetes.io/hostname): when that node fails, is drained or replaced, its pods have nowhere to "
            "reschedule and the model is down; select nodes by a pool or GPU-type label instead of one hostname",
        )
        for role, host in (("leader", "dev32"), ("worker", "dev39"))
    ]


def test_node_name_and_a_one_value_required_affinity_pin_too():
    by_name = deployment("vllm", {"nodeName": "gpu-7", "containers": [_SGLANG], "volumes": _NFS})
    ((level, message),) = found_by([by_name], "model-server-not-pinned-to-one-node")
    assert level == "advisory" and "pinned to node gpu-7 (spec.nodeName)" in message
    term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-7"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    by_affinity = deployment("vllm", {"affinity": affinity, "containers": [_SGLANG], "volumes": _NFS})
    ((_, message),) = found_by([by_affinity], "model-server-not-pinned-to-one-node")
    assert "pinned to node gpu-7 (required node affinity on kubernetes.io/hostname)" in message


def test_several_hosts_a_pool_label_or_node_data_stay_silent():
    two = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-7", "gpu-8"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [two]}}}
    pool = {"nodeSelector": {"karpenter.sh/nodepool": "gpu"}, "containers": [_SGLANG], "volumes": _NFS}
    # Tennsoku/k8s-llm-serving-public kubernetes/deploy-vllm.yaml at 3135340af62cbc16308c445ffe6c6fd6268fbe5c (held-out
    # set 7, a trap): pinned to the one GB10 host whose model directory is a hostPath on that node.
    spark = {
        "nodeSelector": {"kubernetes.io/hostname": "spark-4151"},
        "containers": [{**_SGLANG, "volumeMounts": [{"name": "model", "mountPath": "/models", "readOnly": True}]}],
        "volumes": [{"name": "model", "hostPath": {"path": "/home/tensoku/models/Qwen3-8B", "type": "Directory"}}],
    }
    for podspec in ({"affinity": affinity, "containers": [_SGLANG]}, pool, spark):
        assert found_by([deployment("vllm", podspec)], "model-server-not-pinned-to-one-node") == []
    # A pod that serves no model (a CPU tool pinned to a host) is not this row's business.
    tool = copy.deepcopy(pool)
    tool["nodeSelector"] = {"kubernetes.io/hostname": "n1"}
    tool["containers"] = [{"name": "busybox", "image": "busybox:1.36", "command": ["sleep", "3600"]}]
    assert found_by([deployment("tool", tool)], "model-server-not-pinned-to-one-node") == []


# S43 ray-serve-config-keys-current ---------------------------------------------------------------------------------


def rayservice(serve_config: str, image: str, ray_version: str | None = None) -> dict:
    cluster: dict = {
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "head", "image": image}]}}},
        "workerGroupSpecs": [],
    }
    if ray_version is not None:
        cluster["rayVersion"] = ray_version
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "vllm"},
        "spec": {"serveConfigV2": serve_config, "rayClusterConfig": cluster},
    }


# awslabs/ai-on-eks blueprints/inference/vllm-rayserve-gpu/ray-service-vllm.yaml and
# blueprints/inference/vllm-ray-gpu-deepseek/ray-vllm-deepseek.yml at 41a979ee7614a59e5337768b1bddec76ad6653e0
# (corpus 1), and shawnawshk/ray-serve-on-eks k8s/ray/rayservice.yaml at fa037ec266ae622db6f946ed5148676ee74c783c
# (held-out set 7, labelled "none"): the three old keys in one deployment.
_OLD_KEYS = """
applications:
- name: mistral
  import_path: vllm_serve:deployment
  deployments:
  - name: mistral-deployment
    autoscaling_config:
      metrics_interval_s: 0.2
      min_replicas: 1
      max_replicas: 4
      target_num_ongoing_requests_per_replica: 20
    max_concurrent_queries: 100
"""
_SCALING = "serveConfigV2 application mistral deployment mistral-deployment autoscaling_config"
_DEPLOYMENT = "serveConfigV2 application mistral deployment mistral-deployment"


def test_keys_ray_dropped_are_said_to_be_ignored_at_the_image_release():
    found = found_by(
        [rayservice(_OLD_KEYS, "public.ecr.aws/data-on-eks/ray-2.41.0-py310-cu118-vllm0.7.0:latest", "2.41.0")],
        "ray-serve-config-keys-current",
    )
    assert found == [
        (
            "advisory",
            f"{_SCALING}: target_num_ongoing_requests_per_replica is not a Ray Serve field since Ray 2.33 (this cluster "
            "runs 2.41); unknown keys are ignored, so the deployment runs with target_ongoing_requests 2 whatever the "
            "file says; use target_ongoing_requests",
        ),
        (
            "advisory",
            f"{_DEPLOYMENT}: max_concurrent_queries is not a Ray Serve field since Ray 2.33 (this cluster runs 2.41); "
            "unknown keys are ignored, so the deployment runs with max_ongoing_requests 5 whatever the file says; use "
            "max_ongoing_requests",
        ),
    ]  # metrics_interval_s is deprecated only from 2.49: silent at 2.41


def test_an_unnamed_release_is_told_both_dates_and_metrics_interval():
    found = found_by(
        [rayservice(_OLD_KEYS, "985955614379.dkr.ecr.us-west-2.amazonaws.com/ray-serve-vllm:latest")],
        "ray-serve-config-keys-current",
    )
    assert sorted(m for _, m in found) == [
        f"{_SCALING}: metrics_interval_s is deprecated since Ray 2.49 (the Ray release is not named); use the variables "
        "RAY_SERVE_REPLICA_AUTOSCALING_METRIC_PUSH_INTERVAL_S and RAY_SERVE_HANDLE_AUTOSCALING_METRIC_PUSH_INTERVAL_S",
        f"{_SCALING}: target_num_ongoing_requests_per_replica is deprecated since Ray 2.10, ignored from Ray 2.33 on "
        "(target_ongoing_requests 2 instead) (the Ray release is not named); use target_ongoing_requests",
        f"{_DEPLOYMENT}: max_concurrent_queries is deprecated since Ray 2.10, ignored from Ray 2.33 on "
        "(max_ongoing_requests 5 instead) (the Ray release is not named); use max_ongoing_requests",
    ]
    # The release from rayVersion when no image names it; the tag of an image wins over rayVersion.
    by_field = found_by([rayservice(_OLD_KEYS, "my/serve:latest", "2.24.0")], "ray-serve-config-keys-current")
    assert len(by_field) == 2 and all("Ray 2.24 still reads it" in m for _, m in by_field)
    by_image = found_by([rayservice(_OLD_KEYS, "rayproject/ray-ml:2.9.3-py310-gpu", "2.41.0")], "ray-serve-config-keys-current")
    assert by_image == []  # before the deprecation


def test_current_keys_and_ray_serve_llm_deployment_config():
    # ray-project/kuberay ray-operator/config/samples/ray-service.llm-serve.yaml at
    # feeaf72facab4881ba2b179248bb67315634e229 (corpus 1): Ray Serve LLM with the current names.
    current = """
applications:
- name: llms
  import_path: ray.serve.llm:build_openai_app
  args:
    llm_configs:
    - model_loading_config: {model_id: qwen2.5-7b-instruct, model_source: Qwen/Qwen2.5-7B-Instruct}
      deployment_config:
        autoscaling_config: {min_replicas: 1, max_replicas: 4, target_ongoing_requests: 64}
        max_ongoing_requests: 128
"""
    assert (
        found_by([rayservice(current, "rayproject/ray-llm:2.52.0-py311-cu128", "2.52.0")], "ray-serve-config-keys-current") == []
    )
    old = current.replace("target_ongoing_requests", "target_num_ongoing_requests_per_replica")
    ((_, message),) = found_by([rayservice(old, "rayproject/ray-llm:2.52.0-py311-cu128")], "ray-serve-config-keys-current")
    assert message.startswith(
        "serveConfigV2 application llms llm_configs[0].deployment_config autoscaling_config: "
        "target_num_ongoing_requests_per_replica is not a Ray Serve field since Ray 2.33 (this cluster runs 2.52)"
    )


# S44 ingress-rewrite-keeps-api-path --------------------------------------------------------------------------------


def ingress(path: str, target: str | None, service: str = "vllm", klass: str | None = "nginx") -> dict:
    annotations = {"nginx.ingress.kubernetes.io/use-regex": "true"}
    if target is not None:
        annotations["nginx.ingress.kubernetes.io/rewrite-target"] = target
    spec: dict = {
        "rules": [
            {
                "http": {
                    "paths": [
                        {
                            "path": path,
                            "pathType": "ImplementationSpecific",
                            "backend": {"service": {"name": service, "port": {"number": 8000}}},
                        }
                    ]
                }
            }
        ]
    }
    if klass:
        spec["ingressClassName"] = klass
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "llm", "namespace": "llm", "annotations": annotations},
        "spec": spec,
    }


_VLLM_POD = {
    "containers": [
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:v0.11.0",
            "command": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
        }
    ]
}
VLLM_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000}]},
}


def test_a_rewrite_to_root_without_a_capture_blocks_in_front_of_a_model():
    # kubernetes/ingress-nginx docs/examples/rewrite/README.md at controller-v1.15.1 (0a5901f3): path
    # /something(/|$)(.*) with rewrite-target /$2. With the capture dropped (target /), every URI becomes /.
    objs = [ingress("/something(/|$)(.*)", "/"), VLLM_SERVICE, deployment("vllm", _VLLM_POD)]
    assert found_by(objs, "ingress-rewrite-keeps-api-path") == [
        (
            "mandatory",
            "spec.rules[0].http.paths[0]: rewrite-target / has no capture group, so ingress-nginx rewrites every "
            'request URI under /something(/|$)(.*) to / (rewrite "(?i)/something(/|$)(.*)" / break;): /v1/... never '
            "reaches the model server behind Service vllm, which answers 404; use the path's capture groups in the "
            "target (rewrite-target /$2 for (/|$)(.*)) or drop the rewrite",
        )
    ]
    # The backend in another file, or a literal endpoint as the target: advice.
    ((level, message),) = found_by([ingress("/llm", "/")], "ingress-rewrite-keeps-api-path")
    assert level == "advisory" and "the API paths of Service vllm are lost" in message
    assert "capture the rest of the path (path /llm(/|$)(.*), rewrite-target /$2) unless" in message
    ((level, _),) = found_by(objs[1:] + [ingress("/chat", "/v1/chat/completions")], "ingress-rewrite-keeps-api-path")
    assert level == "advisory"


def test_the_docs_capture_form_the_same_path_and_other_controllers_stay_silent():
    silent = [
        ingress("/something(/|$)(.*)", "/$2"),  # ingress-nginx's own example form
        # jaeveloper/aks-llm-infra k8s/ollama-ingress.yaml at 5302f17f2aee80f45ba8c49fe6fd052d35e3a7cf (held-out set 6,
        # labelled "none" as blocking): path / with target / -- template.go:775-777 renders no rewrite for it.
        ingress("/", "/", service="ollama"),
        ingress("/llm", "/", klass="alb"),  # an ALB Ingress: the nginx annotation means nothing
        ingress("/grafana", "/", service="grafana"),  # a known non-model backend
        ingress("/llm", None),
    ]
    for ing in silent:
        assert found_by([ing, VLLM_SERVICE, deployment("vllm", _VLLM_POD)], "ingress-rewrite-keeps-api-path") == []


# S45 model-download-fails-loudly -----------------------------------------------------------------------------------

_GGUF = "https://huggingface.co/SanctumAI/Mistral-7B-Instruct-v0.3-GGUF/resolve/main/mistral-7b-instruct-v0.3.Q4_K_M.gguf"


def _llama_cpp(script: str) -> dict:
    # nerc-project/llm-on-nerc llm-servers/llama.cpp/standalone/02-llama-cpp-deployment.yaml at
    # 5982e31a14bc33929653e34afe5caeaa6b163c18 (held-out set 8, labelled "none"): an init container fetches a GGUF onto
    # a PVC with curl -L, only when the file is missing, for a llama.cpp server on one GPU.
    return deployment(
        "llama-cpp",
        {
            "initContainers": [
                {
                    "name": "fetch-model-data",
                    "image": "ubi8",
                    "command": ["sh", "-c", script],
                    "volumeMounts": [{"name": "models", "mountPath": "/models"}],
                }
            ],
            "containers": [
                {
                    "name": "llama-cpp",
                    "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b4719",
                    "args": ["-m", "/models/mistral-7b-instruct-v0.3.Q4_K_M.gguf", "-c", "4096"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ],
            "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "llama-cpp-pvc"}}],
        },
    )


_NERC = f"if [ ! -f /models/m.gguf ] ; then\n  curl -L {_GGUF} --output /models/m.gguf\nelse\n  echo present\nfi\n"


def test_curl_without_fail_saving_a_model_is_advised():
    assert found_by([_llama_cpp(_NERC)], "model-download-fails-loudly") == [
        (
            "advisory",
            f"container fetch-model-data: curl {_GGUF} writes /models/m.gguf without -f/--fail: an "
            "HTTP error (401 on a gated model, 404, 429) exits 0 with the error page saved as the model and the script "
            "downloads only when the file is missing, so the bad file stays across restarts; add --fail (or -fL) so "
            "the container fails and retries",
        )
    ]
    # -o in a short cluster, -O and a shell redirection write files too.
    # curl's own -s (silent) is no existence test of the script.
    for script in (
        f"curl -sLo /models/m.gguf {_GGUF}",
        f"cd /models && curl -LO {_GGUF}",
        f"curl -sL {_GGUF} > /models/m.gguf",
        f"curl -s -L {_GGUF} -o /models/m.gguf",
    ):
        ((_, message),) = found_by([_llama_cpp(script)], "model-download-fails-loudly")
        assert "without -f/--fail" in message and "stays across restarts" not in message


def test_fail_flags_wget_and_reads_to_stdout_stay_silent():
    for script in (
        f"curl -fL {_GGUF} -o /models/m.gguf",
        f"curl -sSfL -o /models/m.gguf {_GGUF}",
        f"curl --fail-with-body -L {_GGUF} --output /models/m.gguf",
        f"wget -O /models/m.gguf {_GGUF}",
        # vllm-project/aibrix samples/heterogeneous/deepseek-coder-7b-l20-deployment.yaml (corpus 1): curl reads
        # /metrics into a pipe, writes no file.
        "RUNNING=$(curl -s http://localhost:8000/metrics | grep 'vllm:num_requests_running')",
        # --output-dir alone only says where -O would write: this curl prints to stdout.
        f"curl -sL --output-dir /models {_GGUF} | sha256sum",
    ):
        assert found_by([_llama_cpp(script)], "model-download-fails-loudly") == [], script


# S36 debug-switches-off: benchmark context lengths and TORCH_SHOW_CPP_STACKTRACES ------------------------------------


def _vllm(args: list[str], env=None) -> dict:
    container = {
        "name": "inference-server",
        "image": "vllm/vllm-openai:v0.11.0",
        "command": ["vllm", "serve"],
        "args": args,
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    if env:
        container["env"] = env
    return deployment("vllm-deployment", {"containers": [container]})


def test_a_benchmark_context_length_is_advice_for_any_engine():
    # kubernetes-sigs/inference-perf demos/kubecon-na-2025/vllm+eagle/manifests.yaml at 7de5ef2ed6f7934e0ecbc8297e593f79e68430c0
    # (held-out set 4, labelled "none"):
    # vLLM serving Llama-3.1-8B-Instruct with --max-model-len=512 for a benchmark.
    bench = _vllm(["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len=512"])
    assert found_by([bench], "debug-switches-off") == [
        (
            "advisory",
            "container inference-server: --max-model-len 512 caps prompt plus answer at 512 tokens, a benchmark "
            "setting: the server refuses longer requests, so most chat conversations fail; serve at least 2048 (or "
            "the model's context)",
        )
    ]
    sglang = deployment(
        "sglang",
        {
            "containers": [
                {
                    "name": "sglang",
                    "image": "lmsysorg/sglang:v0.5.2-cu126",
                    "command": [
                        "python3",
                        "-m",
                        "sglang.launch_server",
                        "--model-path",
                        "Qwen/Qwen3-8B",
                        "--context-length",
                        "1024",
                    ],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ]
        },
    )
    ((level, message),) = found_by([sglang], "debug-switches-off")
    assert level == "advisory" and "--context-length 1024 caps prompt plus answer" in message


def test_serving_lengths_and_embedding_models_stay_silent():
    # aws-samples/gen-ai-on-eks gen_ai_eks_workshop_files/vllm-deployment.yaml (held-out set 3): --max-model-len=2048.
    for form in (
        _vllm(["mistralai/Mistral-7B-Instruct-v0.3", "--max-model-len=2048"]),
        _vllm(["BAAI/bge-m3", "--max-model-len=512"]),
        _vllm(["Qwen/Qwen2.5-7B-Instruct"]),
    ):
        assert found_by([form], "debug-switches-off") == []


def test_torch_cpp_stack_traces_are_logging_advice():
    form = _vllm(["Qwen/Qwen2.5-7B-Instruct"], env=[{"name": "TORCH_SHOW_CPP_STACKTRACES", "value": "1"}])
    assert found_by([form], "debug-switches-off") == [
        (
            "advisory",
            "container inference-server: env TORCH_SHOW_CPP_STACKTRACES=1 makes PyTorch print C++ stack traces on "
            "errors (a debugging aid), left on in a serving pod; remove it",
        )
    ]


# S19 gpu-pod-ephemeral-storage: servers with no GPU request, and models an image's own script fetches --------------


def _vllm_sandbox(volumes: bool = False) -> dict:
    # scalable-ml-systems/llm-inference-platform infrastructure/save/kubernetes/vllm/deployment.yaml at
    # d765a9bbd54a0801207dd0ea571cc0b67676aa69 (held-out set 8, labelled S19): two vLLM containers, each downloading
    # a small AWQ model from the Hub into its writable layer, with no resources at all (no GPU request either).
    podspec: dict = {
        "containers": [
            {
                "name": "vllm-qwen",
                "image": "vllm/vllm-openai:latest",
                "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct-AWQ", "--port", "8000"],
            },
            {
                "name": "vllm-llama",
                "image": "vllm/vllm-openai:latest",
                "args": ["--model", "hugging-quants/Llama-3.2-3B-Instruct-AWQ", "--port", "8001"],
            },
        ]
    }
    if volumes:
        for container in podspec["containers"]:
            container["volumeMounts"] = [{"name": "cache", "mountPath": "/root/.cache/huggingface"}]
        podspec["volumes"] = [{"name": "cache", "persistentVolumeClaim": {"claimName": "hf-cache"}}]
    return deployment("vllm-sandbox", podspec)


def test_a_server_without_a_gpu_request_still_downloads_onto_the_node():
    found = found_by([_vllm_sandbox()], "gpu-pod-ephemeral-storage")
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[0][1].startswith(
        "container vllm-llama: downloads hugging-quants/Llama-3.2-3B-Instruct-AWQ from the Hugging Face Hub into "
        "/root/.cache/huggingface/hub on the node's ephemeral storage but requests no ephemeral-storage"
    )
    assert found_by([_vllm_sandbox(volumes=True)], "gpu-pod-ephemeral-storage") == []


def _knative_llamacpp(volume: bool = False) -> dict:
    # nebius/ml-cookbook knative-llamacpp/llamacpp.yml at 83f160fe3f6ce3c70f84927b38dd72e20a6a4b85 (held-out set 3,
    # labelled S19): a llama.cpp image whose start script copies a 16 GB GGUF from S3 (S3_BUCKET, MODEL_KEY and AWS
    # credentials in its env) to /mnt/models, which is no volume.
    def secret(name: str) -> dict:
        return {"name": name, "valueFrom": {"secretKeyRef": {"name": "object-storage-auth", "key": name.lower()}}}

    container = {
        "name": "l3test",
        "image": "ghcr.io/brianlechthaler/ml-cookbook-knative-testing/knative-llamacpp:main",
        "env": [
            {"name": "LLAMA_ARG_MODEL", "value": "/mnt/models/l3.1-8B-F16.gguf"},
            {"name": "LLAMA_ARG_N_GPU_LAYERS", "value": "100"},
            secret("S3_BUCKET"),
            secret("AWS_ACCESS_KEY_ID"),
            {"name": "MODEL_KEY", "value": "l3.1-8B-F16.gguf"},
        ],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    spec: dict = {"containers": [container]}
    if volume:
        container["volumeMounts"] = [{"name": "models", "mountPath": "/mnt/models"}]
        spec["volumes"] = [{"name": "models", "persistentVolumeClaim": {"claimName": "models"}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "knative-python-demo--chat"}, "spec": spec}


def test_a_model_the_image_fetches_from_object_storage_is_advice():
    ((level, message),) = found_by([_knative_llamacpp()], "gpu-pod-ephemeral-storage")
    assert level == "advisory"
    assert message.startswith(
        "container l3test: downloads /mnt/models/l3.1-8B-F16.gguf from object storage into /mnt/models on the node's "
        "ephemeral storage but requests no ephemeral-storage"
    )
    assert message.endswith(
        "(the image's own start script fetches it, as its environment (S3_BUCKET) says; the script is not in the files)"
    )
    # On a volume, or with no store named in its environment (the model baked into the image), nothing is fetched there.
    assert found_by([_knative_llamacpp(volume=True)], "gpu-pod-ephemeral-storage") == []
    baked = _knative_llamacpp()
    baked["spec"]["containers"][0]["env"] = baked["spec"]["containers"][0]["env"][:2]
    assert found_by([baked], "gpu-pod-ephemeral-storage") == []


# G1 image-tag-pinned: build labels ---------------------------------------------------------------------------------


def test_a_build_label_tag_is_advice():
    # zhaotyer/lws_usage sglang_glm5.yaml at 1569983b5283fd52190bfa60ca3b62a6ebc219ef (held-out set 8, labelled G1).
    assert found_by([GLM5], "image-tag-pinned") == []  # the fixture's own image, lmsysorg/sglang:v0.5.2-cu126, is a release
    labelled = copy.deepcopy(GLM5)
    for role in ("leaderTemplate", "workerTemplate"):
        labelled["spec"]["leaderWorkerTemplate"][role]["spec"]["containers"][0]["image"] = (
            "harbor.transwarp.io/aip/sglang:glm5-hopper"
        )
    found = found_by([labelled], "image-tag-pinned")
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[0][1] == (
        "spec.leaderWorkerTemplate.leaderTemplate.spec container sglang: image harbor.transwarp.io/aip/sglang:glm5-hopper "
        "uses glm5-hopper, a build label with no version, date or commit in it, which its owner can push again; pin a "
        "version tag (ideally a digest, image@sha256:...)"
    )


def test_tags_with_a_version_date_or_commit_are_not_build_labels():
    # Tags of the corpora: sgl-project/ome config/runtimes/srt (v0.5.5.post3-cu129-amd64), vllm-project/aibrix
    # samples/deepseek-r1 (v0.7.3.self.post1), awslabs/ai-on-eks ray-vllm-deepseek (ray-2.41.0-py310-cu118-vllm0.7.0 as
    # an image name, tag latest: G1's mandatory case), GoogleCloudPlatform/kubernetes-engine-samples model armor
    # (20250801_0916_RC01).
    for tag in ("v0.5.5.post3-cu129-amd64", "v0.7.3.self.post1", "20250801_0916_RC01", "sha-3f9e2c1", "v3-gpu", "2.41.0-py310"):
        form = copy.deepcopy(GLM5)
        for role in ("leaderTemplate", "workerTemplate"):
            form["spec"]["leaderWorkerTemplate"][role]["spec"]["containers"][0]["image"] = f"lmsysorg/sglang:{tag}"
        assert found_by([form], "image-tag-pinned") == [], tag


# S46 engine-image-from-publisher -----------------------------------------------------------------------------------


def _sglang_image(image: str) -> dict:
    # bkauf/ai-ml-tooling sglang-deployment.yaml at 4a6caa760d4b693d5c5a86f85a20501b72833749 (held-out set 6, labelled
    # "none"): SGLang started by python3 -m sglang.launch_server from dganochenko/sglang:v0.5.2.
    return deployment(
        "sglang-test",
        {
            "containers": [
                {
                    "name": "inference-server",
                    "image": image,
                    "command": ["python3", "-m", "sglang.launch_server"],
                    "args": ["--model-path", "Qwen/Qwen3-8B", "--port", "8000"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ]
        },
    )


def test_an_engine_image_from_another_docker_hub_account_is_advice():
    assert found_by([_sglang_image("dganochenko/sglang:v0.5.2")], "engine-image-from-publisher") == [
        (
            "advisory",
            "container inference-server: image dganochenko/sglang:v0.5.2 is sglang as the Docker Hub account "
            "dganochenko publishes it, not the engine's release (lmsysorg/sglang): what it holds and whether it changes "
            "or disappears is that account's; use the engine's image, or build your own into a registry you control",
        )
    ]
    ((_, message),) = found_by([_sglang_image("docker.io/someone/sglang:v0.5.2")], "engine-image-from-publisher")
    assert "Docker Hub account someone" in message


def test_publishers_their_project_builds_and_own_registries_stay_silent():
    for image in (
        "lmsysorg/sglang:v0.5.2-cu126",
        "docker.io/lmsysorg/sglang:v0.5.2",
        # zhaotyer/lws_usage sglang_glm5.yaml (held-out set 8): the team's own harbor.
        "harbor.transwarp.io/aip/sglang:glm5-hopper",
        "123456789012.dkr.ecr.us-west-2.amazonaws.com/sglang:v0.5.2",
    ):
        assert found_by([_sglang_image(image)], "engine-image-from-publisher") == [], image
    # vllm-project/aibrix samples/deepseek-r1 (corpus 1): AIBrix's own vLLM build.
    vllm = _vllm(["deepseek-ai/DeepSeek-R1"])
    vllm["spec"]["template"]["spec"]["containers"][0]["image"] = "aibrix/vllm-openai:v0.7.3.self.post1"
    assert found_by([vllm], "engine-image-from-publisher") == []


# umesh-khatiwada/aibrix-vllm-deployment v2/aibrix/multi-node-inference/multi-node-inference.yaml at
# 469d4835bebc23d116603418b61c73407fbf69ea (spent set 17, labelled S42 advisory): an AIBrix RayClusterFleet whose head
# runs `vllm serve ... --distributed-executor-backend ray` pinned to kubernetes.io/hostname main, its one worker group
# to seventh-node; both mount the AMD device nodes /dev/kfd and /dev/dri by hostPath.
_DEVICES = [{"name": "dev-kfd", "hostPath": {"path": "/dev/kfd"}}, {"name": "dev-dri", "hostPath": {"path": "/dev/dri"}}]
_RAY_HEAD = {
    "name": "ray-head",
    "image": "rocm/vllm:latest",
    "command": ["/bin/bash", "-lc", "--"],
    "args": [
        "ray start --head --num-gpus=1 && vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --tensor-parallel-size 2 "
        "--distributed-executor-backend ray --host 0.0.0.0 --port 8000"
    ],
    "resources": {"limits": {"amd.com/gpu": 1}, "requests": {"amd.com/gpu": 1}},
}
_RAY_WORKER = {
    "name": "ray-worker",
    "image": "rocm/vllm:latest",
    "command": ["/bin/bash", "-lc", "--"],
    "args": ['eval "$KUBERAY_GEN_RAY_START_CMD --node-ip-address=$MY_POD_IP" && tail -f /dev/null'],
    "resources": {"limits": {"amd.com/gpu": 1}, "requests": {"amd.com/gpu": 1}},
}


def _fleet(head_host: str | None, worker_host: str | None, volumes: list | None = None) -> dict:
    def pod(container: dict, host: str | None) -> dict:
        spec = {"containers": [container], "volumes": copy.deepcopy(_DEVICES if volumes is None else volumes)}
        if host:
            spec["nodeSelector"] = {"kubernetes.io/hostname": host}
        return {"metadata": {"labels": {"model.aibrix.ai/name": "qwen-coder-7b-instruct"}}, "spec": spec}

    return {
        "apiVersion": "orchestration.aibrix.ai/v1alpha1",
        "kind": "RayClusterFleet",
        "metadata": {"name": "qwen-coder-7b-instruct"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"model.aibrix.ai/name": "qwen-coder-7b-instruct"}},
            "template": {
                "metadata": {"labels": {"model.aibrix.ai/name": "qwen-coder-7b-instruct"}},
                "spec": {
                    "rayVersion": "2.10.0",
                    "headGroupSpec": {"rayStartParams": {"num-gpus": "1"}, "template": pod(_RAY_HEAD, head_host)},
                    "workerGroupSpecs": [
                        {
                            "groupName": "small-group",
                            "replicas": 1,
                            "minReplicas": 1,
                            "maxReplicas": 1,
                            "rayStartParams": {"num-gpus": "1"},
                            "template": pod(_RAY_WORKER, worker_host),
                        }
                    ],
                },
            },
        },
    }


def test_a_ray_head_and_worker_pinned_to_one_host_each_are_advised():
    found = found_by([_fleet("main", "seventh-node")], "model-server-not-pinned-to-one-node")
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert "headGroupSpec.template.spec: the model server is pinned to node main" in found[0][1]
    assert "workerGroupSpecs[0].template.spec: Ray worker group small-group" in found[1][1]
    assert "pinned to node seventh-node" in found[1][1]


def test_ray_careful_forms_stay_silent():
    # Neither pinned (the device nodes mounted by hostPath tie the pods to no node).
    assert found_by([_fleet(None, None)], "model-server-not-pinned-to-one-node") == []
    # The model's files on the pinned nodes' own disks: the pin follows the data.
    data = [{"name": "models", "hostPath": {"path": "/mnt/models"}}]
    assert found_by([_fleet("main", "seventh-node", data)], "model-server-not-pinned-to-one-node") == []


# G1 image-tag-pinned: a tag with no version number, pulled Always ----------------------------------------------------


def _always(image: str, pull: str | None = "Always") -> dict:
    # aihpi/litellm-k8s base/litellm/deployment.yaml at e8ed2fb (cut down): a LiteLLM proxy from
    # ghcr.io/aihpi/tool-litellm:aihpi-provider with imagePullPolicy Always.
    container: dict = {"name": "litellm", "image": image, "args": ["--config", "/app/config.yaml", "--port", "4000"]}
    if pull:
        container["imagePullPolicy"] = pull
    return deployment("litellm", {"containers": [container]})


def test_a_tag_with_no_version_pulled_always_is_advice():
    found = found_by([_always("ghcr.io/aihpi/tool-litellm:aihpi-provider")], "image-tag-pinned")
    assert found == [
        (
            "advisory",
            "container litellm: image ghcr.io/aihpi/tool-litellm:aihpi-provider uses aihpi-provider, a tag with no version "
            "number in it, and imagePullPolicy Always pulls it again at each pod start, so replicas and rollbacks run "
            "whatever was pushed under it last; pin a version tag (ideally a digest, image@sha256:...)",
        )
    ]
    assert [level for level, _ in found_by([_always("ollama/ollama:rocm")], "image-tag-pinned")] == ["advisory"]


def test_a_numbered_tag_a_digest_or_no_always_stays_silent():
    for image in ("acme/tool:v1", "acme/tool:cuda12", "acme/tool:0.6.3", "acme/tool@sha256:" + "a" * 64):
        assert found_by([_always(image)], "image-tag-pinned") == [], image
    assert found_by([_always("ghcr.io/aihpi/tool-litellm:aihpi-provider", "IfNotPresent")], "image-tag-pinned") == []
    assert found_by([_always("ghcr.io/aihpi/tool-litellm:aihpi-provider", None)], "image-tag-pinned") == []
