"""Package layout (metadata lives in pyproject.toml): three folders ship under public names.

``components/`` ships as ``llm_serving`` (the library), ``policies/`` as ``llm_serving_policies``
(the policy pack) and ``stacks/`` as ``llm_serving_plan`` (the offline plan engine; its public
entry is ``llm_serving_plan.plan_program``). setup.py only because the lists of subpackages are
computed (a new folder ships without anyone editing a list; tests/packaging checks the wheel holds
every module) and because of the one build step below.

The library imports itself relatively. The pack and the engine import ``components.``,
``policies.`` and ``stacks.`` absolutely (the repository's one-way flow, stacks -> policies ->
components, and ``python -m stacks`` / ``python -m policies`` in a checkout). So that the installed
copies never use, and never claim, those three names (a consumer's own ``components/`` stays
theirs), the build rewrites each such import statement of the copies it ships to the public name;
nothing else in a file changes, and the checkout's files are untouched.
"""

import re
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

# Folder in this repository -> the name it ships under.
PUBLIC_NAMES = {"components": "llm_serving", "policies": "llm_serving_policies", "stacks": "llm_serving_plan"}
_FROM = re.compile(r"^(\s*)from[ \t]+(components|policies|stacks)(?=[. \t])", re.MULTILINE)
_IMPORT = re.compile(r"^(\s*)import[ \t]+(components|policies|stacks)[ \t]*$", re.MULTILINE)


def public_imports(source: str) -> str:
    """``source`` with every absolute import of a repository folder renamed to its public name."""
    source = _FROM.sub(lambda m: f"{m[1]}from {PUBLIC_NAMES[m[2]]}", source)
    return _IMPORT.sub(lambda m: f"{m[1]}import {PUBLIC_NAMES[m[2]]} as {m[2]}", source)


class BuildPy(build_py):
    """Copies the packages, then renames the absolute imports of the shipped pack and engine."""

    def build_module(self, module, module_file, package):  # noqa: D102
        written = super().build_module(module, module_file, package)
        top = package.split(".")[0] if isinstance(package, str) else package[0]
        # An editable install links the checkout's own files: never rewritten (docs/reuse.md).
        if top != "llm_serving" and not getattr(self, "editable_mode", False) and written and written[0].endswith(".py"):
            path = Path(written[0])
            text = public_imports(path.read_text(encoding="utf-8"))
            path.unlink()  # a new file, never a write through a link to the source
            path.write_text(text, encoding="utf-8")
        return written


def packages(folder: str) -> list[str]:
    name = PUBLIC_NAMES[folder]
    return [name] + [f"{name}.{p}" for p in find_packages(folder)]


setup(
    package_dir={name: folder for folder, name in PUBLIC_NAMES.items()},
    packages=[p for folder in PUBLIC_NAMES for p in packages(folder)],
    package_data={
        "llm_serving": ["py.typed", "**/*.json", "**/*.yaml", "**/*.csv", "**/*.toml"],
        # policies/crd/cel_rules.json: the CRDs' CEL rules the pack evaluates (tools/crd_cel_rules.py).
        "llm_serving_policies": ["**/*.json"],
    },
    cmdclass={"build_py": BuildPy},
)
