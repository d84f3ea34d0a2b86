"""The package's exports: explicit, visible to type checkers, complete, and light to import."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import components
from tests.conftest import ROOT, parse_python


def type_checking_imports() -> dict[str, str]:
    """Names imported under ``if TYPE_CHECKING:`` in components/__init__.py -> their module."""
    tree = parse_python((ROOT / "components" / "__init__.py").read_text())
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                for alias in imp.names:
                    names[alias.asname or alias.name] = imp.module
    return names


def test_type_checkers_see_every_export_where_it_loads_from():
    seen = type_checking_imports()
    assert sorted(seen) == components.__all__
    assert {n: m for n, m in seen.items()} == components._EXPORTS


def test_every_export_resolves():
    for name in components.__all__:
        assert getattr(components, name).__name__ == name


def test_every_component_class_is_exported():
    """A ComponentResource added anywhere in the library is importable from the package (with its Args)."""
    import importlib
    import pkgutil

    import pulumi

    found = set()
    for info in pkgutil.walk_packages(components.__path__, "components."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, pulumi.ComponentResource) and obj.__module__ == info.name:
                found.add(name)
                args = f"{name}Args"
                if hasattr(module, args):
                    found.add(args)
    missing = sorted(found - set(components.__all__))
    assert not missing, f"components/__init__.py does not export {missing}: add them to _EXPORTS and the TYPE_CHECKING imports"


def test_pure_users_do_not_import_the_pulumi_sdk():
    """The config, the capacity plan, the builders, the policy pack and `size` stay free of Pulumi."""
    code = (
        "import sys, components, components.config, components.capacity.plan, components.builders.vllm_service, "
        "policies.registry, stacks.size; "
        "print(sorted(m for m in sys.modules if m == 'pulumi' or m.startswith('pulumi.') or m.startswith('pulumi_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_both_names_are_one_package():
    import llm_serving  # noqa: F401 (the alias the package installs for its other name)
    from llm_serving.config import ModelConfig

    from components.config import ModelConfig as Same

    assert ModelConfig is Same


def test_policies_check_imports_neither_the_sdk_nor_the_config_models(tmp_path):
    """`python -m policies check` runs policies/__main__.py too: the pack (and the SDK) load only when serving it."""
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: team}\n")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "policies", "check", str(manifest)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert not {m for m in imported if m == "pulumi" or m.startswith(("pulumi.", "pulumi_"))}
    # Nor the config models and pydantic (a third of its run time): the names policies read
    # back from rendered objects live in components/builders/labels.py.
    assert "components.config" not in imported and "pydantic" not in imported
