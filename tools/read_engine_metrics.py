"""Write components/engine_metrics.json: the Prometheus series each model server exports, read from its source.

    python tools/read_engine_metrics.py [--mirrors DIR]

Read, not run, from the public repositories' git mirrors (tools/crd_cel_rules.mirror_folder: $LLM_SERVING_MIRRORS):
every metric name the source registers, at each release below, and the first of those releases that registers it:

- Hugging Face TGI (huggingface/text-generation-inference, tags vX.Y.0 from v1.0.0 and the newest): the ``metrics``
  crate's ``gauge!``/``counter!``/``histogram!("tgi_...")`` calls under router/ and backends/ (launcher excluded).
- Text Embeddings Inference (huggingface/text-embeddings-inference, tags vX.Y.0 from v1.0.0 and the newest): the same
  calls naming ``te_...``.
- Triton Inference Server (triton-inference-server/core, release branches r23.01 .. r26.06, every sixth month and the
  newest): ``.Name("nv_...")`` of the prometheus-cpp family builders in src/metrics.cc.

The ``metrics`` crate's Prometheus exporter (metrics-exporter-prometheus) exposes a name as registered (no ``_total``
appended) and a histogram with buckets as ``_bucket``/``_sum``/``_count``. SGLang, llama.cpp's server and NIM are
too large to mirror or publish no source: their rows in the JSON's ``hand`` part are kept by hand, each with its
source (repository@commit path, or NVIDIA's documentation page); this script copies them unchanged.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.crd_cel_rules import mirror_folder  # noqa: E402

OUT = ROOT / "components" / "engine_metrics.json"
# metrics 0.22+ ``gauge!("x")``; metrics 0.21 (TGI before v2.1, TEI before v1.5) ``increment_counter!("x")``,
# ``increment_gauge!("x", 1.0)``, ``gauge!("x", v)``, ``histogram!("x", v)``.
_RUST = re.compile(r'\b(?:increment_|decrement_|absolute_)?(gauge|counter|histogram)!\(\s*"((?:tgi|te)_[a-z0-9_]+)"')
_CPP = re.compile(r'\.Name\("(nv_[a-z0-9_]+)"\)')
_BUILDER = re.compile(r"Build(Counter|Gauge|Histogram|Summary)\(\)")


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True, text=True, check=True).stdout


def _rust(mirror: Path, ref: str, prefix: str) -> dict[str, tuple[str, str]]:
    """name -> (kind, path:line) at ``ref``: the first call site in path order."""
    out = _git(mirror, "grep", "-n", "-E", rf'(gauge|counter|histogram)!\(\s*"{prefix}', ref, "--", "router", "backends", "core")
    found: dict[str, tuple[str, str]] = {}
    for line in out.splitlines():
        _, path, number, text = line.split(":", 3)
        for kind, name in _RUST.findall(text):
            found.setdefault(name, (kind, f"{path}:{number}"))
    return found


def _triton(mirror: Path, ref: str) -> dict[str, tuple[str, str]]:
    text = _git(mirror, "show", f"{ref}:src/metrics.cc").splitlines()
    found: dict[str, tuple[str, str]] = {}
    kind = ""
    for number, line in enumerate(text, 1):
        if builder := _BUILDER.search(line):
            kind = builder.group(1).lower()
        for name in _CPP.findall(line):
            found.setdefault(name, (kind, f"src/metrics.cc:{number}"))
    return found


def _row(repo: str, releases: list[str], read) -> dict:
    """The row of one engine: every name the newest release registers, with its kind, line and first release read."""
    at = {ref: read(ref) for ref in releases}
    newest = releases[-1]
    series = []
    for name, (kind, where) in sorted(at[newest].items()):
        first = next(ref for ref in releases if name in at[ref])
        series.append({"name": name, "kind": kind, "first": first, "at": where})
    return {"source": f"{repo} {newest}", "releases": releases, "series": series}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mirrors", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.mirrors is None:
        args.mirrors = mirror_folder()
    tgi = args.mirrors / "huggingface+text-generation-inference" / "repo"
    tei = args.mirrors / "huggingface+text-embeddings-inference" / "repo"
    triton = args.mirrors / "triton-inference-server+core" / "repo"
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    data = {
        "read": {
            "tgi": _row(
                "huggingface/text-generation-inference",
                ["v1.0.0", "v1.4.0", "v2.0.0", "v2.4.0", "v3.0.0", "v3.3.7"],
                lambda ref: _rust(tgi, ref, "tgi_"),
            ),
            "tei": _row(
                "huggingface/text-embeddings-inference",
                ["v1.0.0", "v1.2.0", "v1.5.0", "v1.7.0", "v1.9.3"],
                lambda ref: _rust(tei, ref, "te_"),
            ),
            "triton": _row(
                "triton-inference-server/core",
                ["r23.01", "r23.07", "r24.01", "r24.07", "r25.01", "r25.07", "r26.01", "r26.06"],
                lambda ref: _triton(triton, ref),
            ),
        },
        "hand": old.get("hand", {}),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
