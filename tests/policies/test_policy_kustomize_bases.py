"""Kustomize bases: an object a kustomization of the run lists, and that a patch of the run targets, lacks by design
what the patch adds; a kustomization's ``images`` entry runs another tag than the base's.

Built from review 28's reproducers (/tmp/review/kust, kust2, kust3): the base/overlay split of Kubernetes' own
Kustomize example (kubernetes.io/docs/tasks/manage-kubernetes-objects/kustomization/: a base Deployment, an overlay
whose patch names it and sets one field; ``images`` with ``newTag``, kubernetes-sigs/kustomize api/types/image.go).
The API server never sees the base alone (``kustomize build overlay`` merges the patch first), so the base's missing
volume (G45) or GPU limit (G13) is advice there; a base no patch targets keeps its findings.
"""

from __future__ import annotations

import json
from pathlib import Path

from policies.check import main
from policies.reading.kustomize import image_rewritten

OLLAMA_BASE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama}
spec:
  replicas: 1
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
      - name: ollama
        image: ollama/ollama:0.5.4
        volumeMounts:
        - {name: models, mountPath: /root/.ollama}
        resources:
          limits: {memory: 16Gi, nvidia.com/gpu: 1}
"""
VOLUMES_PATCH = """apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama}
spec:
  template:
    spec:
      volumes:
      - name: models
        persistentVolumeClaim: {claimName: ollama-models}
"""
VLLM_BASE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  replicas: 1
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--max-model-len", "4096"]
        resources:
          requests: {cpu: "2", memory: 8Gi}
          limits: {memory: 8Gi}
"""
GPU_PATCH = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
      - name: vllm
        resources:
          limits: {nvidia.com/gpu: 1}
"""
GEMMA_BASE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  replicas: 1
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.3
        args: ["--model", "google/gemma-3-27b-it", "--max-model-len", "8192", "--tensor-parallel-size", "1"]
        resources:
          limits: {nvidia.com/gpu: 1}
"""


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _levels(root: Path, capsys, policy: str) -> list[str]:
    main([str(root), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["violations"]
    return [r["enforcement"] for r in rows if r["policy"] == policy and "/base/" in r["file"]]


def test_base_whose_overlay_adds_the_volume_is_advice(tmp_path, capsys):
    files = {
        "base/deploy.yaml": OLLAMA_BASE,
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "overlay/kustomization.yaml": "resources: [../base]\npatches:\n- path: volumes.yaml\n",
        "overlay/volumes.yaml": VOLUMES_PATCH,
    }
    _tree(tmp_path, files)
    assert _levels(tmp_path, capsys, "pod-template-api-valid") == ["advisory"]
    # Careful form: the same base with no overlay patching it is judged whole, and the API server refuses it.
    (tmp_path / "overlay" / "kustomization.yaml").write_text("resources: [../base]\n")
    (tmp_path / "overlay" / "volumes.yaml").unlink()
    assert _levels(tmp_path, capsys, "pod-template-api-valid") == ["mandatory"]


def test_base_whose_gpu_overlay_adds_the_limit_is_advice(tmp_path, capsys):
    files = {
        "base/deploy.yaml": VLLM_BASE,
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "overlays/gpu/kustomization.yaml": "resources: [../../base]\npatches:\n- path: gpu.yaml\n",
        "overlays/gpu/gpu.yaml": GPU_PATCH,
    }
    _tree(tmp_path, files)
    assert _levels(tmp_path, capsys, "gpu-engine-has-gpu-limit") == ["advisory"]
    # A patch of another object (a Deployment of another name) does not make this base incomplete.
    (tmp_path / "overlays" / "gpu" / "gpu.yaml").write_text(GPU_PATCH.replace("name: vllm}", "name: other}"))
    assert _levels(tmp_path, capsys, "gpu-engine-has-gpu-limit") == ["mandatory"]


def test_patch_target_entry_marks_the_base(tmp_path, capsys):
    # A JSON 6902 patch names its object in `target`, not in the patch file (kustomize api/types/patch.go).
    files = {
        "base/deploy.yaml": VLLM_BASE,
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "overlays/gpu/kustomization.yaml": (
            "resources: [../../base]\npatches:\n- target: {kind: Deployment, name: vllm}\n"
            "  patch: |-\n    - op: add\n      path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu\n"
            "      value: 1\n"
        ),
    }
    _tree(tmp_path, files)
    assert _levels(tmp_path, capsys, "gpu-engine-has-gpu-limit") == ["advisory"]


def test_release_of_a_retagged_base_is_unknown(tmp_path, capsys):
    files = {
        "base/deploy.yaml": GEMMA_BASE,
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "prod/kustomization.yaml": "resources: [../base]\nimages:\n- name: vllm/vllm-openai\n  newTag: v0.10.1\n",
    }
    _tree(tmp_path, files)
    assert _levels(tmp_path, capsys, "engine-supports-model-architecture") == []
    # Careful form: an `images` entry for another image leaves the base's tag the release run (0.6.3 lacks Gemma 3).
    (tmp_path / "prod" / "kustomization.yaml").write_text("resources: [../base]\nimages:\n- name: nginx\n  newTag: '1.27'\n")
    assert _levels(tmp_path, capsys, "engine-supports-model-architecture") == ["mandatory"]


def test_image_rewritten_matches_the_name_without_tag():
    assert image_rewritten({"vllm/vllm-openai"}, "vllm/vllm-openai:v0.6.3")
    assert image_rewritten({"docker.io/vllm/vllm-openai"}, "vllm/vllm-openai@sha256:" + "0" * 64)
    assert not image_rewritten({"vllm/vllm-openai"}, "vllm/vllm-openai-rocm:v0.6.3")
    assert not image_rewritten(set(), "vllm/vllm-openai:v0.6.3")


def test_options_of_a_retagged_base_are_judged_without_its_tag(tmp_path, capsys):
    # --enable-sleep-mode is an option of vLLM 0.7.0 on: v0.6.3's parser refuses it, but the overlay runs v0.10.1.
    base = GEMMA_BASE.replace('"--tensor-parallel-size", "1"', '"--enable-sleep-mode"')
    files = {
        "base/deploy.yaml": base.replace("google/gemma-3-27b-it", "Qwen/Qwen2.5-0.5B-Instruct"),
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
    }
    _tree(tmp_path, files)
    assert _levels(tmp_path, capsys, "engine-options-exist") == ["mandatory"]
    _tree(tmp_path, {"prod/kustomization.yaml": "resources: [../base]\nimages:\n- name: vllm/vllm-openai\n  newTag: v0.10.1\n"})
    assert "mandatory" not in _levels(tmp_path, capsys, "engine-options-exist")


def test_never_built_tag_of_a_retagged_base_is_not_judged(tmp_path, capsys):
    # Review 45 #9 (/tmp/review45/m/kz4): kserve/huggingfaceserver was first built at v0.12, so v0.11.1 never pulls
    # (container-can-start blocks); an overlay's images: newTag v0.15.2 deploys a tag that exists: silent.
    base = VLLM_BASE.replace("vllm/vllm-openai:v0.10.1", "kserve/huggingfaceserver:v0.11.1")
    _tree(tmp_path, {"base/deploy.yaml": base, "base/kustomization.yaml": "resources: [deploy.yaml]\n"})
    assert "mandatory" in _levels(tmp_path, capsys, "container-can-start")
    _tree(
        tmp_path,
        {"prod/kustomization.yaml": "resources: [../base]\nimages:\n- name: kserve/huggingfaceserver\n  newTag: v0.15.2\n"},
    )
    assert "mandatory" not in _levels(tmp_path, capsys, "container-can-start")


HPA = """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: vllm}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Pods
    pods: {metric: {name: vllm_num_requests_waiting}, target: {type: AverageValue, averageValue: "5"}}
"""


def test_replica_count_a_kustomization_sets_makes_scale_to_zero_advice(tmp_path, capsys):
    # Review 45 #8 (/tmp/review45/m/kz): base replicas 0 under an HPA (minReplicas 1), an overlay whose kustomization
    # sets `replicas: [{name: vllm, count: 1}]` (kustomize ReplicaCountTransformer): advice, not a block. The base
    # with no such entry still blocks (spent set 47 SecureCloudOps: horizontal.go ScalingDisabled).
    base = VLLM_BASE.replace("replicas: 1", "replicas: 0")
    files = {
        "base/deploy.yaml": base,
        "base/hpa.yaml": HPA,
        "base/kustomization.yaml": "resources: [deploy.yaml, hpa.yaml]\n",
    }
    _tree(tmp_path, files)
    assert _levels(tmp_path, capsys, "llm-no-scale-to-zero") == ["mandatory"]
    _tree(tmp_path, {"overlays/prod/kustomization.yaml": "resources: [../../base]\nreplicas:\n- name: vllm\n  count: 1\n"})
    assert _levels(tmp_path, capsys, "llm-no-scale-to-zero") == ["advisory"]
    # A replicas: entry for another object leaves the block.
    _tree(tmp_path, {"overlays/prod/kustomization.yaml": "resources: [../../base]\nreplicas:\n- name: other\n  count: 1\n"})
    assert _levels(tmp_path, capsys, "llm-no-scale-to-zero") == ["mandatory"]
