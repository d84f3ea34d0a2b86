"""docs/policies.md is generated from the registry and kept in sync; every policy documents itself."""

import re
from pathlib import Path

import pytest

from policies import POLICIES
from policies.check import load_resources, manifest_files
from policies.docs import POD_TEMPLATE_PATHS, render
from policies.framework import DOCS_PAGE
from policies.kube import WORKLOAD_TYPES
from policies.registry import evaluate

ROOT = Path(__file__).resolve().parents[2]
from tests.conftest import shared_path  # noqa: E402

REGENERATE = f"python -m policies docs --out {DOCS_PAGE}"


def test_docs_page_is_in_sync_with_the_registry():
    page = ROOT / DOCS_PAGE
    assert page.exists(), f"{DOCS_PAGE} is missing: run `{REGENERATE}`"
    assert page.read_text(encoding="utf-8") == render(), f"{DOCS_PAGE} is out of date: run `{REGENERATE}`"


@pytest.mark.parametrize("policy", POLICIES, ids=[p.name for p in POLICIES])
def test_every_policy_documents_why(policy):
    assert len(policy.rationale.strip()) >= 80, (
        f"policy {policy.name} has no rationale (or a stub): give Policy(rationale=...) the reason it exists, with a "
        f"public source, then run `{REGENERATE}`"
    )
    assert "../shared" not in policy.rationale and ".md §" not in policy.rationale, (
        f"policy {policy.name}: the rationale cites a file outside the repository; cite a public URL"
    )


@pytest.mark.parametrize("policy", POLICIES, ids=[p.name for p in POLICIES])
def test_every_policy_has_a_section_with_its_anchor(policy):
    assert f"\n## {policy.name}\n" in render()
    assert policy.docs_anchor == f"{DOCS_PAGE}#{policy.name}"


def test_every_workload_kind_names_where_its_pod_templates_are():
    kinds = {t.rsplit(":", 1)[-1] for t in WORKLOAD_TYPES}
    assert kinds <= set(POD_TEMPLATE_PATHS), (
        f"add the pod spec paths of {sorted(kinds - set(POD_TEMPLATE_PATHS))} to policies/docs.py"
    )


def test_messages_cite_nothing_outside_the_repository():
    corpus = shared_path("corpus", "manifests")
    outside = re.compile(r"\.md\b|§|catalogue row|\.\./shared")
    bad = [(v.policy, v.message) for v in evaluate(load_resources(manifest_files([str(corpus)]))) if outside.search(v.message)]
    assert bad == []


def test_docs_command_writes_the_page(tmp_path):
    from policies.docs import main

    assert main(["--out", str(tmp_path / "p.md")]) == 0
    assert (tmp_path / "p.md").read_text(encoding="utf-8") == render()
