"""policies/regex_code.py: a pattern compiled from the cache equals the one re compiles (text, flags and code), a
stored pattern is used only for its exact text and flags and only by the interpreter that stored it, the hook ends
with the block, and nothing is written where Python writes no bytecode."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from policies import regex_code
from policies.regex_code import cached_regex_code

ROOT = Path(__file__).resolve().parents[2]

# Named groups, lookarounds, classes with ranges, verbose and case-insensitive flags, inline flags, bytes.
PATTERNS: list[tuple[Any, int]] = [
    (r"(?P<number>[+-]?(\d+(\.\d*)?|\.\d+))(?:(?P<exponent>[eE][+-]?\d+))?(?P<suffix>Ki|Mi|Gi|Ti|[kMGT])?$", 0),
    (r"(?<![A-Za-z0-9])__[A-Z][A-Z0-9_]*[A-Z0-9]__(?![A-Za-z0-9])", 0),
    ("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", 0),
    (
        r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0[0-7_]+
        |[-+]?(?:0|[1-9][0-9_]*))$""",
        re.X,
    ),
    (r"vllm|sglang|text-generation(?:-inference)?", re.I),
    (r"(?i)^nvcr\.io/nim/(?P<org>[a-z0-9._-]+)/(?P<name>[a-z0-9._-]+)", 0),
    (rb"\x00+(?P<tail>[^\x00]*)", 0),
    ("", 0),
]


@pytest.fixture
def writing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _fresh(pattern: Any, flags: int) -> re.Pattern:
    """What re itself compiles, past its in-memory cache."""
    return re._compiler.compile(pattern, flags)  # type: ignore[attr-defined]


def _through_cache(path: Path) -> list[re.Pattern]:
    with cached_regex_code(path):
        return [re._compiler.compile(p, f) for p, f in PATTERNS]  # type: ignore[attr-defined]


def _same(got: re.Pattern, pattern: Any, flags: int) -> None:
    want = _fresh(pattern, flags)
    # Pattern equality compares the text, the flags and the compiled code.
    assert got == want and got.flags == want.flags
    assert got.groups == want.groups and dict(got.groupindex) == dict(want.groupindex)


def test_a_miss_is_compiled_and_stored_and_a_hit_equals_what_re_compiles(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    for got, (pattern, flags) in zip(_through_cache(path), PATTERNS):
        _same(got, pattern, flags)
    stored = path.read_bytes()
    _stamp, codes = marshal.loads(stored)
    assert set(codes) == set(PATTERNS)
    for got, (pattern, flags) in zip(_through_cache(path), PATTERNS):
        _same(got, pattern, flags)
    assert path.read_bytes() == stored  # all hits: nothing rewritten


def test_a_hit_parses_nothing(writing: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "regex.marshal"
    _through_cache(path)

    def refuse(*_args: Any) -> None:
        raise AssertionError("parsed a stored pattern")

    monkeypatch.setattr(re._parser, "parse", refuse)  # type: ignore[attr-defined]
    with cached_regex_code(path):
        got = re._compiler.compile(*PATTERNS[0])  # type: ignore[attr-defined]
    monkeypatch.undo()
    _same(got, *PATTERNS[0])


def test_matches_read_the_same_through_the_cache(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    _through_cache(path)
    number = _through_cache(path)[0]
    match = number.match("1.5e3Gi")
    assert match is not None and match.group("number", "exponent", "suffix") == ("1.5", "e3", "Gi")


def test_a_pattern_is_served_only_for_its_own_text_and_flags(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    with cached_regex_code(path):
        re._compiler.compile("abc", 0)  # type: ignore[attr-defined]
    stamp, codes = marshal.loads(path.read_bytes())
    # A wrong entry under some other key: never looked up for "abc" with re.I, nor for "abd".
    path.write_bytes(marshal.dumps((stamp, {("abd", 0): codes[("abc", 0)], **codes})))
    with cached_regex_code(path):
        _same(re._compiler.compile("abc", re.I), "abc", re.I)  # type: ignore[attr-defined]
        got = re._compiler.compile("abd", 0)  # type: ignore[attr-defined]
    assert got.pattern == "abd"  # the text is the caller's; the entry is what the key was stored with


def test_another_interpreters_or_a_torn_file_is_compiled_over(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    with cached_regex_code(path):
        re._compiler.compile("abc", 0)  # type: ignore[attr-defined]
    _stamp, codes = marshal.loads(path.read_bytes())
    bogus: dict[Any, Any] = {key: (0, [0], 0, {}, (None,)) for key in codes}
    for content in (b"\x00torn", marshal.dumps((("2.7", 0, 0), bogus)), marshal.dumps((regex_code._STAMP, [1]))):
        path.write_bytes(content)
        for got, (pattern, flags) in zip(_through_cache(path), PATTERNS):
            _same(got, pattern, flags)


def test_the_file_keeps_earlier_runs_patterns_up_to_the_bound(
    writing: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "regex.marshal"
    with cached_regex_code(path):
        re._compiler.compile("a", 0)  # type: ignore[attr-defined]
    with cached_regex_code(path):
        re._compiler.compile("b", 0)  # type: ignore[attr-defined]
    assert set(marshal.loads(path.read_bytes())[1]) == {("a", 0), ("b", 0)}
    monkeypatch.setattr(regex_code, "MAX_PATTERNS", 2)
    with cached_regex_code(path):
        re._compiler.compile("c", 0)  # type: ignore[attr-defined]
    assert set(marshal.loads(path.read_bytes())[1]) == {("c", 0)}


def test_debug_output_and_parsed_patterns_go_to_re_itself(writing: None, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "regex.marshal"
    with cached_regex_code(path):
        re._compiler.compile("x+", re.DEBUG)  # type: ignore[attr-defined]
        scanner = re.Scanner([(r"\d+", lambda s, t: int(t)), (r"\s+", None)])  # type: ignore[attr-defined]
    assert "MAX_REPEAT" in capsys.readouterr().out
    assert scanner.scan("1 22")[0] == [1, 22]
    assert not path.exists()  # neither is kept


def test_a_bad_pattern_raises_as_re_raises(writing: None, tmp_path: Path) -> None:
    with cached_regex_code(tmp_path / "regex.marshal"):
        with pytest.raises(re.error, match="missing \\)"):
            re._compiler.compile("(a", 0)  # type: ignore[attr-defined]


def test_the_hook_ends_with_the_block_even_on_an_error(tmp_path: Path) -> None:
    original = re._compiler.compile  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):
        with cached_regex_code(tmp_path / "regex.marshal"):
            assert re._compiler.compile is not original  # type: ignore[attr-defined]
            raise RuntimeError
    assert re._compiler.compile is original  # type: ignore[attr-defined]


def test_nothing_is_written_where_python_writes_no_bytecode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    for got, (pattern, flags) in zip(_through_cache(tmp_path / "regex.marshal"), PATTERNS):
        _same(got, pattern, flags)
    assert not (tmp_path / "regex.marshal").exists()


def test_a_check_reports_the_same_with_the_cache_cold_and_warm(tmp_path: Path) -> None:
    manifest = tmp_path / "deployment.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm, namespace: default}\nspec:\n"
        "  selector: {matchLabels: {app: vllm}}\n  template:\n    metadata: {labels: {app: vllm}}\n    spec:\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:latest\n"
        "        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '8192']\n"
        "        env: [{name: HF_TOKEN, value: hf_abcdefghijklmnopqrstuvwxyz0123456789}]\n"
        "        command: [bash, -c, 'ZZMARK_VAR=1; bash /zzmark/start.sh']\n"
        "        volumeMounts: [{name: scripts, mountPath: /zzmark}]\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n"
        "      volumes: [{name: scripts, configMap: {name: zzmark-scripts}}]\n"
        # The script the container runs: mounted_scripts builds a pattern from its path while the check runs.
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: zzmark-scripts, namespace: default}\n"
        "data: {start.sh: 'vllm serve meta-llama/Llama-3.1-8B-Instruct'}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    runs = [
        subprocess.run(
            [sys.executable, "-m", "policies", "check", str(manifest), "--format", "json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        for _ in range(2)
    ]
    kept = list((tmp_path / "pycache").rglob("regex-code.*.marshal"))
    assert kept and len(marshal.loads(kept[0].read_bytes())[1]) > 100
    # Only the pack's own patterns are kept: none a check built from the manifest's text (a path, a variable).
    assert b"zzmark" not in kept[0].read_bytes().lower() and b"abcdefghijklmnop" not in kept[0].read_bytes()
    assert runs[0].returncode == runs[1].returncode == 1
    assert runs[0].stdout == runs[1].stdout and '"violations"' in runs[0].stdout


def test_an_entry_the_engine_refuses_is_compiled_afresh_and_the_file_rewritten(writing: None, tmp_path: Path) -> None:
    # This interpreter's stamp, damaged entries: wrong arity, a code the engine's validator refuses, a wrong type.
    path = tmp_path / "regex.marshal"
    damaged: list[Any] = [(0, [0], 0, {}, (None,)), (0, [1, 2, 3], 0, {}, (None,), "extra"), "not a tuple", None]
    for entry in damaged:
        keys = [(pattern, int(flags)) for pattern, flags in PATTERNS]
        path.write_bytes(marshal.dumps((regex_code._STAMP, {key: entry for key in keys})))
        for got, (pattern, flags) in zip(_through_cache(path), PATTERNS):
            _same(got, pattern, flags)
        _stamp, codes = marshal.loads(path.read_bytes())
        assert all(codes[key] != entry for key in keys)


def _compile_written() -> re.Pattern:
    return re.compile(r"zz(?P<kept>written)\d+")  # a constant of this function's code


def test_while_checking_only_a_pattern_written_in_the_code_is_kept(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    built = "zz" + "".join(["bu", "ilt"]) + r"\d+"  # a text the code assembles, as a check does from a manifest
    re.purge()
    with cached_regex_code(path) as phase:
        phase.checking()
        written, other = _compile_written(), re.compile(built)
    assert written.match("zzwritten1") and other.match("zzbuilt2")
    keys = set(marshal.loads(path.read_bytes())[1])
    assert (r"zz(?P<kept>written)\d+", 0) in keys and (built, 0) not in keys
    re.purge()
    with cached_regex_code(path) as phase:
        phase.checking()
        _same(_compile_written(), r"zz(?P<kept>written)\d+", 0)
