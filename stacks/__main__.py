"""Command line: `python -m stacks plan|size|simulate|preflight|models lock ...`.

Each command's help text and exit codes come from one table, components/commands.py, from which docs/cli.md
is generated. In short: 0 success; 1 what the command checks is not met; 2 invalid input, with a message naming
the field and the rule and no traceback; 3 a bug. With --format json (--json for size) stdout is JSON on every exit.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, Sequence

from components.commands import COMMANDS, command, json_error, wants_json
from components.errors import ConfigError
from stacks.report import RENDERERS, plural

EXIT_OK, EXIT_VIOLATIONS, EXIT_INVALID, EXIT_INTERNAL = 0, 1, 2, 3
COMMAND_NAMES = frozenset(c.name for c in COMMANDS)


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
        f"wrote {plural(written, 'file')} to {shown}/ (kubernetes/, aws/, helm/, derived/) and the stack's outputs to "
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


class BadArguments(Exception):
    """Arguments argparse refuses; main() says so on stderr (and in JSON on stdout when JSON was asked for)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str):
        super().__init__(message)
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    """argparse, raising BadArguments instead of exiting, so the JSON modes stay JSON on bad flags too."""

    def error(self, message: str) -> NoReturn:
        raise BadArguments(self, message)


def _subcommand(sub: Any, name: str, func: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    """A subparser whose help text and exit codes come from the command table (components/commands.py)."""
    row = command(f"stacks {name}")
    parser = sub.add_parser(
        name.split()[-1],
        help=row.summary,
        description=row.description,
        epilog=row.epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=func, command_name=row.name)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand; help texts and exit codes from components/commands.py."""
    parser = _Parser(
        prog="python -m stacks",
        description="llm-serving stack tools (every command's exit codes: its --help, and docs/cli.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    plan = _subcommand(sub, "plan", _plan)
    plan.add_argument("stack", help="stack name (stacks/Pulumi.STACK.yaml) or path of a stack file")
    plan.add_argument("--out", help="output folder (default build/STACK)")
    plan.add_argument("--format", choices=sorted(RENDERERS), default="text", help="report format (default text)")

    from stacks.size import add_size_arguments

    add_size_arguments(_subcommand(sub, "size", _size))

    from stacks.simulate import add_simulate_arguments

    add_simulate_arguments(_subcommand(sub, "simulate", _simulate))

    from stacks.models import add_models_arguments

    models = sub.add_parser("models", help="models from the Hugging Face Hub: `models lock` writes stacks/models.lock.json")
    add_models_arguments(models, lambda models_sub: _subcommand(models_sub, "models lock", _models))

    from stacks.preflight import add_preflight_arguments

    add_preflight_arguments(_subcommand(sub, "preflight", _preflight))
    _subcommand(sub, "schema", _schema)
    return parser


def _schema(args: argparse.Namespace) -> int:
    """Print the component package's schema (package/schema.json's bytes; docs/package.md)."""
    from components.hosted import package_schema

    sys.stdout.write(package_schema())
    return EXIT_OK


def _command_of(argv: Sequence[str]) -> Optional[str]:
    """The table name of the command ``argv`` runs ("stacks models lock"), or None."""
    words = [a for a in argv if not a.startswith("-")][:2]
    for n in (2, 1):
        name = "stacks " + " ".join(words[:n])
        if len(words) >= n and name in COMMAND_NAMES:
            return name
    return None


def _fail(name: Optional[str], as_json: bool, code: int, message: str, short: Optional[str] = None) -> int:
    """Say why on stderr, and on stdout as JSON (``short``, else the message on one line) when JSON was asked for."""
    sys.stderr.write(message if message.endswith("\n") else message + "\n")
    if as_json and name is not None:
        text = short if short is not None else " ".join(line.strip() for line in message.strip().splitlines())
        sys.stdout.write(json_error(name, code, text.removeprefix("error: ")))
    return code


def main(argv: Optional[Sequence[str]] = None, exiting: bool = False) -> int:
    """Run the command line; returns the exit code.

    `plan` runs without the cyclic garbage collector: a short batch run that keeps nearly everything it makes, whose
    collections over the heap as the Pulumi SDK's modules import, and the one after the program (stacks.offline
    run_program), cost about 0.15 s of a 2.6 s prod plan and free next to nothing (peak RSS ~180 MB either way). Its
    simulation collects its own garbage (stacks.slo_check.slo_results). The caller's setting is restored on return,
    unless ``exiting`` (``python -m stacks``: the process ends with the command), where the collector stays off so the
    interpreter's exit does not run a full collection over the whole heap (about 0.1 s more).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    name = _command_of(argv)
    as_json = name is not None and wants_json(name, argv)
    try:
        args = build_parser().parse_args(argv)
    except BadArguments as exc:
        return _fail(name, as_json, EXIT_INVALID, f"{exc.parser.format_usage()}{exc.parser.prog}: error: {exc}", str(exc))
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
    """The command's exit code; bad input (ConfigError, no credentials) and bugs become messages, not tracebacks."""
    from stacks.preflight_aws import NoCredentials

    name = getattr(args, "command_name", None)
    as_json = getattr(args, "format", None) == "json" or getattr(args, "json", False) is True
    try:
        return args.func(args)
    except (ConfigError, NoCredentials) as exc:
        return _fail(name, as_json, EXIT_INVALID, f"error: {exc}")
    except Exception as exc:  # a bug, not bad input: say so plainly (LLM_SERVING_DEBUG=1 shows the traceback)
        if os.environ.get("LLM_SERVING_DEBUG"):
            raise
        return _fail(
            name, as_json, EXIT_INTERNAL, f"internal error: {type(exc).__name__}: {exc} (set LLM_SERVING_DEBUG=1 for details)"
        )


if __name__ == "__main__":
    sys.exit(main(exiting=True))
