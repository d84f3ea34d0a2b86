"""The llm-serving policy pack as the Pulumi CLI loads it (`pulumi preview --policy-pack policies`).

`python -m policies check PATH...` runs the same policies over plain YAML manifests instead
(policies/check.py).

This is the only place that constructs a PolicyPack: doing so starts a gRPC server and blocks,
so tests and the offline plan use `policies.evaluate` instead. The CLI runs this file with the
pack directory as the working directory; the project root goes on sys.path so that
`policies.*` (and `components.*`) import as packages.
"""

import sys
from pathlib import Path

_PACK_DIR = Path(__file__).resolve().parent
# The pack directory itself must not be on sys.path: its modules would shadow top-level ones.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _PACK_DIR]
sys.path.insert(0, str(_PACK_DIR.parent))



def main() -> None:
    """Serve the pack to the Pulumi engine (blocks until the engine stops it)."""
    # Imported here, not at module level: `python -m policies check` runs this file too and must
    # not pay for the Pulumi SDK (pulumi_policy imports it whole: half of check's run time).
    from pulumi_policy import EnforcementLevel, PolicyPack

    from policies.pulumi_adapter import to_pulumi
    from policies.registry import POLICIES

    PolicyPack(
        name="llm-serving",
        enforcement_level=EnforcementLevel.ADVISORY,
        policies=[to_pulumi(p) for p in POLICIES],
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:
        # `python -m policies check PATH...`: the same policies over plain manifests, no engine.
        from policies.check import main as check

        sys.exit(check(sys.argv[2:]))
    main()
