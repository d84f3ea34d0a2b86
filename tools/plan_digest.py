"""Digest of the dev, staging and prod plans: one SHA-256 per written file and per report.

    python tools/plan_digest.py            # print the digest
    python tools/plan_digest.py --write    # rewrite tests/plan/plans.sha256

A refactoring must leave every line unchanged (tests/plan/test_plans_byte_identical.py compares).
When a change to what is rendered is intended, rewrite the digest in the same commit and name the
change in the commit message and the closing note; `--diff` lists the files that moved.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIGEST = ROOT / "tests" / "plan" / "plans.sha256"
STACKS = ("dev", "staging", "prod")
REPORTS = ("json", "markdown")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plan_digest(stacks: tuple[str, ...] = STACKS) -> dict[str, str]:
    """``{"<stack>/<relative path>": sha256}`` for every file each plan writes, plus its reports."""
    digest: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for stack in stacks:
            for fmt in REPORTS:
                out = Path(tmp) / f"{stack}-{fmt}"
                proc = subprocess.run(
                    [sys.executable, "-m", "stacks", "plan", stack, "--format", fmt, "--out", str(out)],
                    cwd=ROOT,
                    capture_output=True,
                    check=False,
                )
                if proc.returncode != 0:
                    raise RuntimeError(f"plan {stack} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
                digest[f"{stack}/report.{fmt}"] = _sha(proc.stdout)
                if fmt == REPORTS[0]:
                    for path in sorted(p for p in out.rglob("*") if p.is_file()):
                        digest[f"{stack}/{path.relative_to(out).as_posix()}"] = _sha(path.read_bytes())
    return digest


def render(digest: dict[str, str]) -> str:
    return "".join(f"{sha}  {name}\n" for name, sha in sorted(digest.items()))


def parse(text: str) -> dict[str, str]:
    return {name: sha for sha, name in (line.split("  ", 1) for line in text.splitlines() if line)}


def differences(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """One line per file that changed, appeared or disappeared."""
    lines = []
    for name in sorted(expected.keys() | actual.keys()):
        if name not in actual:
            lines.append(f"gone:    {name}")
        elif name not in expected:
            lines.append(f"new:     {name}")
        elif expected[name] != actual[name]:
            lines.append(f"changed: {name}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {DIGEST.relative_to(ROOT)}")
    parser.add_argument("--diff", action="store_true", help="list the files that differ from the recorded digest")
    args = parser.parse_args(argv)
    digest = plan_digest()
    if args.write:
        DIGEST.write_text(render(digest))
        print(f"wrote {len(digest)} digests to {DIGEST.relative_to(ROOT)}")
        return 0
    if args.diff:
        lines = differences(parse(DIGEST.read_text()), digest)
        print("\n".join(lines) or "identical")
        return 1 if lines else 0
    sys.stdout.write(render(digest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
