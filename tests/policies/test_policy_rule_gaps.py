"""The rule gaps of issue 32 (catalogue rows S28-S31, and S15 on Ray worker groups): each with a form that fires
and the careful form that must stay silent. Forms written for these tests from the upstream docs each policy's
module cites (Kubernetes access modes and Deployment strategy, huggingface_hub's HF_TOKEN, KubeRay's RayCluster).
"""

from __future__ import annotations

import copy

from policies.framework import Resource
from policies.registry import evaluate

SHA = "0e9e39f249a16976918f6564b8830bc894c89659"
VLLM = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.33.0",
    "args": ["--model", "deepseek-ai/DeepSeek-V3", "--revision", SHA, "--tensor-parallel-size", "8"],
    "resources": {"limits": {"nvidia.com/gpu": 8}},
}


def deployment(container: dict, *, volumes=(), strategy=None, replicas=1, name="llm") -> Resource:
    spec: dict = {"replicas": replicas, "template": {"spec": {"containers": [container], "volumes": list(volumes)}}}
    if strategy is not None:
        spec["strategy"] = strategy
    props = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "llm"}, "spec": spec}
    return Resource(type="kubernetes:apps/v1:Deployment", name=name, props=props)


def pvc(name: str, size: str, modes=("ReadWriteOnce",)) -> Resource:
    props = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}},
    }
    return Resource(type="kubernetes:core/v1:PersistentVolumeClaim", name=name, props=props)


def found(resources, policy: str) -> list[str]:
    return [v.message for v in evaluate(resources) if v.policy == policy]


def with_cache(container: dict) -> dict:
    return {**container, "volumeMounts": [{"name": "cache", "mountPath": "/root/.cache/huggingface"}]}


CACHE = {"name": "cache", "persistentVolumeClaim": {"claimName": "model-cache"}}
# The run's default StorageClass, on a provisioner that creates volumes of the size asked for (kubernetes-sigs/
# aws-ebs-csi-driver examples/kubernetes/dynamic-provisioning/manifests/storageclass.yaml at dcfdd0d4: ebs.csi.aws.com).
# Without one in the run, S29 cannot tell the claim's size is enforced (EFS or NFS ignore it) and only advises
# (tests/policies/test_model_cache_enforced.py).
DEFAULT_EBS = Resource(
    "kubernetes:storage.k8s.io/v1:StorageClass",
    "gp3",
    {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "gp3", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "ebs.csi.aws.com",
    },
)


# S28 ------------------------------------------------------------------------------------------------


def test_an_empty_literal_hf_token_fires():
    container = {**VLLM, "env": [{"name": "HF_TOKEN", "value": ""}]}
    assert found([deployment(container)], "hf-token-not-empty") == [
        "container vllm: env HF_TOKEN is an empty literal, so the Hub client sends no token and a gated or private "
        "model fails with 401 at start; take it from valueFrom.secretKeyRef, or drop the variable for a public model"
    ]


def test_a_token_from_a_secret_is_silent():
    container = {**VLLM, "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}]}
    assert found([deployment(container)], "hf-token-not-empty") == []


# S29 ------------------------------------------------------------------------------------------------


def test_a_cache_far_smaller_than_the_checkpoint_fires():
    (message,) = found(
        [deployment(with_cache(VLLM), volumes=[CACHE]), pvc("model-cache", "100Gi"), DEFAULT_EBS], "model-cache-fits-checkpoint"
    )
    assert message.startswith(
        "container vllm: PersistentVolumeClaim model-cache at /root/.cache/huggingface/hub holds 100 GiB, but the checkpoint "
        "of deepseek-ai/DeepSeek-V3 is "
    )
    assert "no space left on the device" in message


def test_an_empty_dir_size_limit_and_a_local_path_are_read_too():
    local = {
        **VLLM,
        "args": ["--model", "/models/deepseek-ai/DeepSeek-V3"],
        "volumeMounts": [{"name": "m", "mountPath": "/models"}],
    }
    volume = {"name": "m", "emptyDir": {"sizeLimit": "200Gi"}}
    (message,) = found([deployment(local, volumes=[volume])], "model-cache-fits-checkpoint")
    assert "emptyDir m (sizeLimit) at /models/deepseek-ai/DeepSeek-V3 holds 200 GiB" in message


def test_a_cache_larger_than_the_checkpoint_is_silent():
    assert (
        found([deployment(with_cache(VLLM), volumes=[CACHE]), pvc("model-cache", "1000Gi")], "model-cache-fits-checkpoint") == []
    )
    # A claim the run does not hold is not judged.
    assert found([deployment(with_cache(VLLM), volumes=[CACHE])], "model-cache-fits-checkpoint") == []


# S30 ------------------------------------------------------------------------------------------------


def test_a_read_write_once_cache_with_a_rolling_update_is_advice():
    # One surging GPU replica: the replacement stalls only on another node (a node with a GPU to spare takes it beside
    # the old pod), which the files do not say.
    (violation,) = [
        v
        for v in evaluate([deployment(with_cache(VLLM), volumes=[CACHE]), pvc("model-cache", "1000Gi")])
        if v.policy == "single-attach-volume-rolls"
    ]
    assert violation.enforcement == "advisory"
    assert violation.message == (
        "spec.template.spec.volumes cache: PersistentVolumeClaim model-cache is ReadWriteOnce (single-attach) and the "
        "RollingUpdate starts the new pod before the old one releases it (Multi-Attach error), so the rollout never "
        "completes; use strategy Recreate or maxSurge 0, a StatefulSet with volumeClaimTemplates, or a ReadWriteMany "
        "volume (if the new pod lands on another node)"
    )
    # ReadWriteOncePod admits one pod whatever the node: the surge pod never starts.
    (violation,) = [
        v
        for v in evaluate([deployment(with_cache(VLLM), volumes=[CACHE]), pvc("model-cache", "1000Gi", ("ReadWriteOncePod",))])
        if v.policy == "single-attach-volume-rolls"
    ]
    assert violation.enforcement == "mandatory"


def test_recreate_max_surge_zero_and_read_write_many_are_silent():
    claim = pvc("model-cache", "1000Gi")
    for strategy in ({"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}):
        assert (
            found([deployment(with_cache(VLLM), volumes=[CACHE], strategy=strategy), claim], "single-attach-volume-rolls") == []
        )
    many = pvc("model-cache", "1000Gi", modes=("ReadWriteMany",))
    assert found([deployment(with_cache(VLLM), volumes=[CACHE]), many], "single-attach-volume-rolls") == []


def test_several_replicas_on_one_single_attach_claim_fire_even_with_recreate():
    (message,) = found(
        [deployment(with_cache(VLLM), volumes=[CACHE], strategy={"type": "Recreate"}, replicas=2), pvc("model-cache", "1000Gi")],
        "single-attach-volume-rolls",
    )
    assert "spec.replicas 2: the pods after the first cannot attach it" in message


# S31 ------------------------------------------------------------------------------------------------


def test_code_from_a_moving_url_at_every_start_fires():
    script = (
        "curl -sSL https://raw.githubusercontent.com/org/serving/main/server.py -o /app/server.py && "
        "pip install git+https://github.com/org/plugin.git && python /app/server.py"
    )
    container = {**VLLM, "command": ["/bin/sh", "-c", script]}
    messages = found([deployment(container)], "serving-code-pinned")
    assert [m.split(": ", 1)[1].split(":")[0] for m in messages] == [
        "downloads https",
        "installs git+https",
    ]
    assert "(the moving 'main' reference) at every start" in messages[0]


def test_pinned_code_is_silent():
    script = (
        f"curl -sSL https://raw.githubusercontent.com/org/serving/{SHA}/server.py -o /app/server.py && "
        "pip install git+https://github.com/org/plugin.git@v1.4.2 && "
        "git clone --branch v2.0.1 https://github.com/org/tools /tools && python /app/server.py"
    )
    container = {**VLLM, "command": ["/bin/sh", "-c", script]}
    assert found([deployment(container)], "serving-code-pinned") == []


# S15 on Ray worker groups ---------------------------------------------------------------------------


def ray_cluster(worker_pod: dict) -> Resource:
    props = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "ray", "namespace": "llm"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {"num-gpus": "0"},
                "template": {"spec": {"containers": [{"name": "head", "image": "rayproject/ray:2.49.0"}]}},
            },
            "workerGroupSpecs": [{"groupName": "gpu", "maxReplicas": 2, "template": {"spec": worker_pod}}],
        },
    }
    return Resource(type="kubernetes:ray.io/v1:RayCluster", name="ray", props=props)


WORKER = {
    "containers": [{"name": "worker", "image": "rayproject/ray-ml:2.49.0-gpu", "resources": {"limits": {"nvidia.com/gpu": 1}}}],
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
}


def test_a_ray_gpu_worker_group_without_a_gpu_type_fires():
    messages = [
        m for m in found([ray_cluster(copy.deepcopy(WORKER))], "gpu-pod-tolerates-and-targets") if "Ray worker group" in m
    ]
    assert messages == [
        "spec.workerGroupSpecs[0].template.spec: a Ray worker group requests GPUs without a nodeSelector or required "
        "affinity on a GPU type or pool label (karpenter.sh/nodepool, karpenter.k8s.aws/instance-gpu-name, "
        "karpenter.k8s.aws/instance-family, ...); Ray Serve may place the engine on a GPU the capacity plan did not size"
    ]


def test_a_ray_gpu_worker_group_selecting_its_gpu_is_silent():
    worker = {**copy.deepcopy(WORKER), "nodeSelector": {"karpenter.k8s.aws/instance-gpu-name": "l40s"}}
    assert [m for m in found([ray_cluster(worker)], "gpu-pod-tolerates-and-targets") if "Ray worker group" in m] == []


def nim_cache(source: dict, pvc_spec: dict) -> Resource:
    """A NIMCache as k8s-nim-operator's samples write it (config/samples/nim/serving/advanced/multi-node: an NGC
    modelPuller, a created RWX PVC of 100Gi)."""
    props = {
        "apiVersion": "apps.nvidia.com/v1alpha1",
        "kind": "NIMCache",
        "metadata": {"name": "cache", "namespace": "llm"},
        "spec": {"source": source, "storage": {"pvc": pvc_spec}},
    }
    return Resource("kubernetes:apps.nvidia.com/v1alpha1:NIMCache", "cache", props)


NGC_R1 = {"ngc": {"modelPuller": "nvcr.io/nim/deepseek-ai/deepseek-r1:1.7.3", "pullSecret": "ngc", "authSecret": "ngc"}}


def test_a_nim_cache_below_the_lightest_profile_fires():
    """DeepSeek-R1's checkpoint is FP8 (641 GiB): even 4-bit weights need ~321 GiB, so the sample's 100Gi cannot hold
    any profile."""
    assert found([nim_cache(NGC_R1, {"create": True, "size": "100Gi"}), DEFAULT_EBS], "model-cache-fits-checkpoint") == [
        "spec.storage.pvc.size 100Gi: the cache holds 100 GiB, but deepseek-ai/DeepSeek-R1 needs 321 GiB for its "
        "weights at 4 bits, the lightest NIM profile (the 641 GiB checkpoint x 0.5): caching fails with no space left "
        "on the device and the NIMService never starts; size the cache above the model"
    ]


def test_a_nim_cache_that_holds_a_light_profile_is_silent():
    """Careful forms: a cache that holds a 4-bit profile (NGC profiles' precision is not in the manifest), NGC's meta/
    names mapped to the Hub's meta-llama/, a model the catalogue does not know, and a size without a unit."""
    assert found([nim_cache(NGC_R1, {"create": True, "size": "400Gi"})], "model-cache-fits-checkpoint") == []
    llama = {"ngc": {"modelPuller": "nvcr.io/nim/meta/llama-3.1-70b-instruct:1.3.3", "authSecret": "ngc"}}
    assert found([nim_cache(llama, {"create": True, "size": "50Gi"})], "model-cache-fits-checkpoint") == []  # 4-bit: ~33
    assert len(found([nim_cache(llama, {"create": True, "size": "20Gi"})], "model-cache-fits-checkpoint")) == 1
    unknown = {"ngc": {"modelPuller": "nvcr.io/nim/acme/in-house-llm:1.0", "authSecret": "ngc"}}
    assert found([nim_cache(unknown, {"create": True, "size": "1Gi"})], "model-cache-fits-checkpoint") == []
    assert found([nim_cache(NGC_R1, {"create": True, "size": "100"})], "model-cache-fits-checkpoint") == []


def test_a_nim_cache_from_the_hub_must_hold_the_whole_checkpoint():
    hub = {"hf": {"endpoint": "https://huggingface.co", "namespace": "deepseek-ai", "modelName": "DeepSeek-R1"}}
    (message,) = found([nim_cache(hub, {"create": True, "size": "400Gi"})], "model-cache-fits-checkpoint")
    assert "needs 641 GiB for its checkpoint" in message
    # An existing claim of the run is read by name.
    claimed = nim_cache(hub, {"name": "model-store"})
    assert len(found([claimed, pvc("model-store", "500Gi")], "model-cache-fits-checkpoint")) == 1
    assert found([claimed, pvc("model-store", "700Gi")], "model-cache-fits-checkpoint") == []
