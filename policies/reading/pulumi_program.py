"""Kubernetes objects and Helm releases a Pulumi program declares, read without the Pulumi engine.

The pack runs on a Pulumi program's resources under ``pulumi preview --policy-pack``, but a pull-request check has no
engine and no credentials; without this reader it saw nothing of a TypeScript or Python program (spent set 123:
pulumi/example-ai.cluster infra/app-llms/index.ts, a vLLM StatefulSet and its ALB Ingress, 12 labels). Read here, per
language (policies/reading/pulumi_typescript.py with tree-sitter, pulumi_python.py with the standard ``ast``), from a
program that imports the Kubernetes provider (``@pulumi/kubernetes``, ``pulumi_kubernetes``):

- ``new k8s.<group>.<version>.<Kind>(name, args, opts)`` (Python: ``k8s.apps.v1.Deployment(name, spec=...)``) as the
  object the provider applies: ``apiVersion`` and ``kind`` from the class, ``metadata.name`` the resource's name where
  the args name none (Pulumi auto-names it ``<name>-<suffix>``: pulumi/pulumi-kubernetes v4.32.0
  provider/pkg/metadata/naming.go:29-53 AssignNameIfAutonamable); ``apiextensions.CustomResource`` with its own
  ``apiVersion``/``kind``;
- ``helm.v3.Chart``/``helm.v3.Release``/``helm.v4.Chart`` as the synthetic HelmRelease policies/values_files.py makes
  of a values file (``spec.chart.spec.chart``/``version``, ``spec.values``), so the release rules read it;
- ``yaml.ConfigFile``/``yaml.ConfigGroup`` (and ``yaml.v2``): the objects of their ``objs``, their ``yaml`` text and
  the local files they name that the run does not read on its own.

What the program computes at run time (``config.require``, another resource's outputs other than a name the file
writes, a loop's variable, a template string's ``${...}`` of such) is the fill-in ``${name}`` that
policies/reading/placeholders.py reads as UNKNOWN for every rule, as a Terraform interpolation is (terraform_filled).
Every object is best-effort: its findings are advice (label ``Pulumi ...``, framework.PULUMI_NOTE), reported on the
program at the line of the call. A program the parser cannot read is an S27 finding (advice: a parser may lag the
language), never a crash; a program with no Kubernetes resource is silent, and a file that imports no provider is not
read at all (the parser is imported only for a file that does).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Optional, TypeVar

from components.loading import MANIFESTS, Document, LoadError, load_yaml_documents, read_bounded
from policies.reading.helm_values import merged_values
from policies.reading.pulumi_objects import ProgramCall, ProgramUnread, Unknown, finished, resource_object
from policies.reading.run_bounds import within_run
from policies.values_files import READ_FROM

PROGRAM_SUFFIXES = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".py")
# Installed packages and build output hold the SDK's own sources (@pulumi/kubernetes' examples among them): not programs.
_NOT_PROGRAMS = frozenset({"node_modules", "site-packages", "dist-packages", ".venv", "venv", "__pycache__", "bin", "dist"})
_IMPORTS = {".py": "pulumi_kubernetes"}
_TS_IMPORT = "@pulumi/kubernetes"
_YAML_SUFFIXES = (".yaml", ".yml", ".json")


def is_program(name: str, folder: str) -> bool:
    """True for a file a folder's walk reads as a possible Pulumi program (not one of installed packages)."""
    return (
        name.endswith(PROGRAM_SUFFIXES)
        and not name.endswith(".d.ts")
        and not _NOT_PROGRAMS.intersection(folder.replace("\\", "/").split("/"))
    )


def _release(path: tuple[str, ...], name: Any, args: dict, label: str) -> Optional[dict]:
    """A Helm chart or release as the synthetic HelmRelease of its chart, version and values (terraform.py's form)."""
    chart, local = args.get("chart"), args.get("path")
    if isinstance(local, str) and not isinstance(chart, str):
        chart = local
    if not isinstance(chart, str) or not chart.strip("./"):
        return None
    spec: dict = {"chart": chart.rstrip("/").rsplit("/", 1)[-1]}
    version = args.get("version")
    if isinstance(version, (str, int, float)) and not isinstance(version, bool) and str(version):
        spec["version"] = str(version)
    repo = args.get("repositoryOpts") or args.get("fetchOpts") or args.get("repo")
    if isinstance(local, str) or (chart.startswith((".", "/")) and not repo):  # a chart folder of the repository
        spec["sourceRef"] = {"kind": "GitRepository", "name": "pulumi"}  # (helm_charts.installs_from_folder)
    values = args.get("values")
    if (values is not None and not isinstance(values, dict)) or args.get("valueYamlFiles"):
        return None  # values the run computes, or files of values this reading does not open: any value may be set
    release = args.get("name") if path[-1] != "Chart" or path[1] == "v4" else None
    meta: dict = {
        "name": release if isinstance(release, str) else name if isinstance(name, str) else spec["chart"],
        "annotations": {READ_FROM: f"{label} of the {spec['chart']} chart"},
    }
    if isinstance(args.get("namespace"), str):
        meta["namespace"] = args["namespace"]
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": meta,
        "spec": {"chart": {"spec": spec}, "values": merged_values({}, values) if isinstance(values, dict) else {}},
    }


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value is not None else []


def _yaml_objects(text: str, where: str) -> list[Any]:
    try:
        return [d.data for d in load_yaml_documents(where, MANIFESTS, text=text) if isinstance(d.data, dict)]
    except (LoadError, RecursionError):
        return []


def _config_objects(path: tuple[str, ...], name: Any, args: dict, folder: str, run: frozenset[str]) -> list[Any]:
    """The objects of a ConfigFile's or ConfigGroup's ``objs``, ``yaml`` texts and local files (each file of the run
    is read on its own, and one outside the run is not read: run_bounds)."""
    out = [o for o in _listed(args.get("objs")) if isinstance(o, dict)]
    out += [o for text in _listed(args.get("yaml")) if isinstance(text, str) for o in _yaml_objects(text, folder)]
    files = _listed(args.get("files")) + _listed(args.get("file"))
    if path[-1] == "ConfigFile" and not files and isinstance(name, str):
        files = [name]  # ConfigFile's file defaults to its resource name
    for file in files:
        if not isinstance(file, str) or "://" in file or "*" in file or not file.endswith(_YAML_SUFFIXES):
            continue
        full = os.path.abspath(os.path.join(folder, file))
        if full in run or not os.path.isfile(full) or not within_run(full):
            continue
        try:
            out += _yaml_objects(read_bounded(full, MANIFESTS), full)
        except (LoadError, OSError, UnicodeDecodeError):
            continue
    return out


def call_objects(call: ProgramCall, file: str, run: frozenset[str]) -> list[dict]:
    """The manifests one call declares, finished (fill-ins for Unknowns)."""
    if isinstance(call.args, Unknown):  # args the run computes (a spread, a function's return): any field may be set
        return []
    args = call.args if isinstance(call.args, dict) else {}
    label = label_of(call)
    if call.path[:1] == ("helm",) and call.path[-1] in ("Chart", "Release"):
        found = [_release(call.path, call.name, args, label)]
    elif call.path[:1] == ("yaml",) and call.path[-1] in ("ConfigFile", "ConfigGroup"):
        found = list(_config_objects(call.path, call.name, args, os.path.dirname(file) or ".", run))
    else:
        found = [resource_object(call.path, call.name, args)]
    return [finished(o) for o in found if isinstance(o, dict)]


def label_of(call: ProgramCall) -> str:
    """What a finding says it was read from: ``Pulumi k8s.apps.v1.Deployment vllm`` (framework.PULUMI_NOTE)."""
    name = call.name if isinstance(call.name, str) else "(computed name)"
    return f"Pulumi k8s.{'.'.join(call.path)} {name}"


_Read = TypeVar("_Read", bound=Any)


def program_calls(file: str, text: str) -> Optional[list[ProgramCall]]:
    """The provider calls of a program, or None for a file that imports no Kubernetes provider."""
    if file.endswith(".py"):
        if _IMPORTS[".py"] not in text:
            return None
        from policies.reading.pulumi_python import python_calls

        return python_calls(file, text)
    if _TS_IMPORT not in text:
        return None
    from policies.reading.pulumi_typescript import typescript_calls

    return typescript_calls(file, text)


def read_program(file: str, objects_of: Callable[..., list[_Read]], counts: Any, run: Iterable[str]) -> list[_Read]:
    """The objects (``objects_of(document, file, counts, label)``: policies.manifests' reading of one document) of a
    Pulumi program's Kubernetes resources; [] for a file that imports no provider. Raises ProgramUnread for a program
    that does not parse."""
    if not is_program(os.path.basename(file), os.path.dirname(file)):
        return []  # a file of installed packages or build output
    try:
        text = read_bounded(file, MANIFESTS)
    except (LoadError, OSError):
        return []  # a script or bundle too large or not UTF-8: not a program this reader would read
    try:
        calls = program_calls(file, text)
    except ProgramUnread:
        raise
    except Exception:  # best-effort reading: a form the reader mishandles reads nothing, never a crash
        if os.environ.get("LLM_SERVING_DEBUG"):
            raise
        return []
    if calls is None:
        return []
    counts.files += 1
    files = frozenset(os.path.abspath(f) for f in run)
    out: list[_Read] = []
    for i, call in enumerate(calls):
        for data in call_objects(call, file, files):
            out += objects_of(Document(data, i, call.line), file, counts, label_of(call))
    return out
