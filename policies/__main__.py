"""The llm-serving policy pack's entry point.

Three ways in, told apart by who runs this file:

- the Pulumi CLI (`pulumi preview --policy-pack policies`) starts `python -m pulumi.policy
  <engine address> <pack dir>`, which runs this file with runpy: only then is the pack served
  (constructing a PolicyPack starts a gRPC server, prints its port and blocks);
- `python -m policies check PATH...` runs the same policies over plain manifests (policies/check.py);
- `python -m policies docs [--out FILE]` writes docs/policies.md from the registry;
- `python -m policies build DIR` writes the self-contained pack folder (policies/build.py).

Anything else (`python -m policies`, `--help`) prints the usage and exits at once.
"""

import gc
import importlib
import os
import sys
from pathlib import Path

USAGE = """\
usage: python -m policies check PATH... | - [--config FILE] [--format text|json|markdown|sarif]
       python -m policies docs [--out FILE]
       python -m policies build DIR

  check   run the llm-serving pack over Kubernetes manifests (files, folders of .yaml/.yml/.json,
          or - for stdin); its exit codes: python -m policies check --help
  docs    print (or write with --out) docs/policies.md, generated from the policy registry
  build   write the self-contained pack folder for the Pulumi CLI and `pulumi policy publish`

The Pulumi CLI serves the pack itself: pulumi preview --policy-pack DIR (after build)
"""

_PACK_DIR = Path(__file__).resolve().parent
# The first word of a CLI command line (USAGE); an engine address is never one of them.
_COMMAND_WORDS = frozenset({"check", "docs", "build", "--help", "-h", "help"})


def launched_by_pulumi() -> bool:
    """True when the Pulumi CLI's policy runner runs us.

    It runs `python -m pulumi.policy ADDRESS DIR`, which calls `runpy.run_path(DIR)`; run_path
    sets sys.argv[0] to DIR, the pack folder itself, and leaves ADDRESS after it. `python -m policies`
    sets it to this file. A profiler or debugger run as `python -m cProfile -m policies check ...` from
    the repository root leaves the bare module name `policies`, which resolves to the pack folder too:
    a command word after it (check, docs, build, --help) is the CLI's, never an engine address.
    """
    if len(sys.argv) < 2 or sys.argv[1] in _COMMAND_WORDS:
        return False  # the runner always passes the engine's address after DIR (pulumi/policy/__main__.py main)
    try:
        return bool(sys.argv and sys.argv[0]) and Path(sys.argv[0]).resolve() == _PACK_DIR
    except OSError:
        return False


def serve() -> None:
    """Serve the pack to the Pulumi engine (blocks until the engine stops it)."""
    # In a built pack (policies/build.py) `policies` and `components` sit in the pack folder the
    # runner put on sys.path, and this changes nothing. Run straight from the repository's
    # policies/ folder, the packages are in the folder above it, which goes on sys.path instead.
    root = str(_PACK_DIR.parent)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _PACK_DIR]
    if root not in sys.path:
        sys.path.insert(0, root)
    from pulumi_policy import EnforcementLevel, PolicyPack

    from policies.pulumi_adapter import to_pulumi
    from policies.registry import POLICIES

    PolicyPack(
        name="llm-serving",
        enforcement_level=EnforcementLevel.ADVISORY,
        policies=[to_pulumi(p) for p in POLICIES],
    )


main = serve  # the name the pack tests and older docs use


def cli(argv: list[str]) -> int:
    """`python -m policies ...`: the check and docs commands; usage for anything else."""
    if not argv or argv[0] in ("-h", "--help", "help"):
        (sys.stdout if argv else sys.stderr).write(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "check":
        return _check(rest)
    if command == "build":
        from policies.build import main as build

        return build(rest)
    if command == "docs":
        from policies.docs import main as docs

        return docs(rest)
    sys.stderr.write(f"error: unknown command {command!r}\n{USAGE}")
    return 2


def _check(rest: list[str]) -> int:
    """`python -m policies check`: load the pack, then run the check with the collector set for it."""
    # Loading the pack creates ~20,000 objects that live as long as the process and no garbage: the collections
    # it would trigger (~55 while importing, and each later one scanning them again) find nothing to free, so
    # they are paused, and the objects frozen out of the collector's reach (gc.freeze) before the check runs.
    # The methods @dataclass compiles for the pack's ~90 records, and the ~190 regular expressions compiled while it
    # loads, come from beside the bytecode when an earlier run compiled them (policies/dataclass_code.py,
    # policies/regex_code.py): ~35 ms each of a ~250 ms run. The ~320 modules themselves load from one file of their
    # compiled code (policies/module_code.py: ~8 ms of the path finder's and the .pyc files' reading). The patterns'
    # cache stays open while the check runs (~35 patterns the checks compile on first use, ~3 ms), keeping from then on
    # only a pattern written in the code that compiles it, never one a check builds from a manifest's text.
    from policies.regex_code import cached_regex_code

    with cached_regex_code() as regexes:
        collecting = gc.isenabled()
        gc.disable()
        try:
            from policies.dataclass_code import cached_dataclass_code
            from policies.module_code import cached_module_code

            with cached_module_code(), cached_dataclass_code():
                from policies.check import ON_DEMAND
                from policies.check import main as check

                for name in ON_DEMAND:
                    importlib.import_module(name)
        finally:
            gc.freeze()
            if collecting:
                gc.enable()
        regexes.checking()
        from policies.two_cores import from_command_line

        from_command_line()  # this process is the command's own: its checks may use a second core
        # The check's own cyclic garbage is small (~3,600 objects over manifests-v2), but at the default threshold
        # (700) the collector ran ~37 times over it, ~5 ms of a ~230 ms run: it now runs once per 100,000 new container
        # objects, so a large input is still collected, and a corpus run is not.
        threshold = gc.get_threshold()
        gc.set_threshold(100_000, *threshold[1:])
        try:
            return check(rest)
        finally:
            gc.set_threshold(*threshold)


def exit_now(code: int) -> None:
    """End the process with ``code`` once stdout and stderr are flushed, skipping the interpreter's teardown.

    The teardown frees every module the pack imported and runs a last full collection: ~22 ms of a ~300 ms
    `policies check` (benchmarks/policies_check.py), for nothing, as the process holds no other open file and
    registers no exit handler. A flush that fails (a closed pipe) exits the ordinary way, which reports it.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    if launched_by_pulumi():
        serve()
    else:
        exit_now(cli(sys.argv[1:]))
