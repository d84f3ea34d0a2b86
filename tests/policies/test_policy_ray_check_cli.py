"""`python -m policies check` on third-party KubeRay manifests: S3, S4 and S18 read RayService/RayCluster."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, check_in_process, shared_path

SAMPLE = "ray-project__kuberay/ray-operator__config__samples__ray-service.llm-serve.yaml"


def check(*args: str) -> subprocess.CompletedProcess:
    """The command in a fresh interpreter, for the sample as published; its edits run in this process (the same output)."""
    return subprocess.run(
        [sys.executable, "-m", "policies", "check", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def kuberay_sample(tmp_path):
    """KubeRay's own LLM RayService sample (the reference folder's corpus/), copied so a test can change it."""
    text = shared_path("corpus", "manifests", SAMPLE).read_text()
    path = tmp_path / "ray-service.yaml"
    path.write_text(text)
    return path, text


def findings(proc) -> set[tuple[str, str]]:
    data = json.loads(proc.stdout)
    rows = data["violations"] if isinstance(data, dict) else data  # the DESIGN.md object, or the older list
    return {(v["policy"], v["message"].split(":")[0]) for v in rows}


def test_the_sample_as_published(kuberay_sample):
    path, _ = kuberay_sample
    proc = check(str(path), "--format", "json")
    # Every finding below is advice (docs/policies.md "Enforcement levels"): the sample passes the gate, with advice.
    assert proc.returncode == 0, proc.stderr
    # Reviewed: its GPU workers lack the nvidia.com/gpu toleration (GKE's admission adds it; EKS does not; S15 says
    # so with every GPU pod);
    # its Ray Serve LLM config leaves the Hub model unpinned and sets gpu_memory_utilization 0.75, below S1's band;
    # its GPU workers download Qwen2.5-7B (15 GB) from the Hub with no ephemeral-storage request, and Serve kills a
    # downscaled replica's streams after its default 20 s graceful_shutdown_timeout_s (issue 21).
    # KubeRay creates no PodDisruptionBudget for the GPU workers either, and its GPU worker group selects no GPU
    # type, so Ray Serve may place the 7B engine on any GPU node (S15 on Ray worker groups, issue 32); no
    # NetworkPolicy keeps other pods from the head's Serve port (issue 31, G33). Its engine_kwargs.max_model_len 1024
    # is a demo context for a 7B chat model (S36 advice, hygiene). Its Secret hf_token holds the fill-in
    # '<your-hf-access-token-value>', which the GPU workers take as their token (S28 advice, both ends: the Secret's
    # value and the container that reads it).
    assert findings(proc) == {
        ("hf-token-not-empty", "spec.rayClusterConfig.workerGroupSpecs[0].template.spec container ray-worker"),
        (
            "hf-token-secret-not-placeholder",
            "key hf_token holds the fill-in '<your-hf-access-token-value>', not a Hugging Face token",
        ),
        ("debug-switches-off", "serveConfigV2 application llms llm_configs[0]"),
        ("model-pods-network-isolated", "RayService <default>/ray-serve-llm"),
        ("gpu-pod-tolerates-and-targets", "spec.rayClusterConfig.workerGroupSpecs[0].template.spec"),
        ("serving-app-pdb", "RayService ray-serve-llm"),
        ("termination-drains-streams", "serveConfigV2 application llms llm_configs[0]"),
        ("gpu-pod-ephemeral-storage", "spec.rayClusterConfig.workerGroupSpecs[0].template.spec container ray-worker"),
        ("model-source-pinned", "serveConfigV2 application llms llm_configs[0]"),
        ("vllm-gpu-memory-utilization-bounds", "serveConfigV2 application llms llm_configs[0]"),
        # G38: the sample states no namespace (Checkov CKV_K8S_21 reads that as the default namespace too).
        ("namespace-set", "RayService/ray-serve-llm states no metadata.namespace and no kustomization of the run sets one"),
        ("namespace-set", "Secret/hf-token states no metadata.namespace and no kustomization of the run sets one"),
        # G27 (brief pods49): the GPU worker, Ray Serve's model server, sets no allowPrivilegeEscalation: false.
        ("serving-privilege-escalation", "spec.rayClusterConfig.workerGroupSpecs[0].template.spec container ray-worker"),
    }


def test_a_head_given_a_gpu_is_advised_and_refused_when_raised(kuberay_sample, tmp_path):
    path, text = kuberay_sample
    head_limits = 'limits:\n                cpu: "2"\n                memory: "5Gi"'
    assert head_limits in text
    path.write_text(text.replace(head_limits, head_limits + '\n                nvidia.com/gpu: "1"'))
    proc = check_in_process(str(path), "--format", "json")
    # S18 is advisory (a GPU on the head is waste, not a failure): reported, the gate passes.
    assert proc.returncode == 0, proc.stderr
    assert ("kuberay-gpu-hygiene", "spec.rayClusterConfig.headGroupSpec") in findings(proc)
    config = tmp_path / "raised.json"
    config.write_text(json.dumps({"kuberay-gpu-hygiene": {"enforcementLevel": "mandatory"}}))
    proc = check_in_process(str(path), "--config", str(config), "--format", "json")
    assert proc.returncode == 1
    assert ("kuberay-gpu-hygiene", "spec.rayClusterConfig.headGroupSpec") in findings(proc)


def test_a_worker_shm_without_size_limit_is_s4s(kuberay_sample):
    path, text = kuberay_sample
    worker = "          - name: ray-worker\n            image: rayproject/ray-llm:2.52.0-py311-cu128\n"
    assert worker in text
    mount = worker + "            volumeMounts:\n            - {name: dshm, mountPath: /dev/shm}\n"
    text = text.replace(worker, mount)
    text = text.replace(
        "          containers:\n          - name: ray-worker",
        "          volumes:\n          - {name: dshm, emptyDir: {medium: Memory}}\n          containers:\n          - name: ray-worker",
    )
    path.write_text(text)
    proc = check_in_process(str(path), "--format", "json")
    # The worker's memory limit (32Gi) bounds the memory emptyDir and counts it against the pod: silent, and the volume
    # is S4's (a Ray GPU pod's /dev/shm), so G36 says nothing of it either.
    shm = "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.volumes dshm"
    assert ("memory-emptydir-size-limit", shm) not in findings(proc)
    assert not [f for f in findings(proc) if f[0] == "tensor-parallel-requires-dshm"]
    # Without a memory limit it is unbounded and uncounted: S4 advice on the worker.
    path.write_text(text.replace('                memory: "32Gi"\n', ""))
    proc = check_in_process(str(path), "--format", "json")
    assert ("memory-emptydir-size-limit", shm) not in findings(proc)
    assert [f for f in findings(proc) if f[0] == "tensor-parallel-requires-dshm"]
