"""`python -m policies build DIR`: the policy pack as one self-contained folder.

The Pulumi CLI runs a Python pack as `python -m pulumi.policy <engine> <pack folder>`, with only
the pack folder on sys.path, and `pulumi policy publish` uploads only that folder. The policies
import `policies.*` and, for the capacity plan, `components.*`; so the built folder holds both
packages beside PulumiPolicy.yaml, requirements.txt and a two-line `__main__.py`, and everything
imports as it does in the repository, with no sys.path changes. (Chosen over a requirement on the
library itself: the pack must run exactly the policies of this commit, and a published pack must
not depend on an index the Pulumi service may not reach.)
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Optional, Sequence

PACK_DIR = Path(__file__).resolve().parent
ROOT = PACK_DIR.parent
# The packages the pack imports, copied whole (their modules import one another).
PACKAGES = ("policies", "components")
ENTRY = '''"""llm-serving policy pack, built by `python -m policies build`: serves the pack to the Pulumi engine."""

from policies.__main__ import serve

serve()
'''


def build(out: Path) -> list[str]:
    """Write the self-contained pack to `out` (replaced if it holds an earlier build); returns its files."""
    out = out.resolve()
    if out == ROOT or ROOT in out.parents and out.parts[len(ROOT.parts)] in PACKAGES:
        raise ValueError(f"{out}: refusing to build inside the sources")
    if out.exists():
        if not (out / "PulumiPolicy.yaml").exists() and any(out.iterdir()):
            raise ValueError(f"{out}: not empty and not an earlier build (no PulumiPolicy.yaml)")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "venv", "PulumiPolicy.yaml", "requirements.txt")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, out / package, ignore=ignore)
    shutil.copy2(PACK_DIR / "PulumiPolicy.yaml", out / "PulumiPolicy.yaml")
    shutil.copy2(PACK_DIR / "requirements.txt", out / "requirements.txt")
    (out / "__main__.py").write_text(ENTRY, encoding="utf-8")
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m policies build DIR`."""
    parser = argparse.ArgumentParser(prog="python -m policies build", description="Build the self-contained policy pack folder.")
    parser.add_argument("out", help="folder to write (e.g. build/policy-pack)")
    args = parser.parse_args(argv)
    try:
        files = build(Path(args.out))
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    sys.stdout.write(f"built the policy pack in {args.out} ({len(files)} files); pulumi preview --policy-pack {args.out}\n")
    return 0
