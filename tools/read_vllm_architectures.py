"""Write components/vllm_architectures.json: the model architectures each vLLM release's model registry lists (the source
of S53 engine-supports-model-architecture; run by hand, never by the product or the tests).

    pip download vllm==0.6.3 --no-deps -d wheels/ --only-binary=:all: --python-version 3.12 \
        --platform manylinux1_x86_64 --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64
    python tools/read_vllm_architectures.py --write wheels/vllm-*.whl

(vLLM 0.4.0 to 0.5.1 publish cp310 wheels only: ``--python-version 3.10``.) Each argument is a wheel or a folder a wheel
was unpacked into (the folder holding ``vllm/``). Each is read, not imported or run:

- the architectures are the string keys of every module-level dict literal named ``_..._MODELS`` in
  ``vllm/model_executor/models/registry.py`` (0.6.0 on) or ``vllm/model_executor/models/__init__.py`` (before it), the
  tables ``ModelRegistry`` is built from (0.6.3 registry.py:24-131: ``_TEXT_GENERATION_MODELS``, ``_EMBEDDING_MODELS``,
  ``_MULTIMODAL_MODELS``, ``_SPECULATIVE_DECODING_MODELS``, merged into ``_VLLM_MODELS``), except
  ``_PREVIOUSLY_SUPPORTED_MODELS`` (removed architectures, named only to say so) and the ROCm notes. A table a release
  builds otherwise (a comprehension) is not read: the reading can only miss an architecture, which makes the policy
  silent, never wrong;
- a release has the Transformers fallback (an architecture the registry lacks is loaded through the transformers
  library's own model class) when its source defines it: ``resolve_transformers_fallback`` in
  ``vllm/model_executor/model_loader/utils.py`` from 0.7.2 (lines 45-75: "has no vLLM implementation, falling back to
  Transformers implementation"), ``resolve_transformers_arch`` there from 0.8.3, ``_try_resolve_transformers`` in the
  registry from 0.10.1.

The file keeps ``releases`` (oldest first), ``architectures`` (a name -> the index ranges of the releases listing it,
"0-16,33-34", as components/vllm_cli_flags.json does) and ``transformers_fallback`` (the ranges of releases with the
fallback). ``models`` (per source, a Hugging Face id -> its architecture; ``model_sources`` says where each group was
read) is kept as written: it is read from vLLM's own tests and docs, not from the wheels; so is ``model_families`` (a Hugging Face id prefix -> the
architectures its checkpoints declare, with the transformers release that first knows the family's model type where
read).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from components.engine_options import encode_spans as spans  # noqa: E402
from components.engine_options import version_key  # noqa: E402

OUT = ROOT / "components" / "vllm_architectures.json"
_REGISTRIES = ("vllm/model_executor/models/registry.py", "vllm/model_executor/models/__init__.py")
_FALLBACK_MARKERS = ("def resolve_transformers_fallback", "def resolve_transformers_arch", "def _try_resolve_transformers")
_FALLBACK_FILES = ("vllm/model_executor/model_loader/utils.py", "vllm/model_executor/models/registry.py")
_SKIPPED_TABLES = ("_PREVIOUSLY_SUPPORTED_MODELS", "_ROCM_UNSUPPORTED_MODELS", "_ROCM_PARTIALLY_SUPPORTED_MODELS")


class _Release:
    """One wheel or unpacked folder: its version and a reader of its files."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.is_dir():
            metadata = next(path.glob("vllm-*.dist-info/METADATA"), None)
            text = metadata.read_text() if metadata else ""
            match = re.search(r"^Version: (\S+)", text, re.M)
            self.version = match.group(1) if match else path.name
        else:
            self.version = path.name.split("-")[1]

    def read(self, name: str) -> str:
        if self.path.is_dir():
            file = self.path / name
            return file.read_text() if file.is_file() else ""
        with zipfile.ZipFile(self.path) as wheel:
            return wheel.read(name).decode() if name in wheel.namelist() else ""


def architectures(source: str) -> set[str]:
    """The string keys of the module-level ``_..._MODELS`` dict literals of a registry module (see the docstring)."""
    found: set[str] = set()
    for node in ast.parse(source).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Dict):
            continue
        name = target.id
        if not (name.startswith("_") and name.endswith("_MODELS")) or name in _SKIPPED_TABLES:
            continue
        found |= {k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return found


def read_release(release: _Release) -> tuple[set[str], bool]:
    """A release's registry architectures and whether it has the Transformers fallback."""
    archs: set[str] = set()
    for name in _REGISTRIES:
        text = release.read(name)
        if text:
            archs |= architectures(text)
    if not archs:
        raise SystemExit(f"{release.path}: no model registry read ({' or '.join(_REGISTRIES)})")
    fallback = any(marker in release.read(f) for f in _FALLBACK_FILES for marker in _FALLBACK_MARKERS)
    return archs, fallback


def table(paths: list[Path], kept: dict) -> dict:
    """The JSON written: every release read, oldest first, and the kept ``models``."""
    read = {}
    for path in paths:
        release = _Release(path)
        read[release.version] = read_release(release)
    releases = sorted(read, key=version_key)
    names = sorted({a for archs, _ in read.values() for a in archs})
    return {
        "releases": releases,
        "architectures": {a: spans([i for i, r in enumerate(releases) if a in read[r][0]]) for a in names},
        "transformers_fallback": spans([i for i, r in enumerate(releases) if read[r][1]]),
        "model_sources": kept.get("model_sources", {}),
        "models": kept.get("models", {}),
        "model_families": kept.get("model_families", {}),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="vLLM wheels, or folders they were unpacked into")
    parser.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)} (else print it)")
    args = parser.parse_args(argv)
    kept = json.loads(OUT.read_text()) if OUT.is_file() else {}
    text = json.dumps(table(args.paths, kept), indent=0, sort_keys=False) + "\n"
    if args.write:
        OUT.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
