"""Packages a serving pod installs when it starts: ``pip``/``uv pip``/``conda``/``mamba`` in a container's command
line, and the ``pip``/``uv``/``conda`` lists of a Ray ``runtime_env`` (RayService serveConfigV2, RayJob
runtimeEnvYAML), plus the ``working_dir``/``py_modules`` URLs Ray downloads.

A requirement is pinned when it names one release: ``name==1.2.3`` (``===`` too; PEP 440 "version matching"), a
conda ``name=1.2.3``, or a direct reference (``name @ https://...``, a wheel file or a local path, which no index
moves). Anything else (a bare name, ``>=``, ``~=``, ``<``) takes whatever the index holds when the pod starts.
Ray installs a runtime_env's ``pip`` list into a fresh virtualenv when the job or application starts
(https://docs.ray.io/en/latest/ray-core/handling-dependencies.html#api-reference: "pip (dict | List[str] | str)",
"uv", "conda", "working_dir", "py_modules").
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Optional

from policies.kube import as_dict, as_list
from policies.reading.vllm_args import is_shell_operator

_INSTALLER = re.compile(r"^(?:\S*/)?(pip3?(?:\.\d+)?|uv|conda|mamba|micromamba)$")
# The installer's own tooling (`pip install --upgrade pip`): upgrading it changes no serving code (session 24 review F8).
_INSTALLER_ITSELF = frozenset({"pip", "setuptools", "wheel", "uv"})
# Options of pip/conda install that take a value (the value is not a package).
_VALUED = {
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url",
    "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--src", "--python", "-p", "-n", "--name",
    "--channel", "--platform", "--python-version", "--implementation", "--abi", "--cache-dir", "--log",
    # uv pip install's (docs.astral.sh/uv/reference/cli/#uv-pip-install): `--index-strategy unsafe-best-match`
    "--index-strategy", "--resolution", "--prerelease", "--index", "--default-index", "--torch-backend",
    "--keyring-provider", "--python-platform",
}  # fmt: skip
# A newline ends a shell command as ";" does (the split below keeps it as a part of its own).
_SEPARATORS = {";", "&&", "||", "|", "&", "\n"}


@dataclass(frozen=True)
class Install:
    """One package a pod installs at start: where it is said, the requirement, and whether it names one release."""

    where: str
    requirement: str
    pinned: bool
    completes: bool = False  # the pod runs to completion (a Job): it installs at each run, not each server start
    file: bool = False  # a requirements file (``-r FILE``): its entries are not in the files read

    @property
    def bare(self) -> bool:
        """A requirement with no version at all (no specifier, no direct reference): the index's newest, whatever
        it is. A range (``>=0.15.7``) bounds it on one side at least."""
        return not self.pinned and not re.search(r"[<>=!~]", self.requirement)


def pinned(requirement: str, *, conda: bool = False) -> bool:
    """Whether a requirement names one release (or a direct reference no index moves)."""
    text = requirement.strip().strip("'\"")
    if " @ " in text or text.startswith((".", "/", "file:")) or text.endswith((".whl", ".tar.gz", ".zip")):
        return True
    if "==" in text:
        return not re.search(r"==\s*[^,;\s]*\*", text)  # ==1.2.* is a range
    return conda and bool(re.match(r"^[A-Za-z0-9_.\-\[\]]+=[^=<>!~]+$", text))


@lru_cache(maxsize=256)
def _words(text: str) -> tuple[str, ...]:
    # shlex is slow and several policies read the same command lines (168 splits of 58 texts over the two corpora).
    try:
        return tuple(shlex.split(text, comments=False))
    except ValueError:
        return tuple(text.split())


def command_installs(text: str, where: str) -> list[Install]:
    """The packages the install commands of a command line name, and each requirements file it installs without
    --require-hashes (as one Install with ``file``: its entries are not in the manifest); git+ URLs are
    serving-code-pinned's."""
    text = text.replace("\\\n", " ")  # a backslash-newline continues the command
    words = [w for part in re.split(r"(;|&&|\|\||\||&|\n)", text) for w in ([part] if part in _SEPARATORS else _words(part))]
    found: list[Install] = []
    i = 0
    while i < len(words):
        match = _INSTALLER.match(words[i])
        if not match:
            i += 1
            continue
        tool = match.group(1)
        j = i + 1
        if tool == "uv" and j < len(words) and words[j] == "pip":
            j += 1
        if j >= len(words) or words[j] != "install":
            i = j
            continue
        j += 1
        files: list[str] = []
        hashed = False
        no_index, links = False, []
        while j < len(words) and words[j] not in _SEPARATORS:
            word = words[j]
            # An option's value is the next word unless that word ends the command or is another option (a
            # malformed `pip install -r && ...` or `-r -r x` names no file "&&" or "-r").
            operand = j + 1 < len(words) and words[j + 1] not in _SEPARATORS and not words[j + 1].startswith("-")
            if word in ("-r", "--requirement") and operand:
                files.append(words[j + 1])
            elif word.startswith("--requirement="):
                files.append(word.split("=", 1)[1])
            hashed = hashed or word == "--require-hashes"
            no_index = no_index or word == "--no-index"
            if word in ("-f", "--find-links") and operand:
                links.append(words[j + 1])
            elif word.startswith("--find-links="):
                links.append(word.split("=", 1)[1])
            if word in _VALUED:
                j += 2 if operand else 1
                continue
            local = word.startswith((".", "/", "~")) or word.endswith(".whl")  # a path in the image, not the index
            if not word.startswith("-") and "git+" not in word and not local and word.lower() not in _INSTALLER_ITSELF:
                found.append(Install(where, word, pinned(word, conda=tool in ("conda", "mamba", "micromamba"))))
            j += 1
        # A requirements file (pip's -r): what it lists is not in the files read. With --require-hashes pip refuses
        # any entry without a hash, and a hash names one file of one release (pypa/pip docs/html/topics/secure-installs.md
        # "Hash-checking Mode", pip >= 8.0: "Hashes are required for all requirements"), so it is pinned; without,
        # whatever it leaves open is resolved against the index at each start.
        # With --no-index and only local --find-links, pip resolves against the folders the image holds, not an index
        # (pypa/pip docs/html/cli/pip_install.rst "--no-index: Ignore package index (only looking at --find-links
        # URLs instead)"): nothing moves with the day, as with hashes.
        hashed = hashed or (no_index and all("://" not in link for link in links))
        found += [Install(where, f"-r {f}", hashed, file=True) for f in files if tool != "conda" and f and not hashed]
        i = j
    return found


def file_installs(install: Install, text: str) -> list[Install]:
    """The requirements a requirements file (``install``, a ``-r FILE`` whose text the files read hold: a ConfigMap
    mounted at FILE) lists, each an Install of its own; a nested ``-r`` stays a file; other option lines are skipped."""
    found = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line.startswith(("-r ", "--requirement ")):
            found.append(replace(install, requirement=f"-r {line.split(None, 1)[1].strip()}"))
        elif line and not line.startswith(("#", "-")):
            found.append(replace(install, requirement=line, pinned=pinned(line), file=False))
    return found


def _listed(value: Any) -> list[str]:
    """A runtime_env pip/uv value: a list, a dict with "packages", or a requirements file path (not read)."""
    if isinstance(value, dict):
        value = value.get("packages")
    return [str(v) for v in as_list(value) if isinstance(v, (str, int, float))]


def runtime_envs(config: Any, path: str = "") -> Iterator[tuple[str, dict]]:
    """(path, runtime_env) of every ``runtime_env`` mapping anywhere in a parsed Ray config."""
    if isinstance(config, dict):
        for key, value in config.items():
            here = f"{path}.{key}" if path else str(key)
            if key in ("runtime_env", "runtimeEnv") and isinstance(value, dict):
                yield here, value
            else:
                yield from runtime_envs(value, here)
    elif isinstance(config, list):
        for i, item in enumerate(config):
            yield from runtime_envs(item, f"{path}[{i}]")


def runtime_env_installs(env: dict, where: str) -> list[Install]:
    """The packages a runtime_env installs at start (pip, uv, and conda's dependency list)."""
    found = [Install(f"{where}.{k}", r, pinned(r)) for k in ("pip", "uv") for r in _listed(env.get(k))]
    conda = as_dict(env.get("conda"))
    for dep in as_list(conda.get("dependencies")):
        if isinstance(dep, str):
            found.append(Install(f"{where}.conda", dep, pinned(dep, conda=True)))
        elif isinstance(dep, dict):
            found += [Install(f"{where}.conda.pip", r, pinned(r)) for r in _listed(dep.get("pip"))]
    return found


def runtime_env_urls(env: dict) -> list[tuple[str, str]]:
    """(key, URL) of the code a runtime_env downloads: working_dir and py_modules given as URLs."""
    urls = [("working_dir", env.get("working_dir"))] + [("py_modules", m) for m in as_list(env.get("py_modules"))]
    return [(k, u) for k, u in urls if isinstance(u, str) and re.match(r"^[a-z0-9+]+://", u)]


_INSTALLERS = frozenset({"pip", "pip3", "uv", "conda", "mamba", "micromamba"})
# Commands that install what a lock or project file the files do not show names (cold review 29b, finding 2): after
# them the release run is unknown.
_FROM_FILES = {("uv", "sync"), ("pip", "sync"), ("poetry", "install"), ("pdm", "install"), ("pdm", "sync"), ("pipenv", "install")}
_FROM_FILES_WORDS = frozenset(word for _, word in _FROM_FILES)


def _installed_names(argv: list[str]) -> Iterator[Optional[str]]:
    """The distribution names pip, uv or conda install in ``argv`` (lower-case, '_' as '-'); None for a requirements
    file, a lock or a local project, whose names the files do not show."""
    for i, token in enumerate(argv):
        # (Tested on the word first: basename ran twice per word of every command line read, ~3,000 times a run.)
        if (i > 0 and token in _FROM_FILES_WORDS and (posixpath.basename(argv[i - 1]), token) in _FROM_FILES) or (
            token.endswith("pip-sync") and posixpath.basename(token) == "pip-sync"
        ):
            yield None
        if token != "install" or i == 0 or posixpath.basename(argv[i - 1]) not in _INSTALLERS:
            continue
        for arg in argv[i + 1 :]:
            if is_shell_operator(arg):
                break
            word = arg.strip("'\"").lower()
            if word in ("-r", "--requirement") or word.startswith(("--requirement=", "-r/", "-r.")):
                yield None
                continue
            if word.startswith("-"):
                continue
            if word == "." or (word.startswith(("./", "../", "/")) and not word.endswith((".whl", ".tar.gz"))):
                yield None
                continue
            if "/" in word or word.endswith(".whl"):  # vllm-0.10.1-cp38-abi3-...whl, git+https://.../vllm.git
                name = re.split(r"[-.#@]", word.rstrip("/").rsplit("/", 1)[-1], maxsplit=1)[0]
            else:  # a requirement: vllm==0.10.1, 'vllm>=0.11', sglang[all]
                name = re.split(r"[\[<>=!~;@ ]", word, maxsplit=1)[0]
            yield name.replace("_", "-")


def installs_engine(argv: list[str], package: str) -> bool:
    """True when the command line (``argv``, a script's tokens) installs ``package`` with pip (``pip install -U
    vllm==0.10.1``, ``uv pip install``, ``python -m pip install 'vllm>=0.11'``, a wheel URL or ``git+`` naming it):
    the server then runs the release installed, not the image's (model-card recipes upgrade vLLM so). A requirements
    file (``-r requirements.txt``) or a local project (``pip install .``, ``-e ./app``) the files do not show may name
    it too, so those count as installing it (cold review 29, finding 4: S38 blocked `vllm serve` on v0.4.2 after
    ``pip3 install -r /app/requirements.txt``)."""
    return any(name is None or name == package for name in _installed_names(argv))


def installs_provider(argv: list[str], module: str) -> bool:
    """True when the command line installs what may provide the Python ``module`` it runs: a package named with the
    module's top-level name as one of its '-'-separated words (``ai-dynamo`` for ``dynamo.sglang``: NVIDIA Dynamo's
    PyPI distribution), or a requirements file or local project the files do not show."""
    top = module.split(".", 1)[0].replace("_", "-").lower()
    return any(name is None or top in name.split("-") for name in _installed_names(argv))


# A download piped into an interpreter: ``curl -fsSL https://host/install.sh | sh -s -- --local`` (fresh set 46
# BarryJNewman/arc-gitops-ai apps/ollama/deployment.yaml), ``wget -qO- URL | bash``, ``curl URL | sudo bash``,
# ``curl URL | python3 -``. The shell runs whatever the URL serves when the line runs.
# Read one pipe at a time (review 45 #14: one regex over the whole script backtracked cubically, 218 s on a 31 KB
# script): the command before each `|`, back to the last `;`, `&`, `|` or newline, and the interpreter after it.
_COMMAND_END = re.compile(r"[|;&\n]")
_FETCH = re.compile(r"\b(?:curl|wget)\b")
_URL = re.compile(r"https?://[^\s'\"`;|&)]+")
_INTERPRETER = re.compile(
    r"\s*(?:sudo\s+(?:-[^\s|;&]+\s+)*)?(?:/usr/bin/env\s+)?(?:/[^\s|;&]*/)?(sh|bash|zsh|dash|ash|python3?)\b"
)


def piped_installers(text: str) -> list[tuple[str, str]]:
    """(URL, interpreter) of every download a command line pipes into a shell or Python: a ``curl``/``wget`` with a
    URL in the command before a ``|``, and an interpreter right after it. Linear in the text."""
    found: list[tuple[str, str]] = []
    start = 0
    for end in _COMMAND_END.finditer(text):
        if end.group() == "|":
            fetch = _FETCH.search(text, start, end.start())
            url = _URL.search(text, fetch.end(), end.start()) if fetch else None
            interpreter = _INTERPRETER.match(text, end.end()) if url else None
            if url and interpreter:
                found.append((url.group(), interpreter.group(1)))
        start = end.end()
    return found
