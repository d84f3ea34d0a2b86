"""Re-read the Dockerfile facts of components/image_contents.toml from a fetched mirror of the publisher's repository
(run by hand, never by the product or the tests).

    python tools/read_image_contents.py show /work/.mirror/ollama+ollama/repo v0.32.15 Dockerfile
    python tools/read_image_contents.py check /work/.mirror/ollama+ollama/repo ollama [--all-tags]

``show`` prints, for the image a Dockerfile builds at a tag (its last stage, or ``--target``), the chain of stages it
is built FROM (down to the external base image), its ENTRYPOINT, CMD, WORKDIR and USER, and every package a RUN of
that chain installs (apt-get/apt install, apk add, yum/dnf install, pip install; a version pin stripped) or copies onto a
standard PATH directory (COPY/ADD), each with its line.

``check`` reads the rows of components/image_contents.toml whose ``mirror`` names the repository given, and for every
tag of the row's ``checked_tags`` that the mirror holds (with ``--all-tags``, every release tag from ``first`` to ``last``), compares what the Dockerfile says with the row: its
ENTRYPOINT and CMD, its base image (one of the row's ``bases``), and that no package of the chain provides a program
the row says the image lacks (``programs``: false). It prints each mismatch and exits 1 on any. The base image's own
contents are the ``[[base]]`` rows of the table (what the base publisher's image ships), not read here.

Facts only: the Dockerfile is parsed, nothing is built or run.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "components" / "image_contents.toml"

# Packages that put a program on PATH, by the program the table records: the table's own [provides] (G79 reads it too).
PROVIDES = {k: tuple(v) for k, v in tomllib.loads(TABLE.read_text()).get("provides", {}).items()}
# The directories of a standard PATH: a COPY into one of them adds a program.
PATH_DIRS = ("/usr/local/sbin/", "/usr/local/bin/", "/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/")
_INSTALL = re.compile(r"\b(?:apt-get|apt|yum|dnf|microdnf)\s+(?:-\S+\s+)*install\b|\bapk\s+(?:-\S+\s+)*add\b")


# BuildKit's automatic platform arguments, for the amd64 image (the one a GPU node pulls).
BUILD_ARGS = {"TARGETARCH": "amd64", "TARGETPLATFORM": "linux/amd64", "TARGETOS": "linux"}


@dataclass
class Stage:
    """One FROM of a Dockerfile: its base, alias and instructions (line, keyword, text)."""

    base: str
    alias: str
    line: int
    steps: list[tuple[int, str, str]] = field(default_factory=list)


def instructions(text: str) -> list[tuple[int, str, str]]:
    """(first line, KEYWORD, rest) of each instruction, continuation lines joined, comments and heredoc bodies dropped."""
    out: list[tuple[int, str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start, line = i + 1, lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        parts = [line]
        while parts[-1].endswith("\\") and i < len(lines):
            parts[-1] = parts[-1][:-1]
            nxt = lines[i].strip()
            i += 1
            if not nxt.startswith("#"):
                parts.append(nxt)
        joined = " ".join(parts)
        heredoc = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", joined)
        if heredoc and joined.split(None, 1)[0].upper() == "RUN":
            body = []
            while i < len(lines) and lines[i].strip() != heredoc.group(1):
                body.append(lines[i])
                i += 1
            i += 1
            joined += " ; " + " ; ".join(body)
        keyword, _, rest = joined.partition(" ")
        out.append((start, keyword.upper(), rest.strip()))
    return out


def _substitute(text: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), text)


def stages(text: str) -> list[Stage]:
    """The stages of a Dockerfile, global ARG defaults substituted into their FROM lines."""
    found: list[Stage] = []
    global_args: dict[str, str] = dict(BUILD_ARGS)
    for line, keyword, rest in instructions(text):
        if keyword == "ARG" and not found:
            name, _, value = rest.partition("=")
            global_args[name.strip()] = value.strip().strip('"')
        elif keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            base = _substitute(words[0], global_args) if words else ""
            alias = words[2] if len(words) > 2 and words[1].upper() == "AS" else ""
            found.append(Stage(base, alias, line))
        elif found:
            found[-1].steps.append((line, keyword, rest))
    return found


def chain(found: list[Stage], target: str = "") -> list[Stage]:
    """The stages the target (the last stage when empty) is built from, target first, down to an external base."""
    by_alias = {s.alias: s for s in found if s.alias}
    stage = by_alias.get(target) if target else (found[-1] if found else None)
    out: list[Stage] = []
    while stage is not None and stage not in out:
        out.append(stage)
        earlier = [s for s in found[: found.index(stage)] if s.alias == stage.base]
        stage = earlier[-1] if earlier else None
    return out


def _exec_form(rest: str) -> list[str]:
    try:
        value = json.loads(rest)
        return [str(v) for v in value] if isinstance(value, list) else [rest]
    except ValueError:
        return ["/bin/sh", "-c", rest]


def _packages(run: str) -> list[str]:
    packages: list[str] = []
    for command in re.split(r"&&|;|\|\|", run):
        match = _INSTALL.search(command)
        if not match:
            continue
        try:
            words = shlex.split(command[match.end() :], posix=True)
        except ValueError:
            words = command[match.end() :].split()
        # `curl=7.81.0-1ubuntu1.15` (apt), `x==1.0` (pip): the package is the name before the pin.
        packages += [w.split("==", 1)[0].split("=", 1)[0] for w in words if not w.startswith("-") and not w.startswith("=")]
    return [p for p in packages if p]


def _copied(rest: str) -> list[str]:
    """The programs a COPY/ADD puts on a standard PATH directory: the destination's base name (a file destination), or
    each source's base name (a directory destination ending in /)."""
    try:
        words = [w for w in (json.loads(rest) if rest.startswith("[") else shlex.split(rest)) if not str(w).startswith("--")]
    except ValueError:
        return []
    if len(words) < 2:
        return []
    *sources, dest = (str(w) for w in words)
    if dest.endswith("/") and dest.startswith(PATH_DIRS):
        return [s.rstrip("/").rsplit("/", 1)[-1] for s in sources]
    if dest.rsplit("/", 1)[0] + "/" in PATH_DIRS:
        return [dest.rsplit("/", 1)[-1]]
    return []


def read(text: str, target: str = "") -> dict:
    """What the image of ``target`` (the last stage when empty) is, as the Dockerfile says."""
    found = chain(stages(text), target)
    facts: dict = {"stages": [(s.line, s.alias or "(unnamed)", s.base) for s in found], "packages": []}
    facts["base"] = found[-1].base if found else ""
    for stage in reversed(found):  # the base first: a later instruction wins
        for line, keyword, rest in stage.steps:
            if keyword in ("ENTRYPOINT", "CMD"):
                facts[keyword.lower()] = (line, _exec_form(rest))
                if keyword == "ENTRYPOINT":
                    facts.pop("cmd", None)  # ENTRYPOINT resets a CMD inherited from the base stage
            elif keyword in ("WORKDIR", "USER"):
                facts[keyword.lower()] = (line, rest)
            elif keyword == "RUN":
                facts["packages"] += [(line, p) for p in _packages(rest)]
            elif keyword in ("COPY", "ADD"):
                facts["packages"] += [(line, p) for p in _copied(rest)]
    return facts


def _show(git_dir: str, tag: str, path: str, target: str = "") -> dict:
    text = subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{tag}:{path}"], check=True, capture_output=True, text=True
    ).stdout
    return read(text, target)


def _release_tags(git_dir: str, row: dict) -> list[str]:
    """Every release tag of the mirror (no -rc) from the row's ``first`` to its ``last``."""

    def version(tag: str) -> tuple[int, ...] | None:
        match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", tag)
        return tuple(int(g) for g in match.groups()) if match else None

    first, last = version(str(row["first"])), version(str(row["last"]))
    tags = subprocess.run(["git", "--git-dir", git_dir, "tag"], check=True, capture_output=True, text=True).stdout.split()
    found = [
        (v, t) for t in tags if (v := version(t)) is not None and first is not None and last is not None and first <= v <= last
    ]
    return [t for _, t in sorted(found)]


def check(git_dir: str, repo: str, all_tags: bool = False) -> int:
    """Compare every row of the table read from ``repo`` with the mirror (at its ``checked_tags``, or with
    ``all_tags`` at every release tag from ``first`` to ``last``); the count of mismatches."""
    table = tomllib.loads(TABLE.read_text())
    problems = 0
    for row in table.get("image", []):
        if row.get("mirror") != repo:
            continue
        for tag in _release_tags(git_dir, row) if all_tags else row.get("checked_tags", []):
            try:
                facts = _show(git_dir, tag, row["dockerfile"], row.get("target", ""))
            except subprocess.CalledProcessError:
                print(f"{row['family']} {tag}: no {row['dockerfile']} in the mirror")
                problems += 1
                continue
            where = f"{row['family']} {tag} {row['dockerfile']}"
            for key in ("entrypoint", "cmd", "workdir"):
                if key in row and facts.get(key, (0, None))[1] != row[key]:
                    print(f"{where}: {key} {facts.get(key)} != {row[key]}")
                    problems += 1
            if not any(facts["base"].startswith(b) for b in row.get("bases", [])):
                print(f"{where}: base {facts['base']!r} is none of {row.get('bases')}")
                problems += 1
            absent = {p: v for b in table.get("base", []) if b["image"] in row.get("bases", []) for p, v in b["programs"].items()}
            for program, present in {**absent, **row.get("programs", {})}.items():
                if present is False:
                    names = PROVIDES.get(program, (program,))
                    hits = [
                        (n, p) for n, p in facts["packages"] if any(p == m or m.endswith(".") and p.startswith(m) for m in names)
                    ]
                    if hits:
                        print(f"{where}: {program} listed absent but installed at {hits}")
                        problems += 1
    return problems


def main(argv: list[str]) -> int:
    if len(argv) >= 4 and argv[0] == "show":
        target = argv[4] if len(argv) > 4 else ""
        print(json.dumps(_show(argv[1], argv[2], argv[3], target), indent=1))
        return 0
    if len(argv) in (3, 4) and argv[0] == "check" and argv[3:] in ([], ["--all-tags"]):
        problems = check(argv[1], argv[2], all_tags=argv[3:] == ["--all-tags"])
        print(f"{problems} mismatch(es)")
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
