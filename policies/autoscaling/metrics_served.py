"""S64: a scraped model server serves metrics where it is scraped.

A pod template annotated ``prometheus.io/scrape: "true"`` (with ``prometheus.io/port``), or a ServiceMonitor or
PodMonitor that selects the pods (policies/autoscaling/scrape_and_scaler_reach.py scraped_ports: the monitors'
endpoints through the Service's targetPort), asks Prometheus to scrape a port of the model server. Some servers serve
nothing there: the engine table says where each serves its metrics (components/serving_engines.toml ``metrics_path``,
the ``metrics`` setting), with its source:

* Ollama serves no Prometheus endpoint at all (``metrics_path = ""``: ollama/ollama v0.32.15 server/routes.go
  GenerateRoutes registers no /metrics), so the scrape gets 404;
* llama.cpp's llama-server serves /metrics only when started with ``--metrics`` (or LLAMA_ARG_ENDPOINT_METRICS), and
  answers 501 otherwise (tools/server/README.md, the server's handle_metrics); SGLang only with ``--enable-metrics``
  (python/sglang/srt/entrypoints/http_server.py adds its Prometheus middleware only then).

The target is then down and every series a dashboard, alert or autoscaler reads from it is empty. Advice: a
Prometheus relabelling or an exporter sidecar (another container of the pod on the scraped port: silent) may stand in.
Silent where the scraped port is none the server container declares nor the engine's own port, where the command line
is not settled (a ``$`` in it, an envFrom source that may set the switch's variable), and for engines the table gives
no such fact.
"""

from __future__ import annotations

from typing import Any, Optional

from policies.autoscaling.scalers import workloads
from policies.autoscaling.scrape_and_scaler_reach import meant_scrapes, scraped_ports
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_int, as_list, metadata_name, split_type
from policies.reading.engines import table_servers
from policies.reading.serving import container_argv


def _ports(container: dict, default: int) -> set[int]:
    declared = {as_int(as_dict(p).get("containerPort")) for p in as_list(container.get("ports"))}
    return {p for p in declared if p is not None} | {default}


def _unsettled(server: Any) -> bool:
    """True where the files may set the switch in a way not read: a command line with an unexpanded $, or an envFrom
    source while the switch has a variable."""
    if any("$" in t for t in container_argv(server.container)):
        return True
    return bool(server.row.env.get("metrics")) and bool(as_list(server.container.get("envFrom")))


def _finding(server: Any, port: int, where: str) -> Optional[str]:
    row = server.row
    if not row.metrics_path:
        return (
            f"{server.label}: {where} scrapes port {port} of this {row.display} server, which serves no Prometheus "
            f"metrics at all (components/serving_engines.toml [engines.{row.name}] metrics_path, sources.metrics): "
            f"every scrape gets 404, the target is down and every series read from it is empty; drop the scrape or add "
            f"an exporter"
        )
    if "metrics" in row.flags or "metrics" in row.env:
        if "metrics" in server.args or _unsettled(server):
            return None
        return (
            f"{server.label}: {where} scrapes port {port} of this {row.display} server, but it serves "
            f"{row.metrics_path} only when started with {row.shown['metrics']} (components/serving_engines.toml "
            f"[engines.{row.name}] settings.metrics, sources.metrics), which its command line and env do not set: the "
            f"scrape fails, the target is down and every series read from it is empty; add {row.shown['metrics']}"
        )
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for workload in workloads(resources):
        servers = table_servers(workload.resource)
        if not servers:
            continue
        scraped = scraped_ports(workload, resources)
        # A monitor that selects no Service by its labels but was written for this one: said on the monitor only
        # (whether it scrapes anything at all is G42's finding there).
        meant = [
            (n, name, f"{split_type(m.type)[1]} {metadata_name(m.props)}") for n, name, m in meant_scrapes(workload, resources)
        ]
        by_where = {f"{split_type(m.type)[1]} {metadata_name(m.props)}": m for m in _monitors(resources)}
        for server in servers:
            if server.row is None:
                continue
            own = _ports(server.container, server.row.port)
            others = {
                p
                for c in (as_dict(x) for x in as_list(server.podspec.get("containers")))
                if c is not server.container
                for p in _ports(c, -1)
            }
            hits = [(n, w) for n, _, w in scraped if n in own and n not in others]
            if hits and (message := _finding(server, *hits[0])) is not None:
                findings.append((workload.resource.name, unproven(message)))
            # The monitor's endpoint is the field to change: said on the monitor too (spent set 88 amey2025/ollama
            # prometheus_service_monitor.yaml, labelled S64 on the ServiceMonitor).
            for number, where in hits + [(n, w) for n, _, w in meant if n in own and n not in others]:
                monitor = by_where.get(where)
                if monitor is not None and (message := _finding(server, number, where)) is not None:
                    text = f"{message} (pods of {split_type(workload.resource.type)[1]} {workload.name})"
                    findings.append((monitor.name, unproven(text)))
    return list(dict.fromkeys(findings))


def _monitors(resources: list[Resource]) -> list[Resource]:
    return [r for r in resources if split_type(r.type)[1] in ("ServiceMonitor", "PodMonitor")]


POLICY = Policy(
    name="scraped-server-serves-metrics",
    description=(
        "A model server that a prometheus.io/scrape annotation, a ServiceMonitor or a PodMonitor scrapes serves metrics "
        "there: not Ollama (no metrics endpoint), not llama.cpp without --metrics nor SGLang without --enable-metrics."
    ),
    catalog="S64",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Start llama-server with --metrics and SGLang with --enable-metrics; for Ollama drop the scrape or run an "
        "exporter beside it and scrape that."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "ollama/ollama v0.32.15 server/routes.go registers no /metrics; llama.cpp tools/server/README.md: /metrics "
        "'is only accessible if --metrics is set'; sglang http_server.py adds the Prometheus middleware only with "
        "--enable-metrics (components/serving_engines.toml sources.metrics)."
    ),
)
