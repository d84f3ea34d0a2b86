"""What the measuring scripts (api_server_cost.py, engine_core_cost.py) record of the machine they ran on."""

from __future__ import annotations

import platform
from pathlib import Path


def host() -> dict[str, str]:
    """The CPU model (/proc/cpuinfo's first "model name", else ``platform.processor()``) and the Python version."""
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "python": platform.python_version()}
