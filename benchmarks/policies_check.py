"""Benchmark: `python -m policies check` over 2,000 generated manifests, before and after the bounded loader;
and over the third-party corpus side by side with Checkov.

    python benchmarks/policies_check.py [--manifests 2000] [--runs 5]
    python benchmarks/policies_check.py --corpus [--runs 7] [--checkov PATH]

``--corpus`` runs, as whole processes in interleaved rounds, ``python -m policies check`` over
../shared/corpus/manifests and Checkov over the same folder, the way benchmarks/run.py runs it
(``checkov -d DIR --framework kubernetes --quiet --compact --skip-download``, bytecode cache on
for both after a warm-up run); it prints the median and minimum wall time and CPU time of each,
the ratio of the medians, and whether the pack's targets hold (under 1 s, at least 10x faster than
Checkov). Checkov is optional (``--checkov PATH``, ``$CHECKOV`` or ``checkov`` on PATH; not a
dependency: ``python -m venv /tmp/checkov && /tmp/checkov/bin/pip install checkov==3.3.30``).

Generates a folder of manifests like a real repository's (vLLM Deployments with probes and GPU
limits, Services, ConfigMaps, HPAs, KServe InferenceServices, and Lists of them), then times, in
one process and on the same files:

* **before** -- reading as policies/check.py did at commit 0fce383 (``yaml.safe_load_all``: PyYAML's
  pure-Python loader, no limits), taken from git when the history is there;
* **after, pure parser** -- components/loading.py over PyYAML's pure-Python parser (what a
  machine without libyaml gets);
* **after** -- components/loading.py over libyaml's C parser (what `policies check` uses).

Each variant reads the files and evaluates the whole policy pack; the table shows the median of
``--runs`` runs of reading alone and of reading plus evaluation, the throughput, and the ratio
to "before". Timings vary by machine; this is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from policies.check import resources_of  # noqa: E402
from policies.manifests import manifest_paths, read_manifests  # noqa: E402
from policies.registry import evaluate  # noqa: E402

BEFORE_COMMIT = "0fce383"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-{i}
  namespace: llm
  labels: {{app: vllm-{i}, team: serving}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: vllm-{i}}}}}
  template:
    metadata: {{labels: {{app: vllm-{i}}}}}
    spec:
      nodeSelector: {{karpenter.k8s.aws/instance-gpu-name: l40s}}
      tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: [vllm, serve]
        args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --gpu-memory-utilization, "0.9", --port, "8000"]
        env:
        - {{name: HF_TOKEN, valueFrom: {{secretKeyRef: {{name: hf-token, key: token}}}}}}
        - {{name: VLLM_LOGGING_LEVEL, value: INFO}}
        ports: [{{containerPort: 8000, name: http}}]
        resources:
          limits: {{nvidia.com/gpu: 1, memory: 48Gi, cpu: "8"}}
          requests: {{nvidia.com/gpu: 1, memory: 48Gi, cpu: "8"}}
        startupProbe: {{httpGet: {{path: /health, port: 8000}}, periodSeconds: 10, failureThreshold: 90}}
        readinessProbe: {{httpGet: {{path: /health, port: 8000}}, periodSeconds: 5}}
        volumeMounts: [{{name: dshm, mountPath: /dev/shm}}]
      volumes: [{{name: dshm, emptyDir: {{medium: Memory, sizeLimit: 8Gi}}}}]
"""
SERVICE = """apiVersion: v1
kind: Service
metadata: {{name: vllm-{i}, namespace: llm}}
spec:
  selector: {{app: vllm-{i}}}
  ports: [{{name: http, port: 80, targetPort: 8000}}]
"""
CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata: {{name: settings-{i}, namespace: llm}}
data:
  MODEL: meta-llama/Llama-3.1-8B-Instruct
  MAX_MODEL_LEN: "8192"
  chat-template.jinja: |
    {{% for message in messages %}}{{{{ message.role }}}}: {{{{ message.content }}}}
    {{% endfor %}}
"""
HPA = """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: vllm-{i}, namespace: llm}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: vllm-{i}}}
  minReplicas: 2
  maxReplicas: 8
  metrics:
  - type: Pods
    pods:
      metric: {{name: vllm_num_requests_running}}
      target: {{type: AverageValue, averageValue: "16"}}
"""
ISVC = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {{name: chat-{i}, namespace: llm}}
spec:
  predictor:
    minReplicas: 1
    model:
      modelFormat: {{name: huggingface}}
      runtime: kserve-huggingfaceserver
      args: [--model_name=chat-{i}, --max-model-len=8192]
      resources: {{limits: {{nvidia.com/gpu: "1", memory: 48Gi}}, requests: {{nvidia.com/gpu: "1", memory: 48Gi}}}}
"""
TEMPLATES = (DEPLOYMENT, SERVICE, CONFIG_MAP, HPA, ISVC)


def generate(folder: Path, count: int) -> int:
    """Write ``count`` manifests: single files, multi-document files and Lists; returns the object count."""
    written = 0
    i = 0
    while written < count:
        shape = i % 10
        if shape < 6:  # one object per file
            (folder / f"m{i:05d}.yaml").write_text(TEMPLATES[i % len(TEMPLATES)].format(i=i))
            written += 1
        elif shape < 9:  # a Deployment, its Service and its HPA in one file
            docs = [t.format(i=i) for t in (DEPLOYMENT, SERVICE, HPA)]
            (folder / f"m{i:05d}.yaml").write_text("---\n".join(docs))
            written += 3
        else:  # kubectl get -o yaml: a List
            items = "".join("- " + t.format(i=i).replace("\n", "\n  ").rstrip() + "\n" for t in (DEPLOYMENT, CONFIG_MAP))
            (folder / f"m{i:05d}.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + items)
            written += 2
        i += 1
    return written


def _old_check_module() -> Optional[object]:
    """policies/check.py as of commit 0fce383 (the loader before this change), or None without git history."""
    try:
        source = subprocess.run(
            ["git", "show", f"{BEFORE_COMMIT}:policies/check.py"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / "check_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("check_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# The reference folder, as the tests find it (LLM_SERVING_REFERENCE, default ../shared).
CORPORA = Path(os.environ.get("LLM_SERVING_REFERENCE") or ROOT.parent / "shared") / "corpus"
CORPUS = CORPORA / "manifests"


def corpus_side_by_side(runs: int, checkov: Optional[str], corpus: Path = CORPUS) -> dict:
    """Medians (wall and CPU seconds) of `policies check` and Checkov over the corpus, and their ratio."""
    from benchmarks.run import interleave, process, process_env

    with tempfile.TemporaryDirectory() as tmp:
        env = process_env(Path(tmp) / "pycache")
        cases = {"policies check": process(sys.executable, "-m", "policies", "check", str(corpus), env=env)}
        if checkov:
            cases["checkov"] = process(
                checkov, "-d", str(corpus), "--framework", "kubernetes", "--quiet", "--compact", "--skip-download", env=env
            )
        for warm in cases.values():  # fills the bytecode cache for both sides
            warm()
        wall, cpu = interleave(cases, runs)
        imports = [import_time(corpus, env) for _ in range(runs)]
    figures = {
        name: {"median_s": statistics.median(wall[name]), "min_s": min(wall[name]), "cpu_median_s": statistics.median(cpu[name])}
        for name in cases
    }
    ratio = figures["checkov"]["median_s"] / figures["policies check"]["median_s"] if checkov else None
    return {
        "corpus": str(corpus),
        "runs": runs,
        "checkov": checkov,
        "figures": figures,
        "imports": {"median_ms": statistics.median(ms for ms, _ in imports), "modules": imports[0][1]},
        "ratio": ratio,
        "targets": {
            "policies check < 1 s": figures["policies check"]["median_s"] < 1.0,
            "policies check >= 10x faster than Checkov": (ratio >= 10.0) if ratio is not None else None,
        },
    }


def import_time(corpus: Path, env: dict[str, str]) -> tuple[float, int]:
    """(ms, modules) that `python -X importtime -m policies check CORPUS` spends importing: the sum of the
    top-level modules' cumulative times, which nest every other import (importtime's own overhead included)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "policies", "check", str(corpus)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    rows = [line.split("|") for line in proc.stderr.splitlines() if line.startswith("import time:") and "cumulative" not in line]
    top = [int(cumulative) for _, cumulative, name in rows if not name.startswith("  ")]
    return sum(top) / 1000, len(rows)


def print_corpus(result: dict) -> None:
    """The side-by-side table."""
    files = len(manifest_paths([result["corpus"]]))
    print(
        f"corpus: {files} files under {result['corpus']}, {result['runs']} interleaved runs, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}\n"
    )
    print("| command | median wall | min wall | median CPU |")
    print("|---|---|---|---|")
    for name, f in result["figures"].items():
        print(f"| {name} | {f['median_s'] * 1000:,.0f} ms | {f['min_s'] * 1000:,.0f} ms | {f['cpu_median_s'] * 1000:,.0f} ms |")
    imports = result["imports"]
    print(
        f"\n`python -X importtime -m policies check`: {imports['median_ms']:,.0f} ms importing {imports['modules']} modules (median)"
    )
    if result["ratio"] is None:
        print("\ncheckov: n/a (not installed; pass --checkov PATH)")
    else:
        print(f"\nCheckov / policies check (medians): {result['ratio']:.1f}x")
    for target, met in result["targets"].items():
        print(f"{target}: {'n/a' if met is None else 'yes' if met else 'NO'}")


def main(argv: Optional[list[str]] = None) -> int:
    """Generate, time, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", action="store_true", help="the corpus side by side with Checkov instead")
    parser.add_argument(
        "--folder",
        action="append",
        help="with --corpus: a folder under the reference corpus/ to time (repeatable; default manifests; "
        "the two corpora: --folder manifests --folder manifests-v2)",
    )
    parser.add_argument("--checkov", help="Checkov executable (default: $CHECKOV or `checkov` on PATH; optional)")
    args = parser.parse_args(argv)
    if args.corpus:
        from benchmarks.run import find_checkov

        for name in args.folder or ["manifests"]:
            corpus = CORPORA / name
            if not corpus.exists():
                parser.error(f"{corpus} is absent")
            print_corpus(corpus_side_by_side(args.runs, find_checkov(args.checkov), corpus))
            print()
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        objects = generate(folder, args.manifests)
        size_mb = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
        paths = [str(folder)]
        variants: list[tuple[str, Callable[[], list]]] = []
        old = _old_check_module()
        if old is not None:
            variants.append(
                (f"before ({BEFORE_COMMIT}: yaml.safe_load_all)", lambda: old.load_resources(old.manifest_files(paths)))
            )  # type: ignore[attr-defined]
        variants.append(("after, pure-Python parser", lambda: resources_of(read_manifests(paths, pure_yaml=True))))
        variants.append(("after, libyaml C parser", lambda: resources_of(read_manifests(paths))))

        counts = {name: len(load()) for name, load in variants}
        assert len(set(counts.values())) == 1, f"the variants read different objects: {counts}"
        files = len(manifest_paths(paths))
        print(
            f"{objects} manifests ({files} files, {size_mb:.1f} MB), median of {args.runs} runs, Python {sys.version.split()[0]}\n"
        )
        print("| variant | read s | read+check s | manifests/s (read+check) | speed-up |")
        print("|---|---|---|---|---|")
        base = None
        for name, load in variants:
            read = _median_seconds(load, args.runs)
            total = _median_seconds(lambda load=load: evaluate(load()), args.runs)
            base = base or total
            print(f"| {name} | {read:.2f} | {total:.2f} | {objects / total:,.0f} | {base / total:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
