"""S40 model-files-filled: a model server's local model or adapter path lies on a volume something fills.

Fires:
- Spent set 34 (label NONE, blocking): notandruu/gpu-inference-platform k8s/triton-deployment.yaml, Triton's
  ``--model-repository=/models`` on ``emptyDir: {}`` mounted read-only, nothing else in the pod: mandatory.
- Spent set 45 (label NONE, blocking): justinsb/training deploy/vllm.yaml, ``--lora-modules sql-lora=/adapters/sql-lora``
  on the claim vllm-adapters the same file creates, nothing of the run writing it: advice (a copy out of band is
  possible). vLLM raises on a static adapter it cannot load (vllm-project/vllm
  vllm/entrypoints/openai/serving_models.py@075e9ba8:85-96, init_static_loras).
- Second repository of the claim form: ShrithikShahapure/stock-agent-ops k8s/llama.yaml@262f4002 (spent set 37,
  labelled S40 blocking), llama.cpp ``-m /models/qwen3-7b-q4_k_m.gguf`` on a claim the same file creates.
Careful forms stay silent:
- puniomp/nvidia-k8s-llm-inference 1.infrastructure/triton/deployment.yaml@de30926e (spent set 21, a trap there):
  Triton's /models emptyDir with a ConfigMap's config.pbtxt and model.py mounted inside it by subPath;
- sandervanvugt/kubeai llama-deployment.yaml + download-llm-job.yaml@c34ba5cf (spent set 38): the Job writes the
  claim the server reads; the same with the claim made fresh (no volumeName) still stays silent;
- the Triton form with an init container that fills the emptyDir, llama.cpp given -hf beside -m (it downloads to -m),
  and a server run from a shell script.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S40 = "model-files-filled"


def _deployment(name: str, containers: list[dict], volumes: list[dict], init: list[dict] | None = None) -> dict:
    spec: dict = {"containers": containers, "volumes": volumes}
    if init:
        spec["initContainers"] = init
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


def _claim(name: str, **spec: object) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}, **spec},
    }


# notandruu/gpu-inference-platform k8s/triton-deployment.yaml (spent set 34), cut to the server and its volume.
TRITON = _deployment(
    "triton",
    [
        {
            "name": "triton",
            "image": "nvcr.io/nvidia/tritonserver:24.04-py3",
            "command": ["tritonserver", "--model-repository=/models", "--allow-metrics=true"],
            "resources": {"limits": {"nvidia.com/gpu": 1}},
            "volumeMounts": [{"name": "model-repository", "mountPath": "/models", "readOnly": True}],
        }
    ],
    [{"name": "model-repository", "emptyDir": {}}],
)

# justinsb/training deploy/vllm.yaml (spent set 45), cut to the adapter flags and volumes.
LORA = [
    _claim("vllm-adapters"),
    _deployment(
        "vllm",
        [
            {
                "name": "vllm",
                "image": "vllm/vllm-openai:latest",
                "args": [
                    "--model=google/gemma-4-E4B-it",
                    "--max-model-len=2048",
                    "--enable-lora",
                    "--lora-modules=sql-lora=/adapters/sql-lora",
                ],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
                "volumeMounts": [
                    {"name": "adapters", "mountPath": "/adapters"},
                    {"name": "hf-cache", "mountPath": "/root/.cache/huggingface"},
                ],
            }
        ],
        [{"name": "adapters", "persistentVolumeClaim": {"claimName": "vllm-adapters"}}, {"name": "hf-cache", "emptyDir": {}}],
    ),
]

# ShrithikShahapure/stock-agent-ops k8s/llama.yaml@262f4002 (spent set 37), cut.
LLAMA = [
    _claim("llama-models-pvc", accessModes=["ReadOnlyMany"], storageClassName="standard"),
    _deployment(
        "llama",
        [
            {
                "name": "llama",
                "image": "ghcr.io/ggerganov/llama.cpp:server",
                "args": ["-m", "/models/qwen3-7b-q4_k_m.gguf", "--host", "0.0.0.0", "--port", "8080"],
                "volumeMounts": [{"name": "models", "mountPath": "/models", "readOnly": True}],
            }
        ],
        [{"name": "models", "persistentVolumeClaim": {"claimName": "llama-models-pvc"}}],
    ),
]


def test_empty_dir_nothing_writes_is_blocking() -> None:
    found = found_by([TRITON], S40)
    assert found == [
        (
            "mandatory",
            "container triton: loads the model from /models, on the emptyDir model-repository, which starts empty at "
            "every pod start and which nothing in the pod writes (no init container, sidecar or download in the "
            "server's command): the server finds no files there and fails at start or serves no model; fill the volume "
            "in an init container, or mount the volume that holds the files",
        )
    ]


def test_lora_adapter_on_fresh_claim_is_advice() -> None:
    found = found_by(LORA, S40)
    assert len(found) == 1
    enforcement, message = found[0]
    assert enforcement == "advisory"
    assert message.startswith(
        "container vllm: loads the LoRA adapter from /adapters/sql-lora, on PersistentVolumeClaim vllm-adapters, which "
        "these files create empty"
    )


def test_second_repository_llama_cpp_model_on_fresh_claim() -> None:
    found = found_by(LLAMA, S40)
    assert [e for e, _ in found] == ["advisory"]
    assert "loads the model from /models/qwen3-7b-q4_k_m.gguf, on PersistentVolumeClaim llama-models-pvc" in found[0][1]


def test_config_map_inside_the_path_stays_silent() -> None:
    # puniomp/nvidia-k8s-llm-inference 1.infrastructure/triton/deployment.yaml@de30926e (spent set 21)
    triton = copy.deepcopy(TRITON)
    pod = triton["spec"]["template"]["spec"]
    pod["containers"][0]["volumeMounts"] = [
        {"name": "model-repository", "mountPath": "/models"},
        {"name": "identity-config", "mountPath": "/models/identity/config.pbtxt", "subPath": "config.pbtxt"},
        {"name": "identity-config", "mountPath": "/models/identity/1/model.py", "subPath": "model.py"},
    ]
    pod["volumes"].append({"name": "identity-config", "configMap": {"name": "triton-identity-model"}})
    assert found_by([triton], S40) == []


def test_init_container_that_fills_the_volume_stays_silent() -> None:
    triton = copy.deepcopy(TRITON)
    triton["spec"]["template"]["spec"]["initContainers"] = [
        {
            "name": "fetch",
            "image": "amazon/aws-cli:2.15.0",
            "command": ["aws", "s3", "sync", "s3://models/triton", "/models"],
            "volumeMounts": [{"name": "model-repository", "mountPath": "/models"}],
        }
    ]
    assert found_by([triton], S40) == []


def test_claim_a_job_of_the_run_writes_stays_silent() -> None:
    # sandervanvugt/kubeai download-llm-job.yaml + llama-deployment.yaml@c34ba5cf (spent set 38), the claim made fresh
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "download-llm", "namespace": "default"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "OnFailure",
                    "containers": [
                        {
                            "name": "downloader",
                            "image": "curlimages/curl:8.7.1",
                            "command": ["/bin/sh", "-c"],
                            "args": ["set -e\ncurl -fL -o /models/mistral.gguf https://example.invalid/m.gguf"],
                            "volumeMounts": [{"name": "models", "mountPath": "/models"}],
                        }
                    ],
                    "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "llama-models-pvc"}}],
                }
            }
        },
    }
    assert found_by([*LLAMA, job], S40) == []
    prebound = copy.deepcopy(LLAMA)
    prebound[0]["spec"]["volumeName"] = "models-pv"
    assert found_by(prebound, S40) == []


def test_llama_cpp_download_to_m_and_shell_server_stay_silent() -> None:
    hf = copy.deepcopy(LLAMA)
    hf[1]["spec"]["template"]["spec"]["containers"][0]["args"] += ["-hf", "Qwen/Qwen3-8B-GGUF"]
    assert found_by(hf, S40) == []
    shell = copy.deepcopy(TRITON)
    shell["spec"]["template"]["spec"]["containers"][0]["command"] = [
        "sh",
        "-c",
        "cp -r /seed/* /models/ && tritonserver --model-repository=/models",
    ]
    assert found_by([shell], S40) == []


def test_claim_the_files_do_not_create_stays_silent() -> None:
    assert found_by([LORA[1]], S40) == []


def test_a_shell_that_execs_the_server_alone_fills_nothing() -> None:
    # `sh -c "exec tritonserver ..."` (tools/form_variants.py shell-wrap of the spent set 34 container) runs the one
    # command the list form ran: the same finding (shell_words.sole_command); the careful `cp ... && tritonserver`
    # form above stays silent.
    shell = copy.deepcopy(TRITON)
    shell["spec"]["template"]["spec"]["containers"][0]["command"] = [
        "/bin/sh",
        "-c",
        "exec tritonserver --model-repository=/models --allow-metrics=true",
    ]
    assert found_by([shell], S40) == found_by([TRITON], S40)


def test_rebuilt_image_with_its_own_entrypoint_is_advice() -> None:
    # The image's entrypoint, not shown in the files, may copy the model into the emptyDir before the server starts.
    rebuilt = copy.deepcopy(TRITON)
    server = rebuilt["spec"]["template"]["spec"]["containers"][0]
    server["image"] = "registry.example.com/triton-with-models:1.0"
    server["args"] = server.pop("command")
    assert [e for e, _ in found_by([rebuilt], S40)] == ["advisory"]


def test_ephemeral_volume_restored_from_a_snapshot_is_silent():
    # Review 45 #3 (/tmp/review45/m/s40a): a generic ephemeral volume whose claim template names a VolumeSnapshot
    # (dataSource) is restored before the pod starts (GKE's "preload model weights from a snapshot" form): silent.
    # The same volume with a plain claim template (nothing brings data) still blocks.
    template = {
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": "premium-rwo",
        "resources": {"requests": {"storage": "100Gi"}},
    }
    server = copy.deepcopy(TRITON)
    restored = copy.deepcopy(template) | {
        "dataSource": {"name": "weights-snapshot", "kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io"}
    }
    server["spec"]["template"]["spec"]["volumes"] = [
        {"name": "model-repository", "ephemeral": {"volumeClaimTemplate": {"spec": restored}}}
    ]
    assert found_by([server], S40) == []
    plain = copy.deepcopy(server)
    plain["spec"]["template"]["spec"]["volumes"][0]["ephemeral"]["volumeClaimTemplate"]["spec"] = template
    assert [e for e, _ in found_by([plain], S40)] == ["mandatory"]


def _isvc(args: list[str], **model: object) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "embedder", "namespace": "serving"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "args": args,
                    "resources": {"limits": {"nvidia.com/gpu": 1}},
                    **model,
                }
            }
        },
    }


def test_kserve_huggingface_runtime_with_nothing_to_load() -> None:
    # Spent set 27 (label filed NONE): aabhimittal/TRIDENT-Unified-Inference-Orchestration-Across-KServe-Triton-vLLM
    # deploy/k8s/backends/kserve-inferenceservices.yaml, InferenceService embedder: --model_name and --backend only.
    # KServe's huggingfaceserver loads --model_dir (/mnt/models) without --model_id (kserve v0.20.0
    # python/huggingfaceserver/huggingfaceserver/__main__.py:53-57).
    found = found_by([_isvc(["--model_name=BAAI/bge-large-en-v1.5", "--backend=vllm"])], S40)
    assert found == [
        (
            "advisory",
            "spec.predictor.model: the huggingface runtime gets no storageUri and no --model_id (--model_name="
            "BAAI/bge-large-en-v1.5 only names what it serves), so KServe's huggingfaceserver loads its --model_dir "
            "/mnt/models, which nothing fills, and exits at start (Failed to start model server); give "
            "--model_id=ORG/NAME or a storageUri",
        )
    ]


def test_kserve_huggingface_runtime_given_a_model_stays_silent() -> None:
    # KServe's own sample (docs: --model_name=llama3 --model_id=meta-llama/meta-llama-3-8b-instruct), a storageUri, and
    # a custom runtime the files do not show.
    assert found_by([_isvc(["--model_name=llama3", "--model_id=meta-llama/meta-llama-3-8b-instruct"])], S40) == []
    assert found_by([_isvc(["--model_name=bge"], storageUri="hf://BAAI/bge-large-en-v1.5")], S40) == []
    assert found_by([_isvc(["--model_name=bge"], runtime="my-embedding-runtime")], S40) == []
