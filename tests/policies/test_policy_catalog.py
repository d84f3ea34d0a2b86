"""The catalogue of policy ids is defined once (policies/catalog.py); the framework, the registry's
order and docs/policies.md derive from it, so a new id is one line there and nothing else."""

import ast
import re

import pytest

from policies import catalog
from policies.catalog import Entry
from policies.docs import LEFT_OUT, render
from policies.registry import POLICIES, catalog_order
from tests.conftest import ROOT, parse_python
from tests.policies.test_policy_framework import toy_policy


def test_every_id_is_one_line_of_the_catalogue_module():
    # Each id is one `Entry(...)` call on one line of policies/catalog.py's _ENTRIES: that line is
    # all a new id adds.
    tree = parse_python((ROOT / "policies" / "catalog.py").read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Entry"
    ]
    assert all(call.lineno == call.end_lineno for call in calls)
    ids = [f"{call.args[0].value}{call.args[1].value}" for call in calls]
    assert sorted(ids) == sorted(e.id for e in catalog.entries())
    assert len({call.lineno for call in calls}) == len(calls)


def test_every_entry_line_fits_the_formatters_line_length():
    # ruff format (pyproject.toml [tool.ruff] line-length) wraps a longer Entry call over several lines, which the test
    # above refuses: a title must be short enough for its line. Checked here so a long title fails in the tests, not
    # only in CI's `ruff format --check` (G62's and S57's widened titles, session 48).
    limit = int(re.search(r"(?m)^line-length\s*=\s*(\d+)", (ROOT / "pyproject.toml").read_text(encoding="utf-8")).group(1))
    long = [
        line.strip()[:60]
        for line in (ROOT / "policies" / "catalog.py").read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith("Entry(") and len(line) > limit
    ]
    assert long == [], f"catalogue lines over {limit} columns: shorten their titles"


def test_adding_one_entry_opens_a_new_id(monkeypatch):
    # The one line a new id needs: one more Entry among the catalogue's entries. Nothing else
    # changes, yet the framework accepts the id, the registry sorts it after S20 and before the
    # general table, and the docs page lists it with its policy.
    new_id = f"S{max(e.number for e in catalog.entries() if e.series == 'S') + 1}"
    with pytest.raises(ValueError, match=f"catalog '{new_id}' is not an id of the policy catalogue"):
        toy_policy(catalog=new_id)

    monkeypatch.setattr(
        catalog, "CATALOGUE", catalog._index(catalog._ENTRIES + (Entry("S", int(new_id[1:]), "a new serving check"),))
    )

    policy = toy_policy(catalog=new_id)
    ordered = sorted([*POLICIES, policy], key=catalog_order)
    at = ordered.index(policy)
    assert ordered[at - 1].catalog.startswith("S") and ordered[at + 1].catalog == "G1"
    page = render([*POLICIES, policy])
    assert f"\n| {new_id} | a new serving check | [{policy.name}](#{policy.name}) |\n" in page
    assert f"\n| {policy.name}" not in render(POLICIES)


def test_catalogue_refuses_a_duplicate_or_an_unknown_series():
    with pytest.raises(ValueError, match="S1: listed twice"):
        catalog._index(catalog._ENTRIES + (Entry("S", 1, "again"),))
    with pytest.raises(ValueError, match="X1: unknown series 'X'"):
        catalog._index(catalog._ENTRIES + (Entry("X", 1, "elsewhere"),))
    with pytest.raises(ValueError, match="G0: number must be >= 1"):
        catalog._index(catalog._ENTRIES + (Entry("G", 0, "zero"),))


def test_catalogue_order_is_series_then_number():
    keys = [catalog.sort_key(e.id) for e in catalog.entries()]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert [e.id for e in catalog.entries()][:2] == ["S1", "S2"]


def test_every_id_is_on_the_docs_page_with_its_title():
    page = render()
    for row in catalog.entries():
        assert re.search(rf"\n\| {row.id} \| {re.escape(row.title)} \| ", page), row.id


def test_left_out_rows_are_catalogue_ids():
    assert [i for ids, _ in LEFT_OUT for i in ids if not catalog.is_id(i)] == []


def test_left_out_rows_have_no_policy():
    # LEFT_OUT says why a row has no policy; a row a policy names (G9 serving-cpu-limit-floor, G42
    # monitor-selects-targets) is not left out, and the docs page must not say it is.
    named = {p.catalog for p in POLICIES}
    assert [i for ids, _ in LEFT_OUT for i in ids if i in named] == []


# A closed set of ids written out anywhere but policies/catalog.py: a regex enumerating the
# numbers of a series, or a whole series as a range such as "S1..S20" or "S1-S20". (Parsing ids
# out of a document with an open pattern such as S\d+ is not a list of ids.)
CLOSED_SET = re.compile(r"[SG]\(\[1-9\]|\|1\[0-9\]\|\d|\bS1\s*(\.\.|-|–|to)\s*S\d+\b")


@pytest.mark.parametrize("folder", ["policies", "stacks", "components", "tests"])
def test_no_other_file_writes_out_the_id_set(folder):
    this = ROOT / "tests" / "policies" / "test_policy_catalog.py"
    offenders = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if path in (this, ROOT / "policies" / "catalog.py"):
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(parse_python(text)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CLOSED_SET.search(node.value):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:80]!r}")
        offenders += [
            f"{path.relative_to(ROOT)}:{n}: comment"
            for n, line in enumerate(text.splitlines(), 1)
            if "#" in line and CLOSED_SET.search(line.split("#", 1)[1])
        ]
    assert offenders == [], "derive ids from policies/catalog.py instead:\n" + "\n".join(offenders)


def test_the_guard_sees_a_closed_set():
    # The guard above would catch the forms this repository used before the catalogue existed.
    for old in (r"^(S([1-9]|1[0-9]|20)|G[0-9]+)$", "catalog is S1..S20 or G<n>", "catalogue S1-S20"):
        assert CLOSED_SET.search(old), old
    for fine in (
        "S15 S19 S20 and the pool-fit check",
        'catalog="S20"',
        "the NodePool checks are S11-S14",
        r"\n\| (S\d+) \| ",
        "rows G<n>",
    ):
        assert not CLOSED_SET.search(fine), fine
