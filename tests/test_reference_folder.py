"""The reference folder (third-party CRDs, chart data, corpus): one configurable location, one
visible line when it is absent, a failure instead of a skip under CI, and nothing in the product
that reads it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import ROOT

# One test that reads the reference folder and one that does not.
TARGET = [
    "tests/builders/test_ray_cluster_builder.py::test_operator_release_is_pinned_to_the_shared_chart_and_its_values_exist",
    "tests/capacity/test_layout.py::test_middle_stages_hold_no_embedding",
]


def run_pytest(tmp_path, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "LLM_SERVING_REFERENCE")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *TARGET],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_absent_folder_skips_with_one_line_saying_how_to_provide_it(tmp_path):
    proc = run_pytest(tmp_path, LLM_SERVING_REFERENCE=str(tmp_path / "none"))
    assert proc.returncode == 0, proc.stdout
    lines = [line for line in proc.stdout.splitlines() if line.startswith("reference folder absent")]
    assert lines == [
        f"reference folder absent: 1 test skipped (charts/ 1); set LLM_SERVING_REFERENCE=PATH (now "
        f"{tmp_path / 'none'}; default ../shared beside the checkout) or run `python tools/fetch_reference.py` "
        f"to fill it (docs/reference-data.md)"
    ]
    assert re.search(r"\b1 passed, 1 skipped\b", proc.stdout)


def test_absent_folder_fails_under_ci(tmp_path):
    proc = run_pytest(tmp_path, LLM_SERVING_REFERENCE=str(tmp_path / "none"), CI="true")
    assert proc.returncode == 1, proc.stdout
    assert "CI=true: " in proc.stdout and "1 failed, 1 passed" in proc.stdout
    assert "reference folder absent" not in proc.stdout


def test_the_product_reads_nothing_beside_the_repository():
    """No module of the product names the folder beside the checkout or one of its notes, in code or in a docstring:
    they cite the upstream repository, tag and path instead."""
    pattern = re.compile(
        r"\.\./shared|shared/(reference|crds|charts|corpus)|LLM_SERVING_REFERENCE|DESIGN\.md|"
        r"\b(karpenter|kserve|timeouts|vllm|vllm_memory_model|cold_start|prometheus_adapter|pulumi_offline|"
        r"policy_catalog)\.md\b|\b(aws_gpu_instances|vllm_kv_calibration)\.csv\b"
    )
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for folder in ("components", "stacks", "policies")
        for p in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []
