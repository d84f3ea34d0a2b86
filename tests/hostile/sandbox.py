"""Run one hostile case in a subprocess with a memory and a CPU cap, and check the contract.

The contract of `python -m stacks` and `python -m policies check` on any input: within the caps
(1 GiB of address space, 10 s of CPU, 60 s of wall time on a loaded CI machine) the process
exits 0, 1 or 2 -- never 3 (an internal error) and never killed -- prints no traceback, and no
credential it was given appears in its output or in any file it wrote.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

ROOT = Path(__file__).resolve().parents[2]
MEMORY_BYTES = 1 << 30
CPU_SECONDS = 10
WALL_SECONDS = 60

# Credentials planted in hostile inputs; none may come back out.
TOKENS = (
    "hf_" + "Zq7" * 11 + "x",
    "AKIA" + "Q4" * 8,
    "ghp_" + "m3N8" * 9,
    "sk-proj-" + "Tk9" * 14,
    "xoxb-4242424242-" + "s3cr3tSl4ck",
)
HF_TOKEN = TOKENS[0]


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    # Core files of a killed case are of no use here.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class Result:
    """What one capped run did."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        """A short account for assertion messages."""
        return f"{' '.join(self.args)} -> {self.returncode}\nstdout: {self.stdout[-600:]}\nstderr: {self.stderr[-1500:]}"


def run_capped(args: Sequence[str], *, stdin: Optional[bytes] = None, cwd: Path = ROOT) -> Result:
    """``python <args>`` under the caps; a run over the wall time is killed and reported as such."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("LLM_SERVING_DEBUG", None)
    try:
        proc = subprocess.run(
            [sys.executable, *args],
            input=stdin if stdin is not None else b"",
            capture_output=True,
            cwd=cwd,
            preexec_fn=_limits,
            timeout=WALL_SECONDS,
            env=env,
        )
    except subprocess.TimeoutExpired as exc:
        return Result(
            list(args),
            -signal.SIGKILL,
            (exc.stdout or b"").decode("utf-8", "replace"),
            f"killed after {WALL_SECONDS} s of wall time\n" + (exc.stderr or b"").decode("utf-8", "replace"),
        )
    return Result(list(args), proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def files_under(folder: Optional[Path]) -> Iterable[Path]:
    """Every file a run may have written under ``folder``."""
    if folder is None or not folder.exists():
        return []
    return [p for p in folder.rglob("*") if p.is_file()]


def assert_contract(result: Result, *, allowed: Iterable[int] = (0, 1, 2), written: Optional[Path] = None) -> None:
    """Exit in ``allowed``, no traceback, no internal error, no planted token anywhere, no forged log line."""
    assert result.returncode in set(allowed), result.describe()
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.describe()
    assert "internal error" not in result.stderr, result.describe()
    for token in TOKENS:
        assert token not in result.stdout and token not in result.stderr, f"token echoed: {result.describe()}"
    # Input text must not forge lines of a CI log (GitHub's "::error::" workflow commands).
    assert not any(line.startswith("::") for line in result.stdout.splitlines()), result.describe()
    for path in files_under(written):
        data = path.read_bytes()
        for token in TOKENS:
            assert token.encode() not in data, f"token written to {path}"
