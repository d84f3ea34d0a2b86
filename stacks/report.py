"""Plan reports: the JSON contract (docs/cli.md) and a readable text form (plus markdown and SARIF).

`python -m policies check` renders its reports with the same Markdown and SARIF code
(`check_markdown`, `sarif_log`), so a pull request sees one format from both commands.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from policies.report import (  # noqa: F401 (the plan's reports and the check's share them)
    SARIF_SCHEMA,
    SECURITY_SEVERITY,
    STDIN_NAME,
    check_markdown,
    docs_url,
    plural,
    repo_uri,
    sarif_log,
    violation_row,
    violations_markdown,
)
from policies.report import _cell as _cell
from stacks.deploy_graph import waves_markdown


def plan_report(
    stack: str, resources: Sequence[Mapping[str, Any]], violations: Sequence[Any], models: Sequence[Mapping[str, Any]]
) -> dict:
    """The JSON report: stack, resources [{type, name, parent, dependsOn}], violations, models.

    ``dependsOn`` names the resources Pulumi waits for before creating the resource (and deletes
    only after it), as the engine received them; a row given none has none. ``customTimeouts``
    (create/update/delete, as ResourceOptions set them) and ``awaitAnnotations`` (pulumi.com/waitFor,
    skipAwait, timeoutSeconds) appear on the rows that set them, and ``replaceOnChanges`` with ``deleteBeforeReplace``
    on the rows whose edit replaces them (a RayCluster while `up` waits for the models).
    """
    return {
        "stack": stack,
        "resources": [
            {
                "type": r["type"],
                "name": r["name"],
                "parent": r["parent"],
                "dependsOn": list(r.get("dependsOn") or ()),
                **{k: dict(r[k]) for k in ("customTimeouts", "awaitAnnotations") if r.get(k)},
                **{k: r[k] for k in ("replaceOnChanges", "deleteBeforeReplace") if k in r and r.get("replaceOnChanges")},
            }
            for r in resources
        ],
        "violations": [violation_row(v) for v in violations],
        "models": list(models),
    }


def render_json(report: Mapping[str, Any]) -> str:
    """Stable JSON: sorted keys, two-space indent."""
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    rows = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    return [line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows]


def render_text(report: Mapping[str, Any]) -> str:
    """Human-readable report: resources per component, violations, then each model's figures."""
    out = [
        f"Stack {report['stack']}: {plural(len(report['resources']), 'resource')}, {plural(len(report['violations']), 'violation')}",
        "",
    ]
    by_parent: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in report["resources"]:
        by_parent[r["parent"] or "(stack)"].append(r)
    out.append("Resources")
    for parent in by_parent:
        out.append(f"  {parent}")
        out.extend("    " + row for row in _table(["type", "name"], [(r["type"], r["name"]) for r in by_parent[parent]]))
    out.append("")
    out.append("Violations" if report["violations"] else "Violations: none")
    for v in report["violations"]:
        out.append(f"  [{v['enforcement']}] {v['policy']} ({v['catalog']}) {v['resource'] or '(stack)'}: {v['message']}")
    for m in report["models"]:
        out.append("")
        out.append(
            f"Model {m['name']}: {m['model']} on {m['gpus_per_replica']}x {m['gpu']} ({m['node']}), "
            f"{'fits' if m['fits'] else 'DOES NOT FIT'}: {m['reason']}"
        )
        out.extend("  " + line for line in memory_breakdown(m))
        out.append(
            f"  serving: maxNumSeqs {m['max_num_seqs']}, maxNumBatchedTokens {m['max_num_batched_tokens']}, "
            f"queue {m['max_num_queued_reqs'] if m['max_num_queued_reqs'] is not None else 'unbounded (no admission control)'}, HPA target {m['target_in_flight_per_pod']} in flight/pod"
        )
        res = m["resources"]
        out.append(
            f"  pod: {res['cpu']} CPU, {res['memory_gib']} GiB memory, {res['shm_gib']} GiB /dev/shm, "
            f"{res['ephemeral_storage_gib']} GiB ephemeral; startup budget {m['startup_budget_seconds']}s, "
            f"grace {m['termination_grace_seconds']}s"
        )
        out.extend(_scaling_section(m))
        for d in m["derived"]:
            out.append(f"  derived {d['setting']} = {d['value']}: {d['reason']}")
        out.extend(_layout_section(m))
        out.extend(_timeouts_section(m))
    out.extend(_pools_section(report))
    return "\n".join(out) + "\n"


def _pools_section(report: Mapping[str, Any]) -> list[str]:
    """Per GPU pool: instance types, GPUs per node, gpuLimit, buffer GPUs, models, and each model's startup budget with its parts."""
    pools = report.get("pools") or []
    if not pools:
        return []
    rows = [
        (
            p["name"],
            ", ".join(p["instance_types"]),
            ", ".join(f"{t}={n}" for t, n in p["gpus_per_node"].items()),
            p["gpu_limit"],
            p["buffer_gpus"],
            f"{p['peak_gpus']}/{p['gpu_limit']}",
            p.get("nodes", 0),
            p.get("idle_gpus", 0),
            _drift(p),
            ", ".join(p["models"]) or "-",
        )
        for p in pools
    ]
    out = ["", "GPU pools"]
    out.extend(
        "  " + line
        for line in _table(
            [
                "pool",
                "instance types",
                "GPUs per node",
                "gpuLimit",
                "buffer GPUs",
                "peak/limit",
                "nodes",
                "idle GPUs",
                "drift",
                "models",
            ],
            rows,
        )
    )
    out.extend(_node_choice_lines(report))
    for p in pools:
        for name, s in p.get("startup", {}).items():
            parts = " + ".join(f"{part['name']} {part['seconds']}s" for part in s["parts"])
            how = f"x {s['safety']:g} margin, floor {s['floor_seconds']}s" if s["derived"] else "configured"
            out.append(
                f"  cold start {name} ({s['source']}): {parts} = {s['sum_seconds']}s; {how}; budget {s['budget_seconds']}s"
            )
    return out


def _drift(pool: Mapping[str, Any]) -> str:
    """How a pool's nodes get new AMIs, for the pool tables: drift held for a planned roll, or drift in the window."""
    if pool.get("drift") == "held":
        return "held: planned roll (docs/platform.md)"
    return "in window"


def _node_choice_lines(report: Mapping[str, Any]) -> list[str]:
    """Per model, the nodes Karpenter takes for its replicas.min (derived/karpenter/node-choice.yaml), and its findings."""
    choice = report.get("node_choice") or {}
    out = []
    for m in choice.get("models", []):
        shared = f", shared with {', '.join(m['shares_nodes_with'])}" if m["shares_nodes_with"] else ""
        out.append(
            f"  nodes {m['model']}: {m['pods']} pods on {m['nodes']} x {', '.join(m['instance_types'])} ({m['pool']}){shared}"
        )
    for u in choice.get("unschedulable", []):
        out.append(f"  nodes {u['owner']}: {u['pod']} gets no node: {u['reason']}")
    return out


def _pools_markdown(report: Mapping[str, Any]) -> list[str]:
    """The GPU pool table for a pull-request comment."""
    pools = report.get("pools") or []
    if not pools:
        return []
    out = [
        "",
        "| pool | instance types | GPUs per node | gpuLimit | buffer GPUs | nodes | idle GPUs | drift | models | cold-start budgets |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pools:
        budgets = ", ".join(f"{n} {s['budget_seconds']}s ({s['source']})" for n, s in p.get("startup", {}).items()) or "-"
        out.append(
            f"| {p['name']} | {', '.join(p['instance_types'])} | {', '.join(str(n) for n in p['gpus_per_node'].values())} | "
            f"{p['gpu_limit']} | {p['buffer_gpus']} | {p.get('nodes', 0)} | {p.get('idle_gpus', 0)} | {_drift(p)} | "
            f"{', '.join(p['models']) or '-'} | {budgets} |"
        )
    choice = report.get("node_choice") or {}
    if choice.get("models"):
        out += [
            "",
            "Nodes Karpenter takes at replicas.min, all pods pending at once (derived/karpenter/node-choice.yaml):",
            "",
            "| model | pool | pods | nodes | instance types | shares nodes with |",
            "|---|---|---|---|---|---|",
        ]
        for m in choice["models"]:
            out.append(
                f"| {m['model']} | {m['pool']} | {m['pods']} | {m['nodes']} | {', '.join(m['instance_types'])} | "
                f"{', '.join(m['shares_nodes_with']) or '-'} |"
            )
    return out


def _layout_section(m: Mapping[str, Any]) -> list[str]:
    """A multi-node model's layout: nodes x GPUs, the head, and each pipeline stage's GPUs."""
    layout = m.get("layout")
    if not layout:
        return []
    head = m["head_resources"]
    lines = [
        f"  layout ({layout['backend']}): {layout['nodes']} nodes x {layout['gpus_per_node']} GPUs ({layout['instance_type']}), "
        f"tensor parallel {layout['tensor_parallel_size']} x pipeline parallel {layout['pipeline_parallel_size']}, "
        f"{layout['efa_interfaces_per_node']} EFA interfaces per node; head: {head['cpu']} CPU, {head['memory_gib']} GiB, no GPU"
    ]
    rows = [
        (
            s["stage"],
            f"{s['first_layer']}-{s['first_layer'] + s['layers'] - 1}",
            s["layers"],
            f"{s['weights_gib']:.2f}",
            f"{s['kv_cache_gib']:.2f}",
            "-" if s["kv_cache_tokens"] is None else f"{s['kv_cache_tokens']:,}",
        )
        for s in layout["stages"]
    ]
    lines += ["    " + r for r in _table(["stage", "layers", "count", "weights GiB/GPU", "KV GiB/GPU", "KV tokens"], rows)]
    return lines


def _scaling_section(m: Mapping[str, Any]) -> list[str]:
    """One model's scaling: backend and signal, target, replica bounds, time to scale out."""
    a = m.get("autoscaling")
    if not a:
        if "autoscaling" in m:  # None: a multi-node model, one fixed-size Ray cluster
            return ["  scaling: none; one multi-node Ray cluster of fixed size (autoscaling multi-node replicas is out of scope)"]
        return []
    what = f"HPA on {a['metric']}" if a["kind"] == "HorizontalPodAutoscaler" else "ScaledObject (Prometheus trigger)"
    return [
        f"  scaling: {a['backend']} {what}; signal {a['signal']}, target {a['target_in_flight_per_pod']} "
        f"(a replica holds {a['replica_capacity']}), replicas {a['min_replicas']}-{a['max_replicas']}, "
        f"scale-down after {a['scale_down_stabilization_seconds']}s",
        f"  scale-out on a fresh node: about {a['scale_out_estimate_seconds']}s = signal lag {a['metric_lag_seconds']}s + "
        f"node and image {a['node_lead_seconds']}s + replica start {a['replica_start_seconds']}s ({a['replica_start_source']}); "
        f"at most {a['scale_out_seconds']}s with the {a['startup_budget_seconds']}s startup budget",
    ]


def memory_breakdown(m: Mapping[str, Any]) -> list[str]:
    """The per-GPU budget as a small table (shared by `plan` and `size`)."""
    rows = [
        ("total (device)", f"{m['gpu_memory_gib']:.2f}"),
        (f"budget (x {m['gpu_memory_utilization']:g})", f"{m['budget_gib']:.2f}"),
        ("- weights", f"{m['weights_gib']:.2f}"),
        ("- activation peak", f"{m['activation_gib']:.2f}"),
        ("- non-torch", f"{m['non_torch_gib']:.2f}"),
        ("- CUDA graphs", f"{m['cuda_graph_gib']:.2f}"),
        ("= KV cache", f"{m['kv_cache_gib']:.2f}"),
    ]
    lines = _table(["per GPU", "GiB"], rows)
    lines.append(f"accounting of vLLM {m['accounting']}")
    lines.append(
        f"KV: {m['kv_bytes_per_token']:,} B/token, {m['kv_cache_tokens']:,} tokens, "
        f"max concurrency {m['max_concurrency']:.2f}x at {m['max_model_len']:,} tokens"
    )
    return lines


def render_markdown(report: Mapping[str, Any]) -> str:
    """A pull-request comment for one stack: violations first, then the capacity, scaling and timeout tables."""
    out = [f"### llm-serving plan: `{report['stack']}`", ""]
    out += violations_markdown(report["violations"])
    out += ["", "| model | GPU | weights GiB | KV GiB | KV tokens | max concurrency | fits |", "|---|---|---|---|---|---|---|"]
    for m in report["models"]:
        out.append(
            f"| {m['name']} | {m['gpus_per_replica']}x {m['gpu']} | {m['weights_gib']:.2f} | {m['kv_cache_gib']:.2f} | "
            f"{m['kv_cache_tokens']:,} | {m['max_concurrency']:.2f} | {'yes' if m['fits'] else 'no'} |"
        )
    out += _scaling_markdown(report["models"])
    out += _layout_markdown(report["models"])
    out += _edit_markdown(report["models"])
    out += _timeouts_markdown(report["models"])
    out += _pools_markdown(report)
    out += _controllers_markdown(report["models"])
    out += waves_markdown(report)
    return "\n".join(out) + "\n"


def _quantities(values: Any) -> str:
    if not isinstance(values, Mapping) or not values:
        return "none"
    return ", ".join(f"{k} {v}" for k, v in sorted(values.items()))


def _probe_text(name: str, probe: Any) -> str:
    if not isinstance(probe, Mapping):
        return ""
    how = next((k for k in ("httpGet", "tcpSocket", "exec", "grpc") if k in probe), "?")
    target = probe.get(how) or {}
    where = f"{target.get('path', '')}:{target.get('port', '')}" if isinstance(target, Mapping) else how
    period, failures = probe.get("periodSeconds", 10), probe.get("failureThreshold", 3)
    return f"{name} {how} {where} every {period}s x {failures}"


def _controllers_markdown(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per model, what the controllers create from its objects (components/derive): KServe's predictor
    Deployment with its defaulted resources, probes, progress deadline and volumes, then any other derived object."""
    deployments = [(m["name"], c) for m in models for c in m.get("controllers") or () if c["kind"] == "Deployment"]
    others = [(m["name"], c) for m in models for c in m.get("controllers") or () if c["kind"] not in ("Deployment", "Service")]
    out: list[str] = []
    if deployments:
        out += [
            "",
            "**What the controllers create** (derived under `derived/`: the Deployment each controller submits)",
            "",
            "| model | Deployment | requests | limits | probes | progressDeadlineSeconds vs startup budget | volumes | init containers |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, c in deployments:
            s = c["summary"]
            res = s.get("resources") or {}
            probes = "; ".join(
                t for t in (_probe_text(k.replace("Probe", ""), v) for k, v in (s.get("probes") or {}).items()) if t
            )
            budget = s.get("startupBudgetSeconds")
            deadline = s.get("progressDeadlineSeconds")
            versus = f"{deadline}s vs {budget}s" if budget is not None else f"{deadline}s (no startup probe)"
            if budget is not None and deadline is not None and deadline < budget:
                versus += " (short)"
            out.append(
                f"| {name} | {c['controller']}: `{c['name']}` | {_cell(_quantities(res.get('requests')))} | "
                f"{_cell(_quantities(res.get('limits')))} | {_cell(probes or 'none')} | {versus} | "
                f"{_cell(', '.join(s.get('volumes') or []) or 'none')} | {_cell(', '.join(s.get('initContainers') or []) or 'none')} |"
            )
    if others:
        out += ["", "| model | controller | object | figures |", "|---|---|---|---|"]
        for name, c in others:
            figures = ", ".join(f"{k} {v}" for k, v in sorted((c.get("summary") or {}).items()))
            out.append(f"| {name} | {c['controller']} | {c['kind']} `{c['name']}` | {_cell(figures)} |")
    return out


def _timeouts_markdown(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per model, its timeout chain as a table: layer, setting, value, why."""
    out: list[str] = []
    for m in models:
        chain = m.get("timeouts")
        if not chain:
            continue
        out += [
            "",
            f"**Timeout chain of `{m['name']}`** (vLLM {m.get('vllm_release', '?')})",
            "",
            "| layer | setting | value | why |",
            "|---|---|---|---|",
        ]
        out += [f"| {_cell(r['layer'])} | {_cell(r['setting'])} | {r['seconds']}s | {_cell(r['why'])} |" for r in chain["layers"]]
    return out


def _layout_markdown(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per multi-node model: nodes x GPUs, and the layers and per-GPU KV budget of each pipeline stage."""
    rows = [m for m in models if m.get("layout")]
    if not rows:
        return []
    out = [
        "",
        "| multi-node model | nodes x GPUs | TP x PP | layers per stage | KV GiB per GPU by stage |",
        "|---|---|---|---|---|",
    ]
    for m in rows:
        lay = m["layout"]
        kv = ", ".join(f"{stage['kv_cache_gib']:.2f}" for stage in lay["stages"])
        out.append(
            f"| {m['name']} | {lay['nodes']} x {lay['gpus_per_node']} ({lay['instance_type']}) | "
            f"{lay['tensor_parallel_size']} x {lay['pipeline_parallel_size']} | {', '.join(map(str, lay['layers_per_stage']))} | "
            f"{kv} |"
        )
    return out


# The derivation of builders/ray_cluster.py edit_cost: what an edit of a multi-node engine's RayCluster costs.
EDIT_SETTING = "RayCluster edit"


def _edit_markdown(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per multi-node model: what an edit of its RayCluster recreates and how long the model is down."""
    rows = [(m["name"], d) for m in models for d in m.get("derived") or () if d.get("setting") == EDIT_SETTING]
    if not rows:
        return []
    out = ["", "| multi-node model | what an edit of its RayCluster does | why |", "|---|---|---|"]
    out += [f"| {name} | {_cell(str(d['value']))} | {_cell(str(d['reason']))} |" for name, d in rows]
    return out


def _scaling_markdown(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per model: scaling backend, signal target, replica bounds and time to scale out."""
    rows = [m for m in models if m.get("autoscaling")]
    if not rows:
        return []
    out = ["", "| model | scaling | target in flight/pod | replicas | scale-out (s) |", "|---|---|---|---|---|"]
    for m in rows:
        a = m["autoscaling"]
        out.append(
            f"| {m['name']} | {a['backend']} | {a['target_in_flight_per_pod']} | {a['min_replicas']}-{a['max_replicas']} | "
            f"about {a['scale_out_estimate_seconds']} (at most {a['scale_out_seconds']}) |"
        )
    return out


def render_sarif(report: Mapping[str, Any]) -> str:
    """SARIF 2.1.0 for code-scanning UIs: one result per violation, at the stack-file line it came from."""
    return json.dumps(sarif_log(report["violations"], report.get("stack_file", "")), indent=2, sort_keys=True) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown, "sarif": render_sarif}


def _timeouts_section(m: Mapping[str, Any]) -> list[str]:
    """One model's timeout chain (components/timeouts.py): layer, setting, value, why; outer layer first."""
    chain = m.get("timeouts")
    if not chain:
        return []
    rows = [(row["layer"], row["setting"], f"{row['seconds']}s", row["why"]) for row in chain["layers"]]
    return [f"  timeout chain (vLLM {m.get('vllm_release', '?')}):"] + [
        "    " + r for r in _table(["layer", "setting", "value", "why"], rows)
    ]
