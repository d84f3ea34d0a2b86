"""Pod template patches merged onto their base before the pod rules judge them (cold review s24 F1).

sgl-project/rbg v0.7.0 (01df6fc3) applies a role's ``patchLeaderTemplate``/``patchWorkerTemplate`` (v1alpha1) or
``leaderTemplatePatch``/``workerTemplatePatch`` (v1alpha2) to the role's ``template`` by strategic merge
(pkg/reconciler/lws_reconciler.go:248, :262; api/workloads/v1alpha2/helper.go:338-353). Forms below are hand-written
after rbg's examples at that tag (examples/deprecated/v1alpha1/basics/rbg-with-lws-workload.yaml: base template with
image and ports, the leader patch adding a probe to container nginx by name; examples/inference/agg-leader-worker.yaml:
the v1alpha2 leaderWorkerPattern) with vLLM's multi-node launcher as review s24/rbg.yaml has it.
"""

from __future__ import annotations

import copy

from policies.framework import Resource
from policies.kube import evaluation_memo, generic_pod_specs
from policies.pod_patches import strategic_merge
from policies.registry import evaluate

LEADER_CMD = (
    "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); "
    "vllm serve /models/llama-405b --tensor-parallel-size 8 --pipeline-parallel-size 2 --max-model-len 8192 "
    "--gpu-memory-utilization 0.9"
)
WORKER_CMD = "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"


def rbg(gpus: str = "8", leader_cmd: str = LEADER_CMD, worker: bool = True) -> Resource:
    """A careful RoleBasedGroup v1alpha1: 2 pods x ``gpus`` GPUs, the vLLM leader and a Ray worker patched onto one
    base template that holds image, resources, /dev/shm and the model volume (review s24/rbg.yaml)."""
    base = {
        "spec": {
            "terminationGracePeriodSeconds": 360,
            "containers": [
                {
                    "name": "vllm",
                    "image": "vllm/vllm-openai:v0.10.1",
                    "resources": {
                        "requests": {"cpu": "32", "memory": "512Gi", "nvidia.com/gpu": gpus},
                        "limits": {"memory": "512Gi", "nvidia.com/gpu": gpus},
                    },
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}, {"name": "models", "mountPath": "/models"}],
                }
            ],
            "volumes": [
                {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}},
                {"name": "models", "persistentVolumeClaim": {"claimName": "models"}},
            ],
        }
    }
    lws: dict = {
        "size": 2,
        "patchLeaderTemplate": {
            "spec": {"containers": [{"name": "vllm", "command": ["sh", "-c", leader_cmd]}]},
        },
    }
    if worker:
        lws["patchWorkerTemplate"] = {"spec": {"containers": [{"name": "vllm", "command": ["sh", "-c", WORKER_CMD]}]}}
    role = {"name": "inference", "replicas": 1, "leaderWorkerSet": lws, "template": base}
    props = {
        "apiVersion": "workloads.x-k8s.io/v1alpha1",
        "kind": "RoleBasedGroup",
        "metadata": {"name": "vllm-multi", "namespace": "llm"},
        "spec": {"roles": [role]},
    }
    return Resource("kubernetes:workloads.x-k8s.io/v1alpha1:RoleBasedGroup", "vllm-multi", props)


def mandatory(resource: Resource, policy: str | None = None) -> list[str]:
    return [v.message for v in evaluate([resource]) if v.enforcement == "mandatory" and (policy is None or v.policy == policy)]


def test_a_careful_rbg_is_judged_as_its_merged_pods():
    """TP 8 x PP 2 = 16 ranks over the group's 2 pods x 8 GPUs: no blocking finding (before: S3 twice, once on the
    patch without GPUs and once on the base without a command)."""
    resource = rbg()
    assert mandatory(resource) == []
    with evaluation_memo():
        pods = dict(generic_pod_specs(resource))
    lws = "spec.roles[0].leaderWorkerSet"
    assert sorted(pods) == [f"{lws}.patchLeaderTemplate.spec", f"{lws}.patchWorkerTemplate.spec"]
    (leader,) = pods[f"{lws}.patchLeaderTemplate.spec"]["containers"]
    assert leader["image"] == "vllm/vllm-openai:v0.10.1" and leader["command"][2] == LEADER_CMD
    assert leader["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert pods[f"{lws}.patchLeaderTemplate.spec"]["volumes"][0]["name"] == "dshm"


def test_the_merged_leader_still_blocks_when_its_ranks_do_not_fit_the_group():
    """16 ranks over 2 pods x 4 GPUs: the merged pod proves the mismatch."""
    (message,) = mandatory(rbg(gpus="4"), "vllm-tp-matches-gpu-limit")
    assert message.startswith(
        "spec.roles[0].leaderWorkerSet.patchLeaderTemplate.spec container vllm: tensor parallel 8 × pipeline parallel 2 "
        "= 16 GPUs over 2 pods, but resources.limits nvidia.com/gpu is 4 per pod"
    )


def test_a_leader_patch_alone_leaves_the_base_as_the_workers():
    """An absent patch gives the base as is (rbg v0.7.0 api/workloads/v1alpha2/helper.go:341-344): the base stays a pod
    of its own, and the leader spreads over the group's size."""
    resource = rbg(worker=False)
    with evaluation_memo():
        paths = [p for p, _ in generic_pod_specs(resource)]
    assert paths == ["spec.roles[0].template.spec", "spec.roles[0].leaderWorkerSet.patchLeaderTemplate.spec"]
    # The leader's 16 ranks fit the group's 2 x 8 GPUs; the workers run the base unpatched (the image's own `vllm
    # serve`, one rank on 8 GPUs), which is what the manifest says: spare GPUs, advice (the engine serves).
    assert mandatory(resource, "vllm-tp-matches-gpu-limit") == []
    (message,) = [v.message for v in evaluate([resource]) if v.policy == "vllm-tp-matches-gpu-limit"]
    assert message.startswith("spec.roles[0].template.spec container vllm: tensor parallel 1 × pipeline parallel 1")


def test_a_patch_whose_base_is_not_found_is_advice_only():
    """A templateRef naming a template the object does not hold: neither the patch nor a base is a whole pod."""
    resource = rbg(gpus="4")
    props = copy.deepcopy(resource.props)
    role = props["spec"]["roles"][0]
    del role["template"]
    role["templateRef"] = {"name": "elsewhere"}
    role["leaderWorkerSet"]["patchLeaderTemplate"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai:latest"
    unmerged = Resource(resource.type, resource.name, props)
    assert mandatory(unmerged) == []
    assert [v for v in evaluate([unmerged]) if v.policy == "image-tag-pinned"]


def test_a_template_ref_names_the_base():
    """RBG's roleTemplates[] named by a role's templateRef (api/workloads/v1alpha2/helper.go:306-325)."""
    resource = rbg(gpus="4")
    props = copy.deepcopy(resource.props)
    role = props["spec"]["roles"][0]
    props["spec"]["roleTemplates"] = [{"name": "base", "template": role.pop("template")}]
    role["templateRef"] = {"name": "base"}
    (message,) = mandatory(Resource(resource.type, resource.name, props), "vllm-tp-matches-gpu-limit")
    assert "patchLeaderTemplate.spec container vllm" in message


def test_strategic_merge_follows_the_pod_template_patch_keys():
    base = {
        "spec": {
            "containers": [
                {
                    "name": "a",
                    "image": "x:1",
                    "command": ["one"],
                    "env": [{"name": "A", "value": "1"}],
                    "resources": {"limits": {"cpu": "1"}},
                },
                {"name": "b", "image": "y:1"},
            ],
            "tolerations": [{"key": "k"}],
            "nodeSelector": {"n": "1", "m": "2"},
        }
    }
    patch = {
        "spec": {
            "containers": [
                {
                    "name": "a",
                    "command": ["two"],
                    "env": [{"name": "B", "value": "2"}],
                    "resources": {"limits": {"memory": "1Gi"}},
                },
                {"name": "b", "$patch": "delete"},
                {"name": "c", "image": "z:1"},
            ],
            "tolerations": [{"key": "t"}],
            "nodeSelector": {"m": None},
        }
    }
    merged = strategic_merge(base, patch)["spec"]
    a, c = merged["containers"]
    assert a == {
        "name": "a",
        "image": "x:1",
        "command": ["two"],
        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
    }
    assert c == {"name": "c", "image": "z:1"}
    assert merged["tolerations"] == [{"key": "t"}]  # not a merge list: replaced
    assert merged["nodeSelector"] == {"n": "1"}
    assert strategic_merge({"a": {"b": 1}}, {"a": {"$patch": "replace", "c": 2}}) == {"a": {"c": 2}}
    assert base["spec"]["containers"][0]["command"] == ["one"]  # the base is not changed
