"""Regenerate components/chart_value_keys.toml: the values paths each chart's templates read, per chart version.

Run against local git mirrors of the chart repositories (``$LLM_SERVING_MIRRORS/OWNER+NAME/repo``, default /work/.mirror,
where the tool library's ``fetch`` puts them, as tools/crd_cel_rules.py reads its CRDs); reads every release tag's templates (``git show TAG:path``) and writes facts only (paths, version ranges,
dependency names), never template text. Usage: python tools/chart_value_keys.py > components/chart_value_keys.toml
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.crd_cel_rules import mirror_folder  # noqa: E402

# chart -> (repository, its release tags' prefix, the chart's folder in the repository). A prefix of None: the repository
# tags no release of the chart (NVIDIA/nim-deploy), so each chart version is read at the newest commit of the default
# branch whose Chart.yaml has that version.
CHARTS: dict[str, tuple[str, str | None, str]] = {
    "ollama": ("otwld/ollama-helm", "ollama-", ""),
    "open-webui": ("open-webui/helm-charts", "open-webui-", "charts/open-webui/"),
    "local-ai": ("go-skynet/helm-charts", "local-ai-", "charts/local-ai/"),
    "vllm-stack": ("vllm-project/production-stack", "vllm-stack-", "helm/"),
    "nim-llm": ("NVIDIA/nim-deploy", None, "helm/nim-llm/"),
    "ray-cluster": ("ray-project/kuberay-helm", "ray-cluster-", "helm-chart/ray-cluster/"),
}


def mirror(repo: str) -> str:
    """The git folder of ``repo``'s fetched mirror."""
    return str(mirror_folder() / repo.replace("/", "+") / "repo")


# Paths a template dereferences on every render of the chart (outside any condition), read by hand at the cited
# lines: a release that writes a scalar or list at a table on such a path makes the render fail.
ALWAYS = {
    "ollama": (
        "image.repository",
        "templates/deployment.yaml:71 (under `if not knative.enabled`) and templates/knative/service.yaml:31@ollama-1.77.0",
    ),
    "local-ai": (
        "deployment.image.repository",
        "templates/deployment.yaml:234@local-ai-3.2.0, :172@local-ai-3.4.2 (the main container, outside any condition)",
    ),
}
_FIELD = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)*)")
_INDEX = re.compile(r'index\s+\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)*)((?:\s+"[^"]+")+)')
_HASKEY = re.compile(r'hasKey\s+\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s+"([^"]+)"')
_PAREN = re.compile(r"\((\$?\.Values(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\)(?=\.)")
# An occurrence that is only tested for truth ({{ if .Values.x }}, and/or/not of it): it does not read the subkeys.
_TEST = re.compile(r"\{\{-?\s*(?:else\s+)?if\s+(?:(?:and|or|not|\(|\)|\$?\.Values[.\w]*)\s*)*$")


def _git(d: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", d, *args], capture_output=True, text=True, check=False).stdout


def _version(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def releases(d: str, prefix: str | None, base: str) -> list[tuple[str, str]]:
    """(chart version, git ref) of each release read, oldest first: the tags ``PREFIX X.Y.Z``, or for a repository
    that tags none (prefix None) the newest commit of HEAD's history holding each Chart.yaml version."""
    if prefix is not None:
        tags = (t for t in _git(d, "tag").split() if re.fullmatch(re.escape(prefix) + r"\d+\.\d+\.\d+", t))
        return sorted(((t[len(prefix) :], t) for t in tags), key=lambda p: _version(p[0]))
    newest: dict[str, str] = {}
    for commit in _git(d, "log", "--format=%H", "HEAD", "--", base).split():
        chart = yaml.safe_load(_git(d, "show", f"{commit}:{base}Chart.yaml") or "{}") or {}
        version = str(chart.get("version") or "")
        if re.fullmatch(r"\d+\.\d+\.\d+", version):
            newest.setdefault(version, commit)
    return sorted(newest.items(), key=lambda p: _version(p[0]))


def scan(d: str, tag: str, base: str) -> tuple[set[str], set[str], set[str]]:
    """(paths read, paths read whole, dependency names) at one tag."""
    reads: set[str] = set()
    whole: set[str] = set()
    files = [f for f in _git(d, "ls-tree", "-r", "--name-only", tag).split() if f.startswith(base + "templates/")]
    for f in files:
        text = _git(d, "show", f"{tag}:{f}")
        while _PAREN.search(text):
            text = _PAREN.sub(r"\1", text)
        for m in _INDEX.finditer(text):
            path = m.group(1).lstrip(".").split(".") if m.group(1) else []
            path += re.findall(r'"([^"]+)"', m.group(2))
            reads.add(".".join(path))
        for m in _HASKEY.finditer(text):
            reads.add(".".join(p for p in (m.group(1).lstrip("."), m.group(2)) if p))
        for m in _FIELD.finditer(text):
            before = text[max(0, m.start() - 9) : m.start()].rstrip("$ \t")
            if before.endswith("index") or before.endswith("hasKey"):
                continue
            path = m.group(1).lstrip(".")
            reads.add(path)
            start = text.rfind("{{", 0, m.start())
            after = text[m.end() : m.end() + 4]
            if after.lstrip().startswith("}}") or after.lstrip().startswith("-}}") or after.startswith(" "):
                if start >= 0 and _TEST.search(text[start : m.start()]) and "|" not in after:
                    continue
            whole.add(path)
    chart = yaml.safe_load(_git(d, "show", f"{tag}:{base}Chart.yaml")) or {}
    deps = {str(x.get("alias") or x.get("name")) for x in chart.get("dependencies") or [] if isinstance(x, dict)}
    return reads, whole, deps


def _spans(path: str, marks: list[tuple[str, bool]]) -> str:
    """``path`` or ``path@FROM..TO[,FROM..TO]`` for the versions whose mark is true (ends open when at the first/last)."""
    spans: list[list[str]] = []
    prev = False
    for i, (version, on) in enumerate(marks):
        if on and not prev:
            spans.append([version, ""])
        if not on and prev:
            spans[-1][1] = marks[i - 1][0]
        prev = on
    first = marks[0][0]
    if spans == [[first, ""]]:
        return path
    return path + "@" + ",".join(f"{'' if a == first else a}..{b}" for a, b in spans)


def main() -> None:
    out = sys.stdout
    out.write(
        '# The values paths each chart\'s templates read (.Values.a.b, index .Values "a" "b", helpers included), per chart\n'
        "# version: read from every release tag of the chart repository (git show TAG:templates/*) by\n"
        "# tools/chart_value_keys.py on 2026-12-07; facts only. Read by policies/k8s_generic/chart_value_unread.py (G107).\n"
        "#\n"
        '# paths:  "a.b.c" read at every tag; "a.b.c@FROM..TO" read from chart version FROM to TO (either end open when\n'
        '#         empty; several ranges joined by ",").\n'
        "# whole:  paths with subkeys that a template also reads WHOLE at those versions (toYaml, with, range, a variable,\n"
        "#         a function argument): what is under them is the template's to read, never judged here.\n"
        "# passthrough: top-level keys handed to dependency charts (Chart.yaml dependencies, name or alias) plus global.\n"
        "# root_whole: versions where a template reads .Values whole (those versions are not judged).\n"
        "# newest: the newest chart version read; a release pinned above it is one whose templates were not read.\n"
        "# always: a path a template dereferences on every render (read by hand at the cited lines): a scalar or list\n"
        "#         written where it reads a subkey fails the render (Helm keeps the release's non-table value over the\n"
        "#         chart's table: helm pkg/chartutil/coalesce.go coalesceTablesFullKey 'cannot overwrite table with non\n"
        "#         table'; Go text/template then errors \"can't evaluate field repository in type interface {}\").\n\n"
    )
    for key, (repo, prefix, base) in CHARTS.items():
        d = mirror(repo)
        if not Path(d).is_dir():
            sys.exit(f"error: no mirror of {repo} at {d} (fetch it, or set LLM_SERVING_MIRRORS)")
        refs = releases(d, prefix, base)
        per: list[tuple[str, set[str], set[str]]] = []
        deps: set[str] = {"global"}
        root: list[str] = []
        for version, ref in refs:
            reads, whole, dep = scan(d, ref, base)
            deps |= dep
            if "" in whole:
                root.append(version)
            per.append((version, reads - {""}, whole - {""}))
        every = sorted(set().union(*(r for _, r, _ in per)))
        internal = {p for p in every if any(q.startswith(p + ".") for q in every)}
        lines = [_spans(path, [(v, path in reads) for v, reads, _ in per]) for path in every]
        wholes = [
            _spans(path, [(v, path in whole) for v, _, whole in per])
            for path in sorted(internal)
            if any(path in whole for _, _, whole in per)
        ]
        if prefix is None:
            where = (
                f"{base}templates/ at commits {refs[0][1][:12]} (chart {refs[0][0]}) to {refs[-1][1][:12]} (chart {refs[-1][0]})"
            )
        else:
            where = f"templates/ at tags {prefix}{per[0][0]} to {prefix}{per[-1][0]}"
        out.write(f'[charts.{key}]\nsource = "{repo} {where}"\n')
        out.write(f'newest = "{per[-1][0]}"\n')
        out.write(f"passthrough = {sorted(deps)!r}\n".replace("'", '"'))
        out.write(f"root_whole = {root!r}\n".replace("'", '"'))
        if key in ALWAYS:
            out.write(f'always = {{ path = "{ALWAYS[key][0]}", source = "{ALWAYS[key][1]}" }}\n'.replace("`", "'"))
        out.write("paths = [\n")
        for line in lines:
            out.write(f'  "{line}",\n')
        out.write("]\nwhole = [\n")
        for line in wholes:
            out.write(f'  "{line}",\n')
        out.write("]\n\n")


if __name__ == "__main__":
    main()
