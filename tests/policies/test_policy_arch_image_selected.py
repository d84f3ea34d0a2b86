"""G55 arch-image-has-arch-selector: a single-architecture image in a pod that does not select that architecture
(advice). Minimal hand-written shapes of the cited files (only the fields the rule reads)."""

from __future__ import annotations

from policy_fixtures import found_by

from policies.k8s_generic.arch_image_selected import image_arch

POLICY = "arch-image-has-arch-selector"


def _workload(kind: str, name: str, container: dict, **pod) -> dict:
    api = "apps/v1"
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **pod}},
        },
    }


# Set 20: Coosis/k8s-vllm-router benchmarks/baseline/3_pods_20260423/deployment.yaml at
# 0b898b62e463f82d05068eb4124b7bc5c12febd5.
COOSIS = _workload("Deployment", "vllm", {"name": "vllm", "image": "vllm/vllm-openai-cpu:v0.19.1-arm64"})
# Found by grepping stored repositories: sapcc/helm-charts system/cc-ceph-csi/disk-zapping.yaml at
# 14641da523ef6c0eb4fbf82d52697744e7b09101 (a DaemonSet on a role label, sapcc/pause-amd64:3.1).
SAPCC = _workload(
    "DaemonSet",
    "ceph-storage-reset",
    {"name": "pause", "image": "keppel.global.cloud.sap/ccloud-dockerhub-mirror/sapcc/pause-amd64:3.1"},
    nodeSelector={"kubernetes.metal.cloud.sap/role": "runtime-worker"},
)


def test_a_single_architecture_image_with_no_arch_selector_is_advice():
    ((level, message),) = found_by([COOSIS], POLICY)
    assert (level, message) == (
        "advisory",
        "container vllm: image vllm/vllm-openai-cpu:v0.19.1-arm64 is an arm64-only build (its name says so) and the pod "
        "has no kubernetes.io/arch nodeSelector or node affinity, so on a node of another architecture it fails with "
        "'exec format error'; add nodeSelector kubernetes.io/arch: arm64, or use the multi-arch tag",
    )
    ((level, message),) = found_by([SAPCC], POLICY)
    assert level == "advisory" and "amd64-only build" in message


def test_a_pod_that_names_its_architecture_or_pool_stays_silent():
    selected = _workload(
        "Deployment", "vllm", COOSIS["spec"]["template"]["spec"]["containers"][0], nodeSelector={"kubernetes.io/arch": "arm64"}
    )
    assert found_by([selected], POLICY) == []
    # alisachen-google/gcp-dynamo-cuj dynamo-disagg-sweep/dsr1-sweep/manifests/m4r-midcurve-rdmakv.yaml at
    # 0dd63192144f001b35049800be0332fce4c99942: an -arm64 diagnostic image on GKE node pool np-3, tolerating GKE's
    # kubernetes.io/arch=arm64 taint.
    gke = _workload(
        "Deployment",
        "decode",
        {"name": "nccl", "image": "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic-arm64:v1.0.7"},
        nodeSelector={"cloud.google.com/gke-nodepool": "np-3"},
        tolerations=[{"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}],
    )
    assert found_by([gke], POLICY) == []
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}
                ]
            }
        }
    }
    assert (
        found_by([_workload("Deployment", "p", SAPCC["spec"]["template"]["spec"]["containers"][0], affinity=affinity)], POLICY)
        == []
    )


def test_only_an_architecture_word_counts():
    assert image_arch("vllm/vllm-openai:v0.10.0") is None
    assert image_arch("ghcr.io/org/armada:1.0") is None  # "arm" inside a word
    assert image_arch("vllm/vllm-openai:nightly-aarch64") == "arm64"
    assert image_arch("arm64v8/ubuntu:22.04") == "arm64"
    assert image_arch("vllm/vllm-openai-cpu:v0.19.1-arm64@sha256:" + "a" * 64) is None
