"""One PNG per model: load, replicas, queue and TTFT against time, derived settings beside the seeds' defaults.

Deterministic bytes: the Agg backend, a fixed DPI and size, and no metadata (matplotlib writes
its version and a date into PNG text chunks unless told not to).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping


def write_png(path: Path, model: str, runs: Mapping[str, Mapping[str, Any]]) -> None:
    """Four panels over time for ``model``: arrivals/s, ready replicas, queue depth, TTFT p95."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "llm-serving"
    panels = (
        ("arrivals_per_s", "arrivals / s"),
        ("replicas_ready", "ready replicas"),
        ("queue", "queued requests"),
        ("ttft_p95_s", "TTFT p95 (s)"),
    )
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 9), sharex=True, dpi=80)
    styles = {"derived": ("tab:blue", "-"), "seed_defaults": ("tab:red", "--")}
    for ax, (key, label) in zip(axes, panels):
        for run, (color, line) in styles.items():
            if run not in runs or model not in runs[run]:
                continue
            s = runs[run][model]["series"]
            xs = [t / 60 for t, v in zip(s["t"], s[key]) if v is not None]
            ys = [v for v in s[key] if v is not None]
            ax.plot(xs, ys, color=color, linestyle=line, linewidth=1.2, label=run.replace("_", " "))
            if key == "arrivals_per_s":
                break  # the same requests in both runs
        ax.set_ylabel(label)
        ax.grid(True, linewidth=0.3)
    axes[1].legend(loc="upper left", fontsize=8)
    axes[-1].set_xlabel("minutes")
    fig.suptitle(model)
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None}, dpi=80)
    plt.close(fig)
