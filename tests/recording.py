"""Run the program under the offline engine in a fresh interpreter and return what it registered.

The Pulumi SDK's mock runtime can run one program per process (it closes its event loops), so
tests that look at the recording itself (providers, parents, inputs) run it in a subprocess.
"""

from __future__ import annotations

import json
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


def record(stack: str) -> dict:
    """{"resources": [...], "files": {path: text}} of one offline run of ``stack`` (a name or a stack file path)."""
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, stack], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
