"""Creation waves of a planned stack: what ``pulumi up`` can create at the same time, in order.

Wave 1 holds the resources that wait for nothing; wave n+1 those whose every dependency is in an
earlier wave (topological levels of the ``dependsOn`` graph of the plan's JSON). ``pulumi destroy``
deletes in the reverse order, last wave first. Components (``llm-serving:*``) and providers are
left out: they create nothing in the cluster or the account.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _shown(r: Mapping[str, Any]) -> bool:
    return not r["type"].startswith(("llm-serving:", "pulumi:providers:"))


def creation_waves(resources: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """The names of the resources in each wave (sorted within a wave). Raises ValueError on a cycle."""
    shown = {r["name"]: r for r in resources if _shown(r)}
    deps = {n: {d for d in r.get("dependsOn") or () if d in shown and d != n} for n, r in shown.items()}
    level: dict[str, int] = {}
    remaining = set(deps)
    while remaining:
        ready = sorted(n for n in remaining if deps[n] <= level.keys())
        if not ready:
            raise ValueError(f"the dependencies form a cycle among: {', '.join(sorted(remaining))}")
        for n in ready:
            level[n] = 1 + max((level[d] for d in deps[n]), default=0)
        remaining -= set(ready)
    waves: list[list[str]] = [[] for _ in range(max(level.values(), default=0))]
    for n in sorted(level):
        waves[level[n] - 1].append(n)
    return waves


def _label(r: Mapping[str, Any]) -> str:
    kind = r["type"].rsplit(":", 1)[-1]
    return f"{kind} {r['name']}".replace('"', "'")


def waves_mermaid(resources: Sequence[Mapping[str, Any]]) -> list[str]:
    """A Mermaid flowchart (GitHub renders it in a pull request): one box per wave, waves in order."""
    waves = creation_waves(resources)
    if not waves:
        return []
    by_name = {r["name"]: r for r in resources}
    out = ["```mermaid", "flowchart TB"]
    for i, wave in enumerate(waves, 1):
        out.append(f'  subgraph w{i}["wave {i}: {len(wave)} resources"]')
        out.append("    direction LR")
        for j, name in enumerate(wave):
            out.append(f'    w{i}n{j}["{_label(by_name[name])}"]')
        out.append("  end")
    out.extend(f"  w{i} --> w{i + 1}" for i in range(1, len(waves)))
    out.append("```")
    return out


def waves_markdown(report: Mapping[str, Any]) -> list[str]:
    """The report's section: what comes up in which order, and that destroy runs it backwards."""
    try:
        chart = waves_mermaid(report.get("resources") or [])
    except ValueError as exc:
        return ["", f"**Creation order:** {exc}"]
    if not chart:
        return []
    return [
        "",
        "**Creation waves** (`pulumi up` creates a wave once every resource it waits for exists; "
        "`pulumi destroy` deletes the last wave first; see docs/deploy.md)",
        "",
        *chart,
    ]
