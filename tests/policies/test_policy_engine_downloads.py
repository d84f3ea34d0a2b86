"""S19 and S29 read where each engine puts a downloaded model from the engine table (components/serving_engines.toml
[engines.NAME.downloads]), and the engines recognised by their own environment variables (llama.cpp's LLAMA_ARG_*).

Each fixture is a minimal hand-written form of a real third-party manifest (never the whole file), named with its
repository, path and commit; each has a careful form that must stay silent:

- TGI: huggingface/Google-Cloud-Containers examples/gke/tgi-llama-405b-deployment/config/deployment.yaml at
  8d6aa78b23eb54fdf6bcb8cc1ce26ba7e593fdd9 (Google's TGI image, MODEL_ID from the Hub, only /tmp an emptyDir);
- Ollama: ollama/ollama examples/kubernetes/gpu.yaml at d1a9a338b1b1941e723abe5f7da5bfbdf0464705 (no volume at all);
- llama.cpp through LLAMA_ARG_*: nebius/ml-cookbook knative-llamacpp/llamacpp.yml at
  83f160fe3f6ce3c70f84927b38dd72e20a6a4b85 (a custom image; LLAMA_ARG_MODEL a local .gguf path);
- LMDeploy: InternLM/lmdeploy k8s/deployment.yaml at v0.16.0 (the careful form: the HF cache on a hostPath).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from components.serving_engines import TABLE, EngineTableError, load_engines
from policies.framework import Resource, Unproven
from policies.gpu import ephemeral_storage
from policies.models import model_cache_fits_checkpoint
from policies.reading.engines import table_servers
from policies.reading.serving import model_server_engine, use_engine_table
from policies.registry import evaluate
from policies.timeouts import termination_drains_streams
from tests.policies.test_policy_engine_table import NEW_ROW


def deployment(container: dict, volumes: list | None = None, kind: str = "Deployment") -> Resource:
    spec = {"containers": [container], "volumes": volumes or []}
    if kind == "Pod":
        props = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "llm"}, "spec": spec}
        return Resource(type="kubernetes:core/v1:Pod", name="llm", props=props)
    props = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm", "namespace": "llm"},
        "spec": {"template": {"spec": spec}},
    }
    return Resource(type="kubernetes:apps/v1:Deployment", name="llm", props=props)


def s19(resource: Resource) -> list[str]:
    return ephemeral_storage.POLICY.check_resource(resource, ephemeral_storage.POLICY.defaults())


# huggingface/Google-Cloud-Containers 8d6aa78b examples/gke/tgi-llama-405b-deployment/config/deployment.yaml (reduced).
TGI_405B = {
    "name": "tgi-container",
    "image": "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-generation-inference-cu121.2-2.ubuntu2204:latest",
    "resources": {"requests": {"nvidia.com/gpu": 8}},
    "env": [
        {"name": "MODEL_ID", "value": "meta-llama/Llama-3.1-405B-Instruct-FP8"},
        {"name": "NUM_SHARD", "value": "8"},
    ],
    "volumeMounts": [{"mountPath": "/dev/shm", "name": "dshm"}, {"mountPath": "/tmp", "name": "tmp"}],
}
TGI_VOLUMES = [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}, {"name": "tmp", "emptyDir": {}}]


def test_tgi_downloads_into_its_images_cache_on_the_nodes_disk():
    # TGI v3.3.7 Dockerfile L147 HF_HOME=/data (the cache /data/hub); Google's TGI image HUGGINGFACE_HUB_CACHE=/tmp.
    (message,) = s19(deployment(TGI_405B, TGI_VOLUMES))
    assert message.startswith(
        "container tgi-container: downloads meta-llama/Llama-3.1-405B-Instruct-FP8 from the Hugging Face Hub into "
        "/data/hub or /tmp on the node's ephemeral storage but requests no ephemeral-storage"
    )
    # Careful forms: the request; or both folders off the node's disk; or a local model.
    careful = copy.deepcopy(TGI_405B)
    careful["resources"]["requests"]["ephemeral-storage"] = "900Gi"
    assert s19(deployment(careful, TGI_VOLUMES)) == []
    on_pvc = copy.deepcopy(TGI_405B)
    on_pvc["volumeMounts"].append({"mountPath": "/data", "name": "cache"})
    volumes = [TGI_VOLUMES[0], {"name": "tmp", "persistentVolumeClaim": {"claimName": "tmp"}}]
    volumes.append({"name": "cache", "persistentVolumeClaim": {"claimName": "cache"}})
    assert s19(deployment(on_pvc, volumes)) == []
    # Only /data on a PVC: the official image would use it, Google's would use /tmp; the manifest alone does not
    # prove where the download lands, so nothing is blocked.
    assert s19(deployment(on_pvc, [TGI_VOLUMES[0], TGI_VOLUMES[1], volumes[2]])) == []
    local = copy.deepcopy(TGI_405B)
    local["env"][0]["value"] = "/data/models/llama-405b"
    assert s19(deployment(local, TGI_VOLUMES)) == []


def test_an_emptydir_with_a_size_limit_is_bounded_and_judged_by_s29_instead():
    bounded = [TGI_VOLUMES[0], {"name": "tmp", "emptyDir": {"sizeLimit": "100Gi"}}]
    container = copy.deepcopy(TGI_405B)
    container["env"] = [{"name": "MODEL_ID", "value": "deepseek-ai/DeepSeek-V3"}, {"name": "HF_HUB_CACHE", "value": "/tmp"}]
    resource = deployment(container, bounded)
    # Bounded, but the scheduler counts only requests: S19 advises until the pod requests the sizeLimit (session 48).
    (advice,) = s19(resource)
    assert isinstance(advice, Unproven) and "an emptyDir with sizeLimit 100Gi on the node's disk" in advice
    requested = copy.deepcopy(container)
    requested["resources"]["requests"]["ephemeral-storage"] = "100Gi"
    assert s19(deployment(requested, bounded)) == []
    (message,) = model_cache_fits_checkpoint.POLICY.check_resource(resource, {})
    assert message.startswith("container tgi-container: emptyDir tmp (sizeLimit) at /tmp holds 100 GiB, but the checkpoint")
    # Without the variable, TGI's cache may be /data/hub (the official image): not on that emptyDir, nothing to judge.
    container["env"] = container["env"][:1]
    assert model_cache_fits_checkpoint.POLICY.check_resource(deployment(container, bounded), {}) == []


# ollama/ollama d1a9a338 examples/kubernetes/gpu.yaml (reduced).
OLLAMA = {
    "name": "ollama",
    "image": "ollama/ollama:latest",
    "ports": [{"name": "http", "containerPort": 11434}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


def test_ollama_pulls_into_root_ollama_and_stops_at_once_on_sigterm():
    assert model_server_engine(OLLAMA) == "ollama"
    (message,) = s19(deployment(OLLAMA))
    assert message.startswith(
        "container ollama: downloads its model from the Ollama library (pulled at run time) into /root/.ollama/models"
    )
    # ollama v0.32.15 server/routes.go L2026: SIGTERM closes every connection (drain "aborts").
    drains = termination_drains_streams.POLICY.check_resource(deployment(OLLAMA), termination_drains_streams.POLICY.defaults())
    assert any("on SIGTERM Ollama stops at once and its in-flight requests fail" in m for m in drains), drains
    careful = dict(OLLAMA, volumeMounts=[{"name": "models", "mountPath": "/root/.ollama"}])
    assert s19(deployment(careful, [{"name": "models", "persistentVolumeClaim": {"claimName": "ollama"}}])) == []
    moved = dict(careful, env=[{"name": "OLLAMA_MODELS", "value": "/models"}])
    assert len(s19(deployment(moved, [{"name": "models", "persistentVolumeClaim": {"claimName": "ollama"}}]))) == 1
    # A variable from a ConfigMap may move the store anywhere: not judged.
    hidden = dict(OLLAMA, env=[{"name": "OLLAMA_MODELS", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}])
    assert s19(deployment(hidden)) == []


# nebius/ml-cookbook 83f160fe knative-llamacpp/llamacpp.yml (reduced): llama.cpp configured through LLAMA_ARG_*.
LLAMACPP_ENV = {
    "name": "l3test",
    "image": "ghcr.io/brianlechthaler/ml-cookbook-knative-testing/knative-llamacpp:main",
    "env": [
        {"name": "LLAMA_ARG_CTX_SIZE", "value": "131072"},
        {"name": "LLAMA_ARG_MODEL", "value": "/mnt/models/l3.1-8B-F16.gguf"},
        {"name": "LLAMA_ARG_PORT", "value": "8080"},
        {"name": "LLAMA_ARG_N_GPU_LAYERS", "value": "100"},
    ],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


def test_llama_cpp_is_recognised_by_its_env_prefix_and_reads_it_as_flags():
    assert model_server_engine(LLAMACPP_ENV) == "llama-cpp"
    assert model_server_engine(dict(LLAMACPP_ENV, env=[])) is None  # the image alone names no engine
    (server,) = table_servers(deployment(LLAMACPP_ENV, kind="Pod"))
    assert server.model == "/mnt/models/l3.1-8B-F16.gguf"
    assert server.args["max-model-len"] == "131072" and server.args["gpu-layers"] == "100"
    # A flag on the command line wins over its variable.
    flagged = dict(LLAMACPP_ENV, args=["--ctx-size", "8192"])
    assert table_servers(deployment(flagged))[0].args["max-model-len"] == "8192"
    # A local .gguf downloads nothing; -hf through LLAMA_ARG_HF_REPO does (llama.cpp common/arg.cpp, hf-cache.cpp).
    assert s19(deployment(LLAMACPP_ENV, kind="Pod")) == []
    # An 8B model: a checkpoint under S19's SMALL_CHECKPOINT_GIB would be advice whatever the folder.
    hub = dict(LLAMACPP_ENV, env=[{"name": "LLAMA_ARG_HF_REPO", "value": "ggml-org/Qwen3-8B-GGUF:Q4_K_M"}])
    (message,) = s19(deployment(hub))
    assert message.startswith(
        "container l3test: downloads ggml-org/Qwen3-8B-GGUF:Q4_K_M from the Hugging Face Hub or its URL into "
        "/root/.cache/huggingface/hub or /root/.cache/llama.cpp"
    )
    # That image is not llama.cpp's own: its Dockerfile (outside the manifest) may move the cache, so S19 reports
    # without blocking; in ggml-org's server image the folder is known and it blocks.
    assert isinstance(message, Unproven) and message.endswith("this image or user may keep it elsewhere)")
    official = dict(hub, image="ghcr.io/ggml-org/llama.cpp:server-cuda-b6000")
    (message,) = s19(deployment(official))
    assert not isinstance(message, Unproven)
    cached = dict(
        hub, env=[*hub["env"], {"name": "LLAMA_CACHE", "value": "/cache"}], volumeMounts=[{"name": "c", "mountPath": "/cache"}]
    )
    assert s19(deployment(cached, [{"name": "c", "persistentVolumeClaim": {"claimName": "c"}}])) == []


# InternLM/lmdeploy v0.16.0 k8s/deployment.yaml (reduced): the careful form, the HF cache on a hostPath.
LMDEPLOY = {
    "name": "internlm2-chat-7b",
    "image": "openmmlab/lmdeploy:latest",
    "command": ["/bin/sh", "-c"],
    "args": ["lmdeploy serve api_server internlm/internlm2-chat-7b --server-port 23333"],
    "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
    "volumeMounts": [{"mountPath": "/root/.cache/huggingface", "name": "model-data"}],
}
LMDEPLOY_VOLUMES = [{"name": "model-data", "hostPath": {"path": "/root/.cache/huggingface", "type": "DirectoryOrCreate"}}]


def test_lmdeploy_row_reads_its_server_and_its_download():
    assert model_server_engine(LMDEPLOY) == "lmdeploy"
    (server,) = table_servers(deployment(LMDEPLOY, LMDEPLOY_VOLUMES))
    assert server.model == "internlm/internlm2-chat-7b"
    assert s19(deployment(LMDEPLOY, LMDEPLOY_VOLUMES)) == []
    # The mutation: without the hostPath the download lands on the container's own layer.
    bare = {k: v for k, v in LMDEPLOY.items() if k != "volumeMounts"}
    (message,) = s19(deployment(bare))
    assert message.startswith(
        "container internlm2-chat-7b: downloads internlm/internlm2-chat-7b from the Hugging Face Hub into "
        "/root/.cache/huggingface/hub"
    )
    found = {v.catalog for v in evaluate([deployment(bare)])}
    assert {"S19", "G1", "S16"} <= found, found  # the :latest tag the row lists, no startupProbe before /health


# The toy engine of the one-row test (tests/policies/test_policy_engine_table.py), its downloads table changed: any
# model name is fetched from its own registry, and a variable with a sub-path moves the cache.
NEW_ENGINE = (
    NEW_ROW.replace('models = ["hub"]', 'models = ["name"]')
    .replace('dirs = ["/var/toy/cache"]', 'dirs = ["/var/fetchy"]')
    .replace('env = ["TOY_CACHE"]', 'env = ["FETCHY_HOME/store"]')
    .replace('source = "the Hugging Face Hub"', 'source = "the Fetchy registry"')
)


def test_a_new_engine_with_a_downloads_table_gets_s19_without_code():
    engines = load_engines(Path(TABLE).read_text(encoding="utf-8") + NEW_ENGINE)
    container = {
        "name": "f",
        "image": "example.com/toyserve:1.0.0",
        "command": ["toyserve", "acme-7b"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    assert s19(deployment(container)) == []  # nobody described it
    with use_engine_table(engines):
        (message,) = s19(deployment(container))
        assert message.startswith("container f: downloads acme-7b from the Fetchy registry into /var/fetchy on the node's")
        moved = dict(
            container, env=[{"name": "FETCHY_HOME", "value": "/data"}], volumeMounts=[{"name": "d", "mountPath": "/data"}]
        )
        assert s19(deployment(moved, [{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}])) == []
        assert "into /data/store" in s19(deployment(moved, [{"name": "d", "emptyDir": {}}]))[0]


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        ('models = ["name"]', None),
        ('models = ["everything"]', "downloads.models: 'everything' is not one of"),
        ('dirs = ["var/fetchy"]', "downloads.dirs: 'var/fetchy' is not an absolute path"),
        ('env = ["FETCHY_HOME/store"]', None),
        ('source = ""', "downloads.source: a non-empty str is required"),
    ],
)
def test_the_downloads_table_is_checked_at_load(edit, error):
    key = edit.split(" =", 1)[0]
    row = "\n".join(edit if line.startswith(f"{key} =") else line for line in NEW_ENGINE.splitlines())
    text = Path(TABLE).read_text(encoding="utf-8") + row
    if error is None:
        load_engines(text)
        return
    with pytest.raises(EngineTableError, match=error):
        load_engines(text)
    without_source = NEW_ENGINE.replace('downloads = "written for this test"\n', "")
    with pytest.raises(EngineTableError, match=r"sources\.downloads: every fact needs its source"):
        load_engines(Path(TABLE).read_text(encoding="utf-8") + without_source)


def test_llama_cpp_hub_models_cannot_be_pinned_and_are_reported_without_blocking():
    """S17 for an engine with no revision setting: llama.cpp's `-hf org/repo[:quant]` (the form ggml-org/llama.cpp
    tools/server/README.md documents) follows the repository's main branch (common/hf-cache.cpp get_repo_commit at
    03eb25f3 takes the refs' main commit, with no option to name another): advisory, the fix is another way to load."""
    from policies.models import model_source_pinned

    def s17(container: dict) -> list[str]:
        policy = model_source_pinned.POLICY
        return policy.check_resource(deployment(container), policy.defaults())

    server = {
        "name": "llama",
        "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
        "args": ["-hf", "ggml-org/gemma-3-1b-it-GGUF:Q4_K_M"],
    }
    (message,) = s17(server)
    assert isinstance(message, Unproven)
    assert message.startswith(
        "container llama: model ggml-org/gemma-3-1b-it-GGUF comes from the Hugging Face Hub and llama.cpp server takes no "
        "revision for it"
    )
    # Careful forms: a file URL at a commit, or a local file.
    url = "https://huggingface.co/ggml-org/gemma-3-1b-it-GGUF/resolve/" + "0" * 40 + "/gemma-3-1b-it-Q4_K_M.gguf"
    assert s17(dict(server, args=["--model-url", url])) == []
    assert s17(dict(server, args=["-m", "/models/gemma-3-1b-it-Q4_K_M.gguf"])) == []


# mudler/LocalAI-examples afb814cb5e2e1b61e1679efb5a98c07ba8f3b977 kubernetes/deployment-nvidia.yaml (reduced): the
# careful form, the models folder of that image (/build/models) on a PersistentVolumeClaim.
LOCALAI = {
    "name": "local-ai",
    "image": "quay.io/go-skynet/local-ai:master-cublas-cuda12",
    "args": ["phi-2"],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
    "volumeMounts": [{"name": "models-volume", "mountPath": "/build/models"}],
}


def test_localai_installs_the_models_it_is_given_into_its_models_path():
    # mudler/LocalAI v4.9.0 core/cli/run.go L33/L44/L313: positional models are installed into --models-path at start.
    assert model_server_engine(LOCALAI) == "localai"
    (server,) = table_servers(deployment(LOCALAI))
    assert server.model == "phi-2"
    assert table_servers(deployment(dict(LOCALAI, command=["local-ai", "run"])))[0].model == "phi-2"
    pvc = [{"name": "models-volume", "persistentVolumeClaim": {"claimName": "models-pvc"}}]
    assert s19(deployment(LOCALAI, pvc)) == []
    bare = {k: v for k, v in LOCALAI.items() if k != "volumeMounts"}
    (message,) = s19(deployment(bare))
    assert message.startswith(
        "container local-ai: downloads phi-2 from the LocalAI gallery or the URL it names into /models or /build/models"
    )
    # A model file already in the image or a volume (a local path) downloads nothing.
    assert s19(deployment(dict(bare, args=["/models/phi-2.yaml"]))) == []
    # pkg/signals/handler.go: SIGTERM runs the shutdown handlers and os.Exit(0): drain "aborts".
    drains = termination_drains_streams.POLICY.check_resource(deployment(bare), termination_drains_streams.POLICY.defaults())
    assert any("on SIGTERM LocalAI stops at once" in m for m in drains), drains


def test_a_home_relative_cache_of_a_pod_that_does_not_run_as_root_is_not_blocked():
    # Ollama's store is $HOME/.ollama/models (v0.32.15 envconfig/config.go Models()); /root only for root, which the
    # image runs as. A pod run as another user (OpenShift's random UIDs, runAsUser) has another home: reported only.
    # (`ollama serve` names no model: what it pulls comes later through its API, so its S19 is advice whoever runs it:
    # session 24 review F4; the user rule is shown on a vLLM HF cache in test_hf_offline_downloads_nothing.)
    for context in ({}, {"runAsUser": 1000}, {"runAsNonRoot": True}, {"runAsUser": 0}):
        (message,) = s19(deployment(dict(OLLAMA, securityContext=context)))
        assert isinstance(message, Unproven)
    # TGI's /data is not a home folder: the user does not move it.
    (message,) = s19(deployment(dict(TGI_405B, securityContext={"runAsUser": 1000}), TGI_VOLUMES))
    assert not isinstance(message, Unproven)


def test_aphrodite_is_read_like_the_vllm_fork_it_is():
    """aphrodite-engine v0.20.0 docker/Dockerfile L660-662: the alpindale/aphrodite-openai image runs `aphrodite run`
    with the container's args (the model first); --shutdown-timeout defaults to 0 (config/aphrodite.py L347-350)."""
    from policies.models import model_source_pinned

    server = {
        "name": "aphrodite",
        "image": "alpindale/aphrodite-openai:latest",
        "args": ["mistralai/Mistral-7B-Instruct-v0.3", "--max-model-len", "4096"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    assert model_server_engine(server) == "aphrodite"
    (read,) = table_servers(deployment(server))
    assert read.model == "mistralai/Mistral-7B-Instruct-v0.3" and read.args["max-model-len"] == "4096"
    found = {v.catalog: v.message for v in evaluate([deployment(server)])}
    assert found["S19"].startswith("container aphrodite: downloads mistralai/Mistral-7B-Instruct-v0.3 from the Hugging Face Hub")
    assert "pin --revision to a commit SHA" in found["S17"]
    drains = termination_drains_streams.POLICY.check_resource(deployment(server), termination_drains_streams.POLICY.defaults())
    assert any("--shutdown-timeout unset (Aphrodite Engine's default 0 s)" in m for m in drains), drains
    # Careful: the cache on a claim, the revision pinned.
    careful = dict(
        server,
        args=[*server["args"], "--revision", "0" * 40],
        volumeMounts=[{"name": "hf", "mountPath": "/root/.cache/huggingface"}],
    )
    volumes = [{"name": "hf", "persistentVolumeClaim": {"claimName": "hf"}}]
    assert s19(deployment(careful, volumes)) == []
    policy = model_source_pinned.POLICY
    assert policy.check_resource(deployment(careful, volumes), policy.defaults()) == []


def test_kserve_huggingface_server_downloads_into_its_images_hf_home():
    """kserve/website 05b83a6c docs/model-serving/generative-inference/kvcache-offloading/kvcache-offloading.md
    (lmcache_isvc.yaml, reduced): the Hugging Face runtime with --model_id and no cache volume. The server downloads
    into its Hub cache, /tmp/huggingface/hub in KServe's image (kserve v0.20.0 python/huggingface_server.Dockerfile
    L273 HF_HOME=/tmp/huggingface)."""
    model = {
        "modelFormat": {"name": "huggingface"},
        "args": ["--model_name=llama3", "--model_id=meta-llama/Llama-3.2-1B-Instruct", "--max-model-len=10000"],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }

    def isvc(model: dict, volumes: list | None = None) -> Resource:
        predictor = {"model": model, **({"volumes": volumes} if volumes else {})}
        props = {
            "apiVersion": "serving.kserve.io/v1beta1",
            "kind": "InferenceService",
            "metadata": {"name": "huggingface-llama3"},
            "spec": {"predictor": predictor},
        }
        return Resource(type="kubernetes:serving.kserve.io/v1beta1:InferenceService", name="huggingface-llama3", props=props)

    (message,) = s19(isvc(model))
    assert "downloads meta-llama/Llama-3.2-1B-Instruct from the Hugging Face Hub into /tmp/huggingface/hub" in message
    # Careful forms: the cache on a claim, at the image's folder or where HF_HOME points.
    cached = dict(model, volumeMounts=[{"name": "hf", "mountPath": "/tmp/huggingface"}])
    claim = [{"name": "hf", "persistentVolumeClaim": {"claimName": "hf"}}]
    assert s19(isvc(cached, claim)) == []
    moved = dict(model, env=[{"name": "HF_HOME", "value": "/models/hf"}], volumeMounts=[{"name": "hf", "mountPath": "/models"}])
    assert s19(isvc(moved, claim)) == []


def test_hf_offline_downloads_nothing():
    """huggingface_hub 2.4.0 constants.py:194 (HF_HUB_OFFLINE, else TRANSFORMERS_OFFLINE; "1"/"ON"/"YES"/"TRUE"): the
    client sends no request and reads the local cache, so a vLLM pod with the model baked into its image downloads
    nothing (session 24 review F3: s24/s19b.yaml). Without it the same pod blocks; a non-root user makes it advice."""
    vllm = {
        "name": "server",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--revision", "0e9e39f249a16976918f6564b8830bc894c89659"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    (message,) = s19(deployment(vllm))
    assert not isinstance(message, Unproven)
    (message,) = s19(deployment(dict(vllm, securityContext={"runAsUser": 1000})))
    assert isinstance(message, Unproven)
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        assert s19(deployment(dict(vllm, env=[{"name": name, "value": "1"}]))) == []
    assert len(s19(deployment(dict(vllm, env=[{"name": "HF_HUB_OFFLINE", "value": "0"}])))) == 1


def test_an_ollama_pull_ends_at_its_line():
    # Cold review 29, finding 7: "ollama pull" at the end of one line took the next line's first word ("hf") as the
    # model; a newline ends the command, a backslash-newline continues it.
    from policies.reading.ollama_pulls import pod_pulls

    def pod(script: str) -> dict:
        return {"containers": [{"name": "dl", "image": "ollama/ollama:0.5.7", "command": ["sh", "-c", script]}]}

    assert pod_pulls(pod("ollama pull\nhf download org/model")) == []
    assert pod_pulls(pod("ollama pull \\\n  llama3.1:8b")) == ["llama3.1:8b"]
    assert pod_pulls(pod("ollama serve & sleep 5; ollama pull qwen2.5:7b")) == ["qwen2.5:7b"]
