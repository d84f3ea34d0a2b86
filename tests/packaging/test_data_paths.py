"""The pack and the plan engine find components/' data files through the components package, never by walking up
from their own file: the wheel ships components/ as llm_serving, so ``Path(__file__).parents[2] / "components"``
names a folder an installed copy does not have (stop 45's CI: components/litellm_metrics.json not found under
site-packages by tests/packaging/test_install.py)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_WALK_UP = re.compile(r"""(parents\[\d+\]|\.parent)\s*/\s*["']components["']""")


def test_no_module_of_the_pack_or_the_engine_walks_up_to_components():
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("policies", "stacks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _WALK_UP.search(line)
    ]
    assert offenders == [], f"use Path(components.__file__).with_name(...) instead: {offenders}"


def test_the_rule_sees_the_form_it_forbids():
    assert _WALK_UP.search('TABLE = Path(__file__).resolve().parents[2] / "components" / "x.json"')
    assert not _WALK_UP.search('TABLE = Path(components.__file__).resolve().with_name("x.json")')
