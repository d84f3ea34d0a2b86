"""S2 sizes the GPU from whatever in a pod's node selection pins it (policies/reading/gpu_selection.py), and a run
that cannot size a server says so (policies check's summary and JSON `unsized`)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, messages, resource, set_arg

from policies.reading.gaps import sizing_gaps
from policies.reading.gpu_selection import gpu_of_label, pinned_gpu
from policies.vllm.max_model_len_fits_kv_cache import POLICY

ROOT = Path(__file__).resolve().parents[2]


def third_party(selector=None, affinity=None, model="meta-llama/Llama-3.3-70B-Instruct", tp="8", gpus="8"):
    """A vLLM Deployment as public samples write it: the GPU named by a node label, not by our annotation."""
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod["nodeSelector"] = dict(selector or {})
    if affinity:
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": affinity}}}
    container = pod["containers"][0]
    container["args"][0] = model
    set_arg(container, "tensor-parallel-size", tp)
    container["resources"]["limits"]["nvidia.com/gpu"] = gpus
    container["resources"]["requests"]["nvidia.com/gpu"] = gpus
    return resource(DEPLOYMENT_TYPE, props)


@pytest.mark.parametrize(
    "label,value,gpu",
    [
        ("node.kubernetes.io/instance-type", "p4d.24xlarge", "A100-40GB"),
        ("node.kubernetes.io/instance-type", "g6e.12xlarge", "L40S"),
        ("beta.kubernetes.io/instance-type", "p5.48xlarge", "H100"),
        ("karpenter.k8s.aws/instance-family", "g5", "A10G"),
        ("karpenter.k8s.aws/instance-gpu-name", "l40s", "L40S"),
        ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "A100-80GB"),
        ("nvidia.com/gpu.product", "NVIDIA-L4", "L4"),
        ("cloud.google.com/gke-accelerator", "nvidia-l4", "L4"),
        ("cloud.google.com/gke-accelerator", "nvidia-h100-80gb", "H100"),
        ("cloud.google.com/gke-accelerator", "nvidia-tesla-a100", "A100-40GB"),
    ],
)
def test_each_label_names_its_gpu(label, value, gpu):
    assert gpu_of_label(label, value).name == gpu


def test_the_instance_type_form_of_s2_fires():
    # Llama 3.3 70B in bf16 is ~131 GiB: one A100-40GB of a p4d.24xlarge cannot hold it.
    bad = third_party({"node.kubernetes.io/instance-type": "p4d.24xlarge"}, tp="1", gpus="1")
    (msg,) = messages(POLICY, bad)
    assert msg.startswith("container kserve-container: meta-llama/Llama-3.3-70B-Instruct on 1x A100-40GB (")
    assert "does not start: weights need" in msg


def test_the_careful_instance_type_form_stays_quiet():
    # The same model over the instance's eight GPUs fits.
    assert messages(POLICY, third_party({"node.kubernetes.io/instance-type": "p4d.24xlarge"})) == []


def test_required_affinity_terms_size_the_smallest_gpu_allowed():
    terms = [
        {
            "matchExpressions": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p4de.24xlarge", "p4d.24xlarge"]}
            ]
        }
    ]
    pin = pinned_gpu(
        {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}}
    )
    assert pin.gpu.name == "A100-40GB"  # the pod may land on the 40 GB part: size for it
    (msg,) = messages(POLICY, third_party(affinity=terms, tp="1", gpus="1"))
    assert "on 1x A100-40GB" in msg


def test_gpu_product_label_and_gke_accelerator_pin_the_gpu_too():
    assert (
        messages(
            POLICY,
            third_party({"nvidia.com/gpu.product": "NVIDIA-L4"}, model="meta-llama/Llama-3.1-8B-Instruct", tp="1", gpus="1"),
        )
        == []
    )
    assert len(messages(POLICY, third_party({"cloud.google.com/gke-accelerator": "nvidia-l4"}, tp="1", gpus="1"))) == 1


def test_an_unknown_gpu_is_not_guessed_and_is_reported_as_unsized():
    unknown = third_party({"nvidia.com/gpu.product": "NVIDIA-L20"}, tp="1", gpus="1")
    assert messages(POLICY, unknown) == []
    (gap,) = sizing_gaps([unknown])
    assert gap.reason == "the GPU its node selection pins is not in the catalogue (nvidia.com/gpu.product=NVIDIA-L20)"


def test_an_unknown_model_is_reported_as_unsized():
    (gap,) = sizing_gaps([third_party({"node.kubernetes.io/instance-type": "p4d.24xlarge"}, model="acme/private-70b")])
    assert (gap.model, gap.gpu) == ("acme/private-70b", "A100-40GB")
    assert gap.reason.startswith("model acme/private-70b is not in the catalogue or the lock file")
    assert sizing_gaps([third_party({"node.kubernetes.io/instance-type": "p4d.24xlarge"})]) == []


def test_check_says_what_it_could_not_size_in_the_summary_and_the_json(tmp_path):
    import yaml

    props = third_party({}, model="acme/private-70b").props
    (tmp_path / "d.yaml").write_text(yaml.safe_dump(props))

    def run(*a: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "policies", "check", str(tmp_path), *a], cwd=ROOT, capture_output=True, text=True, timeout=120
        )

    text = run()
    assert (
        "1 model server could not be sized (unknown model or GPU, or an engine the plan does not model), so whether it starts (S2) was not checked"
        in text.stdout
    )
    assert "[not sized]" in text.stdout and "no violations\n" not in text.stdout
    markdown = run("--format", "markdown").stdout
    assert "**1 model server could not be sized**, so whether it starts was not checked:" in markdown
    assert ": model acme/private-70b is not in the catalogue or the lock file" in markdown
    report = json.loads(run("--format", "json").stdout)
    (row,) = report["unsized"]
    assert row["model"] == "acme/private-70b" and row["gpu"] is None
    assert "no GPU type pinned" in row["reason"]


def test_engines_the_plan_does_not_model_are_reported_as_unsized():
    props = deployment_props()
    props["spec"]["template"]["spec"]["containers"] = [
        {
            "name": "sglang",
            "image": "lmsysorg/sglang:v0.5.2-cu126",
            "command": ["python3", "-m", "sglang.launch_server"],
            "args": ["--model-path", "Qwen/Qwen3-8B"],
            "resources": {"limits": {"nvidia.com/gpu": 1}},
        }
    ]
    (gap,) = sizing_gaps([resource(DEPLOYMENT_TYPE, props)])
    assert (gap.server, gap.model, gap.reason) == (
        "container sglang",
        "Qwen/Qwen3-8B",
        "an SGLang server: the capacity plan models vLLM's memory accounting only",
    )
