"""benchmarks/policies_check.py --corpus: `policies check` over the corpus side by side with Checkov (a smoke run here:
one round, Checkov only where installed; the figures themselves are the benchmark's, not a test's)."""

import subprocess
import sys

from tests.conftest import ROOT, shared_path


def test_the_corpus_benchmark_prints_medians_the_ratio_and_the_targets():
    shared_path("corpus", "manifests")  # skips (or fails under CI) without the corpus
    proc = subprocess.run(
        [sys.executable, "benchmarks/policies_check.py", "--corpus", "--runs", "1", "--checkov", "/nonexistent"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| policies check | " in proc.stdout
    assert "policies check < 1 s: " in proc.stdout
    # What the command spends importing, the pack's largest fixed cost (issue 32).
    assert "`python -X importtime -m policies check`: " in proc.stdout and " modules (median)" in proc.stdout
    # Checkov is not a dependency; without it the ratio says n/a rather than a number.
    assert ("checkov: n/a" in proc.stdout) or ("Checkov / policies check (medians): " in proc.stdout)
