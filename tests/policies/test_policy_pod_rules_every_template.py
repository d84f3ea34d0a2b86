"""The pod rules run on every pod template the pack reads: KubeRay head and worker groups (ray.io/v1 and the
deprecated ray.io/v1alpha1, which only the generic walk reads), LeaderWorkerSet leader and worker templates, and
operator CRs no reader knows.

Fixtures, cut down from third-party files:

- vecorro/vllm_examples ray-service.vllm.yaml at 8b67fb66acd16d004fc656aabf6203043fed9942 (spent set 22): a
  ray.io/v1alpha1 RayService whose gpu-group worker requests cpu 32 with a limit of 16 (S32);
- ray-project/ray doc/source/cluster/cluster_under_construction/ray-clusters-on-kubernetes/user-guides/config.md at
  cae02a7743763a0338da990de04576d9968ac39e: a ray.io/v1alpha1 RayCluster head requesting cpu "14" memory 1024Mi
  under limits 14 / 54Gi (the careful form: requests within limits, S32 silent).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.kube import WorkloadTypes
from policies.registry import POLICIES

# vecorro/vllm_examples ray-service.vllm.yaml@8b67fb6, cut to the cluster config.
VECORRO = {
    "apiVersion": "ray.io/v1alpha1",
    "kind": "RayService",
    "metadata": {"name": "vllm"},
    "spec": {
        "rayClusterConfig": {
            "rayVersion": "2.5.1",
            "headGroupSpec": {
                "rayStartParams": {"dashboard-host": "0.0.0.0"},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.5.1-py310-cu118",
                                "resources": {
                                    "limits": {"cpu": "16", "memory": "64G"},
                                    "requests": {"cpu": "8", "memory": "32G"},
                                },
                            }
                        ]
                    }
                },
            },
            "workerGroupSpecs": [
                {
                    "replicas": 1,
                    "minReplicas": 1,
                    "maxReplicas": 4,
                    "groupName": "gpu-group",
                    "rayStartParams": {},
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-worker",
                                    "image": "rayproject/ray:2.5.1-py310-cu118",
                                    "resources": {
                                        "limits": {"cpu": 16, "memory": "64G", "nvidia.com/gpu": 1},
                                        "requests": {"cpu": 32, "memory": "32G", "nvidia.com/gpu": 1},
                                    },
                                }
                            ]
                        }
                    },
                }
            ],
        }
    },
}

# ray-project/ray .../user-guides/config.md@cae02a7: the head of its condensed ray.io/v1alpha1 RayCluster.
RAY_DOC_CLUSTER = {
    "apiVersion": "ray.io/v1alpha1",
    "kind": "RayCluster",
    "metadata": {"name": "raycluster-complete"},
    "spec": {
        "headGroupSpec": {
            "rayStartParams": {"port": "6379", "num-cpus": "1"},
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "ray-head",
                            "image": "rayproject/ray:1.12.1",
                            "resources": {
                                "limits": {"cpu": 14, "memory": "54Gi"},
                                "requests": {"cpu": "14", "memory": "1024Mi"},
                            },
                        }
                    ]
                }
            },
        }
    },
}


def test_a_ray_worker_group_requesting_more_cpu_than_its_limit_is_refused():
    assert found_by([VECORRO], "requests-within-limits") == [
        (
            "mandatory",
            "RayService vllm: spec.rayClusterConfig.workerGroupSpecs[0].template.spec container ray-worker: "
            "resources.requests.cpu 32 exceeds resources.limits.cpu 16; the API server refuses the pod template "
            "(a request must be at most its limit)",
        )
    ]


def test_the_same_group_on_ray_io_v1_is_refused_too():
    current = copy.deepcopy(VECORRO)
    current["apiVersion"] = "ray.io/v1"
    assert [e for e, _ in found_by([current], "requests-within-limits")] == ["mandatory"]


def test_requests_within_limits_on_a_v1alpha1_head_are_silent():
    assert found_by([RAY_DOC_CLUSTER], "requests-within-limits") == []
    fixed = copy.deepcopy(VECORRO)
    worker = fixed["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"]["requests"]["cpu"] = 16
    assert found_by([fixed], "requests-within-limits") == []


def test_every_pod_rule_is_open_to_custom_resources():
    # A policy that lists the pod-bearing kinds as a plain tuple skips the CRs only the generic walk reads
    # (ray.io/v1alpha1, operator CRs): S32 did until issue 32. api-schema-valid is no pod rule: it reads Kubernetes' own
    # kinds against their own OpenAPI schema (a custom resource's schema is its CRD's: crd-validation-rules).
    closed = [
        p.name
        for p in POLICIES
        if "kubernetes:apps/v1:StatefulSet" in tuple(p.resource_types)
        and not isinstance(p.resource_types, WorkloadTypes)
        and p.name != "api-schema-valid"
    ]
    assert closed == []
