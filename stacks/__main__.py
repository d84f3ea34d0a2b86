"""Command line: `python -m stacks plan STACK ...`, `python -m stacks size ...`, `python -m stacks simulate ...` and
`python -m stacks preflight STACK` (contracts in docs/cli.md; preflight in docs/preflight.md).

Exit codes: 0 no mandatory violation (or the model fits, for size; or every prerequisite present, for
preflight); 1 mandatory violations (or something missing); 2 invalid input (or, for preflight, no usable
credentials), with a message naming the field and the rule and no traceback.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from components.errors import ConfigError
from stacks.report import RENDERERS, plural

EXIT_OK, EXIT_VIOLATIONS, EXIT_INVALID = 0, 1, 2


def _plan(args: argparse.Namespace) -> int:
    from stacks.plan import PLAN_FOLDERS, default_out_dir, run_plan, write_files

    result = run_plan(args.stack)
    out_dir = Path(args.out) if args.out else default_out_dir(result.report["stack"])
    write_files(out_dir, result.files)
    sys.stdout.write(RENDERERS[args.format](result.report))
    # Where the files went, and what they are for; on stderr for the machine-read formats.
    try:
        shown = out_dir.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        shown = out_dir.resolve()
    written = sum(1 for rel in result.files if rel.split("/", 1)[0] in PLAN_FOLDERS)
    note = (
        f"wrote {plural(written, 'file')} to {shown}/ (kubernetes/, aws/, helm/) and the stack's outputs to "
        f"{shown}/outputs.json (secrets redacted) for review: "
        f"Secrets hold placeholders, so apply with `pulumi up`, not `kubectl apply`\n"
    )
    (sys.stdout if args.format == "text" else sys.stderr).write(note)
    return EXIT_VIOLATIONS if result.mandatory_violations else EXIT_OK


def _size(args: argparse.Namespace) -> int:
    from stacks.size import run_size

    return run_size(args)


def _simulate(args: argparse.Namespace) -> int:
    from stacks.simulate import main_simulate

    return main_simulate(args)


def _models(args: argparse.Namespace) -> int:
    from stacks.models import main_models

    return main_models(args)


def _preflight(args: argparse.Namespace) -> int:
    from stacks.preflight import run_preflight

    return run_preflight(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of both subcommands."""
    parser = argparse.ArgumentParser(prog="python -m stacks", description="llm-serving stack tools")
    sub = parser.add_subparsers(dest="command", required=True)

    plan = sub.add_parser(
        "plan",
        help="offline plan of a stack: manifests, policy violations, capacity figures",
        description="Run the stack's real Pulumi program in-process under an offline engine (no CLI, no cloud), "
        "evaluate every policy, write the rendered objects under --out and print the report.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit codes:\n"
        "  0  no mandatory policy violation\n"
        "  1  mandatory policy violations (listed in the report)\n"
        "  2  invalid configuration (the message names the field path, the value and the rule; nothing is written)\n\n"
        "The output folder is for review: Secrets hold placeholders; deploy with `pulumi up`.",
    )
    plan.add_argument("stack", help="stack name (stacks/Pulumi.STACK.yaml) or path of a stack file")
    plan.add_argument("--out", help="output folder (default build/STACK)")
    plan.add_argument("--format", choices=sorted(RENDERERS), default="text", help="report format (default text)")
    plan.set_defaults(func=_plan)

    from stacks.size import add_size_arguments

    size = sub.add_parser("size", help="capacity plan of one model on one GPU type")
    add_size_arguments(size)
    size.set_defaults(func=_size)

    from stacks.simulate import add_simulate_arguments

    simulate = sub.add_parser("simulate", help="discrete-event simulation of the stack under a traffic profile")
    add_simulate_arguments(simulate)
    simulate.set_defaults(func=_simulate)

    from stacks.models import add_models_arguments

    models = sub.add_parser("models", help="models from the Hugging Face Hub: `models lock` writes stacks/models.lock.json")
    add_models_arguments(models)
    models.set_defaults(func=_models)

    from stacks.preflight import add_preflight_arguments

    preflight = sub.add_parser("preflight", help="read-only AWS checks of what the stack needs before pulumi up")
    add_preflight_arguments(preflight)
    preflight.set_defaults(func=_preflight)
    return parser


def main(argv: Optional[Sequence[str]] = None, exiting: bool = False) -> int:
    """Run the command line; returns the exit code.

    `plan` runs without the cyclic garbage collector: a short batch run that keeps nearly everything it makes, whose
    collections over the heap as the Pulumi SDK's modules import, and the one after the program (stacks.offline
    run_program), cost about 0.15 s of a 2.6 s prod plan and free next to nothing (peak RSS ~180 MB either way). Its
    simulation collects its own garbage (stacks.simulate.slo_results). The caller's setting is restored on return,
    unless ``exiting`` (``python -m stacks``: the process ends with the command), where the collector stays off so the
    interpreter's exit does not run a full collection over the whole heap (about 0.1 s more).
    """
    args = build_parser().parse_args(argv)
    if args.command != "plan":
        return _run(args)
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if collecting and not exiting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; bad input (ConfigError) and bugs become messages, not tracebacks."""
    try:
        return args.func(args)
    except ConfigError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_INVALID
    except Exception as exc:  # a bug, not bad input: say so plainly (LLM_SERVING_DEBUG=1 shows the traceback)
        if os.environ.get("LLM_SERVING_DEBUG"):
            raise
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc} (set LLM_SERVING_DEBUG=1 for details)\n")
        return 3


if __name__ == "__main__":
    sys.exit(main(exiting=True))
