"""Python a container runs from text the files hold, and whether that text compiles.

Where the code is: ``python -c CODE`` (exec form, or inside a ``sh -c`` script, single- or double-quoted), a heredoc
fed to an interpreter (``python - <<'PY'``, ``python3 <<EOF``, ``cat <<EOF | python``) or written to a ``.py`` file
(``cat > /tmp/x.py <<EOF``), and a ConfigMap key mounted as a ``.py`` file the command line names
(policies/reading/mounted_scripts.py). CPython parses a whole program before it runs any statement of it (``-c`` and
stdin alike: Python/pythonrun.c ``pyrun_file`` parses with ``_PyParser_ASTFromFile`` and only then calls
``run_mod``), so a syntax error anywhere exits 1 with ``SyntaxError`` before the first line runs.

The code is compiled with ``compile()`` (never executed). Text a rendering step or the shell fills (``$VAR``,
``${VAR}``, ``$(cmd)``, backquotes, ``{{ .Values.x }}``) is replaced by a marker; where a marker stands outside a
string literal the code is not judged (its value may be code), inside one it is (``unresolved`` says so). A
heredoc whose end word does not stand alone on a line, a quoted ``-c`` word glued to another, and text over 256 KiB
are not read.
"""

from __future__ import annotations

import io
import posixpath
import re
import sys
import tokenize
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

from policies.kube import as_list
from policies.reading.mounted_scripts import mounted_script_files
from policies.reading.shell_words import SHELLS, shell_script

_MAX_CODE = 256 << 10
_MARK = "zzqsubstqzz"
_SHELLS = SHELLS | {"busybox"}
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)*)?")
# A python word as a shell command word (after start, an operator or a space), a path before it allowed.
_PY_WORD = r"(?:^|(?<=[\s;&|(]))(?:[\w./-]*/)?(python(?:\d+(?:\.\d+)*)?)(?=[\s;&|)]|$)"
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_PY_C = re.compile(_PY_WORD + r"((?:[ \t]+-[A-Za-bd-zA-Z]+)*)[ \t]+-c[ \t]+")
_PY_FILE_TARGET = re.compile(r">[ \t]*['\"]?([\w./-]+\.py)\b")
_SUBST_SHELL = re.compile(r"\\\n|\\([$`\\\"])|\$\{[^}\n]*\}|\$\([^)\n]*\)|\$[A-Za-z_]\w*|\$[0-9@*#?$!-]|`[^`\n]*`")
_SUBST_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.S)


@dataclass(frozen=True)
class PythonText:
    """One program a container runs: where it was read, the interpreter word, the code (substitutions marked)."""

    where: str
    interpreter: str
    code: str
    substituted: bool


@dataclass(frozen=True)
class CompileFailure:
    """Why ``compile()`` refused a program: the message, its line number and that line's text."""

    message: str
    line: int
    text: str


def _mark(text: str, shell: str = "") -> tuple[str, bool]:
    """Replace what the shell (``shell``: "heredoc" for an unquoted heredoc, "double" for a double-quoted word) or a
    template fills with the marker, undoing the shell's backslash escapes; whether any was replaced."""
    hits = [False]

    def repl(m: re.Match[str]) -> str:
        if m.group(0) == "\\\n":
            return ""
        if m.group(1) is not None:
            # In a heredoc a backslash escapes only $, `, \ and newline; in double quotes also ".
            return m.group(1) if m.group(1) != '"' or shell == "double" else m.group(0)
        hits[0] = True
        return _MARK

    if shell:
        text = _SUBST_SHELL.sub(repl, text)
    marked = _SUBST_TEMPLATE.sub(_MARK, text)
    return marked, hits[0] or marked != text


def _simple_command(line: str, at: int) -> str:
    """The part of ``line`` around offset ``at`` between command separators (;, &&, ||, |)."""
    cuts = [0] + [m.end() for m in re.finditer(r"&&|\|\||[;|]", line)] + [len(line) + 1]
    start = max(c for c in cuts if c <= at)
    end = min((m.start() for m in re.finditer(r"&&|\|\||[;|]", line) if m.start() >= at), default=len(line))
    return line[start:end]


def _reads_program_from_stdin(rest: str) -> bool:
    """Whether a python command's words after the interpreter (``rest``, the heredoc operator included) leave the
    program to standard input: no script argument, no -m or -c (CPython reads the program from stdin only with no
    script or with ``-``: Python docs, command line and environment, "-")."""
    for token in rest.split():
        if token.startswith("<<") or token.startswith(">") or token.startswith("<"):
            break
        if token == "-":
            return True
        if token in ("-m", "-c") or not token.startswith("-"):
            return False
    return True


def _heredocs(script: str) -> list[PythonText]:
    found = []
    lines = script.split("\n")
    for i, line in enumerate(lines):
        here = _HEREDOC.search(line)
        if here is None:
            continue
        # The heredoc feeds the command it is written on (review 44 #15): the simple command around the operator
        # (between ;, &&, || and |) must be `python [options] [-]` reading its program from stdin, or write a .py file.
        command = _simple_command(line, here.start())
        word = re.search(_PY_WORD, command)
        target = _PY_FILE_TARGET.search(command)
        if word is not None and not _reads_program_from_stdin(command[word.end() :]):
            word = None
        if word is None and target is None:
            continue
        strip_tabs, quoted, end = here.group(1) == "-", bool(here.group(2)), here.group(3)
        body = []
        for later in lines[i + 1 :]:
            if (later.lstrip("\t") if strip_tabs else later) == end:
                break
            body.append(later.lstrip("\t") if strip_tabs else later)
        else:
            continue  # no line holds the end word alone: not read
        code, substituted = _mark("\n".join(body) + "\n", shell="" if quoted else "heredoc")
        interpreter = word.group(1) if word else "python"
        found.append(PythonText(f"the heredoc <<{end}", interpreter, code, substituted))
    return found


def _quoted_word(text: str, start: int) -> tuple[str, bool] | None:
    """The shell word at ``start`` if it is one quoted string standing alone: (its text, whether double-quoted)."""
    quote = text[start : start + 1]
    if quote == "'":
        end = text.find("'", start + 1)
        value = text[start + 1 : end]
    elif quote == '"':
        end, chars = start + 1, []
        while end < len(text) and text[end] != '"':
            if text[end] == "\\" and end + 1 < len(text):
                chars.append(text[end : end + 2])
                end += 2
                continue
            chars.append(text[end])
            end += 1
        value = "".join(chars) if end < len(text) else ""
        end = end if end < len(text) else -1
    else:
        return None
    if end < 0 or (end + 1 < len(text) and text[end + 1] not in " \t\n;&|)"):
        return None
    return value, quote == '"'


def _shell_dash_c(script: str) -> list[PythonText]:
    found = []
    for m in _PY_C.finditer(script):
        word = _quoted_word(script, m.end())
        if word is None:
            continue
        value, double = word
        code, substituted = _mark(value, shell="double" if double else "")
        found.append(PythonText(f"{m.group(1)} -c", m.group(1), code, substituted))
    return found


def _exec_dash_c(argv: list[str]) -> list[PythonText]:
    """``python -c CODE`` as the container's own command line: only the kubelet's ``$(VAR)`` is filled."""
    if not argv or not _PYTHON.fullmatch(posixpath.basename(argv[0])):
        return []
    for i, token in enumerate(argv[1:], start=1):
        if token == "-c" and i + 1 < len(argv):
            raw = argv[i + 1]
            code = re.sub(r"(?<!\$)\$\([A-Za-z_]\w*\)", _MARK, raw)
            marked, _ = _mark(code)
            return [PythonText(f"{posixpath.basename(argv[0])} -c", posixpath.basename(argv[0]), marked, marked != raw)]
        if not token.startswith("-") or token == "-":
            return []
    return []


def _mounted(podspec: Mapping, container: Mapping, argv: list[str]) -> list[PythonText]:
    line = " ".join(argv)
    found = []
    for path, text in mounted_script_files(podspec, container).items():
        first = text.lstrip().split("\n", 1)[0]
        shebang = re.match(r"#!\S*?(?:/env\s+)?(?:\S*/)?(python(?:\d+(?:\.\d+)*)?)\s*$", first)
        runner = re.search(_PY_WORD + r"(?:[ \t]+-[A-Za-z]+)*[ \t]+" + re.escape(path) + r"(?![\w./-])", line)
        if runner is None and not (shebang and path.endswith(".py")):
            continue
        code, substituted = _mark(text)
        interpreter = runner.group(1) if runner else shebang.group(1) if shebang else "python"
        found.append(PythonText(f"the mounted script {path}", interpreter, code, substituted))
    return found


def python_texts(podspec: Mapping, container: Mapping) -> list[PythonText]:
    """Every program ``container`` hands a Python interpreter as text the files hold."""
    argv = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    found = _exec_dash_c(argv)
    script = shell_script(argv, _SHELLS)
    if script is not None:
        found += _heredocs(script) + _shell_dash_c(script)
    found += _mounted(podspec, container, argv)
    return [t for t in found if t.code.strip() and len(t.code) <= _MAX_CODE]


def _marks_outside_strings(code: str) -> bool | None:
    """Whether a marker stands outside a string literal; None where the text does not tokenize."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type != tokenize.STRING and _MARK in tok.string:
                return True
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return False


def compile_failure(text: PythonText) -> CompileFailure | None:
    """Why CPython refuses ``text`` before running it, else None (it compiles, or it holds a filled value that is
    not judged)."""
    if _MARK in text.code and _marks_outside_strings(text.code) is not False:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text.code, "<inline>", "exec", dont_inherit=True)
    except SyntaxError as err:
        lines = text.code.split("\n")
        line = err.lineno or 0
        shown = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return CompileFailure(str(err.msg), line, shown.replace(_MARK, "$..."))
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return None
    return None


def newer_grammar(failure: CompileFailure) -> bool:
    """Whether the failure may be a form a newer Python than the pack's accepts: Python 3.12's f-strings (PEP 701: the
    outer quote reused inside, a backslash in an expression part) and type parameter syntax (PEP 695: ``type X = ...``,
    ``def f[T]``, ``class C[T]``). The pack compiles with its own interpreter, while vLLM's and SGLang's images run
    Python 3.12 (vllm-project/vllm docker/Dockerfile ARG PYTHON_VERSION=3.12), so such a failure is advice there
    (review 44 #14)."""
    if sys.version_info >= (3, 12):
        return False
    return failure.message.startswith("f-string") or bool(
        re.match(r"\s*(type\s+\w+\s*(\[.*\])?\s*=|(async\s+)?def\s+\w+\s*\[|class\s+\w+\s*\[)", failure.text)
        or re.search(r"\bf(['\"]).*\{[^}]*\1", failure.text)
    )


# Messages of CPython 3 for forms Python 2 accepts: on an interpreter that may be Python 2 these are advice.
_PY2_FORMS = (
    "Missing parentheses in call to",
    "multiple exception types must be parenthesized",
    "leading zeros in decimal integer literals",
)


def may_be_python2(text: PythonText, image: object, failure: CompileFailure) -> bool:
    """Whether the interpreter may be Python 2 and the failure a form Python 2 accepts: an unversioned ``python`` on
    an image that names Python 2, or a Python 2 form (print statement, ``except E, e``, ``0777``, backquotes)."""
    if not text.interpreter.startswith("python2") and text.interpreter != "python":
        return False
    if text.interpreter.startswith("python2"):
        return True
    named = isinstance(image, str) and re.search(r"python:?2|py2|:2\.[0-7]\b", image.lower()) is not None
    py2_form = re.search(r"^\s*(print|exec)\s+[^\s(=]|except\s+[\w.]+\s*,\s*\w+\s*:|`|\b0[0-7]+\b", failure.text)
    return named or (failure.message.startswith(_PY2_FORMS) or py2_form is not None)
