"""G46 container-can-start: what the kubelet and the runtime refuse although the API server stores the template."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from policies.reading.image_reference import image_reference_error

POLICY = "container-can-start"


def _deployment(container: dict, name: str = "vllm") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _phenixforge() -> dict:
    # Minimal form of PhenixForge/vllm-serving-kubernetes-platform kubernetes-eks/deployment.yaml@4f4be0455dd27441f40856aac72f390a7c0362ce
    # (spent set 12): `image: <ECR_REPO_URI>:latest`, a placeholder its own comment says to replace.
    return _deployment(
        {
            "name": "vllm",
            "image": "<ECR_REPO_URI>:latest",
            "args": ["--model", "TheBloke/Mistral-7B-Instruct-v0.1-AWQ", "--quantization", "awq"],
            "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "16Gi"}, "requests": {"memory": "16Gi"}},
        },
        name="vllm-server",
    )


def _spangreen_vllm() -> dict:
    # Minimal form of spangreen/K8s-Ollama-Setup manifests/vllm-deployment.yaml@7373feb524420908e908f9fefa9fd5372fd72558
    # (spent set 12; the file itself also fails YAML parsing at line 52, read here with its indentation fixed):
    # command ["bin/sh", "-c"] with "vllm server $(VLLM_MODEL) $(VLLM_ARGS)", memory limit "64" and request "32".
    return _deployment(
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:latest",
            "command": ["bin/sh", "-c"],
            "args": ["vllm server $(VLLM_MODEL) $(VLLM_ARGS)"],
            "resources": {
                "limits": {"cpu": "16", "memory": "64", "nvidia.com/gpu": 1},
                "requests": {"cpu": "2", "memory": "32", "nvidia.com/gpu": 1},
            },
        }
    )


def test_placeholder_image_is_advice():
    # A fill-in S27 names (<ECR_REPO_URI>) does not parse, but the file says it is edited before it is applied: the
    # manifest does not prove a deploy that fails, so it is advice (labellers filed it blocking on sets 12 and 21,
    # S27 advisory on set 16; precision first).
    assert found_by([_phenixforge()], POLICY) == [
        (
            "advisory",
            "container vllm: image '<ECR_REPO_URI>:latest' is not a valid image reference (invalid reference format): "
            "the placeholder <ECR_REPO_URI> must be replaced before the file is applied, or the kubelet cannot parse it "
            "and the container waits with InvalidImageName and never starts",
        )
    ]


@pytest.mark.parametrize(
    "image",
    [
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-serving:latest",
        "vllm/vllm-openai:v0.6.3",
        "nvcr.io/nim/meta/llama3-8b-instruct:1.0.0",
        "localhost:5000/team/app",
        "Registry.Example.com/app:1",
        "ubuntu@sha256:" + "a" * 64,
    ],
)
def test_the_real_image_passes(image):
    # The careful form: the same Deployment with the ECR URI filled in (or any reference the grammar accepts).
    obj = _phenixforge()
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = image
    assert found_by([obj], POLICY) == []


@pytest.mark.parametrize(
    ("image", "why"),
    [
        ("${IMAGE}:v1", "invalid reference format"),
        ("REPLACE_ME", "repository name (REPLACE_ME) must be lowercase"),
        ("ghcr.io/MyOrg/app:1", "repository name (MyOrg/app) must be lowercase"),
        ("vllm/vllm-openai :latest", "invalid reference format"),
        ("a" * 64, "a bare 64-hex identifier is not a repository name"),
    ],
)
def test_reference_grammar(image, why):
    assert image_reference_error(image) == why


def test_relative_command_unit_less_memory_and_unknown_subcommand_block():
    found = found_by([_spangreen_vllm()], POLICY)
    assert [level for level, _ in found] == ["mandatory", "mandatory", "mandatory"]
    texts = sorted(message for _, message in found)
    assert texts[1] == (
        "container vllm: command 'bin/sh' is a relative path; the runtime resolves it from the working directory "
        "(/vllm-workspace), not from PATH, so it looks for /vllm-workspace/bin/sh, which no image holds: the container "
        "exits at once; write /bin/sh"
    )
    assert texts[2].startswith("container vllm: resources.limits.memory is 64 bytes (a bare number is bytes, not Gi)")
    assert texts[0].startswith("container vllm: `vllm server` is not a command of vLLM's CLI")


def test_careful_form_of_the_same_container_passes():
    obj = _spangreen_vllm()
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = ["vllm serve $(VLLM_MODEL) $(VLLM_ARGS)"]
    container["resources"]["limits"]["memory"] = "64Gi"
    container["resources"]["requests"]["memory"] = "32Gi"
    assert found_by([obj], POLICY) == []


def test_relative_command_with_unknown_workdir_is_advice_and_relative_scripts_pass():
    obj = _spangreen_vllm()
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container["image"] = "python:3.12-slim"  # WORKDIR not known here: / would make bin/sh work
    container["args"] = ["python app.py"]
    container["resources"] = {}
    assert found_by([obj], POLICY)[0][0] == "advisory"
    container["command"] = ["./start.sh"]
    assert found_by([obj], POLICY) == []
    container["command"] = ["scripts/run.sh"]
    container["workingDir"] = "/app"
    assert found_by([obj], POLICY) == []


# The reviewer's /tmp/review/g46/rel.yaml: runc chdirs to the working directory, then exec.LookPath(args[0]) resolves a
# name with a slash from there (opencontainers/runc v1.2.9 libcontainer/standard_init_linux.go:191,208), so
# bin/start.sh under workingDir /app runs /app/bin/start.sh, the image's own file; bin/sh from / is /bin/sh.
@pytest.mark.parametrize(
    "command,workdir",
    [
        (["bin/start.sh"], "/app"),
        (["bin/my_app", "eval", "Run.main()"], "/app"),
        (["bin/python", "serve.py"], "/opt/venv"),
        (["bin/sh", "-c", "echo"], "/"),
    ],
)
def test_an_applications_own_bin_or_a_root_workdir_is_silent(command, workdir):
    obj = _spangreen_vllm()
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container.update({"image": "registry.example.com/app:1.0", "command": command, "args": [], "workingDir": workdir})
    container["resources"] = {}
    assert found_by([obj], POLICY) == []


@pytest.mark.parametrize("first", ["bin/bash", "usr/bin/env", "usr/bin/python3"])
def test_a_relative_shell_under_an_explicit_workdir_blocks(first):
    obj = _spangreen_vllm()
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container.update({"image": "registry.example.com/app:1.0", "command": [first, "-c", "x"], "args": [], "workingDir": "/app"})
    container["resources"] = {}
    assert [level for level, _ in found_by([obj], POLICY)] == ["mandatory"]


def test_small_request_alone_is_advice():
    obj = _spangreen_vllm()
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = ["vllm serve m"]
    container["resources"] = {"requests": {"memory": "32"}, "limits": {"memory": "0"}}
    found = found_by([obj], POLICY)
    assert [level for level, _ in found] == ["advisory"]
    assert "resources.requests.memory is 32 bytes" in found[0][1]
    container["resources"] = {"requests": {"memory": "64Mi"}, "limits": {"memory": "8Mi"}}
    assert found_by([obj], POLICY) == []


def _spangreen_qwen() -> dict:
    # Minimal form of spangreen/K8s-Ollama-Setup manifests/qwen25-coder-7b.yaml@0b5833e59cc1926caa3f993563bc005264ae353a
    # (spent set 12): `vllm serve vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-Coder-7B ...` in sh -c; vLLM
    # v0.33.0 vllm/entrypoints/cli/serve.py:55-57 sets args.model = args.model_tag.
    return _deployment(
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:latest",
            "command": ["/bin/sh", "-c"],
            "args": [
                "vllm serve vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2 "
                "--max-model-len 8192 --dtype float16 --gpu-memory-utilization 0.85 --trust-remote-code\n"
            ],
            "resources": {"limits": {"nvidia.com/gpu": 2}},
        },
        name="qwen25-coder-7b",
    )


def test_module_as_model_tag_is_left_to_s38():
    # S38 engine-options-exist reports `vllm serve vllm.entrypoints.openai.api_server --model ...` (the positional
    # the line fails at every release); G46 does not report the same problem twice.
    assert found_by([_spangreen_qwen()], POLICY) == []
    assert [level for level, _ in found_by([_spangreen_qwen()], "engine-options-exist")] == ["mandatory"]


@pytest.mark.parametrize(
    "script",
    [
        "vllm serve --model Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2",
        "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-Coder-7B",
        "pip install x && exec vllm serve Qwen/Qwen2.5-Coder-7B",
        "vllm --version; vllm serve Qwen/Qwen2.5-Coder-7B",
        "vllm bench serve --model Qwen/Qwen2.5-Coder-7B",
        "ls /opt/vllm server",
    ],
)
def test_real_vllm_commands_pass(script):
    obj = _spangreen_qwen()
    obj["spec"]["template"]["spec"]["containers"][0]["args"] = [script]
    assert found_by([obj], POLICY) == []


def test_init_containers_are_read():
    obj = _phenixforge()
    spec = obj["spec"]["template"]["spec"]
    spec["initContainers"] = [copy.deepcopy(spec["containers"][0]) | {"name": "fetch", "image": "amazon/aws-cli"}]
    spec["initContainers"][0]["image"] = "amazon/AWS-CLI:2"
    spec["containers"][0]["image"] = "vllm/vllm-openai:v0.6.3"
    assert found_by([obj], POLICY) == [
        (
            "mandatory",
            "container fetch: image 'amazon/AWS-CLI:2' is not a valid image reference (repository name (amazon/AWS-CLI) "
            "must be lowercase); the kubelet cannot parse it, so the container waits with InvalidImageName and never "
            "starts; replace it with a registry/repository:tag",
        )
    ]


def test_an_image_variable_is_advice():
    # awslabs/data-on-eks data-stacks/ray-on-eks/examples/ray-batch-inference/03-rayservice-deepseek-r1-8b.yaml (the
    # corpus): image $ECR_REGISTRY/ray-llm:$RAY_LLM_TAG, applied by the folder's script as `render FILE | kubectl
    # apply -f -` (envsubst), so the unrendered file is not what runs.
    # kserve/kserve config/llmisvc/manager.yaml (the code index's stored version aaac4e29): image
    # ko://github.com/kserve/kserve/cmd/llmisvc, which `ko resolve` replaces with the image it builds.
    for image in ("$ECR_REGISTRY/ray-llm:$RAY_LLM_TAG", "ko://github.com/kserve/kserve/cmd/llmisvc"):
        obj = _phenixforge()
        obj["spec"]["template"]["spec"]["containers"][0]["image"] = image
        found = found_by([obj], POLICY)
        assert [level for level, _ in found] == ["advisory"]
        assert "holds a variable (invalid reference format as written)" in found[0][1]


# llm-on-gke/triton-vllm-gke vllm-gke-deploy.yaml@0d1338a8eea903ad896180f376b6ef7e737c8fc4 (spent set 16, labelled
# G46 blocking): nvcr.io/nvidia/tritonserver:24.01-vllm-python-py3 (Triton 2.42.0) given the bare word
# "model_name=google/gemma-7b" among its options; tritonserver's parser refuses any word getopt_long leaves over
# (triton-inference-server/server v2.42.0 src/command_line_parser.cc:1706-1708, src/main.cc:430-435: exit 1).
_TRITON_ARGS = [
    "tritonserver",
    "--model-store=gs://triton-inference-llm-repos/model_repository",
    "--strict-model-config=False",
    "model_name=google/gemma-7b",
    "--log-verbose=1",
]


def _triton(args: list[str], command: list[str] | None = None) -> dict:
    container = {"name": "triton-inference-server", "image": "nvcr.io/nvidia/tritonserver:24.01-vllm-python-py3", "args": args}
    if command is not None:
        container["command"] = command
    container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    return _deployment(container, name="triton-inference-server")


def test_a_bare_word_given_to_tritonserver_blocks():
    ((level, message),) = found_by([_triton(_TRITON_ARGS)], POLICY)
    assert level == "mandatory"
    assert "bare argument 'model_name=google/gemma-7b'" in message and "Unexpected argument" in message
    # The same line in a shell script.
    script = ["/bin/sh", "-c"]
    ((level, _),) = found_by([_triton([" ".join(_TRITON_ARGS) + " 2>&1 | tee /tmp/log"], script)], POLICY)
    assert level == "mandatory"


@pytest.mark.parametrize(
    "args",
    [
        # The model named as an option.
        ["tritonserver", "--model-store=gs://b/repo", "--load-model=gemma-7b", "--model-control-mode=explicit"],
        # Options written with a separate value, and one that takes none.
        ["tritonserver", "--model-repository", "/models", "--disable-auto-complete-config", "--log-verbose", "1"],
        # A word holding a variable the shell fills in is not judged.
        ["tritonserver", "--model-repository=/models", "$EXTRA_ARGS"],
    ],
)
def test_tritonserver_options_only_stay_silent(args):
    assert found_by([_triton(args)], POLICY) == []
    # A shell script that redirects and goes on.
    script = " ".join(args) + " > /tmp/triton.log 2>&1 && echo done"
    assert found_by([_triton([script], ["/bin/sh", "-c"])], POLICY) == []


@pytest.mark.parametrize(
    "tail",
    [" 2>&1 | tee /tmp/log", " 2>/tmp/err", " 1>>/tmp/out 2>&1", " 2>&1; sleep 1", " &>/tmp/log", " 0</dev/null &"],
)
def test_tritonserver_redirections_in_a_shell_stay_silent(tail):
    # Review 28 #19 (/tmp/review/triton/t.yaml, Deployment t4): the digits of `2>&1` belong to the redirection
    # (POSIX Shell Command Language 2.7, `[n]redir-op word`), so tritonserver never sees a bare "2".
    line = (
        "tritonserver --model-repository=/models --backend-config=python,shm-default-byte-size=16777216"
        " --grpc-infer-allocation-pool-size=16" + tail
    )
    assert found_by([_triton([line], ["/bin/sh", "-c"])], POLICY) == []
    # A blank before the operator leaves the number an argument the shell passes on.
    ((level, message),) = found_by([_triton(["tritonserver --model-repository=/models 2 >/tmp/log"], ["/bin/sh", "-c"])], POLICY)
    assert level == "mandatory" and "bare argument '2'" in message


def _ai_cloud_tech(key: str) -> dict:
    # Minimal form of AI-Cloud-Tech-Inc/Autonomous-Agentic-Spiritual-AI k8s/vllm-deployment.yaml@5a48428b0c8f84cd35efb82e9ef5588676d6379b
    # (spent set 35): vLLM's options written as `command`, which replaces the image's ENTRYPOINT.
    return _deployment(
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:latest",
            key: ["--model", "mistralai/Mistral-7B-Instruct-v0.1", "--host", "0.0.0.0", "--port", "8000"],
            "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "32Gi"}, "requests": {"memory": "16Gi"}},
        },
        name="vllm-deployment",
    )


def test_options_written_as_command_block():
    ((level, message),) = found_by([_ai_cloud_tech("command")], POLICY)
    assert level == "mandatory"
    assert "command begins with the option '--model'" in message and "executable file not found" in message
    # The careful form: the same words as args, after the image's entrypoint.
    assert found_by([_ai_cloud_tech("args")], POLICY) == []


def _nbethala(image: str, args: list[str]) -> dict:
    # Minimal form of nbethala/triton-mlops-gpu-platform k8s/triton-deployment.yaml@bf014c4af02650b501ce89551e8a9f98a988b6bb
    # (spent set 35): args ["tritonserver", ...] to an ECR image the repository builds with ENTRYPOINT ["tritonserver"]
    # (its services/triton/Dockerfile, not among the files checked).
    container = {"name": "triton", "image": image, "args": args, "ports": [{"containerPort": 8000}]}
    return _deployment(container, name="triton")


def test_an_engine_command_repeated_after_its_entrypoint():
    args = ["tritonserver", "--model-repository=/models"]
    # A rebuild named after the engine: its ENTRYPOINT is not in the files, so advice.
    ((level, message),) = found_by([_nbethala("478253497479.dkr.ecr.us-east-1.amazonaws.com/triton:latest", args)], POLICY)
    assert level == "advisory" and "`tritonserver tritonserver ...`" in message
    # The publisher's image: nvidia_entrypoint.sh runs its args as a command, so the same args are right.
    assert found_by([_nbethala("nvcr.io/nvidia/tritonserver:24.01-py3", args)], POLICY) == []
    # An image named after nothing the table knows is not judged.
    assert found_by([_nbethala("registry.example.com/inference:1.0", args)], POLICY) == []


@pytest.mark.parametrize(
    ("image", "args", "repeated"),
    [
        ("vllm/vllm-openai:v0.10.1", ["vllm", "serve", "Qwen/Qwen2.5-0.5B-Instruct"], "vllm serve"),
        ("vllm/vllm-openai:v0.6.3", ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m/m"], "python3 -m"),
        ("ollama/ollama:0.5.4", ["ollama", "serve"], "ollama serve"),
    ],
)
def test_the_publishers_entrypoint_given_its_own_command_blocks(image, args, repeated):
    container = {"name": "server", "image": image, "args": args, "resources": {"limits": {"nvidia.com/gpu": 1}}}
    ((level, message),) = found_by([_deployment(container)], POLICY)
    assert level == "mandatory" and f"args begin with '{repeated}" in message
    # The careful form: only the options after the entrypoint (Ollama's CMD serve left to the image).
    container["args"] = args[3:] if args[0].startswith("python") else args[2:]
    assert found_by([_deployment(container)], POLICY) == []


@pytest.mark.parametrize(
    ("image", "level"),
    [
        # The publisher's repository behind a registry or mirror path is still the publisher's image.
        ("docker.io/vllm/vllm-openai:v0.10.1", "mandatory"),
        ("harbor.corp/dockerhub-proxy/vllm/vllm-openai:v0.10.1", "mandatory"),
        # vLLM's CPU image sets the same ENTRYPOINT (docker/Dockerfile.cpu release stage); for its ROCm image the
        # Dockerfile.rocm read sets none (CMD ["/bin/bash"]), so which releases do is not settled: advice.
        ("vllm/vllm-openai-cpu:v0.19.1-arm64", "mandatory"),
        ("vllm/vllm-openai-rocm:latest", "advisory"),
        # A path that merely contains it is a rebuild, whose ENTRYPOINT the files do not show: advice (review 43 #17).
        ("harbor.corp/vllm/vllm-openai-patched:v1", "advisory"),
        ("ghcr.io/acme/myvllm/vllm-openai-cu128:0.1", "advisory"),
    ],
)
def test_the_publishers_image_is_its_repository_not_a_substring(image, level):
    container = {"name": "server", "image": image, "args": ["vllm", "serve", "m/m"]}
    ((found_level, message),) = found_by([_deployment(container)], POLICY)
    assert found_level == level and "args begin with 'vllm serve'" in message


def _hf_runtime(image: str) -> dict:
    # sereno4/LLM-Pipeline-Platform- kserve/servingruntime.yaml (spent set 44, labelled G46 blocking): a ServingRuntime
    # on kserve/huggingfaceserver:v0.11.1. kserve/kserve first builds that image at v0.12.0
    # (.github/workflows/huggingface-docker-publish.yml:16, absent at v0.11.2).
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "huggingface-cpu-runtime", "namespace": "kserve"},
        "spec": {
            "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
            "containers": [{"name": "kserve-container", "image": image, "args": ["--model_dir=/mnt/models"]}],
        },
    }


def test_an_image_tag_older_than_its_first_build():
    found = [m for _, m in found_by([_hf_runtime("kserve/huggingfaceserver:v0.11.1")], POLICY)]
    assert len(found) == 1 and "was never built" in found[0] and "v0.12" in found[0]
    # Same class, another image of the table: KServe's llmisvc controller, first built at v0.16.0.
    controller = _deployment({"name": "manager", "image": "docker.io/kserve/llmisvc-controller:v0.15.2"}, name="llmisvc")
    ((level, message),) = found_by([controller], POLICY)
    assert level == "mandatory" and "first built kserve/llmisvc-controller at v0.16" in message
    # Behind another registry a private build of that tag may exist: advice.
    mirrored = _deployment({"name": "manager", "image": "harbor.corp/kserve/llmisvc-controller:v0.15.2"}, name="llmisvc")
    assert [lv for lv, _ in found_by([mirrored], POLICY)] == ["advisory"]


def test_tags_from_the_first_build_on_stay_silent():
    for image in (
        "kserve/huggingfaceserver:v0.12.0",
        "kserve/huggingfaceserver:v0.16.0-gpu",
        "kserve/huggingfaceserver:latest",
        "kserve/sklearnserver:v0.11.1",
        "acme/huggingfaceserver:v0.1.0",
    ):
        assert found_by([_hf_runtime(image)], POLICY) == [], image


def _open_webui(args: list, image: str = "ghcr.io/open-webui/open-webui:main") -> dict:
    # Minimal form of silavsale/ollama-open-webui-docker k8s/open-webui.yaml@a9ecd108f5ff9cafa6bec5a27e679137c64612c6
    # (spent set 81): args ['--models-path=/root/.ollama/models'] and no command on the open-webui image, which sets no
    # ENTRYPOINT (CMD ["bash", "start.sh"]: components/image_contents.toml, open-webui/open-webui Dockerfile @00a89829).
    return _deployment({"name": "open-webui", "image": image, "args": args}, name="open-webui")


def test_option_args_on_an_image_without_entrypoint_is_found():
    found = found_by([_open_webui(["--models-path=/root/.ollama/models"])], POLICY)
    assert [e for e, _ in found] == ["advisory"]  # tag main: no release the row read
    assert "sets no ENTRYPOINT (its CMD is `bash start.sh`" in found[0][1]
    assert "'--models-path=/root/.ollama/models'" in found[0][1]


def test_python_image_given_options_only_blocks_at_a_release():
    # docker-library/python sets no ENTRYPOINT (CMD ["python3"], Dockerfile-linux.template@90e9ca41 L341).
    obj = _deployment({"name": "app", "image": "python:3.11-slim", "args": ["-m", "http.server", "8000"]}, name="app")
    found = found_by([obj], POLICY)
    assert [e for e, _ in found] == ["mandatory"]
    assert "its CMD is `python3`" in found[0][1]


def test_the_careful_cmd_only_forms_stay_silent():
    # The command given before the options (args replace CMD with a whole command line), a command set, and an image
    # that is only named like an official one (acme/python may set its own ENTRYPOINT): silent.
    assert found_by([_open_webui(["bash", "start.sh", "--models-path=/m"])], POLICY) == []
    obj = _open_webui(["--models-path=/m"])
    obj["spec"]["template"]["spec"]["containers"][0]["command"] = ["bash", "start.sh"]
    assert found_by([obj], POLICY) == []
    mine = _deployment({"name": "app", "image": "ghcr.io/acme/python:1.0", "args": ["--port", "8000"]}, name="app")
    assert found_by([mine], POLICY) == []


def _custom_predictor(container: dict) -> dict:
    # Minimal form of bhajian/fine-tuning-workshop openshift/inference_service.yaml@593d2f622dbcddf29afe1ebc25cdaa6a53da4941
    # (spent set 82): a KServe
    # InferenceService's own predictor container with args only (--model_name ..., --adapter_dir ...) on a custom image
    # whose Dockerfile.vllm starts the server from CMD.
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "nemotron-phishing"},
        "spec": {"predictor": {"containers": [container]}},
    }


def test_custom_predictor_given_options_only_is_advice():
    obj = _custom_predictor(
        {"name": "predictor", "image": "quay.io/acme/nemotron-serve:1.0", "args": ["--model_name", "m", "--adapter_dir", "/a"]}
    )
    found = found_by([obj], POLICY)
    assert [e for e, _ in found] == ["advisory"]
    assert "args replace the image's CMD" in found[0][1]


def test_custom_predictor_with_a_command_or_an_engine_image_stays_silent():
    with_command = {
        "name": "p",
        "image": "quay.io/acme/serve:1.0",
        "command": ["python3", "serve.py"],
        "args": ["--port", "8080"],
    }
    assert found_by([_custom_predictor(with_command)], POLICY) == []
    vllm = {"name": "p", "image": "vllm/vllm-openai:v0.10.2", "args": ["--model", "m"]}
    assert found_by([_custom_predictor(vllm)], POLICY) == []
    # KServe's own runtime images take options from their ENTRYPOINT (kserve v0.20.0 config/runtimes/
    # kserve-huggingfaceserver.yaml:21-23 runs args --model_name={{.Name}} and no command).
    hf = {"name": "p", "image": "kserve/huggingfaceserver:v0.15.0", "args": ["--model_name=m", "--model_id=org/m"]}
    assert found_by([_custom_predictor(hf)], POLICY) == []


def _downloader(script: str, image: str = "python:3.11-slim", uid: object = 1000, env: list | None = None) -> dict:
    # Minimal form of sicknosn/Proyecto2_LLM_Autoscalable_Kubernetes k8s/deployment-vllm.yaml (spent set 69, labelled
    # NONE blocking): the pod's runAsUser 1000 and an init container on python:3.11-slim that pip-installs first.
    obj = _deployment({"name": "vllm", "image": "vllm/vllm-openai:v0.10.2", "args": ["--model", "/models/m"]})
    spec = obj["spec"]["template"]["spec"]
    spec["securityContext"] = {"runAsNonRoot": True, "runAsUser": uid}
    init = {"name": "model-downloader", "image": image, "command": ["sh", "-c", script]}
    if env is not None:
        init["env"] = env
    spec["initContainers"] = [init]
    return obj


_PIP_SCRIPT = 'pip install -q huggingface_hub &&\npython -c "\nfrom huggingface_hub import snapshot_download\n"\n'


def test_a_pip_install_as_a_non_root_user_on_the_python_image_blocks():
    found = [f for f in found_by([_downloader(_PIP_SCRIPT)], POLICY) if "pip install" in f[1]]
    assert [e for e, _ in found] == ["mandatory"]
    assert "runc sets HOME=/" in found[0][1] and "/.local" in found[0][1]
    # A later statement decides the script, or the tag names no release: advice.
    later = "pip install -q huggingface_hub\necho done\nsleep 1\n"
    assert [e for e, m in found_by([_downloader(later)], POLICY) if "pip install" in m] == ["advisory"]
    assert [e for e, m in found_by([_downloader(_PIP_SCRIPT, image="python:latest")], POLICY) if "pip install" in m] == [
        "advisory"
    ]


def test_careful_pip_installs_stay_silent():
    for obj in (
        _downloader(_PIP_SCRIPT, uid=0),
        _downloader(_PIP_SCRIPT, env=[{"name": "HOME", "value": "/tmp"}]),
        _downloader("pip install --target /models/lib huggingface_hub && python -c 'print(1)'"),
        _downloader("python -m venv /tmp/v && /tmp/v/bin/pip install huggingface_hub"),
        _downloader("pip install huggingface_hub || true"),
        _downloader(_PIP_SCRIPT, image="ghcr.io/acme/python:1.0"),
    ):
        assert not [m for _, m in found_by([obj], POLICY) if "pip install" in m]
