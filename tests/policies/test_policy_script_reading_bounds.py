"""Hostile scripts stay linear: the shell splitter and the download-call reader bound their look-ahead (cold review
29, finding 2: a 24 KB `sh -c` script of unclosed `${` took 12.6 s of CPU, and 48 KB of unclosed
`hf_hub_download(` calls 32.5 s, because each one searched the rest of the script for its closing bracket).

These tests pin the bounds by what the readers return, not by timing (speed is measured in benchmarks/)."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from policies.reading import downloaders, installs, shell_words


def test_an_unclosed_expansion_ends_the_folding_and_keeps_the_rest_verbatim():
    # `${` with no `}` is a shell syntax error ("bad substitution"): nothing after it is folded.
    script = 'vllm serve m ${A:+--x "y" z} ${${${B --tail'
    folded = shell_words._fold_expansions(script)
    assert folded == "vllm serve m ${A} ${${${B --tail"


def test_the_brace_search_stops_when_its_budget_is_spent():
    budget = [10]
    assert shell_words._closing_brace("x" * 50 + "}", 0, budget) == -1
    assert budget[0] < 0
    assert shell_words._closing_brace("ab}", 0, [10]) == 2


def test_many_closed_expansions_are_still_folded():
    script = " ".join('${P%d:+--opt "v"}' % i for i in range(200))
    assert shell_words._fold_expansions(script) == " ".join("${P%d}" % i for i in range(200))


def test_a_download_call_is_read_within_a_window():
    text = "hf_hub_download(" + "a" * 10_000
    call = downloaders._call_args(text, len("hf_hub_download"))
    assert len(call) == downloaders._CALL_WINDOW - 1
    closed = 'hf_hub_download(repo_id="org/m", filename="f.gguf")'
    assert downloaders._call_args(closed, len("hf_hub_download")) == 'repo_id="org/m", filename="f.gguf"'


def test_only_the_first_calls_of_a_script_are_read():
    calls = "; ".join('hf_hub_download(repo_id="org/m%d", filename="f")' % i for i in range(200))
    container = {"name": "fetch", "image": "python:3.12", "command": ["python", "-c", calls]}
    fetches = downloaders._call_fetches("spec.template.spec", {"containers": [container]}, container)
    assert len(fetches) == downloaders._MAX_CALLS
    assert fetches[0].source == "org/m0"


@given(st.text(alphabet="ab 2#${}<>&;|'\"\\\n", max_size=40))
@settings(max_examples=800)
def test_a_pass_with_nothing_to_rewrite_gives_the_script_back(script: str) -> None:
    # _drop_comments, _fold_expansions and _drop_fd_numbers return the script as it is when it holds no "#", "${",
    # "<" or ">" (nothing their rewrite acts on): _rewrite with nothing to rewrite gives every character back.
    assert shell_words._rewrite(script, lambda i: None) == script
    if "#" not in script:
        assert shell_words._drop_comments(script) == script
    if "<" not in script and ">" not in script:
        assert shell_words._drop_fd_numbers(script) == script


# The one-regex form of policies/reading/installs.piped_installers before review 45 #14 (cubic on long lines: 449 s on
# 1,000 `curl URL` words); the per-pipe reader must find the same on ordinary scripts.
_OLD_PIPED = re.compile(
    r"\b(?:curl|wget)\b[^|;&\n]*?(https?://[^\s'\"`;|&)]+)[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?"
    r"(?:/usr/bin/env\s+)?(?:/\S*/)?(sh|bash|zsh|dash|ash|python3?)\b"
)
_WORDS = ["curl", "wget", "-fsSL", "https://x.io/i.sh", "|", "||", ";", "&&", "\n", "sh", "bash", "sudo", "-E", "/bin/",
          "/usr/bin/env", "python3", "-", "tee", "f", " "]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=14))
def test_piped_installers_reads_as_the_one_regex_did(words: list[str]) -> None:
    text = " ".join(words)
    assert installs.piped_installers(text) == [(m.group(1), m.group(2)) for m in _OLD_PIPED.finditer(text)]


def test_piped_installers_is_linear_in_a_long_line():
    # /tmp/review45/fz/hang/n1200: 1,200 `curl http://example.com/a` words on one line took 218 s of CPU.
    start = time.perf_counter()
    assert installs.piped_installers("curl http://example.com/a " * 5000 + "| sh") == [("http://example.com/a", "sh")]
    assert time.perf_counter() - start < 2.0
