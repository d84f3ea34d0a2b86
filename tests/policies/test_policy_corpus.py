"""The policy pack over real third-party LLM-serving manifests (../shared/corpus, see its PROVENANCE.md),
and `python -m policies check` as a pull-request gate."""

import subprocess
import sys
from pathlib import Path

import pytest

from policies.check import load_resources, manifest_files
from policies.framework import evaluate

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "manifests"


@pytest.fixture(scope="module")
def corpus_findings():
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} is absent (the shared corpus is kept beside the project, not in it)")
    violations = evaluate(load_resources(manifest_files([str(CORPUS)])))
    return {(Path(v.resource.split("#")[0]).name, v.policy) for v in violations}


# What the pack finds in the corpus, reviewed by hand against each manifest.
EXPECTED = {
    # KServe's own Hugging Face sample: GPU predictor with KServe's default CPU-80% HPA.
    ("docs__samples__storage__hf__hf_isvc.yaml", "gpu-workload-no-resource-metric-hpa"),
    # vllm/vllm-openai:latest, lmsysorg/sglang:latest, alpine/git (no tag).
    ("config__manifests__vllm__gpu-deployment.yaml", "image-tag-pinned"),
    ("config__manifests__sglang__gpu-deployment.yaml", "image-tag-pinned"),
    ("docs__examples__sglang__lws.yaml", "image-tag-pinned"),
    ("examples__online_serving__prometheus_grafana__k8s-monitoring__vllm-deployment.yaml", "image-tag-pinned"),
    ("blueprints__inference__vllm-ray-gpu-deepseek__ray-vllm-deepseek.yml", "image-tag-pinned"),
    # GKE's Gemma samples: no startup or readiness probe; the 27B one has an unbounded /dev/shm.
    ("ai-ml__llm-serving-gemma__vllm__vllm-3-1b-it.yaml", "llm-startup-probe-budget"),
    ("ai-ml__llm-serving-gemma__vllm__vllm-3-27b-it.yaml", "llm-startup-probe-budget"),
    ("ai-ml__llm-serving-gemma__vllm__vllm-3-27b-it.yaml", "tensor-parallel-requires-dshm"),
    ("docs__examples__vllm__GPU__lws.yaml", "llm-startup-probe-budget"),
    ("samples__autoscaling__deploy.yaml", "llm-startup-probe-budget"),
    ("samples__heterogeneous__deepseek-coder-7b-l20-deployment.yaml", "llm-startup-probe-budget"),
    ("examples__online_serving__prometheus_grafana__k8s-monitoring__vllm-deployment.yaml", "llm-startup-probe-budget"),
    # HF_TOKEN as a literal env value (an envsubst placeholder in the sample).
    ("docs__examples__sglang__lws.yaml", "no-literal-secret-env"),
    ("docs__examples__vllm__GPU__lws.yaml", "no-literal-secret-env"),
    # AIBrix's L20 sample passes a literal OpenAI-shaped key: `--api-key sk-...` in the command.
    ("samples__heterogeneous__deepseek-coder-7b-l20-deployment.yaml", "no-literal-secret-env"),
    # KubeRay (S18): heads without num-gpus "0" (ai-on-eks x2, data-on-eks, KubeRay's high-throughput
    # sample); in-tree autoscaling without idleTimeoutSeconds (both ai-on-eks RayServices); a worker group
    # without maxReplicas (high-throughput sample: replicas 4, CRD default max 2147483647); GPU workers
    # without the nvidia.com/gpu toleration (both KubeRay samples target GKE, whose admission adds it; the
    # data-on-eks one pairs with an untainted NodePool in the corpus, so it schedules there, but not on a
    # tainted GPU pool such as this project's).
    ("blueprints__inference__vllm-ray-gpu-deepseek__ray-vllm-deepseek.yml", "kuberay-gpu-hygiene"),
    ("blueprints__inference__vllm-rayserve-gpu__ray-service-vllm.yaml", "kuberay-gpu-hygiene"),
    ("data-stacks__ray-on-eks__examples__ray-batch-inference__03-rayservice-deepseek-r1-8b.yaml", "kuberay-gpu-hygiene"),
    ("ray-operator__config__samples__ray-service.high-throughput-llm.yaml", "kuberay-gpu-hygiene"),
    ("ray-operator__config__samples__ray-service.llm-serve.yaml", "kuberay-gpu-hygiene"),
    # ai-on-eks DeepSeek RayService: the GPU worker mounts its own memory /dev/shm without a sizeLimit
    # (KubeRay's injected one would have been sized to the memory limit).
    ("blueprints__inference__vllm-ray-gpu-deepseek__ray-vllm-deepseek.yml", "tensor-parallel-requires-dshm"),
    # AIBrix's TP=4 sample asks for one GPU and mounts no /dev/shm.
    ("samples__kvcache__vineyard__deployment-tp.yaml", "tensor-parallel-requires-dshm"),
    ("samples__kvcache__vineyard__deployment-tp.yaml", "vllm-tp-matches-gpu-limit"),
}


def test_the_pack_finds_exactly_the_reviewed_problems_in_the_corpus(corpus_findings):
    assert corpus_findings == EXPECTED


def run_check(*args):
    return subprocess.run([sys.executable, "-m", "policies", "check", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_check_passes_what_the_plan_renders(tmp_path):
    plan = subprocess.run([sys.executable, "-m", "stacks", "plan", "prod", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert plan.returncode == 0, plan.stderr
    proc = run_check(str(tmp_path / "kubernetes"))
    assert (proc.returncode, proc.stdout) == (0, "no violations\n")


def test_check_fails_a_manifest_with_a_mandatory_violation(tmp_path):
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - {name: vllm, image: 'vllm/vllm-openai:latest', command: [vllm, serve], args: [m]}\n"
    )
    proc = run_check(str(tmp_path), "--format", "json")
    assert proc.returncode == 1
    assert "image-tag-pinned" in proc.stdout and "llm-startup-probe-budget" in proc.stdout


@pytest.mark.parametrize(
    "args,expected",
    [
        (["/nonexistent/manifests"], "error: /nonexistent/manifests: no such file or folder"),
        (["policies", "--config", "/nonexistent.json"], "error: --config /nonexistent.json: cannot be read as JSON"),
    ],
)
def test_check_input_errors_exit_2(args, expected):
    proc = run_check(*args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(expected)
    assert "Traceback" not in proc.stderr


def test_check_refuses_an_invalid_pack_config(tmp_path):
    (tmp_path / "cfg.json").write_text('{"vllm-gpu-memory-utilization-bounds": {"max": "high"}}')
    proc = run_check("policies", "--config", str(tmp_path / "cfg.json"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: invalid policy configuration:")
