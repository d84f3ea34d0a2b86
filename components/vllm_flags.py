"""Which vLLM flags and environment variables exist in which release.

Every flag and environment variable the builders render is looked up here against the release
the image tag names, so an older image never gets an argument its parser rejects (argparse
exits on an unknown flag) or an environment variable it silently ignores.

How the table was made: the wheel of each release below was downloaded from PyPI
(``pip download vllm==X --no-deps``) and its argument parser read, not run: the string literals
``--...`` and the dataclass fields of ``EngineArgs``/``AsyncEngineArgs`` (turned into flags the
way ``add_cli_args`` does) in ``vllm/engine/arg_utils.py``, of ``FrontendArgs``/``BaseFrontendArgs``
in ``vllm/entrypoints/openai/cli_args.py`` (up to 0.28), ``vllm/entrypoints/launchers/cli_args.py``
(0.29-0.32) and ``vllm/entrypoints/common/cli_args.py`` (0.33), plus ``vllm/entrypoints/cli/serve.py``;
and the keys of ``environment_variables`` in ``vllm/envs.py``. Releases read: 0.8.5, 0.9.0, 0.9.1,
0.9.2, 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.11.2, 0.12.0 ... 0.33.0 (every minor release, plus 0.15.1
and 0.17.1). A first release below is the first of those that has the name.

Behaviour that decides an alternative was read in the same wheels: before ``--shutdown-timeout``
the server cancels itself on SIGTERM (0.12.0 ``entrypoints/launcher.py`` ``signal_handler``);
with it, 0 aborts in-flight requests and > 0 waits for them (0.33.0 ``config/vllm.py``
``shutdown_timeout``). Before ``VLLM_HTTP_TIMEOUT_KEEP_ALIVE`` the keep-alive is a constant
``TIMEOUT_KEEP_ALIVE = 5`` (0.8.5 ``entrypoints/openai/api_server.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .images import image_repository, image_tag, vllm_release

OLDEST_READ = "0.8.5"
NEWEST_READ = "0.33.0"

# Names whose first release lies inside the range read; absent names here are in every release read.
FIRST_RELEASE: dict[str, str] = {
    "--max-num-queued-reqs": "0.29.0",
    "--shutdown-timeout": "0.18.0",
    "--disable-access-log-for-endpoints": "0.16.0",
    "VLLM_HTTP_TIMEOUT_KEEP_ALIVE": "0.9.1",
    "VLLM_ENGINE_READY_TIMEOUT_S": "0.14.0",
}
# Names present in every release read (0.8.5 through 0.33.0). tests/components/test_vllm_flags.py holds both lists to
# components/vllm_cli_flags.json (every option of every wheel): --swap-space, once listed here, is in no release after
# 0.17.1 (its last add_argument is 0.17.0 vllm/engine/arg_utils.py:951).
IN_EVERY_RELEASE: frozenset[str] = frozenset(
    {
        "--revision",
        "--served-model-name",
        "--port",
        "--host",
        "--model",
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--max-model-len",
        "--gpu-memory-utilization",
        "--max-num-seqs",
        "--max-num-batched-tokens",
        "--block-size",
        "--dtype",
        "--kv-cache-dtype",
        "--quantization",
        "--enforce-eager",
        "--load-format",
        "--model-loader-extra-config",
        "--download-dir",
        "--trust-remote-code",
        "--enable-prefix-caching",
        "--disable-log-stats",
        "--disable-uvicorn-access-log",
        "--uvicorn-log-level",
        "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH",
        # Read in the 0.8.5 wheel (engine/arg_utils.py add_cli_args) and the 0.33.0 one (config/parallel.py
        # DistributedExecutorBackend = ray|mp|uni|external_launcher) for the KubeRay head (issue 10).
        "--distributed-executor-backend",
        # The API key's variable (issue 19): read in the 0.8.5 wheel (envs.py:278; entrypoints/openai/api_server.py:843
        # adds the check when it is set, for paths under /v1) and the 0.33.0 one (envs.py:829; serve/middleware/register.py:33).
        "VLLM_API_KEY",
    }
)


def parse_version(text: str) -> tuple[int, ...]:
    """ "0.12" -> (0, 12, 0); "0.10.1.1" -> (0, 10, 1, 1)."""
    parts = [int(p) for p in re.findall(r"\d+", text)]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


@dataclass(frozen=True)
class Release:
    """The vLLM release whose flags apply to an image, and how it was decided."""

    version: str
    # The tag named exactly this release (False: the tag names none, or one newer than the table).
    exact: bool
    note: str

    def has(self, name: str) -> bool:
        """True when this release's parser (or envs.py) knows ``name``."""
        return has(name, self.version)

    def __str__(self) -> str:
        return self.version


class UnsupportedRelease(ValueError):
    """An image whose vLLM release is older than any release this table was read from."""


def release_of(image: str) -> Release:
    """The release whose flags an image gets.

    A tag that names no release (``latest``, a digest, a private build) gets the newest release
    read, as does a release newer than the table (vLLM keeps old flags for deprecation cycles).
    Raises UnsupportedRelease for releases older than 0.8.5.
    """
    text = vllm_release(image)
    if text is None:
        return Release(NEWEST_READ, False, f"the tag names no vLLM release; vLLM {NEWEST_READ}'s flags assumed")
    version = parse_version(text)
    if version < parse_version(OLDEST_READ):
        raise UnsupportedRelease(
            f"names vLLM {text}, older than {OLDEST_READ}, the oldest release whose argument parser the flag table "
            f"was read from; use vllm/vllm-openai:v{OLDEST_READ} or newer"
        )
    if version > parse_version(NEWEST_READ):
        return Release(NEWEST_READ, False, f"vLLM {text} is newer than the flag table; vLLM {NEWEST_READ}'s flags assumed")
    return Release(text if text.count(".") >= 2 else f"{text}.0", True, f"vLLM {text} (from the image tag)")


def first_release(name: str) -> str:
    """The first release read that has ``name`` (a flag ``--x`` or an environment variable)."""
    if name in FIRST_RELEASE:
        return FIRST_RELEASE[name]
    if name in IN_EVERY_RELEASE:
        return OLDEST_READ
    raise KeyError(f"{name} is not in the vLLM flag table (components/vllm_flags.py); add it from the wheels")


def has(name: str, version: str) -> bool:
    """True when vLLM ``version`` has the flag or environment variable ``name``.

    Callers (the builders, issue 7's model-source flags) ask before they render; a name outside
    the table raises KeyError, so nothing is rendered unchecked.
    """
    return parse_version(version) >= parse_version(first_release(name))


def missing_rule(name: str, release: Release) -> str:
    """The config error for a setting the release lacks, naming the flag and its first release."""
    return f"vLLM {release.version} has no {name} (first in vLLM {first_release(name)}); use an image of that release or newer"


def batch_defaults(memory_gib: float, gpu_name: str, version: str) -> tuple[int, int, str]:
    """vLLM's OpenAI-server defaults (max_num_batched_tokens, max_num_seqs) on a GPU in ``version``,
    and the tier's description.

    engine/arg_utils.py ``_set_default_max_num_seqs_and_batched_tokens_args`` / ``get_batch_defaults``:
    >= 160 GiB 16384/1024 from 0.28.0; >= 70 GiB 8192/1024, A100 excluded from 0.9.0 (PR #17885);
    otherwise 2048/256 (read in the wheels listed in the module docstring).
    """
    v = parse_version(version)
    if memory_gib >= 160 and v >= (0, 28, 0):
        return 16384, 1024, ">= 160 GiB tier"
    big = memory_gib >= 70 and ("A100" not in gpu_name.upper() or v < (0, 9, 0))
    if big:
        return 8192, 1024, ">= 70 GiB tier"
    return 2048, 256, "small-GPU tier"


def optional_flag(name: str, release: Release) -> Optional[str]:
    """None when the release has ``name``; else why it is left out (for derived settings)."""
    if release.has(name):
        return None
    return f"vLLM {release.version} has no {name} (first in {first_release(name)}), so it is not rendered"


# Every long option of vLLM's server parser, release by release (tools/read_vllm_cli_flags.py wrote the file from the
# wheels named in its "releases"; its docstring says how an option was recognised, generously: a name missing here is
# one no release's parser knows).
_CLI_FILE = Path(__file__).with_name("vllm_cli_flags.json")
# Image repositories whose tag is the vLLM release inside (docker/Dockerfile of vllm-project/vllm publishes
# vllm/vllm-openai:vX.Y.Z per release; a rebuild under another name may carry any vLLM).
_OFFICIAL_REPOSITORIES = ("vllm/vllm-openai", "docker.io/vllm/vllm-openai", "index.docker.io/vllm/vllm-openai")


@dataclass(frozen=True)
class CliOptions:
    """The long options each release read accepts: ``releases`` oldest first, ``options`` name -> release indexes."""

    releases: tuple[str, ...]
    options: dict[str, frozenset[int]]
    modules: dict[str, frozenset[int]]

    def releases_shipping(self, module: str) -> list[str]:
        """The releases read whose wheel has the module ``module`` (``vllm.entrypoints.api_server``)."""
        return [self.releases[i] for i in sorted(self.modules.get(module, ()))]

    def releases_having(self, option: str) -> list[str]:
        """The releases read whose parser accepts ``option`` (``--max_model_len`` read as ``--max-model-len``; a
        unique abbreviation counts, as argparse's ``allow_abbrev`` takes it; ``--x.key`` is ``--x``)."""
        name = option.split("=", 1)[0].split(".", 1)[0].rstrip("+").replace("_", "-")
        if name in self.options:
            return [self.releases[i] for i in sorted(self.options[name])]
        found: set[int] = set()
        for known, where in self.options.items():
            if known.startswith(name):
                found |= where
        return [self.releases[i] for i in sorted(found)]

    def neighbours(self, version: str) -> tuple[str, ...]:
        """The releases read that bound ``version``: itself when read, else the one below and the one above (empty
        outside the range read)."""
        v = parse_version(version)
        if version in self.releases:
            return (version,)
        below = [r for r in self.releases if parse_version(r) < v]
        above = [r for r in self.releases if parse_version(r) > v]
        return (below[-1], above[0]) if below and above else ()


@lru_cache(maxsize=1)
def cli_options() -> CliOptions:
    """The option table of components/vllm_cli_flags.json."""
    data = json.loads(_CLI_FILE.read_text())
    return CliOptions(tuple(data["releases"]), _indexes(data["options"]), _indexes(data["modules"]))


def _indexes(spans_by_name: dict[str, str]) -> dict[str, frozenset[int]]:
    """{"--x": "0-3,5"} -> {"--x": {0, 1, 2, 3, 5}}."""
    out: dict[str, frozenset[int]] = {}
    for name, spans in spans_by_name.items():
        indexes: set[int] = set()
        for span in spans.split(","):
            first, _, last = span.partition("-")
            indexes.update(range(int(first), int(last or first) + 1))
        out[name] = frozenset(indexes)
    return out


def official_release(image: str) -> Optional[str]:
    """The vLLM release of an official vllm/vllm-openai image whose tag names one exactly (``v0.10.1`` -> ``0.10.1``,
    ``v0.10.1.1`` -> ``0.10.1.1``); None for any other image or tag (``latest``, ``nightly``, a rebuild's own version)."""
    if image_repository(image).lower() not in _OFFICIAL_REPOSITORIES:
        return None
    match = re.fullmatch(r"v?(\d+\.\d+\.\d+(?:\.\d+)?)", image_tag(image) or "")
    return match.group(1) if match else None
