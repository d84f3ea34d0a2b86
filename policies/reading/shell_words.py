"""Shell words: a script's tokens as ``sh`` splits them, for the readers of ``sh -c SCRIPT`` command lines and of
mounted script files (policies/reading/vllm_args.py, downloaders.py).

Comments are dropped, a backslash-newline joins lines, a newline ends a command like ``;``, a redirection's
file-descriptor number is no argument, and a ``${NAME:+WORDS}`` expansion is one run-time word.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from functools import lru_cache
from typing import Callable, Optional

# Characters that make the splitter's operator tokens (`;`, `&&`, `|`, `>`...).
SHELL_OPERATORS = ";&|<>"


@lru_cache(maxsize=256)
def _split_shell_cached(script: str) -> tuple[str, ...]:
    # A backslash-newline continues a line; a bare newline ends a command like ";". Comments go first, while the
    # newlines that end them are still there: with the newlines made ";", shlex would read a comment to the end of
    # the whole script (a commented `sh -c` script read as no command at all, spent set 23 KSign-Security-Lab/agents).
    script = _fold_expansions(_drop_comments(script.replace("\\\n", " ")))
    script = _drop_fd_numbers(script.replace("\n", " ; "))
    lexer = shlex.shlex(script, posix=True, punctuation_chars=SHELL_OPERATORS)
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are gone; a "#" left is quoted or inside a word (${#ARRAY[@]}, a#b)
    try:
        return tuple(lexer)
    except ValueError:  # unbalanced quotes: vLLM would not start either; read nothing
        return ()


Rewrite = Callable[[int], Optional[tuple[str, int]]]


def _rewrite(script: str, unquoted: Rewrite) -> str:
    """The script with the characters outside quotes rewritten: ``unquoted(i)`` gives (text, next index) to put
    ``text`` in place of ``script[i:next]``, or None to keep the character. A backslash escapes the next character
    (not inside single quotes); quotes open and close as sh reads them. The one walker of the passes below."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch == "\\" and quote != "'":  # an escaped character is never a quote, a comment or an operator
            out.append(script[i : i + 2])
            i += 2
            continue
        if not quote and ch not in "'\"" and (done := unquoted(i)) is not None:
            text, i = done
            out.append(text)
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        out.append(ch)
        i += 1
    return "".join(out)


def _drop_comments(script: str) -> str:
    """The script with its comments left out: a ``#`` that starts a word (at the start, or after a blank or one of
    ``;&|()``), outside quotes, to the end of its line (POSIX Shell Command Language 2.3, rule 9). A ``#`` inside
    quotes or inside a word (``${#ARRAY[@]}``, ``a#b``) stays."""
    if "#" not in script:
        return script  # _rewrite would give every character back (~40 us a script of ~300 characters)

    def comment(i: int) -> Optional[tuple[str, int]]:
        if script[i] != "#" or (i > 0 and script[i - 1] not in " \t\n;&|()"):
            return None
        end = script.find("\n", i)
        return "", len(script) if end < 0 else end

    return _rewrite(script, comment)


_EXPANSION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _fold_expansions(script: str) -> str:
    """The script with each unquoted ``${NAME<op>WORDS}`` whose words hold blanks folded to ``${NAME}``: the shell
    reads the braces as one expansion whose words exist only at run time (``${PARSER:+--tool-call-parser "$PARSER"
    --enable-auto-tool-choice}`` gives those options or nothing), where the splitter would read ``...-choice}`` as
    an option of its own. Set at run time, the folded word is never judged (set_at_run_time)."""
    # Each search for a closing brace reads ahead; on hostile input (many `${` that never close, or nest deeply)
    # that is quadratic. A `${` with no `}` is a shell syntax error ("bad substitution"), so the first one ends the
    # folding, and all searches together read at most a few times the script's length.
    if "${" not in script:
        return script  # nothing to fold: _rewrite would give every character back
    budget = [4 * len(script) + 4096]

    def fold(i: int) -> Optional[tuple[str, int]]:
        if not script.startswith("${", i):
            return None
        end = _closing_brace(script, i + 2, budget)
        if end < 0:
            return script[i:], len(script)  # the rest as written
        body = script[i + 2 : end]
        if not any(c.isspace() for c in body):
            return None
        name = _EXPANSION_NAME.match(body)
        return "${%s}" % (name.group(0) if name else "UNKNOWN"), end + 1

    return _rewrite(script, fold)


def _closing_brace(script: str, start: int, budget: list[int]) -> int:
    """The index of the ``}`` that closes a ``${`` whose body starts at ``start`` (nested braces and quotes
    skipped), else -1; -1 too once the characters read, counted down in ``budget``, run out."""
    depth, quote, i = 0, "", start
    while i < len(script):
        budget[0] -= 1
        if budget[0] < 0:
            return -1
        ch = script[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1


def _drop_fd_numbers(script: str) -> str:
    """The script with the file-descriptor number of each redirection left out (`2>&1` -> `>&1`, `2>log` -> `>log`):
    the digits glued to `<`/`>` belong to the redirection operator, not to the command's arguments (POSIX Shell
    Command Language 2.7 "Redirection": `[n]redir-op word`, n written with no blank before the operator), but the
    splitter would hand them on as a word. Quoted text is left alone; `echo 2 > x` (a blank) keeps its argument."""
    if "<" not in script and ">" not in script:
        return script  # no redirection: _rewrite would give every character back

    def fd_number(i: int) -> Optional[tuple[str, int]]:
        if not script[i].isdigit() or (i > 0 and script[i - 1] not in " \t;&|"):
            return None
        j = i
        while j < len(script) and script[j].isdigit():
            j += 1
        return ("", j) if j < len(script) and script[j] in "<>" else None

    return _rewrite(script, fd_number)


def split_shell(script: str) -> list[str]:
    """A script's tokens as the shell splits them (a newline ends a command like ";"), its comments (the ``#!``
    line, ``# ...`` to the end of a line) left out; [] for unbalanced quotes. Several policies read the same
    container's script: each text is split once (a fresh list each time)."""
    return list(_split_shell_cached(script))


# The shells whose `-c SCRIPT` the readers follow (vLLM's command readers); inline Python also follows busybox's sh.
SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})


def shell_script(argv: list[str], shells: frozenset[str] = SHELLS) -> str | None:
    """The script of `sh -c SCRIPT` (also `bash -ec`, `-lc`, ...) when argv[0]'s base name is one of ``shells``, else
    None."""
    if not argv or posixpath.basename(argv[0]) not in shells:
        return None
    for i, token in enumerate(argv[1:], start=1):
        if token.startswith("-") and not token.startswith("--") and "c" in token[1:]:
            rest = argv[i + 1 :]
            if rest[:1] == ["--"]:  # `bash -lc -- SCRIPT`: "--" ends the options
                rest = rest[1:]
            return rest[0] if rest else None
    return None


# Operators that start another command in the same script (a redirection does not).
_COMMAND_SEPARATORS = frozenset({";", "&&", "||", "|", "&", ";;", "|&"})


def sole_command(argv: list[str]) -> list[str] | None:
    """The words of the one process a `sh -c SCRIPT` command line runs, without a leading ``exec``, when the script
    is one simple command (``exec vllm serve --port 8000``, redirections allowed); None when argv is no shell script
    or the script runs more than one command. POSIX sh runs a simple command and waits (or, with ``exec``, becomes
    it): either way no other process of the script listens or serves."""
    script = shell_script(argv)
    if script is None:
        return None
    words = split_shell(script)
    while words and words[-1] == ";":  # the script's last newline
        words.pop()
    if not words or any(w in _COMMAND_SEPARATORS for w in words):
        return None
    return words[1:] if words[0] == "exec" else words
