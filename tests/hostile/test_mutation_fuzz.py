"""tools/fuzz_check.py over both corpora, a few derandomized cases in-process: no policy, reader or report step raises
on a mistyped real manifest. Session 44 ran it at length (docs/limits.md); this keeps a sample of it in CI, and a
policy made to raise shows the fuzzer would say so."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import policies.registry as registry
from tests.conftest import ROOT, shared_path


def _fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_check", ROOT / "tools" / "fuzz_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _corpora() -> list[str]:
    return [str(shared_path("corpus", "manifests")), str(shared_path("corpus", "manifests-v2"))]


def test_mistyped_corpus_manifests_raise_nowhere():
    summary = _fuzzer().run(_corpora(), seed=44, cases=120)
    assert summary["cases"] == 120 and summary["raised"] == 0, summary["sites"]


def test_the_fuzzer_reports_a_policy_that_raises(monkeypatch, tmp_path: Path):
    policy = next(p for p in registry.POLICIES if p.name == "image-tag-pinned")

    def boom(resource, config):
        raise TypeError("x")

    broken = dataclasses.replace(policy, check_resource=boom)
    monkeypatch.setattr(registry, "POLICIES", tuple(broken if p is policy else p for p in registry.POLICIES))
    summary = _fuzzer().run(_corpora(), seed=44, cases=5, out=tmp_path)
    (site,) = summary["sites"].values()
    assert summary["raised"] == 5 and site["stage"] == "resource image-tag-pinned" and Path(site["case"]).is_file()
