"""Print the URL path prefixes vLLM's API key guards in each wheel given (the source of
components/vllm_auth.py; run by hand, never by the product or the tests).

    pip download vllm==0.33.0 --no-deps -d wheels/
    python tools/read_vllm_auth.py wheels/vllm-*.whl

Reads the wheel's ``vllm/entrypoints/**.py`` without importing it and prints, with file and line,
the check that refuses a request without the key: ``GUARDED_PREFIX = (...)`` with the
``url_path.startswith(GUARDED_PREFIX)`` that uses it (0.22 on), or a literal
``url_path.startswith("/v1")`` (0.8.5 to 0.15).
"""

from __future__ import annotations

import re
import sys
import zipfile

TUPLE = re.compile(r"^GUARDED_PREFIX\s*=\s*\(([^)]*)\)", re.M)
LITERAL = re.compile(r"url_path\.startswith\(\s*[\"'](/[^\"']*)[\"']\s*\)")
USE = re.compile(r"url_path\.startswith\(\s*GUARDED_PREFIX\s*\)")


def guarded(wheel: str) -> list[tuple[tuple[str, ...], str]]:
    """[(prefixes, "file:line of the definition, file:line of the check")] found in one wheel."""
    out = []
    with zipfile.ZipFile(wheel) as z:
        for name in sorted(n for n in z.namelist() if n.startswith("vllm/entrypoints/") and n.endswith(".py")):
            text = z.read(name).decode("utf-8", "replace")

            def line(pos: int, text: str = text) -> int:
                return text[:pos].count("\n") + 1

            for m in TUPLE.finditer(text):
                prefixes = tuple(re.findall(r"[\"'](/[^\"']*)[\"']", m.group(1)))
                uses = [f"{name}:{line(u.start())}" for u in USE.finditer(text)]
                out.append((prefixes, f"{name}:{line(m.start())} checked at {', '.join(uses) or 'no use in this file'}"))
            for m in LITERAL.finditer(text):
                out.append(((m.group(1),), f"{name}:{line(m.start())}"))
    return out


if __name__ == "__main__":
    for wheel in sys.argv[1:]:
        print(f"# {wheel}")
        for prefixes, where in guarded(wheel):
            print(f"{' '.join(prefixes)}\t{where}")
