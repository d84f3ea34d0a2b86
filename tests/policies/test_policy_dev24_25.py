"""Dev sets 24 and 25 (issue 32): forms the pack judged wrongly, as classes, with their third-party fixtures."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

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
    # Two replicas on the one claim: the second pod on another node never attaches it, whatever the strategy.
    two = copy.deepcopy(recreate)
    two["spec"]["replicas"] = 2
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
