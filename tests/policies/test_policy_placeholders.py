"""S27 manifest-is-kubernetes: a Kubernetes object whose fields hold envsubst/sed/Terraform placeholders is reported
(advisory), naming the field and the placeholder; the forms Kubernetes, KServe or a shell expand stay silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "manifest-is-kubernetes"


def found(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, POLICY)


def deployment(container: dict, volumes=None) -> dict:
    spec: dict = {"containers": [container]}
    if volumes:
        spec["volumes"] = volumes
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-tpu", "namespace": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-tpu"}},
            "template": {"metadata": {"labels": {"app": "vllm-tpu"}}, "spec": spec},
        },
    }


# xprilion/gemma3-vllm-tpu-gke-autoscaling k8s/vllm-deployment.yaml at 90aeeae (cut down): the GCS FUSE volume's
# bucketName is YOUR_BUCKET_NAME, which the CSI driver would try to mount as written.
TPU = deployment(
    {
        "name": "vllm-tpu",
        "image": "vllm/vllm-tpu:nightly",
        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        "args": ["--model=google/gemma-3-4b-it", "--download-dir=/data"],
    },
    [
        {
            "name": "gcs-fuse-csi-ephemeral",
            "csi": {
                "driver": "gcsfuse.csi.storage.gke.io",
                "volumeAttributes": {"bucketName": "YOUR_BUCKET_NAME", "mountOptions": "implicit-dirs"},
            },
        }
    ],
)


def test_a_fill_in_left_in_a_field_is_named_with_its_field():
    assert found([TPU]) == [
        (
            "advisory",
            "spec.template.spec.volumes[0].csi.volumeAttributes.bucketName holds YOUR_BUCKET_NAME: an unrendered "
            "placeholder (envsubst, sed or Terraform style), which Kubernetes takes literally (the kubelet expands only "
            "$(VAR)), so applied as committed the object fails or does not do what it says, and the pack checked no "
            "rule on the placeholder's value; render it first (envsubst < FILE | python -m policies check -)",
        )
    ]


def test_envsubst_and_terraform_forms_in_image_env_and_args_are_named():
    # kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml (corpus 1): HF_TOKEN's value is `$HF_TOKEN`; the image and the
    # model flag below take ${PROJECT_ID} (GKE tutorials' envsubst form) and <model> (docs' fill-in).
    container = {
        "name": "vllm",
        "image": "us-docker.pkg.dev/${PROJECT_ID}/llm/vllm:v0.8.5",
        "args": ["--model", "<model>"],
        "env": [{"name": "HF_TOKEN", "value": "$HF_TOKEN"}],
    }
    ((level, message),) = found([deployment(container)])
    assert level == "advisory"
    assert message.startswith(
        "spec.template.spec.containers[0].image holds ${PROJECT_ID}; spec.template.spec.containers[0].args[1] holds "
        "<model>; spec.template.spec.containers[0].env[0].value holds $HF_TOKEN: an unrendered placeholder"
    )


def test_forms_the_kubelet_kserve_or_a_shell_expand_are_silent():
    # adityonugrohoid/gpu-autoscale-inference k8s/vllm-deployment.yaml at cc7f3ae: `--model $(MODEL_ID)`, MODEL_ID set
    # in env, which the kubelet expands (core/v1 Container.args).
    kubelet = deployment(
        {
            "name": "vllm",
            "image": "vllm/vllm-openai",
            "args": ["--model", "$(MODEL_ID)", "--max-model-len", "4096"],
            "env": [{"name": "MODEL_ID", "value": "Qwen/Qwen2.5-1.5B-Instruct"}],
        }
    )
    # A shell runs the script, and expands $HF_TOKEN itself at run time; LD_LIBRARY_PATH appended as in a shell (ai-on-eks'
    # RayServices, corpus 1) is a literal the kubelet passes on, not a fill-in; a stop string in angle brackets is a token.
    shell = deployment(
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:v0.8.5",
            "command": ["/bin/sh", "-c"],
            "args": ["huggingface-cli login --token $HF_TOKEN && vllm serve ${MODEL:-Qwen/Qwen2.5-7B}"],
            "env": [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64:$LD_LIBRARY_PATH"}],
            "lifecycle": {"preStop": {"exec": {"command": ["sh", "-c", "sleep $DRAIN_SECONDS"]}}},
        }
    )
    stop = copy.deepcopy(kubelet)
    stop["spec"]["template"]["spec"]["containers"][0]["args"] += ["--stop", "<eos>"]
    # rh-ita-ssa-devhub-org/llm-serving serving-runtime.yaml at 99224f5: KServe fills {{.Name}} from the
    # InferenceService; and a prometheus-adapter ConfigMap whose rules rename series with ${1}.
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "my-vllm-runtime"},
        "spec": {
            "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "quay.io/modh/vllm:rhoai-2.16-cuda",
                    "args": ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}"],
                }
            ],
        },
    }
    adapter = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "adapter-config", "namespace": "monitoring"},
        "data": {"config.yaml": 'rules:\n- name: {matches: "^(.*)_total$", as: "${1}_per_second"}\n'},
    }
    # Code another tool evaluates: an EnvoyFilter's Lua comparing values, a ValidatingAdmissionPolicy's CEL.
    lua = {
        "apiVersion": "networking.istio.io/v1alpha3",
        "kind": "EnvoyFilter",
        "metadata": {"name": "limit", "namespace": "llm"},
        "spec": {"configPatches": [{"patch": {"value": {"inline_code": "if a<b and c>d then return $TOKEN end"}}}]},
    }
    cel = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "gpu-limit"},
        "spec": {"validations": [{"expression": "object.spec.replicas<max and YOUR_LIMIT>0"}]},
    }
    assert found([kubelet, shell, stop, runtime, adapter, lua, cel]) == []


def test_a_tag_that_names_itself_a_fill_in_is_named():
    # QuentinHamonic/llm-ops-sandbox k8s/vllm/deployment.yaml at 056b2680104448acb030ae3a2a0ff8a17c91da4f (spent set 37)
    # and kubaeror/ai-model-arena k8s/base/runner-gpu.yaml (spent set 27): the tag is the fill-in.
    for image in ("vllm/vllm-openai:REPLACE_WITH_TESTED_VERSION", "ghcr.io/kubaeror/ai-model-arena-runner:PLACEHOLDER"):
        ((level, message),) = found([deployment({"name": "vllm-openai", "image": image})])
        assert level == "advisory" and message.startswith(f"spec.template.spec.containers[0].image holds {image}:"), image
    # A real tag, capitals and underscores included, stays silent.
    for image in ("vllm/vllm-openai:v0.10.1", "registry.example.com/llm/server:RELEASE_2025_10", "nvcr.io/nim/x:1.0.0"):
        assert found([deployment({"name": "vllm-openai", "image": image})]) == [], image


def _sandbox(image: str, model: str) -> list[dict]:
    # QuentinHamonic/llm-ops-sandbox k8s/vllm/deployment.yaml + configmap.yaml at
    # 056b2680104448acb030ae3a2a0ff8a17c91da4f (spent set 37, cut down): the model comes from the ConfigMap through
    # envFrom and $(VLLM_MODEL), the image's tag is a fill-in.
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "vllm-openai-config"},
        "data": {"VLLM_MODEL": model, "VLLM_PORT": "8000"},
    }
    server = deployment(
        {
            "name": "vllm-openai",
            "image": image,
            "args": ["--model", "$(VLLM_MODEL)", "--port", "$(VLLM_PORT)"],
            "envFrom": [{"configMapRef": {"name": "vllm-openai-config"}}],
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
        }
    )
    return [config, server]


def test_a_fill_in_tag_leaves_the_engine_known_to_the_other_rules():
    # The repository is literal: the server is still vLLM, so S17 reads its model (the set 37 label) and G1 does not
    # take the fill-in for a build label; S27 names the tag.
    objs = _sandbox("vllm/vllm-openai:REPLACE_WITH_TESTED_VERSION", "TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    ((level, message),) = found_by(objs, "model-source-pinned")
    assert level == "advisory" and "TinyLlama/TinyLlama-1.1B-Chat-v1.0" in message
    assert found_by(objs, "image-tag-pinned") == []
    assert [m for _, m in found(objs)] and found(objs)[0][1].startswith("spec.template.spec.containers[0].image holds")


def test_a_fill_in_tag_on_a_pinned_model_stays_silent_but_for_s27():
    # The careful form: the same server with --revision pinned to a commit; only S27 speaks of the tag.
    objs = _sandbox("vllm/vllm-openai:REPLACE_WITH_TESTED_VERSION", "TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    objs[1]["spec"]["template"]["spec"]["containers"][0]["args"] += ["--revision", "fe8a4ea1ffedaf415f4da2f062534de366a451e6"]
    assert found_by(objs, "model-source-pinned") == []
    assert found_by(objs, "image-tag-pinned") == []
