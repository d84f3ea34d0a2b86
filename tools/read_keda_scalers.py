"""Write components/keda_scalers.json: the trigger metadata each KEDA scaler requires (the source of S58
keda-trigger-metadata-complete; run by hand, never by the product or the tests).

    python tools/read_keda_scalers.py --write /work/.mirror/kedacore+keda/repo v2.20.2

Read, not built or run, from a kedacore/keda git directory at a tag:

- pkg/scaling/scalers_builder.go ``buildScaler``: each ``case "<trigger type>":`` and the ``scalers.New<X>Scaler`` it
  returns; the file of pkg/scalers/ defining that function;
- in that file, the struct handed to ``config.TypedConfig`` (the variable's ``:= &T{...}``, ``= T{...}`` or ``var v T``),
  its fields' ``keda:"..."`` tags (pkg/scalers/scalersconfig/typed_config.go: ``name=a;b``, ``order=...``,
  ``optional``, ``default=``, ``deprecated=``), walking a nested struct of the same file (a field whose tag has no
  name) unless the nesting field is optional (typed_config.go parentOptional). A field with neither ``optional``, a
  default nor ``deprecated`` is required: ``setValue`` returns ``missing required parameter "<name>" in [<order>]``
  (typed_config.go:247-271 at v2.20.2) and the scaler is not built; a ``deprecated=`` parameter that is given fails the
same way with the deprecation message (typed_config.go:249-251).

Only scalers whose file makes one TypedConfig call, of a struct of the same file, are kept; others are left out (the table can only miss a requirement, which makes the policy
silent, never wrong).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "components" / "keda_scalers.json"

_CASE = re.compile(r'case\s+"([a-z0-9-]+)":\s*\n\s*return\s+scalers\.(New\w+)\(')
_STRUCT = re.compile(r"^type\s+(\w+)\s+struct\s*\{(.*?)^\}", re.S | re.M)
_FIELD = re.compile(r"^\s*(\w+)\s+(\*?[\w.\[\]]+)\s+`[^`]*keda:\"([^\"]*)\"[^`]*`", re.M)
_TYPED = re.compile(r"TypedConfig\(&?(\w+)\)")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _tag(text: str) -> dict:
    found: dict = {}
    for part in (p.strip() for p in text.split(",")):
        key, _, value = part.partition("=")
        found[key.strip()] = value.strip() if value else True
    return found


def _params(structs: dict[str, str], name: str, seen: frozenset = frozenset()) -> tuple[list, list] | None:
    """(required, deprecated) parameters of struct ``name``: each {"names", "order"} (and "message" when deprecated);
    None where a nested struct of another package is not optional (its parameters are not read)."""
    body = structs.get(name)
    if body is None or name in seen:
        return None
    required: list = []
    deprecated: list = []
    for _field, kind, raw in _FIELD.findall(body):
        tag = _tag(raw)
        if "name" not in tag:  # nested
            if tag.get("optional"):
                continue
            inner = _params(structs, kind.lstrip("*"), seen | {name})
            if inner is None:
                return None
            required += inner[0]
            deprecated += inner[1]
            continue
        entry = {"names": str(tag["name"]).split(";"), "order": [o for o in str(tag.get("order", "")).split(";") if o]}
        if isinstance(tag.get("deprecated"), str):
            deprecated.append({**entry, "message": tag["deprecated"]})
        elif not (tag.get("optional") or "default" in tag):
            required.append(entry)
    return required, deprecated


def read(repo: Path, release: str) -> dict:
    builder = _git(repo, "show", f"{release}:pkg/scaling/scalers_builder.go")
    files = [f for f in _git(repo, "ls-tree", "--name-only", release, "pkg/scalers/").split() if f.endswith("_scaler.go")]
    sources = {f: _git(repo, "show", f"{release}:{f}") for f in files}
    scalers: dict = {}
    for trigger, constructor in _CASE.findall(builder):
        path = next((f for f, text in sources.items() if re.search(rf"^func {constructor}\(", text, re.M)), None)
        if path is None:
            continue
        text = sources[path]
        calls = set(_TYPED.findall(text))
        if len(calls) != 1:
            continue  # more than one typed struct
        var = calls.pop()
        decl = re.search(rf"\b{var}\s*:?=\s*&?(\w+)\{{|var\s+{var}\s+(\w+)", text)
        if decl is None:
            continue
        structs = {m.group(1): m.group(2) for m in _STRUCT.finditer(text)}
        params = _params(structs, decl.group(1) or decl.group(2))
        if params and (params[0] or params[1]):
            scalers[trigger] = {
                "file": path,
                "struct": decl.group(1) or decl.group(2),
                "required": params[0],
                "deprecated": params[1],
            }
    return {
        "release": release,
        "source": f"kedacore/keda {release} pkg/scaling/scalers_builder.go and pkg/scalers/*_scaler.go keda tags (tools/read_keda_scalers.py)",
        "scalers": scalers,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("release")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    data = read(args.repo, args.release)
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.write:
        OUT.write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
