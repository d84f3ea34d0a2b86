"""Make the project root and this folder importable, whatever pytest's import mode is."""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _path in (_HERE.parents[1], _HERE):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
