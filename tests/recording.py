"""Run the program under the offline engine in a fresh interpreter and return what it registered.

The Pulumi SDK's mock runtime can run one program per process (it closes its event loops), so
tests that look at the recording itself (providers, parents, inputs) run it in a subprocess.

Seventeen fixtures and tests in eleven modules record the same three stacks (prod twelve times), each run ~3-5 s of
CPU: a pytest process keeps what the subprocess printed for a stack named by its name, keyed by the stack file's
bytes and the environment the subprocess inherits, and every caller gets its own freshly decoded copy (free to
change). A stack given as a path (a test's own variant) is run every time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

_SCRIPT = """
import json, sys
from stacks.offline import load_stack_file, run_program
from stacks.plan import render_files
rec = run_program(load_stack_file(sys.argv[1]))
print(json.dumps({
    "resources": [{"type": r.type, "name": r.name, "parent": r.parent, "custom": r.custom, "provider": r.provider,
                   "inputs": r.inputs, "dependencies": list(r.dependencies),
                   "deleteBeforeReplace": r.delete_before_replace} for r in rec.resources],
    "files": render_files(rec),
}, sort_keys=True, default=str))
"""


# (stack name, its stack file's bytes, the environment) -> what the recording subprocess printed.
_PRINTED: dict[tuple[str, bytes, tuple[tuple[str, str], ...]], str] = {}


def record(stack: str) -> dict:
    """{"resources": [...], "files": {path: text}} of one offline run of ``stack`` (a name or a stack file path)."""
    stack_file = ROOT / "stacks" / f"Pulumi.{stack}.yaml"
    if os.sep in stack or not stack_file.is_file():
        return json.loads(_run(stack))
    # pytest names the running test in PYTEST_CURRENT_TEST: no input of the program's.
    environment = tuple(sorted((k, v) for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"))
    key = (stack, stack_file.read_bytes(), environment)
    if key not in _PRINTED:
        _PRINTED[key] = _run(stack)
    return json.loads(_PRINTED[key])


def _run(stack: str) -> str:
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, stack], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
