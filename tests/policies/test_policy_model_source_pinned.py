"""S17 model-source-pinned: one compliant fixture, one mutation per case, third-party forms."""

import copy

from policy_fixtures import DEPLOYMENT_TYPE, isvc, isvc_props, messages, resource, set_arg, vllm_container

from policies.models.model_source_pinned import POLICY, hub_model

SHA = "0e9e39f249a16976918f6564b8830bc894c89659"
LABEL = "container kserve-container"
UNPINNED = (
    f"{LABEL}: model meta-llama/Llama-3.1-8B-Instruct comes from the Hugging Face Hub with no revision, so "
    f"each pod serves whatever the repository holds when it starts; pin --revision to a commit SHA"
)


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


def test_no_revision():
    props = isvc_props()
    set_arg(vllm_container(props), "revision", None)
    assert messages(POLICY, isvc(props)) == [UNPINNED]


def test_branch_revision():
    props = isvc_props()
    set_arg(vllm_container(props), "revision", "main")
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: --revision=main names a branch or tag of meta-llama/Llama-3.1-8B-Instruct, which can move; "
        f"pin the 40-character commit SHA"
    ]


def test_branch_revision_allowed_by_config():
    props = isvc_props()
    set_arg(vllm_container(props), "revision", "main")
    assert messages(POLICY, isvc(props), config={"requireCommitSha": False, "trustRemoteCodeModels": []}) == []


def test_trust_remote_code_needs_the_allow_list():
    props = isvc_props()
    vllm_container(props)["args"].append("--trust-remote-code")
    expected = (
        f"{LABEL}: --trust-remote-code imports Python from the repository of meta-llama/Llama-3.1-8B-Instruct "
        f"into the server, and meta-llama/Llama-3.1-8B-Instruct is not in trustRemoteCodeModels; drop the flag "
        f"(architectures the engine supports natively need none) or allow-list the model with a pinned revision"
    )
    assert messages(POLICY, isvc(props)) == [expected]
    allowed = {"trustRemoteCodeModels": ["meta-llama/Llama-3.1-8B-Instruct"], "requireCommitSha": True}
    assert messages(POLICY, isvc(props), config=allowed) == []


def test_model_from_env_reference_is_expanded():
    props = isvc_props()
    container = vllm_container(props)
    container["args"] = ["--model=$(MODEL_ID)"]
    container["env"] = [{"name": "MODEL_ID", "value": "meta-llama/Llama-3.1-8B-Instruct"}]
    assert messages(POLICY, isvc(props)) == [UNPINNED.replace("kserve-container", "kserve-container", 1)]


def test_local_path_needs_no_revision():
    props = isvc_props()
    container = vllm_container(props)
    container["args"] = ["/models/llama", "--served-model-name=chat"]
    assert messages(POLICY, isvc(props)) == []


def sglang_deployment(*args):
    return resource(
        DEPLOYMENT_TYPE,
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "sgl"},
            "spec": {
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "sglang",
                                "image": "lmsysorg/sglang:v0.4.6",
                                "command": ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-32B", *args],
                            }
                        ]
                    }
                }
            },
        },
    )


def test_sglang_form():
    assert messages(POLICY, sglang_deployment("--revision", SHA)) == []
    assert messages(POLICY, sglang_deployment()) == [
        "container sglang: model Qwen/Qwen3-32B comes from the Hugging Face Hub with no revision, so each pod serves "
        "whatever the repository holds when it starts; pin --revision to a commit SHA"
    ]


def test_kserve_hugging_face_server_form():
    props = isvc_props()
    predictor = props["spec"]["predictor"]
    predictor["containers"] = []
    predictor["model"] = {
        "modelFormat": {"name": "huggingface"},
        "storageUri": "hf://meta-llama/Llama-2-7b-chat-hf",
        "args": ["--model_name=llama2"],
    }
    assert messages(POLICY, isvc(props)) == [
        "spec.predictor.model: model meta-llama/Llama-2-7b-chat-hf comes from the Hugging Face Hub with no revision, "
        "so each pod serves whatever the repository holds when it starts; pin --model_revision to a commit SHA"
    ]
    predictor["model"]["args"].append(f"--model_revision={SHA}")
    assert messages(POLICY, isvc(props)) == []


RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "llm"},
    "spec": {
        "serveConfigV2": (
            "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  args:\n"
            "    llm_configs:\n    - model_loading_config: {model_id: q, model_source: Qwen/Qwen2.5-7B-Instruct}\n"
            f"      engine_kwargs: {{revision: {SHA}, max_model_len: 8192}}\n"
        ),
        "rayClusterConfig": {
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-llm:2.52.0-py311-cu128"}]}}
            }
        },
    },
}


def test_ray_serve_llm_form():
    ray_type = "kubernetes:ray.io/v1:RayService"
    assert messages(POLICY, resource(ray_type, copy.deepcopy(RAY_SERVICE))) == []
    props = copy.deepcopy(RAY_SERVICE)
    props["spec"]["serveConfigV2"] = props["spec"]["serveConfigV2"].replace(f"revision: {SHA}, ", "")
    assert messages(POLICY, resource(ray_type, props)) == [
        "serveConfigV2 application llms llm_configs[0]: model Qwen/Qwen2.5-7B-Instruct comes from the Hugging Face "
        "Hub with no revision, so each pod serves whatever the repository holds when it starts; pin "
        "engine_kwargs.revision to a commit SHA"
    ]


def test_hub_model():
    assert hub_model("org/name") == "org/name"
    assert hub_model("hf://org/name:abc") == "org/name"
    assert hub_model("/models/x") is None
    assert hub_model("s3://bucket/models/x") is None
    assert hub_model("$(MODEL_ID)") is None


def _nim_service(env: list[dict]) -> object:
    """The shape of NVIDIA/k8s-nim-operator config/samples/nim/serving/advanced/multi-node/multi-node-nimservice.yaml
    (manifests-v2): a NIM image that serves its own NGC profile, env NIM_TRUST_CUSTOM_CODE."""
    return resource(
        "kubernetes:apps.nvidia.com/v1alpha1:NIMService",
        {
            "apiVersion": "apps.nvidia.com/v1alpha1",
            "kind": "NIMService",
            "metadata": {"name": "deepseek-r1"},
            "spec": {
                "image": {"repository": "nvcr.io/nim/deepseek-ai/deepseek-r1", "tag": "1.7.2"},
                "env": env,
                "resources": {"limits": {"nvidia.com/gpu": 8}},
            },
        },
    )


def test_a_nim_that_trusts_its_own_models_code_is_advised():
    """The NIM's own model has no revision to pin (the image tag pins the profile), but NIM_TRUST_CUSTOM_CODE still runs
    the model's code with no allow-list: reported, advisory (the code is pinned with the image)."""
    from policies.registry import evaluate

    found = evaluate([_nim_service([{"name": "NIM_TRUST_CUSTOM_CODE", "value": "1"}])], policies=[POLICY])
    assert [(v.enforcement, v.message.split(" imports")[0]) for v in found] == [
        ("advisory", "spec.env: env NIM_TRUST_CUSTOM_CODE")
    ]
    assert "deepseek-ai/deepseek-r1 is not in trustRemoteCodeModels" in found[0].message
    careful = _nim_service([{"name": "NIM_LOG_LEVEL", "value": "INFO"}])
    assert evaluate([careful], policies=[POLICY]) == []
    allowed = {POLICY.name: {"trustRemoteCodeModels": ["deepseek-ai/deepseek-r1"]}}
    assert evaluate([_nim_service([{"name": "NIM_TRUST_CUSTOM_CODE", "value": "1"}])], allowed, policies=[POLICY]) == []
