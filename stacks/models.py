"""`python -m stacks models lock [STACK...]`: models straight from the Hugging Face Hub, read offline after.

For every ``model`` + ``revision`` the stack files name, ask the Hub (with ``huggingface_hub``) for

* the model's ``config.json`` at that revision (``hf_hub_download``), and
* the checkpoint's size from the Hub's safetensors metadata (``HfApi.model_info(expand=["safetensors"])``:
  parameters per dtype, times the dtype's bytes: the sum of the tensor bytes, as the catalogue's
  ``checkpoint_bytes``),

and write them to ``stacks/models.lock.json`` (sorted keys, no timestamps: the same Hub answers give
byte-identical files). ``plan``, ``size`` and ``policies check`` read that file offline before the
built-in catalogue (components/capacity/models.py ``use_lock``), so a pull-request check never needs
the network. Gated models (Llama, Gemma) need a token that has accepted the licence: ``HF_TOKEN``.

Exit codes: 0 every model locked; 1 some model could not be resolved (each named, with why; the lock
file is left as it was); 2 invalid input (a stack file, a lock file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

from components.capacity.architecture import GIB, ArchitectureError, parse_config
from components.capacity.models import LOCK_FILE, LockError, use_lock, use_repo_lock  # noqa: F401 (the lock's CLI)

ROOT = Path(__file__).resolve().parent.parent

# Bytes per element of each safetensors dtype (the safetensors format's dtype names, as the Hub reports them).
DTYPE_BYTES: dict[str, float] = {
    "F64": 8,
    "I64": 8,
    "U64": 8,
    "F32": 4,
    "I32": 4,
    "U32": 4,
    "F16": 2,
    "BF16": 2,
    "I16": 2,
    "U16": 2,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "I8": 1,
    "U8": 1,
    "BOOL": 1,
    "F4": 0.5,
    "F6_E2M3": 0.75,
    "F6_E3M2": 0.75,
}


class Unresolved(Exception):
    """A model the Hub could not give; the message says why and what to do."""


def checkpoint_bytes(parameters: dict[str, int], model: str) -> int:
    """Tensor bytes of a checkpoint from its safetensors parameter counts per dtype."""
    unknown = sorted(set(parameters) - set(DTYPE_BYTES))
    if unknown:
        raise Unresolved(f"{model}: the safetensors metadata names dtype {unknown[0]}, whose size is not known here")
    return int(sum(count * DTYPE_BYTES[dtype] for dtype, count in parameters.items()))


def resolve(model: str, revision: str) -> dict[str, Any]:
    """One lock entry from the Hub: config.json at ``revision`` and the checkpoint size. Raises Unresolved."""
    import httpx2
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    from components.json_loading import load_json
    from components.loading import JSON_FILE, LoadError

    where = f"{model}@{revision}"
    try:
        info = HfApi().model_info(model, revision=revision, expand=["safetensors", "sha"])
        config_file = hf_hub_download(model, "config.json", revision=revision)
    except GatedRepoError:
        token = "HF_TOKEN is set but its account has not been granted access" if os.environ.get("HF_TOKEN") else "set HF_TOKEN"
        raise Unresolved(f"{where}: a gated model; accept its licence on the Hub and {token}") from None
    except RevisionNotFoundError:
        raise Unresolved(f"{where}: the Hub has no such revision of this model (a pinned commit must exist)") from None
    except RepositoryNotFoundError:
        raise Unresolved(f"{where}: no such model on the Hub (or a private one: set HF_TOKEN)") from None
    except EntryNotFoundError:
        raise Unresolved(f"{where}: the model has no config.json at this revision") from None
    except LocalEntryNotFoundError:
        raise Unresolved(f"{where}: the Hub could not be reached (no network, or HF_HUB_OFFLINE=1)") from None
    except HfHubHTTPError as exc:
        raise Unresolved(
            f"{where}: the Hub answered {exc.response.status_code if exc.response is not None else 'an error'}"
        ) from None
    except (OSError, httpx2.TransportError) as exc:
        # No network, a proxy or DNS failure, a timeout: said in one line, never as a traceback.
        raise Unresolved(f"{where}: the Hub could not be reached ({type(exc).__name__}: {str(exc)[:120]})") from None
    if info.sha and info.sha != revision:
        raise Unresolved(f"{where}: the Hub resolved the revision to {info.sha}; pin the full commit")
    if not info.safetensors or not info.safetensors.parameters:
        raise Unresolved(
            f"{where}: the Hub has no safetensors metadata for it (a .bin-only checkpoint?); "
            f"give models[].architecture.weightsGib instead"
        )
    try:
        config = load_json(Path(config_file), JSON_FILE)
    except LoadError as exc:
        raise Unresolved(f"{where}: its config.json cannot be read: {exc.problem}") from None
    try:
        parse_config(config)
    except ArchitectureError as exc:
        raise Unresolved(f"{where}: its config.json is not one the capacity plan can size: {exc}") from None
    parameters = {dtype: int(n) for dtype, n in sorted(info.safetensors.parameters.items())}
    return {
        "model": model,
        "revision": revision,
        "config": config,
        "checkpoint_bytes": checkpoint_bytes(parameters, where),
        "safetensors_parameters": parameters,
        "source": (
            f"https://huggingface.co/{model}/blob/{revision}/config.json; checkpoint size: the Hub's safetensors "
            f"metadata at that revision (parameters per dtype x bytes per dtype)"
        ),
    }


def stack_models(stacks: Sequence[str]) -> list[tuple[str, str]]:
    """(model, revision) of every model of the named stacks (all stacks/Pulumi.*.yaml when none), sorted."""
    from components.config import load_stack_config
    from stacks.offline import load_stack_file

    names = list(stacks) or sorted(
        p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml")
    )
    found: set[tuple[str, str]] = set()
    for name in names:
        cfg = load_stack_config(load_stack_file(name).config)
        found.update((m.model, m.revision) for m in cfg.models)
    return sorted(found)


def write_lock(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    """The lock file, whole or not at all (written beside it, then renamed)."""
    text = (
        json.dumps(
            {
                "about": "Models resolved from the Hugging Face Hub by `python -m stacks models lock`; "
                "plan, size and policies check read it offline before the built-in catalogue.",
                "models": entries,
            },
            indent=2,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    )
    with tempfile.NamedTemporaryFile(
        "w", dir=path.parent, prefix=".models.lock.", suffix=".json", delete=False, encoding="utf-8"
    ) as tmp:
        tmp.write(text)
    os.replace(tmp.name, path)


def lock(stacks: Sequence[str], path: Path = LOCK_FILE) -> int:
    """Resolve and write; returns the exit code (0 all locked, 1 some could not be resolved)."""
    use_repo_lock(path)  # a broken lock file is bad input, said before the Hub is asked
    wanted = stack_models(stacks)
    existing: dict[str, dict[str, Any]] = {}
    if stacks and path.is_file():
        # Locking some stacks keeps the entries of the others; locking all of them starts afresh.
        existing = json.loads(path.read_text(encoding="utf-8"))["models"]
    entries, failed = dict(existing), []
    for model, revision in wanted:
        try:
            entry = resolve(model, revision)
        except Unresolved as exc:
            failed.append(str(exc))
            continue
        entries[f"{model}@{revision}"] = entry
        params = ", ".join(f"{d} {n:,}" for d, n in entry["safetensors_parameters"].items())
        print(
            f"locked {model}@{revision[:12]}: {entry['checkpoint_bytes'] / GIB:.2f} GiB ({params}), "
            f"{entry['config'].get('architectures', ['?'])[0]}"
        )
    for line in failed:
        print(f"could not lock {line}", file=sys.stderr)
    if failed:
        print(f"{path.name} left as it was: {len(failed)} of {len(wanted)} models could not be resolved", file=sys.stderr)
        return 1
    write_lock(path, dict(sorted(entries.items())))
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"wrote {shown}: {len(entries)} model{'s' if len(entries) != 1 else ''}; plan, size and policies check read it offline")
    return 0


def add_models_arguments(p: argparse.ArgumentParser, lock_parser: Callable[[Any], argparse.ArgumentParser]) -> None:
    """`models lock [STACK...] [--lock PATH]`; ``lock_parser(subparsers)`` makes the `lock` parser (its help text and
    exit codes come from the command table, components/commands.py)."""
    sub = p.add_subparsers(dest="models_command", required=True)
    lk = lock_parser(sub)
    lk.add_argument("stacks", nargs="*", metavar="STACK", help="stack names or stack files (default: every stacks/Pulumi.*.yaml)")
    lk.add_argument("--lock", default=None, help="the lock file (default stacks/models.lock.json)")


def main_models(args: argparse.Namespace) -> int:
    """Run `models lock`."""
    return lock(args.stacks, Path(args.lock) if args.lock else LOCK_FILE)


if __name__ == "__main__":  # pragma: no cover - `python -m stacks models` is the entry point
    sys.exit(main_models(argparse.Namespace(stacks=sys.argv[1:], lock=None)))
