"""Pod-level facts of serving pods in the forms third parties write them (brief shm51).

Firing forms, from spent sets:
- S36: LiteLLM's ``--detailed_debug`` (click flag with envvar DETAILED_DEBUG, litellm 1.77.7 wheel
  litellm/proxy/proxy_cli.py:349-356, :805-806; proxy_server.py:3333-3344 sets its loggers to DEBUG; set 84
  brianmlasky/serverless-agentic-platform@8200cc88 k8s/litellm/deployment.yaml, args [--config, /app/config.yaml,
  --port, "4000", --detailed_debug]).
- S19: a CPU llama.cpp predictor whose init container curls a GGUF into an emptyDir with sizeLimit 12Gi and no
  ephemeral-storage request (set 56 namphuongtran/llm-serving-stack@HEAD models/ornith-9b/overlays/local/
  patch-resources.yaml); a GPU container of its image's entrypoint naming FILE_NAME ggml-model-f16.gguf beside AWS
  keys and mounting no volume (set 87 brianlechthaler/llama-k8s generator/generator-a100-deployment.yaml).
- G9: a CPU-only vLLM (LLMInferenceService of quay.io/pierdipi/vllm-cpu) limited to 1 CPU, below the 2 processes
  (API server, engine core) the engine row's cpus table counts (set 50 Torence7/llm-kserve-autoscaling
  manifests/kserve/facebook-opt-125m.yaml).

Careful forms that stay silent: LiteLLM with --debug only (INFO, proxy_server.py:3320-3332), DETAILED_DEBUG=false;
S19 with an ephemeral-storage request covering the sizeLimit, the generator with a volume mounted or no store
credentials; G9 with a CPU limit of 2 or none.
"""

from __future__ import annotations

from policy_fixtures import found_by

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.reading.ollama_pulls import pod_pulls
from policies.registry import evaluate

S36 = "debug-switches-off"
S19 = "gpu-pod-ephemeral-storage"
G9 = "serving-cpu-limit-floor"


def _deployment(container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "litellm-gateway"},
        "spec": {
            "selector": {"matchLabels": {"app": "g"}},
            "template": {"metadata": {"labels": {"app": "g"}}, "spec": {"containers": [container]}},
        },
    }


def _litellm(args: list, env: list | None = None) -> dict:
    return {
        "name": "litellm",
        "image": "docker.io/litellm/litellm:v1.84.0",
        "args": args,
        "env": env or [{"name": "STORE_MODEL_IN_DB", "value": "true"}],
        "ports": [{"containerPort": 4000}],
        "readinessProbe": {"httpGet": {"path": "/health/readiness", "port": 4000}},
        "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}},
    }


def test_litellm_detailed_debug_flag_is_advice():
    args = ["--config", "/app/config.yaml", "--port", "4000", "--detailed_debug"]
    ((level, message),) = found_by([_deployment(_litellm(args))], S36)
    assert level == "advisory"
    assert message.startswith("container litellm: --detailed_debug sets the LiteLLM proxy's package, router and proxy")


def test_litellm_detailed_debug_env_is_advice_once():
    env = [{"name": "DETAILED_DEBUG", "value": "True"}]
    ((level, message),) = found_by([_deployment(_litellm(["--detailed_debug"], env))], S36)
    assert level == "advisory" and "env DETAILED_DEBUG=True" in message


def test_litellm_careful_forms_stay_silent():
    assert found_by([_deployment(_litellm(["--config", "/app/config.yaml", "--debug"]))], S36) == []
    env = [{"name": "DETAILED_DEBUG", "value": "false"}]
    assert found_by([_deployment(_litellm(["--config", "/app/config.yaml"], env))], S36) == []


def _ornith(request: str | None = None) -> dict:
    init = {
        "name": "fetch-weights",
        "image": "curlimages/curl:8.21.0",
        "command": ["/bin/sh", "-c"],
        "args": [
            'set -eu\ncurl -fL --retry 3 -o /models/model.gguf "https://huggingface.co/${HF_REPO}/resolve/main/${HF_FILE}"\n'
        ],
        "env": [
            {"name": "HF_REPO", "value": "ornith-ai/Ornith-1.0-9B-GGUF"},
            {"name": "HF_FILE", "value": "ornith-1.0-9b-Q4_K_M.gguf"},
        ],
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "volumeMounts": [{"name": "models", "mountPath": "/models"}],
    }
    if request:
        init["resources"]["requests"]["ephemeral-storage"] = request
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "ornith-9b"},
        "spec": {
            "predictor": {
                "model": {
                    "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "6", "memory": "12Gi"}},
                    "volumeMounts": [{"name": "models", "mountPath": "/models"}],
                },
                "initContainers": [init],
                "volumes": [{"name": "models", "emptyDir": {"sizeLimit": "12Gi"}}],
            }
        },
    }


def test_cpu_server_download_into_a_bounded_emptydir_without_a_request_is_advice():
    ((level, message),) = found_by([_ornith()], S19)
    assert level == "advisory"
    assert message.startswith("container fetch-weights: downloads ornith-ai/Ornith-1.0-9B-GGUF")
    assert "an emptyDir with sizeLimit 12Gi on the node's disk, but the pod requests no ephemeral-storage" in message
    assert found_by([_ornith("12Gi")], S19) == []


def _generator(env: list, mounts: bool = False) -> dict:
    container: dict = {
        "name": "generator",
        "image": "ghcr.io/brianlechthaler/llama-k8s/generator:main",
        "env": env,
        "resources": {"limits": {"cpu": 32, "memory": "64Gi", "nvidia.com/gpu": 2}},
    }
    spec: dict = {"containers": [container]}
    if mounts:
        container["volumeMounts"] = [{"name": "model", "mountPath": "/var/model"}]
        spec["volumes"] = [{"name": "model", "persistentVolumeClaim": {"claimName": "model"}}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "generator-a100"},
        "spec": {
            "selector": {"matchLabels": {"app": "g"}},
            "template": {"metadata": {"labels": {"app": "g"}}, "spec": spec},
        },
    }


_STORE = [
    {"name": "BUCKET_REGION", "value": "las1"},
    {"name": "AWS_ACCESS_KEY_ID", "valueFrom": {"secretKeyRef": {"name": "s3", "key": "accessKey"}}},
    {"name": "FILE_NAME", "value": "ggml-model-f16.gguf"},
]


def test_image_fetch_of_a_named_checkpoint_into_the_layer_is_advice():
    ((level, message),) = found_by([_generator(_STORE)], S19)
    assert level == "advisory"
    assert message.startswith(
        "container generator: downloads ggml-model-f16.gguf from object storage into its own writable layer"
    )
    assert found_by([_generator(_STORE, mounts=True)], S19) == []
    assert found_by([_generator([_STORE[2]])], S19) == []


def _cpu_vllm(limits: dict) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "facebook-opt-125m-single"},
        "spec": {
            "model": {"uri": "hf://facebook/opt-125m", "name": "facebook/opt-125m"},
            "replicas": 1,
            "template": {
                "containers": [
                    {
                        "name": "main",
                        "image": "quay.io/pierdipi/vllm-cpu:latest",
                        "resources": {"limits": limits, "requests": {"cpu": "100m", "memory": "8Gi"}},
                    }
                ]
            },
            "router": {"gateway": {}, "route": {}, "scheduler": {}},
        },
    }


def test_cpu_only_vllm_below_its_two_processes_is_advice():
    ((level, message),) = found_by([_cpu_vllm({"cpu": "1", "memory": "10Gi"})], G9)
    assert level == "advisory"
    assert message.startswith("spec.template container main: resources.limits.cpu 1 is below the 2 CPUs this vLLM")
    assert "holds no GPU and computes every token on the CPU" in message
    assert found_by([_cpu_vllm({"cpu": "2", "memory": "10Gi"})], G9) == []
    assert found_by([_cpu_vllm({"memory": "10Gi"})], G9) == []


def test_pod_pulls_reads_a_for_loop_over_a_variable():
    # Spent set 86 Varsilias/zero-downtime k8s/ollama.yaml: a postStart hook pulls every model of OLLAMA_PULL_MODELS.
    podspec = {
        "containers": [
            {
                "name": "ollama",
                "image": "ollama/ollama:latest",
                "env": [{"name": "OLLAMA_PULL_MODELS", "value": "gemma3:270m llama3.2:3b"}],
                "lifecycle": {
                    "postStart": {
                        "exec": {
                            "command": [
                                "/bin/sh",
                                "-lc",
                                'for m in ${OLLAMA_PULL_MODELS}; do\n  ollama pull "$m" || true\ndone\n',
                            ]
                        }
                    }
                },
            }
        ]
    }
    assert pod_pulls(podspec) == ["gemma3:270m", "llama3.2:3b"]
    podspec["containers"][0]["env"] = []
    assert pod_pulls(podspec) == []  # the variable is not in the files: nothing named


# Spent set 50 surajssd/llm-k8s configs/deepseek-v2.5-lmcache/k8s/lws.yaml: the leader's `sh -c` script is one
# double-quoted YAML scalar whose --kv-transfer-config '{"kv_connector":...}' closes it early (line 16 here).
LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: deepseek-v2-5
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
        - name: vllm
          image: lmcache/vllm-openai:2025-04-18
          command:
          - sh
          - -c
          - "vllm serve deepseek-ai/DeepSeek-V2.5 --tensor-parallel-size 8 --pipeline-parallel-size 2
            --kv-transfer-config '{"kv_connector":"LMCacheConnector","kv_role":"kv_both"}';
            sleep inf"
          env:
          - name: NCCL_DEBUG
            value: INFO
          resources:
            limits:
              nvidia.com/gpu: "8"
          volumeMounts:
          - name: shm
            mountPath: /dev/shm
        volumes:
        - name: shm
          emptyDir:
            medium: Memory
    workerTemplate:
      spec:
        containers:
        - name: vllm
          image: lmcache/vllm-openai:2025-04-18
          resources:
            limits:
              nvidia.com/gpu: "8"
"""


def _read(tmp_path, text: str):
    path = tmp_path / "lws.yaml"
    path.write_text(text)
    manifests = read_manifests([str(path)])
    return manifests, evaluate(resources_of(manifests))


def test_inner_double_quotes_of_a_single_quoted_word_are_read_as_escaped(tmp_path):
    manifests, violations = _read(tmp_path, LWS)
    [obj] = manifests.objects
    assert obj.salvaged == "the double quotes of line 17's single-quoted words read as escaped"
    script = obj.obj["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["command"][2]
    assert """'{"kv_connector":"LMCacheConnector","kv_role":"kv_both"}'""" in script
    found = {(v.policy, v.enforcement) for v in violations}
    assert ("manifest-readable", "mandatory") in found
    assert {("tensor-parallel-requires-dshm", "advisory"), (S36, "advisory")} <= found


def test_a_single_quoted_value_outside_a_double_quoted_scalar_is_not_rewritten(tmp_path):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '{\"x\": 1}' trailing\n"
    manifests, _ = _read(tmp_path, text)
    assert all("single-quoted words" not in o.salvaged for o in manifests.objects)
    assert [u.line for u in manifests.unreadable] == [6]
