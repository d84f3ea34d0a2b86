"""docs/policies.md, generated from the registry: `python -m policies docs --out docs/policies.md`.

Every policy's section comes from its own metadata (name, catalogue id, description, rationale,
remediation steps, config schema, exemption annotation), so the page cannot drift from the
code; tests/policies/test_policy_docs.py fails when the committed page differs from this output.
Reports link to `docs/policies.md#<policy name>`; each section's heading is the bare policy name,
which is also its GitHub anchor.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

from components.serving_engines import ENGINES, Engine
from policies import catalog
from policies.framework import DOCS_PAGE, EXEMPTION_PREFIX, Policy
from policies.kube import WORKLOAD_TYPES, fmt_number
from policies.operator_defaults import ROWS as OPERATOR_ROWS

# Where each workload kind keeps its pod templates (policies.kube.pod_specs reads these paths).
POD_TEMPLATE_PATHS = {
    "Pod": "spec",
    "Deployment": "spec.template.spec",
    "StatefulSet": "spec.template.spec",
    "DaemonSet": "spec.template.spec",
    "ReplicaSet": "spec.template.spec",
    "Job": "spec.template.spec",
    "CronJob": "spec.jobTemplate.spec.template.spec",
    "InferenceService": "spec.predictor (and its model and workerSpec), spec.transformer, spec.explainer",
    "ServingRuntime": "spec",
    "ClusterServingRuntime": "spec",
    "RayCluster": "spec.headGroupSpec.template.spec, spec.workerGroupSpecs[*].template.spec",
    "RayService": "spec.rayClusterConfig (as RayCluster); Ray Serve LLM engine_kwargs in spec.serveConfigV2",
    "RayJob": "spec.rayClusterSpec (as RayCluster)",
    "LeaderWorkerSet": "spec.leaderWorkerTemplate.leaderTemplate.spec, spec.leaderWorkerTemplate.workerTemplate.spec",
    "RayClusterFleet": "spec.template.spec (a RayCluster spec; AIBrix)",
    "DynamoGraphDeployment": "spec.services.<name> (extraPodSpec and mainContainer over the operator's component defaults: probes, grace period, resources.gpu as nvidia.com/gpu; policies/dynamo_defaults.py)",
    "StormService": "spec.template.spec.roles[*].template.spec (AIBrix: each role's pod template, run in every role set)",
    "LLMInferenceService": "spec.template, spec.worker, spec.prefill.template, spec.prefill.worker, each with KServe's well-known presets merged in (policies/llmisvc_presets.py)",
}

# Rows of the catalogue's general table that have no policy here, and why (catalogue section 2);
# each row's title comes from policies/catalog.py.
LEFT_OUT = (
    (
        ("G2",),
        "Advice, not a gate: image-tag-pinned already refuses moving tags and its remediation asks for a digest; a digest rule would flag every tagged image.",
    ),
    (("G7",), "Not implemented yet."),
    (
        ("G14",),
        "ADAPT: the right floor is per environment and GPU budget; the autoscaling policies (S5) keep at least one replica, the stack config sets the rest.",
    ),
    (("G34",), "Not implemented: KServe and Ray pods use their service account; a default-off rule would break them."),
    (("G37",), "Not implemented as a gate: labels are cost attribution, not serving safety."),
)


def _applies_to(policy: Policy) -> str:
    if policy.is_stack_policy:
        return "the whole stack (or every manifest read together)"
    types = list(policy.resource_types)
    if types == ["kubernetes:*"]:
        return "every Kubernetes object"
    if set(types) == set(WORKLOAD_TYPES):
        return "every workload kind listed under [Where pod templates are read](#where-pod-templates-are-read)"
    return ", ".join(f"`{t}`" for t in types)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _config(policy: Policy) -> list[str]:
    if not policy.config_schema:
        return ["None."]
    rows = ["| property | type | default | meaning |", "|---|---|---|---|"]
    for prop, schema in sorted(policy.config_schema.items()):
        rows.append(f"| `{prop}` | {schema['type']} | `{json.dumps(schema['default'])}` | {_cell(schema['description'])} |")
    example = {policy.name: {**policy.defaults(), "enforcementLevel": policy.enforcement}}
    rows += [
        "",
        "In a `--policy-pack-config` (or `python -m policies check --config`) file:",
        "",
        "```json",
        json.dumps(example, indent=2, sort_keys=True),
        "```",
    ]
    return rows


def _section(policy: Policy) -> list[str]:
    return [
        f"## {policy.name}",
        "",
        "| catalogue | enforcement | severity | applies to |",
        "|---|---|---|---|",
        f"| {policy.catalog} | {policy.enforcement} | {policy.severity} | {_applies_to(policy)} |",
        "",
        f"**What it blocks.** {policy.description}",
        "",
        f"**Why.** {policy.rationale or '(no rationale given)'}",
        "",
        f"**How to fix.** {policy.remediation_steps}",
        "",
        *_generic_note(policy),
        "**Config.**",
        "",
        *_config(policy),
        "",
        f'**How to exempt.** Annotate the resource `{policy.exemption_annotation}: "<reason>"`. The reason is '
        f"required: an empty one is itself reported and exempts nothing. Or set the policy's `enforcementLevel` to "
        f"`advisory` or `disabled` in the pack config.",
        "",
    ]


def _generic_note(policy: Policy) -> list[str]:
    """What the policy's findings weigh on a custom resource read generically (Policy.operator_fills)."""
    if not policy.operator_fills:
        return []
    return [
        f"**Read generically.** On a pod template found in a custom resource no reader knows (see [Where pod templates "
        f"are read](#where-pod-templates-are-read)) this policy's findings are advisory, not {policy.enforcement}: the "
        f"operator that renders the pods may fill in {policy.operator_fills}, which the manifest alone cannot show.",
        "",
    ]


def _rows(ids: Sequence[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{ids[0]}-{ids[-1]}"


def _catalogue(policies: Sequence[Policy]) -> list[str]:
    """The catalogue's ids (policies/catalog.py), each with its title and the policies filed under it."""
    out = [
        "## Catalogue ids",
        "",
        "Each policy names one id of the catalogue (`policies/catalog.py`, the only list of ids; "
        "[policy-catalogue.md](policy-catalogue.md) has the research behind each row). Series:",
        "",
    ]
    out += [f"- **{series}**: {about}." for series, about in catalog.SERIES.items()]
    out += ["", "| id | title | policies |", "|---|---|---|"]
    for row in catalog.entries():
        names = ", ".join(f"[{p.name}](#{p.name})" for p in policies if p.catalog == row.id)
        out.append(f"| {row.id} | {_cell(row.title)} | {names or '-'} |")
    return out + [""]


def _generic_reads() -> list[str]:
    """How groups and the certainty of generic reads are decided (policies/reading/groups.py, Policy.operator_fills)."""
    return [
        "",
        "Groups and certainty of generic reads: in a custom resource read generically, a pod template under a "
        "worker-like key (`workerTemplate`, `worker`, `workers`, `workerSpec`) beside a leader-like sibling holding a "
        "pod template (`leaderTemplate`, `leader`, `head`, `headGroupSpec`...) is a rank of the leader's engine and "
        "takes no requests; the group's `size` (else the roles' `replicas`) is the number of pods an engine's ranks "
        "spread over, and where the manifest states neither, S3 does not compare ranks with one pod's GPUs "
        "(`policies/reading/groups.py`); a template whose owner has a `size` (RBG's `leaderWorkerPattern`, or a "
        "`leaderWorkerSet.size` beside it) is a group of that many pods from one template, and a `--nnodes` given as a "
        "variable no group sizes leaves the spread unknown. vLLM on the Ray executor in such a resource may place "
        "ranks on pods the operator builds beside it, so S3's finding there is advisory. Findings about fields an operator commonly fills into the pods it renders "
        "(probes, /dev/shm, drain, cpu and memory requests and limits) are advisory on a generic read, decided once "
        "for the policies that report them (`operator_fills` in `policies/framework.py`; each such policy says so "
        "below); what the manifest itself proves (a mutable tag, a literal secret, remote code without a revision, "
        "more ranks than the whole group's GPUs) keeps its level. Under the Pulumi CLI a finding carries its "
        "policy's level (the SDK's report_violation takes no level), so there these stay at the policy's level.",
    ]


# How the generic reader treats pod template patches (policies/pod_patches.py), for the reading section.
_PATCHES = (
    "A patch of a pod template (`patchLeaderTemplate`, `*TemplatePatch`, `*Patch`: RoleBasedGroup's leader and "
    "worker patches) is merged onto the base template beside it (or the one its `templateRef` names) as Kubernetes' "
    "strategic merge does, containers by name, and the merged pod is judged, never the patch or a base every role "
    "patches (`policies/pod_patches.py`); where no base is found, the pod findings on that object are advice."
)


def _reading_section() -> list[str]:
    """Where pod templates are read, and the engine table that recognises model servers."""
    out: list[str] = []
    out += [
        "",
        "## Where pod templates are read",
        "",
        "Policies over pods read every pod spec of these kinds (`policies/kube.py`), so third-party forms are "
        "checked as well as this project's:",
        "",
        "| kind | type token | pod specs |",
        "|---|---|---|",
    ]
    for token in WORKLOAD_TYPES:
        kind = token.rsplit(":", 1)[-1]
        out.append(f"| {kind} | `{token}` | {_cell(POD_TEMPLATE_PATHS.get(kind, 'spec'))} |")
    out += [
        "",
        "Every other custom resource (an operator's CR no reader knows) is searched for pod templates wherever they "
        "sit: a mapping with a `containers` list (core/v1 PodSpec), one container under a key ending in "
        "`container` (`extraPodSpec.mainContainer`), or a container-like mapping under any key (an image string and a "
        "command, args, resources, ports or env: OME's `engineConfig.runner`) read with the pod fields beside it, "
        "metadata and status skipped (`policies/kube.py` "
        "generic_pod_specs). " + _PATCHES + " The pod policies run on what it finds, and `policies check` lists each object read "
        "this way (`[read generically]` in text, `generic` in JSON, a list in Markdown). A reader for a known kind "
        "adds meaning (replicas, autoscaling, the operator's defaults); without one the generic rules still run. "
        "Kubernetes' own kinds outside the table are never searched. A Flux HelmRelease (`spec.values`) or Argo CD "
        "Application (`helm.valuesObject`) whose values are in the bjw-s app-template shape (`controllers.<c>."
        "containers.<n>.image.repository`) is read as the pods the chart renders: probes only where `enabled`, image "
        "`repository:tag`, env maps as lists with numbers as strings, `defaultPodOptions` under `controllers.<c>.pod`, "
        "`persistence` as volumes and mounts (`policies/app_template.py`, bjw-s-labs/helm-charts common-3.0.0 to "
        "common-4.1.1); the values are not the rendered pod, so pod findings on it are advice. A file that holds "
        "only the values of a chart components/helm_charts.toml knows (named for it by its path: `helm/ollama/"
        "values.yaml`, `openwebui-values.yaml`; every top-level key one the chart reads; not beside a Chart.yaml) "
        "is read as a release of that chart, `HelmRelease/<chart>` on that file (`policies/values_files.py`).",
        "",
        "What an operator fills into the pods it renders is data too (`policies/operator_defaults.py`, one cited row "
        "per operator), and the pod rules read it before they report a field missing: "
        + "; ".join(f"{row.operator}: {', '.join(sorted(row.fields))}" for row in OPERATOR_ROWS)
        + ". Operators whose defaults are whole pods are merged by their readers (KServe's LLMInferenceService "
        "presets, Dynamo's component defaults, a ServingRuntime into its InferenceService). A pod that holds ranks of "
        "an engine another pod of its group fronts (a LeaderWorkerSet or LLMInferenceService worker, a vLLM started "
        "`--headless`) takes no requests, so readiness, startup and drain rules leave it to its leader "
        "(`policies/reading/serving.py` takes_requests).",
        *_generic_reads(),
        "",
        "A Helm chart's template (a file under a chart's `templates/` folder, the nearest `Chart.yaml` above it within "
        "the folder checked) is rendered best-effort with the chart's `values.yaml`, in pure Python "
        "(`policies/reading/helm_chart.py`, `gotemplate.py`, `helm_funcs.py`: Go's text/template with the Helm and "
        "sprig functions charts use, the defines of every template file and vendored subchart), and its objects "
        "are checked by every rule (a chart with no values file takes a `values.yaml` above it giving its templates' keys). Every "
        "finding on them is advisory, since values files and `--set` change what is deployed, and they change no finding on the "
        "files' own objects. What the chart does not determine (`.Files`, an include it does not define, which the file's S27 line "
        "names, a `required` value its values.yaml leaves out) is unknown to the rules, and `.Release.Name` is a helmfile release's "
        "name, else helm template's `release-name` (a name the render cannot know is reported as the template's reader names it: "
        "`reading/chart_names.py`); a template whose render hangs on it (a condition, a range), leaves a container's resources, probe"
        " or mounts unknown as a whole, or does not render to YAML, is reported unread as before (S27). A finding on a field the "
        "chart's values give (the rows of `policies/judged_fields.py`: an image's tag, resources, probes, env, args, tolerations, a "
        "Service's type) is reported on the values file's key that produced it, `(rendered by templates/x.yaml)`, where a reviewer "
        "fixes it; a field the template writes itself keeps the template's line (`policies/value_paths.py`).",
        "",
        "Model servers are recognised by engine, from one table of serving engines "
        "(`components/serving_engines.toml`, each fact cited at a pinned release): how each engine is recognised "
        "(image, command, module), the spellings of its memory-fraction, context-length, tensor-parallel, model, "
        "revision and trust-remote-code settings, its health and readiness endpoints, what it does on SIGTERM, "
        "its metrics, what it serves with its context length unset, the start-up checks it makes itself (the rules "
        "of S21-S25 it enforces, how it shards KV heads, the variable that lifts its context limit) and the image "
        "tags it moves, and where a model it downloads at start lands (the cache variables, first set winning, "
        "then its images' folders). S1, S2, S10, S16, S17, S19, S22, S23, S29 and G1 read the table, so a new "
        "engine is one row. Beside the table, a long-running container of a serving workload (Deployment, "
        "StatefulSet, a Pod that restarts) counts as a model server when it holds a GPU and no row names it, and "
        "when its command line runs Ray Serve itself (`serve run`, or `ray start --head` with `serve deploy`; "
        "`policies/reading/ray_serve_cli.py`):",
        "",
        "| engine | recognised by | memory fraction | context length | tensor parallel | health / readiness | on SIGTERM "
        "| start-up rules | moving tags | downloads into |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    out += [_engine_row(engine) for engine in ENGINES]
    return out


def _engine_row(engine: Engine) -> str:
    """One engine's row of the engine table."""
    recognised = ", ".join(
        [f"`{' '.join(c)}`" for c in engine.commands]
        + [f"`-m {m}`" for m in engine.modules]
        + [f"image `{i}`" for i in engine.images]
        + [f"args with `{' '.join('--' + f for f in flags)}`" for flags in engine.flag_sets]
    )
    drain = (
        f"waits for in-flight requests up to `--{engine.drain_flag}` (default {fmt_number(engine.drain_default)} s)"
        if engine.drain == "flag"
        else "stops at once: in-flight requests fail"
        if engine.drain == "aborts"
        else "waits for in-flight requests until the grace period ends"
        if engine.drain == "waits"
        else "not found in its source or docs"
    )
    return (
        f"| {engine.display} ({engine.release}) | {_cell(recognised)} | "
        + " | ".join(
            _cell(engine.spelling(s)) if s in engine.flags else "-"
            for s in ("gpu-memory-utilization", "max-model-len", "tensor-parallel-size")
        )
        + f" | `{engine.health}` / `{engine.readiness}` | {_cell(drain)} | "
        + (_cell(", ".join(f"`{r}`" for r in engine.startup_rules)) or "-")
        + " | "
        + (_cell(", ".join(f"`{t}`" for t in engine.moving_tags)) or "-")
        + f" | {_cell(_downloads_cell(engine))} |"
    )


def _downloads_cell(engine: Engine) -> str:
    """Where the engine's start-up download lands, as the engine table's downloads table says ("-" when unknown)."""
    spec = engine.downloads
    if spec is None:
        return "-"
    moved = ", ".join(f"`${name}/{sub}`" if sub else f"`${name}`" for name, sub in spec.env)
    return f"{moved}, else {', '.join(f'`{d}`' for d in spec.dirs)} (from {spec.source})"


def _platform_section() -> list[str]:
    """What counts as a model server, and the platform facts that keep careful forms silent."""
    out: list[str] = []
    out += [
        "",
        "A KServe predictor `model` and the GPU containers of Ray clusters are model servers too, and so is a GPU "
        "container that no row names (a server its image starts through its own script, such as TensorRT-LLM behind "
        "a custom `server.py`; engine `GPU model`) in a Deployment, StatefulSet, LeaderWorkerSet or InferenceService, "
        "a bare Pod that restarts (restartPolicy Always, the default) or a custom resource read generically whose kind "
        "names no batch work (Job, Train, Tuning...), unless it is a placeholder (a pause image or a command that only "
        "sleeps); Dynamo's `dynamo.frontend` and `dynamo.planner` are not. S16 and S10 judge such a server's "
        "livenessProbe without a startupProbe, its startup budget, preStop and grace period as advisory: how it loads "
        "and what it does on SIGTERM are unknown. A *serving app* is a Deployment, StatefulSet or LeaderWorkerSet running a model server, or an "
        "InferenceService.",
        "",
        "Platform facts that keep careful forms silent: a KServe predictor `model` is judged with the ServingRuntime "
        "KServe selects merged in (`policies/reading/kserve_runtime.py`); an LLMInferenceService with KServe's "
        "well-known presets and its baseRefs (`policies/llmisvc_presets.py`); a DynamoGraphDeployment with the "
        "operator's component defaults (`policies/dynamo_defaults.py`); KubeAI Models, KEDA HTTPScaledObjects and "
        "AIBrix PodAutoscalers by their controllers' replica floors and scale-down windows "
        "(`policies/reading/scalers_ext.py`); static Karpenter NodePools (`spec.replicas`) need no GPU limit; GKE "
        "pods that require a GKE node label (accelerator, compute class, node pool) need no GPU toleration and name "
        'their GPU; a Ray head that cannot reach GPU nodes needs no `num-gpus: "0"`.',
        "",
    ]
    return out


# What "mandatory" and "advisory" mean in this pack, and why the hygiene rows advise (docs/policies.md).
_ENFORCEMENT_LEVELS = (
    "### Enforcement levels",
    "",
    "A general (G) row is mandatory when what it finds breaks serving (the server never starts or never becomes "
    "ready, a GPU out-of-memory, a 504 or cut stream), leaks a secret, or is refused by the API server or a "
    "controller; its hygiene and risk rows are advisory: an image tag that may move, missing readiness probes, CPU "
    "and memory requests or memory limits, writable hostPath mounts, host namespaces, privileged containers and "
    "extra capabilities (Pod Security Admission is their gate), bare Pods, PDBs and priority classes, multi-node "
    "pool expiry, a LoadBalancer or NodePort Service in front of a model server (G32: labellers of held-out sets 13 "
    "to 29 filed 31 of its 41 labels advisory; the platform's ingress decides whether it is exposed), and an "
    "operator's own short scale-down window (S8 on AIBrix, KubeAI or Ray Serve: a flapping risk). The serving-safety (S) series blocks by design (the project's design), except the rows whose "
    "finding is only ever a risk: a model revision that may move (S17), GPU hygiene of a Ray head (S18), an "
    "ephemeral-storage request (S19: the node's disk, which decides whether a download fits, is never in a pod's "
    "manifest), a GPU NodePool's taint, disruption budgets, limits and expiry (S11 to S14: cost and eviction risks; "
    "labellers of held-out sets 13 to 37 filed all 38 of their labels on S11 to S13 advisory) and serving code or "
    "packages fetched unpinned at start (S31: 22 of 23 labels advisory; a reference that moves may still work). "
    "Independent labellers of held-out sets 12 to 15 (third-party manifests, "
    "[benchmarks](benchmarks.md#recall-on-manifests-nobody-here-has-read-issue-32)) filed 121 of their 122 labels "
    "on these rows as advisory. A platform that wants any of them to block raises it with `--config` (or the Pulumi "
    "policy config): "
    '`{"serving-resource-requests": {"enforcementLevel": "mandatory"}}`.',
    "",
)


def render(policies: Sequence[Policy] | None = None) -> str:
    """The whole page as Markdown."""
    if policies is None:
        from policies.registry import POLICIES

        policies = POLICIES
    out = [
        "# llm-serving policies",
        "",
        f"<!-- Generated from policies/registry.py by `python -m policies docs --out {DOCS_PAGE}`; do not edit. -->",
        "",
        "Every policy of the llm-serving CrossGuard pack: what it blocks, why, how to fix it, its config and how to "
        "exempt a resource. The same pure checks run in three places:",
        "",
        "- `pulumi preview --policy-pack <built pack>` under the Pulumi CLI (see [Running the pack under the Pulumi "
        "CLI](#running-the-pack-under-the-pulumi-cli));",
        "- `python -m stacks plan STACK`, the offline plan of this repository's stacks;",
        "- `python -m policies check PATH... | -`, over any Kubernetes manifests (files, folders of .yaml/.yml/.json, "
        "stdin; `List` objects flattened).",
        "",
        "Mandatory violations fail the command (exit 1); advisory ones are reported only. A mandatory policy blocks "
        "only on what the checked objects prove: a finding that rests on something they do not show (a cluster "
        "setting taken at its default, such as `gpuNodesTainted`; an object outside the files read, such as the "
        "NodePool a pod lands on; a pod template another object completes, such as a ServingRuntime whose "
        "InferenceServices may set or override any of its fields; an estimate standing in for a figure the manifest "
        "does not give) is reported as advisory (`policies/framework.py` unproven). Under the Pulumi CLI a policy has one enforcement level, so "
        "such a finding is reported at the policy's level there. Findings on a resource "
        f'are silenced by the annotation `{EXEMPTION_PREFIX}<policy name>: "<reason>"`. Policies over the whole '
        "stack never join objects of two clusters: `policies check` over several clusters' manifests (the same "
        "object defined in two files) checks each folder apart ([CLI](cli.md#python-m-policies-check)). A Kustomize "
        "patch (a file a kustomization.yaml of the run lists under patches, patchesStrategicMerge or patchesJson6902, "
        "or a workload pod template with a container that names no image) lacks what its base holds: there only "
        "what the patch states itself (an image tag, a literal credential, a privileged flag, a debug switch) "
        "blocks, and every other finding is advisory (`policies/reading/kustomize.py`).",
        "",
        *_ENFORCEMENT_LEVELS,
        "| policy | catalogue | enforcement | severity | blocks |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| [{p.name}](#{p.name}) | {p.catalog} | {p.enforcement} | {p.severity} | {_cell(p.description)} |" for p in policies
    ]
    out += _reading_section()
    out += _platform_section()
    for policy in policies:
        out += _section(policy)
    out += _catalogue(policies)
    out += [
        "## Generic checks left out, and why",
        "",
        "Rows of the catalogue's general table with no policy of their own:",
        "",
        "| row | check | decision |",
        "|---|---|---|",
    ]
    out += [f"| {_rows(ids)} | {_cell('; '.join(catalog.entry(i).title for i in ids))} | {_cell(why)} |" for ids, why in LEFT_OUT]
    out += [
        "",
        "## Running the pack under the Pulumi CLI",
        "",
        "`pulumi policy publish` uploads only the pack folder, and the CLI runs the pack from that folder, so "
        "the pack is built into a self-contained folder first:",
        "",
        "```bash",
        "python -m policies build build/policy-pack        # policies/ and components/ copied, requirements.txt, PulumiPolicy.yaml",
        "pulumi preview --policy-pack build/policy-pack     # or: pulumi policy publish build/policy-pack",
        "```",
        "",
    ]
    return "\n".join(out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m policies docs [--out FILE]`."""
    parser = argparse.ArgumentParser(prog="python -m policies docs", description="Write docs/policies.md from the registry.")
    parser.add_argument("--out", help="file to write (default: print to stdout)")
    args = parser.parse_args(argv)
    text = render()
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"error: --out {args.out}: cannot be written ({exc.strerror})\n")
            return 2
    else:
        sys.stdout.write(text)
    return 0
