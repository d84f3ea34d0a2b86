"""`python -m stacks plan`: validate a stack, run the program offline, check policies, write manifests."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError, Problem
from stacks import yaml_text
from stacks.offline import Recorded, Recording, load_stack_file, run_program
from stacks.report import plan_report


@dataclass(frozen=True)
class PlanResult:
    """What one plan run produced: the report and the files to write (relative path -> text)."""

    report: dict
    files: dict[str, str]

    @property
    def mandatory_violations(self) -> int:
        """How many violations block the deployment."""
        return sum(1 for v in self.report["violations"] if v["enforcement"] == "mandatory")


def normalise(value: Any) -> Any:
    """Numbers the engine turned into floats become ints again where they are whole."""
    if isinstance(value, Mapping):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text).strip("-").lower()


# libyaml's emitter when PyYAML has it (stacks/yaml_text.py writes PyYAML's bytes faster still).
_YAML_DUMPER = yaml_text.DUMPER
_NO_FOLDING = yaml_text.NO_FOLDING


def dump_yaml(body: Any) -> str:
    """One YAML document: sorted keys, block style, the same bytes on every machine."""
    return yaml_text.dump(body)


def render_files(recording: Recording) -> dict[str, str]:
    """One YAML document per Kubernetes object, one JSON file per cloud resource."""
    import json

    files: dict[str, str] = {}
    for r in recording.resources:
        if not r.custom:
            continue
        body = normalise(dict(r.inputs))
        if r.type == HELM_RELEASE_TYPE:
            # A release is one opaque resource to the engine: write what `helm install` would be given.
            rel = f"helm/{_slug(body.get('namespace') or '_default')}/{_slug(body.get('name') or r.name)}.yaml"
            files[rel] = dump_yaml(helm_release_file(body))
        elif r.type.startswith("kubernetes:") and "kind" in body:
            meta = body.get("metadata") or {}
            folder = meta.get("namespace") or "_cluster"
            # A Patch resource (server-side apply of a few fields of an object someone else owns) is not the object.
            kind = r.type.rsplit(":", 1)[-1] if r.type.endswith("Patch") else body["kind"]
            rel = f"kubernetes/{_slug(folder)}/{_slug(kind)}-{_slug(meta.get('name') or r.name)}.yaml"
            files[rel] = dump_yaml(body)
        else:
            provider = r.type.split(":", 1)[0]
            rel = f"{_slug(provider)}/{_slug(r.type.split(':')[-1])}-{_slug(r.name)}.json"
            files[rel] = json.dumps({"type": r.type, "name": r.name, "inputs": body}, indent=2, sort_keys=True) + "\n"
    return files


HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"


def helm_release_file(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A Helm release's chart, repository, version, namespace and values, and ``skipCrds: true`` when the release
    leaves its chart's crds/ alone (docs/cli.md, `plan`)."""
    out = {
        "name": inputs.get("name"),
        "chart": inputs.get("chart"),
        "repository": (inputs.get("repositoryOpts") or {}).get("repo"),
        "version": inputs.get("version"),
        "namespace": inputs.get("namespace"),
        "values": inputs.get("values") or {},
    }
    if inputs.get("skipCrds") is True:
        out["skipCrds"] = True
    return out


def policy_resources(recording: Recording) -> list:
    """The recorded custom resources as the policy framework's Resource objects."""
    from policies.framework import Resource

    return [
        Resource(type=r.type, name=r.name, props=dict(r.inputs), urn=f"{r.type}::{r.name}", parent=r.parent)
        for r in recording.resources
        if r.custom
    ]


def rendered_objects(recording: Recording):
    """What the stack renders, as the controllers read it (components/derive): Kubernetes objects and Helm releases."""
    from components.derive import Release, Rendered

    objects = []
    releases = []
    for r in recording.resources:
        if not r.custom:
            continue
        body = normalise(dict(r.inputs))
        if r.type == HELM_RELEASE_TYPE:
            rel = helm_release_file(body)
            releases.append(
                Release(
                    name=str(rel["name"] or r.name),
                    chart=str(rel["chart"] or ""),
                    version=str(rel["version"] or ""),
                    namespace=str(rel["namespace"] or ""),
                    values=rel["values"],
                )
            )
        elif r.type.startswith("kubernetes:") and "kind" in body:
            objects.append(body)
    return Rendered(objects=tuple(objects), releases=tuple(releases))


# The Pulumi type a derived object would have, so that the pack's resource policies read it like ours.
def derived_type(manifest: Mapping[str, Any]) -> str:
    """``kubernetes:<group>/<version>:<Kind>`` (``core`` for the core group), as pulumi-kubernetes names types."""
    api_version = str(manifest.get("apiVersion", ""))
    group_version = api_version if "/" in api_version else f"core/{api_version}"
    return f"kubernetes:{group_version}:{manifest.get('kind', '')}"


def derived_resources(derived: list) -> list:
    """The derived objects as the policy framework's Resource objects (``origin`` says who creates them)."""
    from policies.framework import Resource

    return [
        Resource(
            type=derived_type(d.manifest),
            name=d.resource_name,
            props=dict(d.manifest),
            urn=f"{derived_type(d.manifest)}::{d.resource_name}",
            origin=d,
        )
        for d in derived
    ]


# The annotations pulumi-kubernetes reads to decide how it awaits a resource (provider/pkg/metadata/annotations.go:33-35
# at v4.32.0): skipAwait (no readiness wait), waitFor (a condition or JSONPath to wait for), timeoutSeconds.
AWAIT_ANNOTATIONS = ("pulumi.com/skipAwait", "pulumi.com/timeoutSeconds", "pulumi.com/waitFor")


def await_annotations(inputs: Mapping[str, Any]) -> dict[str, str]:
    """The annotations of a Kubernetes object's inputs that change how Pulumi awaits it, those set."""
    metadata = inputs.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    if not isinstance(annotations, Mapping):
        return {}
    return {k: annotations[k] for k in AWAIT_ANNOTATIONS if isinstance(annotations.get(k), str)}


def tree_order(resources: list[Recorded]) -> list[Recorded]:
    """Parents before children, siblings by name: the engine registers asynchronously, the report must not vary."""
    children: dict[str, list[Recorded]] = {}
    for r in resources:
        children.setdefault(r.parent_urn, []).append(r)
    ordered: list[Recorded] = []

    def walk(parent_urn: str) -> None:
        for r in sorted(children.get(parent_urn, []), key=lambda x: (x.name, x.type)):
            ordered.append(r)
            walk(r.urn)

    walk("")
    return ordered


def _display_path(path: Path) -> str:
    """The stack file as a repository-relative path where it is one (stable across machines)."""
    from stacks.offline import PROJECT_DIR

    try:
        return str(path.resolve().relative_to(PROJECT_DIR))
    except ValueError:
        return str(path)


def _model_figures(model, plan, cfg=None) -> dict:
    """A model's capacity plan figures, with its scaling figures under "autoscaling" and, in "derived",
    what the controllers do with it (components/builders/notes.py)."""
    from components.builders.autoscaling import scaling_summary
    from components.builders.notes import controller_notes

    figures = {**plan.report(), "autoscaling": scaling_summary(model, plan)}
    if cfg is not None:
        figures["derived"] = [*figures["derived"], *controller_notes(model, plan, cfg)]
    return figures


# The stack-file key each policy's finding comes from, searched inside the model's entry; a
# policy not listed (or a key the entry leaves to its default) points at the entry's `name:` line.
POLICY_KEYS = {
    "vllm-gpu-memory-utilization-bounds": "gpuMemoryUtilization",
    "vllm-gpu-memory-utilization-explicit": "gpuMemoryUtilization",
    "vllm-kv-cache-headroom": "gpuMemoryUtilization",
    "vllm-max-model-len-fits-kv-cache": "maxModelLen",
    "vllm-max-model-len-explicit": "maxModelLen",
    "vllm-tp-matches-gpu-limit": "tensorParallelSize",
    # vLLM's start-up rules (components.capacity.startup): the setting each one names.
    "vllm-batched-tokens-cover-seqs": "maxNumBatchedTokens",
    "vllm-tp-divides-attention-heads": "tensorParallelSize",
    "vllm-context-within-model-limit": "maxModelLen",
    "vllm-quantization-supported": "quantization",
    "vllm-dtype-supported-by-gpu": "dtype",
    "llm-no-scale-to-zero": "replicas",
    "model-source-pinned": "revision",
    "image-tag-pinned": "image",
    "gpu-workload-no-resource-metric-hpa": "autoscaling",
    "llm-hpa-behavior": "autoscaling",
    "llm-simulated-slo": "traffic",
}


def model_lines(path: Path, names: list[str]) -> dict[str, tuple[int, list[str]]]:
    """Each model's entry in the stack file: the line (from 1) of its `name:` and the lines of
    the entry itself; models whose entry cannot be found are left out."""
    import re

    try:
        text = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    found: dict[str, tuple[int, list[str]]] = {}
    # Model entries live under the `models` key; a GPU pool may carry the same name.
    start = next((i for i, line in enumerate(text) if re.match(r"^\s*(llm-serving:)?models:", line)), 0)
    for name in names:
        pattern = re.compile(rf"^(\s*)(-\s*)?name:\s*['\"]?{re.escape(name)}['\"]?\s*(#.*)?$")
        for index in range(start, len(text)):
            match = pattern.match(text[index])
            if match:
                indent = len(match.group(1))
                end = index + 1
                # The entry runs until the next line indented no deeper than its dash.
                while end < len(text) and (not text[end].strip() or len(text[end]) - len(text[end].lstrip()) > indent):
                    end += 1
                found[name] = (index + 1, text[index:end])
                break
    return found


def trace_line(resource: str, lines: Mapping[str, tuple[int, list[str]]], policy: str = "") -> Any:
    """The stack-file line a resource's finding came from: in the entry of the model the resource
    belongs to (the longest model name inside `<stack>-<model>-<role>`), the line of the key the
    policy reads, else the entry's `name:` line; None for a stack-wide or unattributable finding."""
    import re

    matches = [name for name in lines if f"-{name}-" in f"-{resource}-"]
    if not matches:
        return None
    first, entry = lines[max(matches, key=len)]
    key = POLICY_KEYS.get(policy)
    if key:
        for offset, text in enumerate(entry):
            if re.search(rf"(^|[\s{{,-]){key}:", text):
                return first + offset
    return first


def derived_violations(derived: list, ours: list) -> list:
    """The pack's per-object policies on the derived objects, less what our own objects already report.

    Stack-wide policies read our objects only: a derived Deployment beside the InferenceService it comes from would
    count the same pods twice. A derived finding with the same policy and message as one on our objects (the
    container's flags, copied by the controller) is reported once, on ours, where the fix is. So is a finding on a
    derived Pod whose policy already fires on the Deployment it comes from (the same source): the pod inherits the
    template, and the API server refuses the Deployment before any pod exists.
    """
    from policies.registry import POLICIES, evaluate

    per_object = [p for p in POLICIES if not p.is_stack_policy]
    seen = {(v.policy, v.message) for v in ours}
    found = [v for v in evaluate(derived_resources(derived), policies=per_object) if (v.policy, v.message) not in seen]
    by_name = {d.resource_name: d for d in derived}
    on_deployments = {
        (v.policy, by_name[v.resource].source)
        for v in found
        if v.resource in by_name and by_name[v.resource].kind == "Deployment"
    }
    return [
        v
        for v in found
        if not (
            v.resource in by_name
            and by_name[v.resource].kind == "Pod"
            and (v.policy, by_name[v.resource].source) in on_deployments
        )
    ]


def controller_row(d) -> dict:
    """One derived object in a model's report entry: who creates it, what, and its summary figures."""
    return {"controller": d.controller, "kind": d.kind, "name": d.name, "path": d.path, "summary": normalise(dict(d.summary))}


def _pool_figures(pool, plans) -> dict:
    """A pool's figures for the report, with each of its models' startup budget and its parts."""
    return {
        **pool.report(),
        "startup": {m.name: plans[m.name].startup.report() for m in pool.models if plans[m.name].startup is not None},
    }


NODE_CHOICE_FILE = "derived/karpenter/node-choice.yaml"


def derived_nodes(report: dict, files: dict[str, str], recording: Recording) -> None:
    """Karpenter's node choice for the rendered objects (components/derive/karpenter.py): into the report (per pool:
    nodes and idle GPUs; per model: nodes) and beside the other derived objects as ``derived/karpenter/``. (KubeRay's
    pods are derived objects like KServe's: components/derive/kuberay.py ``derive``, written under derived/<namespace>/.)"""
    from components.derive.karpenter import node_choice

    objects = [
        normalise(dict(r.inputs))
        for r in recording.resources
        if r.custom and r.type.startswith("kubernetes:") and "kind" in r.inputs
    ]
    choice = node_choice(objects, releases=rendered_objects(recording).releases)
    files[NODE_CHOICE_FILE] = dump_yaml(choice)
    report["node_choice"] = choice
    by_pool = {p["pool"]: p for p in choice["pools"]}
    for pool in report["pools"]:
        got = by_pool.get(pool["name"]) or {}
        pool["nodes"] = got.get("nodes", 0)
        pool["node_instance_types"] = got.get("instance_types", {})
        pool["idle_gpus"] = got.get("idle_gpus", 0)


def run_plan(stack_ref: str, simulate_slo: bool = True) -> PlanResult:
    """Validate, plan capacity, run the program, evaluate policies. Raises ConfigError on bad input.

    ``simulate_slo=False`` skips the simulation of a declared slo.traffic (for `simulate`, which runs its own).
    """
    from policies.registry import evaluate
    from stacks.models import LOCK_FILE, use_repo_lock

    use_repo_lock(LOCK_FILE)  # models resolved from the Hub, read offline before the built-in catalogue
    stack = load_stack_file(stack_ref)
    cfg = load_stack_config(stack.config)
    plans = plan_stack(cfg, stack.path.parent)
    # Each pool's plan, for the report's pool table.
    from components.capacity.pools import plan_pools

    pool_plans = plan_pools(cfg.gpu_pools, cfg.models, plans)
    recording = run_program(stack)
    files = render_files(recording)
    # What KServe (and the other controllers) create from what we render, written and checked like our own.
    from components.derive import by_model, derive

    derived = derive(rendered_objects(recording))
    files.update({d.path: dump_yaml(normalise(dict(d.manifest))) for d in derived})
    violations = evaluate(policy_resources(recording))
    violations = sorted([*violations, *derived_violations(derived, violations)], key=lambda v: (v.policy, v.resource, v.message))
    # Advisory, and only for models that declare slo.traffic: simulate the stack under that profile (docs/simulate.md).
    if simulate_slo and any(m.slo.traffic is not None for m in cfg.models):
        from policies.simulation.simulated_slo import POLICY as SIMULATED_SLO
        from stacks.slo_check import slo_results

        sim = slo_results(cfg, plans, files, stack.path.parent)
        violations = sorted(
            [*violations, *evaluate(sim, policies=[SIMULATED_SLO])], key=lambda v: (v.policy, v.resource, v.message)
        )
    resources = [
        {
            "type": r.type,
            "name": r.name,
            "parent": r.parent,
            "dependsOn": list(r.dependencies),
            **({"customTimeouts": dict(r.custom_timeouts)} if r.custom_timeouts else {}),
            **({"awaitAnnotations": awaits} if (awaits := await_annotations(r.inputs)) else {}),
            # An edit of these paths replaces the resource (delete first where deleteBeforeReplace): what `up` waits for.
            **(
                {"replaceOnChanges": list(r.replace_on_changes), "deleteBeforeReplace": r.delete_before_replace}
                if r.replace_on_changes
                else {}
            ),
        }
        for r in tree_order(recording.resources)
    ]
    report = plan_report(stack.name, resources, violations, [_model_figures(m, plans[m.name], cfg) for m in cfg.models])
    per_model = by_model(derived)
    for figures in report["models"]:
        figures["controllers"] = [controller_row(d) for d in per_model.get(figures["name"], [])]
    report["stack_file"] = _display_path(stack.path)
    report["pools"] = [_pool_figures(p, plans) for p in pool_plans.values()]
    derived_nodes(report, files, recording)
    lines = model_lines(stack.path, [m.name for m in cfg.models])
    for row in report["violations"]:
        row.update(file=report["stack_file"], line=trace_line(row["resource"], lines, row["policy"]))
    files[OUTPUTS_FILE] = outputs_json(recording)
    return PlanResult(report=report, files=files)


# The stack's outputs beside the report (docs/cli.md, `plan`), as `pulumi stack output --json` shows
# them with secrets redacted: what a consumer's offline plan hands its StackReference (docs/reuse.md).
OUTPUTS_FILE = "outputs.json"


def outputs_json(recording: Recording) -> str:
    """The program's exports as JSON: sorted keys, whole numbers as ints, secrets already redacted by the engine."""
    import json

    return json.dumps(normalise(dict(recording.outputs)), indent=2, sort_keys=True) + "\n"


PLAN_MARKER = ".llm-serving-plan"
PLAN_FOLDERS = ("kubernetes", "aws", "helm", "derived")
# Files a plan writes at the top of --out, replaced like its folders.
PLAN_FILES = (OUTPUTS_FILE,)


PLAN_LOCK = ".llm-serving-plan.lock"
# How long a plan waits for another plan writing the same --out before it refuses.
LOCK_WAIT_SECONDS = 120.0


def default_out_dir(stack: str, cwd: Optional[Path] = None) -> Path:
    """``build/<stack>`` under the working directory; refused unless it is a folder of its own inside it.

    The stack name is already a valid Pulumi stack name (stacks.offline.check_stack_name); this
    also refuses a ``build`` symlink that leads outside the working directory.
    """
    base = (cwd or Path.cwd()).resolve()
    out = base / "build" / stack
    resolved = out.resolve()
    if resolved == base or resolved == base / "build" or not resolved.is_relative_to(base):
        raise ConfigError(
            [
                Problem(
                    "--out",
                    "the default output folder build/<stack> would not be a folder of its own "
                    "inside the working directory; pass --out",
                    str(out),
                )
            ]
        )
    return out


@contextlib.contextmanager
def _plan_lock(out_dir: Path, wait_seconds: float):
    """An exclusive lock on ``out_dir`` for one plan's writing (a lock file; waits, then refuses)."""
    try:
        handle = open(out_dir / PLAN_LOCK, "a+")
    except OSError as exc:
        raise ConfigError([Problem("--out", f"cannot be written: {exc.strerror}", str(out_dir))]) from None
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ConfigError(
                        [
                            Problem(
                                "--out",
                                f"another plan has been writing this folder for {wait_seconds:g} s "
                                f"(it holds {PLAN_LOCK}); wait for it or choose another --out",
                                str(out_dir),
                            )
                        ]
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        handle.close()  # releases the lock


def write_files(out_dir: Path, files: Mapping[str, str], *, lock_wait_seconds: float = LOCK_WAIT_SECONDS) -> None:
    """Replace the plan's output folders under ``out_dir`` with ``files``, all or nothing.

    Only folders an earlier plan wrote (marked by a ``.llm-serving-plan`` file) are replaced: a
    user's own ``kubernetes/`` folder under ``--out`` is never deleted. Concurrent plans into one
    folder take turns on a lock file (``.llm-serving-plan.lock``): the second waits for the first
    and then replaces its folders, or refuses after ``lock_wait_seconds``.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError([Problem("--out", "is a file, not a folder", str(out_dir))])
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError([Problem("--out", f"cannot be written: {exc.strerror}", str(out_dir))]) from None
    with _plan_lock(out_dir, lock_wait_seconds):
        owned = (out_dir / PLAN_MARKER).exists()
        for top in PLAN_FOLDERS + PLAN_FILES:
            if (out_dir / top).exists() and not owned:
                what = f"a {top}/ folder" if top in PLAN_FOLDERS else f"a file {top}"
                raise ConfigError(
                    [Problem("--out", f"already holds {what} that no plan wrote; choose an empty folder", str(out_dir))]
                )
        try:
            staging = Path(tempfile.mkdtemp(prefix=".plan-", dir=out_dir))
        except OSError as exc:
            raise ConfigError([Problem("--out", f"cannot be written: {exc.strerror}", str(out_dir))]) from None
        try:
            for rel, text in sorted(files.items()):
                path = staging / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            # The marker first: folders moved in are always ones a plan owns.
            (out_dir / PLAN_MARKER).write_text("Folders written by `python -m stacks plan`; the next plan replaces them.\n")
            for top in PLAN_FOLDERS:
                target = out_dir / top
                if target.exists():
                    shutil.rmtree(target)
                if (staging / top).exists():
                    os.replace(staging / top, target)
            for top in PLAN_FILES:
                if (staging / top).exists():
                    os.replace(staging / top, out_dir / top)
                else:
                    (out_dir / top).unlink(missing_ok=True)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


__all__ = [
    "OUTPUTS_FILE",
    "PlanResult",
    "default_out_dir",
    "outputs_json",
    "run_plan",
    "write_files",
    "render_files",
    "normalise",
]
