"""Misses of spent held-out sets 13-15, fixed by their general cause: each a fixture cut down from the labelled file that
fires, and a careful third-party form that stays silent.

- G43 serving-rollout-not-recreate: SecureCloudOps/llm-queue-meltdown k8s/vllm-deployment.yaml at
  a16e7241246406a03c781146d6d999760158c8fb with k8s/keda-scaledobject.yaml at a6797851dc81bf43f5d2e4ff1ce5d2d2dbac5f0d;
- G36 memory-emptydir-size-limit: andrewaddo/gke-vllm-hdml vllm-deployment.yaml at c01ff8a1698b30ee2148b3844ec5c00105718a0b;
- G1 image-tag-pinned: nghianx1211/ray-learning ray-v8-rayservice/rayservice.yaml at
  30606611f4411056c63cc753b04108f80035ae83;
- S12 karpenter-gpu-nodepool-disruption-budget: WebRTCventures/colocating-voiceai-models-eks k8s/gpu-nodepool.yaml at
  33fea72ab228c101a74c92d5a5574d9428855d33;
- S50 gpu-serving-on-spot: sesac-4thprj-jungchat/src_aws_eks_iac_cicd karpenter/nodepool-gpu.yaml at
  f1da9cc8dd9dda148d59976b43f059d0df2021cd and souhailsegni/Deepseek_R1_VLLM-EKS
  eks/modules/eks/karpenter/gpu-nodepool.yaml at cbc8af3960419cca39ad67329151abfe01e1d1f7;
- S37 gated-model-has-token: bogdancstrike/k8s-llm-slm-hami platform/kserve/vllm-servingruntime.yaml at
  5ce222ff8d497ce6b7ae038b4c278231d80dd0ba.
"""

import copy

import pytest
from policy_fixtures import found_by


def _deployment(container: dict, replicas: int = 1, strategy: str | None = "Recreate", **pod) -> dict:
    spec: dict = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [container], **pod}},
    }
    if strategy is not None:
        spec["strategy"] = {"type": strategy}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm", "namespace": "vllm-lab"}, "spec": spec}


# --- G43: Recreate on a model server an autoscaler scales above one replica --------------------------------------------

LAB_SERVER = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.11.2",
    "args": ["HuggingFaceTB/SmolLM2-135M-Instruct", "--revision=12fd25f77366fa6b3b4b768ec3050bf629380bac", "--port=8000"],
    "resources": {
        "requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 1},
        "limits": {"memory": "8Gi", "nvidia.com/gpu": 1},
    },
}
SCALED_OBJECT = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "vllm-waiting", "namespace": "vllm-lab"},
    "spec": {
        "scaleTargetRef": {"name": "vllm"},
        "minReplicaCount": 1,
        "maxReplicaCount": 3,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus.vllm-lab.svc.cluster.local:9090",
                    "query": 'sum(vllm:num_requests_waiting{job="vllm",namespace="vllm-lab"})',
                    "threshold": "3",
                },
            }
        ],
    },
}
RECREATE = "serving-rollout-not-recreate"


def test_recreate_under_a_scaled_object_is_advice():
    assert found_by([_deployment(LAB_SERVER), SCALED_OBJECT], RECREATE) == [
        (
            "advisory",
            "spec.strategy.type: Recreate, and ScaledObject vllm-waiting (spec.maxReplicaCount 3) scales it up to 3 "
            "replicas: every rollout deletes all of them before any new pod exists, so the model is unserved for a "
            "whole image pull and model load; use RollingUpdate with maxSurge 0 and maxUnavailable 1 (one pod at a "
            "time, no spare GPU needed)",
        )
    ]


def test_recreate_with_written_replicas_is_advice():
    ((level, message),) = found_by([_deployment(LAB_SERVER, replicas=2)], RECREATE)
    assert level == "advisory" and message.startswith("spec.strategy.type: Recreate, and it runs 2 replicas:")


@pytest.mark.parametrize(
    "objs",
    [
        # The labeller's careful form: RollingUpdate (maxSurge 0, maxUnavailable 1) under the same ScaledObject ...
        [_deployment(LAB_SERVER, strategy="RollingUpdate"), SCALED_OBJECT],
        # ... and Recreate on a single replica no autoscaler scales (single-attach-volume-rolls' own advice).
        [_deployment(LAB_SERVER)],
    ],
)
def test_a_rollout_that_keeps_serving_is_silent(objs):
    assert found_by(objs, RECREATE) == []


# --- S4 (was G36): a /dev/shm emptyDir with no sizeLimit in a pod with no memory limit -------------------------------------------

HDML_SERVER = {
    "name": "inference-server",
    "image": "vllm/vllm-openai:v0.8.5",
    "command": ["sh", "-c", "vllm serve '/data/Llama-3.3-70B-Instruct' --tensor-parallel-size 4 --port 8080"],
    "resources": {"limits": {"nvidia.com/gpu": "4"}},
    "volumeMounts": [{"mountPath": "/dev/shm", "name": "dshm"}, {"mountPath": "/data", "name": "llama3-70b"}],
}
HDML_VOLUMES = [
    {"name": "dshm", "emptyDir": {"medium": "Memory"}},
    {"name": "llama3-70b", "persistentVolumeClaim": {"claimName": "hdml-static-pvc"}},
]


def test_an_unbounded_shm_without_a_memory_limit_is_s4_not_g36():
    """Spent set 13 labelled this G36 (and S4 a trap); since session 47 S4 owns the /dev/shm of every multi-process GPU
    server (its title says so, and the labellers of later sets apply S4 to an unbounded, uncounted /dev/shm), so the
    finding is S4 advice and G36 leaves the volume alone: one problem, one id."""
    objs = [_deployment(HDML_SERVER, strategy=None, volumes=HDML_VOLUMES)]
    assert found_by(objs, "memory-emptydir-size-limit") == []
    assert found_by(objs, "tensor-parallel-requires-dshm") == [
        (
            "advisory",
            "container inference-server: runs 4 ranks (tensor parallel 4 × pipeline parallel 1); "
            "its /dev/shm, the memory emptyDir dshm, has no sizeLimit and not every container of the pod has a memory "
            "limit, so shared memory is bounded by nothing but the node's RAM and is not counted against the pod: set "
            "a sizeLimit",
        )
    ]


def test_a_bounded_shm_is_silent():
    volumes = copy.deepcopy(HDML_VOLUMES)
    volumes[0]["emptyDir"]["sizeLimit"] = "16Gi"
    assert found_by([_deployment(HDML_SERVER, strategy=None, volumes=volumes)], "memory-emptydir-size-limit") == []


# --- G1: a tag ending in -latest moves -----------------------------------------------------------------------------------

RAY_IMAGE = "asia-southeast1-docker.pkg.dev/kubernetes-468114/test/ray-vllm-serve"


def _ray_image(image: str) -> dict:
    return _deployment({"name": "ray-head", "image": image, "imagePullPolicy": "Always"}, strategy=None)


def test_a_latest_suffix_after_a_version_moves():
    ((_, message),) = found_by([_ray_image(f"{RAY_IMAGE}:v8-latest")], "image-tag-pinned")
    assert message == (
        f"container ray-head: image {RAY_IMAGE}:v8-latest uses v8-latest, a moving build tag (its latest part moves to "
        "each new build); pin a version tag (ideally a digest, image@sha256:...)"
    )


@pytest.mark.parametrize("tag", ["v8", "v8.1.0", "v0.9.0-nightly", "nightly-d223c90"])
def test_a_tag_that_names_one_build_is_silent(tag):
    assert found_by([_ray_image(f"{RAY_IMAGE}:{tag}")], "image-tag-pinned") == []


# --- S12: a zero budget with no reasons and no schedule ------------------------------------------------------------------


def _voiceai_pool(budgets: list[dict]) -> dict:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu-voiceai"},
        "spec": {
            "disruption": {"budgets": budgets, "consolidateAfter": "30m", "consolidationPolicy": "WhenEmpty"},
            "limits": {"nvidia.com/gpu": "2"},
            "template": {
                "metadata": {"labels": {"workload-type": "gpu-voiceai"}},
                "spec": {
                    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
                    "requirements": [
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.2xlarge", "g5.4xlarge"]},
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                },
            },
        },
    }


BUDGET = "karpenter-gpu-nodepool-disruption-budget"


def test_a_zero_budget_for_every_reason_at_all_hours_is_advice():
    ((level, message),) = found_by([_voiceai_pool([{"nodes": "0"}])], BUDGET)
    assert level == "advisory"
    assert message.startswith('spec.disruption.budgets: a budget of nodes "0" with no reasons and no schedule applies')
    assert "nodes are replaced only at expireAfter (720h, the default)" in message


@pytest.mark.parametrize(
    "budgets",
    [
        # Zero outside a window (Karpenter's docs' form), or zero for the reasons that evict busy nodes only.
        [{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"}, {"nodes": "1"}],
        [{"nodes": "0", "reasons": ["Underutilized", "Drifted"]}, {"nodes": "1"}],
    ],
)
def test_a_confined_zero_budget_is_silent(budgets):
    assert found_by([_voiceai_pool(budgets)], BUDGET) == []


# --- S50: a GPU pool admitting spot, read alone --------------------------------------------------------------------------


def _spot_pool(name: str = "nvidia-gpu", values: tuple[str, ...] = ("spot", "on-demand")) -> dict:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {"labels": {"instanceType": "gpu"}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
                    "requirements": [
                        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5", "g6"]},
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(values)},
                    ],
                },
            },
            "limits": {"cpu": 180},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s"},
        },
    }


def test_a_gpu_pool_admitting_spot_read_alone_is_advice():
    ((level, message),) = found_by([_spot_pool()], "gpu-serving-on-spot")
    assert level == "advisory"
    assert message.startswith(
        "spec.template.spec.requirements[1] karpenter.sh/capacity-type In ['spot', 'on-demand'] admits spot on this GPU "
        "pool (Karpenter prefers it over on-demand), and no workload in the files says what runs on it"
    )


@pytest.mark.parametrize(
    "objs",
    [
        [_spot_pool(values=("on-demand",))],  # the careful form: on-demand only
        [_spot_pool(name="gpu-batch-spot")],  # a pool named for batch work
        # A GPU model server of the same files on another pool: the spot pool is evidently for something else.
        [_spot_pool(), _deployment(dict(LAB_SERVER), strategy=None, nodeSelector={"karpenter.sh/nodepool": "serving"})],
    ],
)
def test_a_pool_on_demand_or_for_other_work_is_silent(objs):
    assert found_by(objs, "gpu-serving-on-spot") == []


# --- S37: a gated model's token from an optional Secret reference --------------------------------------------------------


def _runtime(optional: bool | None) -> dict:
    ref = {"name": "huggingface-token", "key": "token"}
    if optional is not None:
        ref["optional"] = optional
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "vllm-runtime"},
        "spec": {
            "supportedModelFormats": [{"name": "vllm", "version": "1", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "vllm/vllm-openai:v0.6.3",
                    "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                    "args": ["--port=8000", "--model=$(MODEL_ID)"],
                    "env": [
                        {"name": "MODEL_ID", "value": "google/gemma-3-1b-it"},
                        {"name": "HF_HOME", "value": "/models/.cache/huggingface"},
                        {"name": "HUGGING_FACE_HUB_TOKEN", "valueFrom": {"secretKeyRef": ref}},
                    ],
                    "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "16Gi"}},
                }
            ],
        },
    }


def test_an_optional_token_reference_for_a_gated_model_is_advice():
    ((level, message),) = found_by([_runtime(True)], "gated-model-has-token")
    assert level == "advisory"
    assert message == (
        "container kserve-container: downloads google/gemma-3-1b-it, a gated Hugging Face repository (google/gemma-3-* "
        "asks each user to accept its licence on the Hub), and its token comes only from HUGGING_FACE_HUB_TOKEN from "
        "Secret huggingface-token key token, marked optional: true: where that Secret or key is missing the pod starts "
        "without a token, the download answers 401 and the server exits at start on the GPU node; drop optional so "
        "that the pod waits for the Secret"
    )


@pytest.mark.parametrize("optional", [None, False])
def test_a_required_token_reference_is_silent(optional):
    assert found_by([_runtime(optional)], "gated-model-has-token") == []
