"""One source for the command line's description (issue 33, deliverable 5): components/commands.py.

docs/cli.md's command sections are generated from the table (tools/cli_docs.py), every command's --help prints the
table's description and exit codes, every command the parsers know has a row, and a command with a JSON mode prints
JSON on every exit, bad flags and bad input included.
"""

from __future__ import annotations

import argparse
import importlib.util
import json

import pytest

from components.commands import COMMANDS, command
from stacks.__main__ import build_parser, main
from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("cli_docs", ROOT / "tools" / "cli_docs.py")
assert _spec is not None and _spec.loader is not None
cli_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cli_docs)


def _help(name: str, capsys) -> str:
    """What `python -m NAME --help` prints (in-process)."""
    words = name.split()[1:]
    with pytest.raises(SystemExit) as exit_:
        if name.startswith("policies "):
            from policies.check import main as check

            check(["--help"])
        else:
            build_parser().parse_args([*words, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_the_committed_page_is_generated_from_the_table():
    page = cli_docs.PAGE.read_text(encoding="utf-8")
    assert cli_docs.render(page) == page, "docs/cli.md differs from components/commands.py: python tools/cli_docs.py --write"
    for c in COMMANDS:
        assert f"## `python -m {c.name}`" in page
        for code, meaning in c.codes():
            assert f"| {code} | {meaning.replace('|', '/')} |" in page


@pytest.mark.parametrize("name", [c.name for c in COMMANDS if not c.pending])
def test_every_help_prints_the_tables_description_and_exit_codes(name, capsys):
    row, text = command(name), _help(name, capsys)
    assert " ".join(row.description.split()) in " ".join(text.split())
    assert row.epilog() in text  # verbatim: "exit codes:" and one line per code, 0 to 3
    for code, meaning in row.codes():
        assert f"  {code}  {meaning}" in text


def test_models_lock_help_is_whole_sentences_not_rest(capsys):
    text = _help("stacks models lock", capsys)
    description = text.split("\n\n")[1]
    assert "``" not in text and description.rstrip().endswith(".")


def test_every_subcommand_has_a_row_and_pending_rows_are_not_there_yet():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    names = set()
    for word, p in sub.choices.items():
        inner = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        names |= {f"stacks {word} {w}" for w in inner[0].choices} if inner else {f"stacks {word}"}
    table = {c.name for c in COMMANDS if c.name.startswith("stacks ")}
    pending = {c.name for c in COMMANDS if c.pending}
    assert names == table - pending, "a command without a row in components/commands.py, or a pending row now built"


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "no-such-stack", "--format", "json"],
        ["plan", "dev", "--format=json", "--bogus"],
        ["size", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "NOPE", "--json"],
        ["size", "--json", "--max-model-len", "-3"],
        ["simulate", "dev", "--traffic", "/no/such/profile.yaml", "--format", "json"],
        ["preflight", "no-such-stack", "--format", "json"],
        ["preflight", "--format", "json"],
    ],
)
def test_json_modes_print_json_on_bad_input(argv, capsys):
    code = main(argv)
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert code == 2 and doc["exit"] == 2 and doc["command"] == f"stacks {argv[0]}" and doc["error"]


def test_policies_check_prints_json_on_bad_input(capsys, tmp_path):
    from policies.check import main as check

    (tmp_path / "empty.yaml").write_text("# nothing\n")
    for argv in (["--format", "json"], [str(tmp_path / "empty.yaml"), "--format", "json"]):
        code = check(argv)
        doc = json.loads(capsys.readouterr().out)
        assert code == 2 and doc["command"] == "policies check" and doc["exit"] == 2 and doc["error"]


def test_an_internal_error_is_json_too(monkeypatch, capsys):
    import stacks.preflight

    def boom(args, open_clients=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(stacks.preflight, "run_preflight", boom)
    code = main(["preflight", "dev", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 3 and doc == {
        "command": "stacks preflight",
        "error": "internal error: RuntimeError: boom (set LLM_SERVING_DEBUG=1 for details)",
        "exit": 3,
    }
