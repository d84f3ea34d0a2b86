"""Shell words: a script's tokens as ``sh`` splits them, for the readers of ``sh -c SCRIPT`` command lines and of
mounted script files (policies/reading/vllm_args.py, downloaders.py).

Comments are dropped, a backslash-newline joins lines, a newline ends a command like ``;``, a redirection's
file-descriptor number is no argument, and a ``${NAME:+WORDS}`` expansion is one run-time word.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

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


def _drop_comments(script: str) -> str:
    """The script with its comments left out: a ``#`` that starts a word (at the start, or after a blank or one of
    ``;&|()``), outside quotes, to the end of its line (POSIX Shell Command Language 2.3, rule 9). A ``#`` inside
    quotes or inside a word (``${#ARRAY[@]}``, ``a#b``) stays."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch == "\\" and quote != "'":
            out.append(script[i : i + 2])
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or script[i - 1] in " \t\n;&|()"):
            end = script.find("\n", i)
            i = n if end < 0 else end
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_EXPANSION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _fold_expansions(script: str) -> str:
    """The script with each unquoted ``${NAME<op>WORDS}`` whose words hold blanks folded to ``${NAME}``: the shell
    reads the braces as one expansion whose words exist only at run time (``${PARSER:+--tool-call-parser "$PARSER"
    --enable-auto-tool-choice}`` gives those options or nothing), where the splitter would read ``...-choice}`` as
    an option of its own. Set at run time, the folded word is never judged (set_at_run_time)."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(script)
    # Each search for a closing brace reads ahead; on hostile input (many `${` that never close, or nest deeply)
    # that is quadratic. A `${` with no `}` is a shell syntax error ("bad substitution"), so the first one ends the
    # folding, and all searches together read at most a few times the script's length.
    budget = [4 * n + 4096]
    while i < n:
        ch = script[i]
        if ch == "\\" and quote != "'":
            out.append(script[i : i + 2])
            i += 2
            continue
        if not quote and script.startswith("${", i):
            end = _closing_brace(script, i + 2, budget)
            if end < 0:
                out.append(script[i:])
                break
        else:
            end = -1
        if end > 0:
            body = script[i + 2 : end]
            if any(c.isspace() for c in body):
                name = _EXPANSION_NAME.match(body)
                out.append("${%s}" % (name.group(0) if name else "UNKNOWN"))
                i = end + 1
                continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        out.append(ch)
        i += 1
    return "".join(out)


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
    out: list[str] = []
    quote = ""
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch == "\\" and quote != "'":  # an escaped character is never a quote or an operator
            out.append(script[i : i + 2])
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch.isdigit() and (i == 0 or script[i - 1] in " \t;&|"):
            j = i
            while j < n and script[j].isdigit():
                j += 1
            if j < n and script[j] in "<>":
                i = j
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def split_shell(script: str) -> list[str]:
    """A script's tokens as the shell splits them (a newline ends a command like ";"), its comments (the ``#!``
    line, ``# ...`` to the end of a line) left out; [] for unbalanced quotes. Several policies read the same
    container's script: each text is split once (a fresh list each time)."""
    return list(_split_shell_cached(script))
