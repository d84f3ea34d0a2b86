"""`pip install .` gives another stack the components as `llm_serving`, typed, and nothing repository-only.

One fresh virtual environment per session. It sees the packages of the environment running the tests
(a ``.pth`` file naming that environment's site-packages folders: the SDKs, setuptools and wheel), not
the base interpreter's, so it works the same whether pytest runs in a virtualenv or not (a venv made
with ``--system-site-packages`` from inside another venv sees only the base interpreter's packages,
and pip then cannot build the wheel). ``--no-deps --no-build-isolation --no-index`` keeps the install
offline and quick. Every check
runs the venv's interpreter from a folder outside the repository, so only the installed copy can
be imported.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

IGNORE = shutil.ignore_patterns(".git", "build", "__pycache__", ".hypothesis", ".pytest_cache", "*.egg-info", ".venv*")


def outer_site_packages() -> list[str]:
    """The site-packages folders of the interpreter running the tests, in its sys.path order."""
    return [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]


def make_venv(folder: Path) -> Path:
    """A new venv at ``folder`` that also sees this environment's packages; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=180)
    python = folder / "bin" / "python"
    inner = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    # Appended after the venv's own site-packages, so the copy installed there is the one imported.
    (Path(inner) / "_outer_environment.pth").write_text("".join(p + "\n" for p in outer_site_packages()))
    return python


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv with this repository pip-installed into it; returns its python."""
    base = tmp_path_factory.mktemp("install")
    source = base / "src"
    shutil.copytree(ROOT, source, ignore=IGNORE)
    python = make_venv(base / "venv")
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"pip install . failed:\n{proc.stdout}\n{proc.stderr}"
    return python


def run_in(python: Path, code: str, cwd: Path) -> str:
    proc = subprocess.run([str(python), "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_installed_package_has_every_module_typed(venv, tmp_path):
    out = json.loads(
        run_in(
            venv,
            """
        import importlib, json, pkgutil, sys
        import llm_serving
        names = sorted(m.name for m in pkgutil.walk_packages(llm_serving.__path__, "llm_serving."))
        for name in names:
            importlib.import_module(name)
        print(json.dumps({
            "file": llm_serving.__file__,
            "modules": names,
            "typed": (__import__("pathlib").Path(llm_serving.__file__).parent / "py.typed").is_file(),
            "exports": {n: type(getattr(llm_serving, n)).__name__ for n in llm_serving.__all__},
        }))
    """,
            tmp_path,
        )
    )
    assert "/venv/lib/" in out["file"], out["file"]
    assert out["typed"], "py.typed is missing from the installed package"
    expected = sorted(
        "llm_serving." + ".".join(p.relative_to(ROOT / "components").with_suffix("").parts).removesuffix(".__init__")
        for p in (ROOT / "components").rglob("*.py")
        if p.name != "__init__.py" or p.parent != ROOT / "components"
    )
    assert out["modules"] == sorted(n.removesuffix(".__init__") for n in expected)
    assert set(out["exports"]) == set(__import__("components").__all__)


def test_the_installed_package_reads_its_own_hardware_data(venv, tmp_path):
    """hardware.toml ships as package data and the records load from the installed copy (setup.py package_data)."""
    out = json.loads(
        run_in(
            venv,
            """
        import json
        from importlib import resources
        from llm_serving.hardware import DATA_FILE, GPUS, INSTANCES
        print(json.dumps({"data": str(resources.files("llm_serving").joinpath(DATA_FILE)),
                          "t4": list(GPUS["T4"].compute_capability), "arch": INSTANCES["g5g.xlarge"].arch}))
    """,
            tmp_path,
        )
    )
    assert "/venv/lib/" in out["data"] and out["data"].endswith("/llm_serving/hardware.toml"), out["data"]
    assert (out["t4"], out["arch"]) == ([7, 5], "arm64")


def test_a_consumers_own_components_package_is_left_alone(venv, tmp_path):
    """Installed, the library imports itself relatively: a project's own `components/` keeps its name."""
    (tmp_path / "components").mkdir()
    (tmp_path / "components" / "__init__.py").write_text("OWNER = 'the consumer'\n")
    out = run_in(
        venv,
        """
        import importlib, pkgutil, llm_serving
        for m in pkgutil.walk_packages(llm_serving.__path__, "llm_serving."):
            importlib.import_module(m.name)
        import components
        print(components.OWNER)
    """,
        tmp_path,
    )
    assert out.strip() == "the consumer"


def test_the_repository_names_stay_unclaimed(venv, tmp_path):
    """The pack and the engine ship as llm_serving_policies / llm_serving_plan: `stacks` and `policies` stay the consumer's."""
    out = run_in(venv, "import importlib.util as u; print(u.find_spec('stacks'), u.find_spec('policies'))", tmp_path)
    assert out.split() == ["None", "None"]


@pytest.mark.parametrize("folder,name", [("stacks", "llm_serving_plan"), ("policies", "llm_serving_policies")])
def test_the_offline_engine_and_the_pack_ship_whole_under_public_names(venv, tmp_path, folder, name):
    """Every module of stacks/ and policies/ imports from the wheel, and none imports a repository name."""
    out = json.loads(
        run_in(
            venv,
            f"""
        import importlib, json, pkgutil, sys
        import {name} as package
        names = sorted(m.name for m in pkgutil.walk_packages(package.__path__, "{name}."))
        for n in names:
            importlib.import_module(n)
        print(json.dumps({{"file": package.__file__, "modules": names,
                          "repository": sorted(m for m in sys.modules if m.split(".")[0] in ("components", "policies", "stacks"))}}))
    """,
            tmp_path,
        )
    )
    assert "/venv/lib/" in out["file"], out["file"]
    expected = sorted(
        ".".join((name, *p.relative_to(ROOT / folder).with_suffix("").parts)).removesuffix(".__init__")
        for p in (ROOT / folder).rglob("*.py")
        if p.name != "__init__.py" or p.parent != ROOT / folder
    )
    assert out["modules"] == expected
    assert out["repository"] == []


PLATFORM = "organization/llm-serving/prod"


@pytest.fixture(scope="module")
def platform_outputs() -> dict:
    """The prod stack's real exports (run from the checkout: the platform program is not part of the wheel)."""
    from stacks.offline import load_stack_file, run_program
    from stacks.plan import outputs_json

    return json.loads(outputs_json(run_program(load_stack_file("prod"))))


def test_a_consumer_plans_and_checks_its_own_program_with_only_the_wheel(venv, tmp_path, platform_outputs):
    """docs/reuse.md's 'Planning your own program offline' snippet, run as written with only the wheel.

    From a folder outside the repository holding a copy of examples/consumer and the platform's outputs.
    """
    text = (ROOT / "docs" / "reuse.md").read_text()
    snippet = re.search(r"```python\n(.*?)```", text[text.index("## Planning your own program offline") :], re.S).group(1)
    shutil.copytree(ROOT / "examples" / "consumer", tmp_path / "examples" / "consumer", ignore=IGNORE)
    # Where `python -m stacks plan prod --out build/prod` writes them, in the platform's checkout.
    (tmp_path / "build" / "prod").mkdir(parents=True)
    (tmp_path / "build" / "prod" / "outputs.json").write_text(json.dumps(platform_outputs))
    out = run_in(
        venv,
        snippet
        + textwrap.dedent("""
        import sys
        print(json.dumps({
            "engine": sys.modules["llm_serving_plan.offline"].__file__,
            "kinds": sorted(r.type for r in result.resources if r.custom),
            "namespaces": sorted({r.inputs["metadata"]["namespace"] for r in result.resources
                                  if r.type.startswith("kubernetes:") and "metadata" in r.inputs}),
            "pool": [r.inputs["spec"]["predictor"]["nodeSelector"]["karpenter.sh/nodepool"] for r in result.resources
                     if r.type.endswith(":InferenceService")],
            "outputs": result.outputs,
            "mandatory": [v.policy for v in result.mandatory],
            "repository": sorted(m for m in sys.modules if m.split(".")[0] in ("components", "policies", "stacks")),
        }))
    """),
        tmp_path,
    )
    *printed, last = out.strip().splitlines()
    assert "0 mandatory violations" in printed
    out = json.loads(last)
    assert "/venv/lib/" in out["engine"], out["engine"]
    assert out["kinds"] == [
        "kubernetes:core/v1:ServiceAccount",
        "kubernetes:keda.sh/v1alpha1:ScaledObject",
        "kubernetes:monitoring.coreos.com/v1:PodMonitor",
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule",
        "kubernetes:policy/v1:PodDisruptionBudget",
        "kubernetes:serving.kserve.io/v1beta1:InferenceService",
        "pulumi:providers:kubernetes",
    ]
    assert out["namespaces"] == [platform_outputs["namespace"]]
    assert out["pool"] == [platform_outputs["poolNames"]["l40s"]]
    assert out["outputs"]["url"] == f"http://summarize-8b-predictor.{platform_outputs['namespace']}.svc.cluster.local"
    assert out["outputs"]["clusterRegion"] == platform_outputs["region"]
    assert out["mandatory"] == []
    assert out["repository"] == []


def test_the_installed_pack_finds_what_it_should(venv, tmp_path):
    """The same entry with a function for a program and a config mapping: a `:latest` image is a finding (advisory: docs/policies.md "Enforcement levels")."""
    out = json.loads(
        run_in(
            venv,
            """
        import json
        import pulumi_kubernetes as k8s
        from llm_serving_plan import plan_program

        def program():
            k8s.apps.v1.Deployment("web", spec={
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": [{"name": "web", "image": "nginx:latest"}]}},
            })

        result = plan_program(program, {}, project="other")
        print(json.dumps([[v.policy, v.enforcement, v.resource] for v in result.violations]))
    """,
            tmp_path,
        )
    )
    assert ["image-tag-pinned", "advisory", "web"] in out


def test_a_consumer_program_runs_on_the_installed_package(venv, tmp_path):
    """The public mock engine (set_mocks + Mocks) runs a VllmService from the installed package."""
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    out = json.loads(
        run_in(
            venv,
            f"""
        import json, pulumi, yaml
        from pulumi.runtime import Mocks, set_mocks
        from llm_serving import VllmService, VllmServiceArgs, load_stack_config

        seen = []
        class M(Mocks):
            def new_resource(self, args):
                seen.append([args.typ, args.name, args.inputs.get("metadata", {{}}).get("namespace")])
                return args.name + "-id", args.inputs
            def call(self, args):
                return {{}}

        set_mocks(M(), preview=False)
        cfg = load_stack_config(yaml.safe_load({dev!r})["config"])
        model = cfg.models[0]
        pool = [p for p in cfg.gpu_pools if p.name == model.pool][0]

        @pulumi.runtime.test
        def program():
            svc = VllmService("one", VllmServiceArgs(model=model, gpu_pool=pool, namespace=pulumi.Output.from_input("team")))
            return svc.url.apply(lambda url: seen.append(["url", url, None]))

        program()
        print(json.dumps(sorted(seen)))
    """,
            tmp_path,
        )
    )
    assert ["url", "http://chat-8b-predictor.team.svc.cluster.local", None] in out
    types = {t for t, _, _ in out}
    assert {"kubernetes:serving.kserve.io/v1beta1:InferenceService", "kubernetes:policy/v1:PodDisruptionBudget"} <= types
    assert all(ns == "team" for t, _, ns in out if t.startswith("kubernetes:"))


def test_metadata_states_python_and_one_dependency_list():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = meta["project"]
    assert project["name"] == "llm-serving"
    assert project["requires-python"] == ">=3.11"
    floor = tuple(int(x) for x in project["requires-python"].removeprefix(">=").split("."))
    assert sys.version_info[:2] >= floor
    assert meta["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}


def test_editable_install_points_at_the_source(tmp_path_factory):
    """`pip install -e .` (PEP 660): llm_serving is the components/ folder of the checkout itself."""
    base = tmp_path_factory.mktemp("editable")
    source = base / "src"
    shutil.copytree(ROOT, source, ignore=IGNORE)
    python = make_venv(base / "venv")
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"pip install -e . failed:\n{proc.stdout}\n{proc.stderr}"
    out = run_in(python, "import llm_serving; from llm_serving import VllmService; print(llm_serving.__file__)", base)
    assert out.strip() == str(source / "components" / "__init__.py")
