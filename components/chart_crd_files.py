"""The checked CRD files of a chart, read from the chart archive the release installs, before Pulumi applies them.

Pulumi owns the CRDs of the charts in builders/chart_crds.py (Helm never upgrades a chart's crds/). Their bytes come
from the chart archive itself, in this order:

1. ``$LLM_SERVING_CHART_ARCHIVES/<chart>-<version>.tgz`` when that variable names a folder: the archives a runner
   without internet egress keeps (``helm pull <repo>/<chart> --version <version> -d <folder>`` saves exactly that
   name). When the variable is set nothing is downloaded: an archive missing there is an error, not a fallback.
2. ``.chart-crds/<chart>-<version>.tgz``, the archive an earlier run downloaded and checked.
3. The chart repository the release installs from: its ``index.yaml`` names the archive's URL (relative to the
   repository or absolute) and its sha256 ``digest``, as Helm resolves a chart (Helm docs, "The Chart Repository
   Guide", The index file: ``urls`` and ``digest`` per chart version). So ``pulumi up`` needs no host beyond the
   ones its Helm releases already need.

Whatever the source, every CRD file read from the archive must have its pinned sha256 before anything is written;
then each CRD is written to its own file under ``.chart-crds/`` (atomically), which its ConfigFile reads. A mismatch
stops the program with the chart, the file and both digests, before any resource is registered.

The offline plan (``python -m stacks plan``) registers the same ConfigFiles but reads no archive: it runs
:func:`not_read` around the program (it must work without network and without the files).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tarfile
import urllib.request
from pathlib import Path
from typing import Callable, Iterator, Optional
from urllib.parse import urljoin

import yaml

from .builders.chart_crds import CACHE_DIR, ChartCrds, CrdFileError, split_checked

ARCHIVES_ENV = "LLM_SERVING_CHART_ARCHIVES"
# Seconds a chart repository may take to answer (the index of a large repository is tens of MB).
TIMEOUT = 120
# Refuse archives and indexes beyond these sizes (the largest pinned chart archive is about 1 MB compressed).
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
MAX_INDEX_BYTES = 256 * 1024 * 1024

Fetch = Callable[[str], bytes]

_reading = True


class CrdSourceError(RuntimeError):
    """The CRDs of a chart could not be read from its archive, or are not the pinned ones."""


@contextlib.contextmanager
def not_read() -> Iterator[None]:
    """Within this block :func:`prepare` reads and writes nothing (the offline plan's engine runs the program so)."""
    global _reading
    previous, _reading = _reading, False
    try:
        yield
    finally:
        _reading = previous


def fetch_url(url: str, limit: int = MAX_ARCHIVE_BYTES) -> bytes:
    """The body of ``url`` (an HTTP error status is an error), at most ``limit`` bytes."""
    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:  # noqa: S310 - https chart repositories
        body = resp.read(limit + 1)
    if len(body) > limit:
        raise CrdSourceError(f"{url} is larger than {limit} bytes")
    return body


def prepare(
    charts: ChartCrds,
    repository: str,
    *,
    root: Optional[Path] = None,
    archives: Optional[str] = None,
    fetch: Fetch = fetch_url,
) -> dict[str, Path]:
    """Write each CRD of ``charts``, checked against its pinned sha256, to its file under ``root`` (default: the
    working directory, the Pulumi program's); returns the file of each CRD. Does nothing under :func:`not_read`.

    ``archives`` defaults to ``$LLM_SERVING_CHART_ARCHIVES``; ``repository`` is the release's chart repository.
    """
    base = Path.cwd() if root is None else root
    paths = {crd: base / charts.local_path(crd) for crd in charts.crds()}
    if not _reading:
        return paths
    folder = archives if archives is not None else os.environ.get(ARCHIVES_ENV) or None
    try:
        data = _archive(charts, repository, base, folder, fetch)
        pieces = _checked_pieces(charts, data)
    except CrdFileError as exc:
        raise CrdSourceError(f"{exc} (delete {CACHE_DIR}/{charts.archive} if an old download is cached)") from None
    for crd, body in pieces.items():
        _write(paths[crd], body)
    return paths


def _archive(charts: ChartCrds, repository: str, base: Path, folder: Optional[str], fetch: Fetch) -> bytes:
    if folder:
        path = Path(folder) / charts.archive
        if not path.is_file():
            raise CrdSourceError(
                f"{ARCHIVES_ENV}={folder}: no {charts.archive} there; save it with "
                f"`helm pull {charts.chart} --repo {repository} --version {charts.version} -d {folder}`"
            )
        return path.read_bytes()
    cached = base / CACHE_DIR / charts.archive
    if cached.is_file():
        return cached.read_bytes()
    data = _download(charts, repository, fetch)
    _write(cached, data)
    return data


def _download(charts: ChartCrds, repository: str, fetch: Fetch) -> bytes:
    repo = repository.rstrip("/") + "/"
    index_url = urljoin(repo, "index.yaml")
    try:
        index = yaml.load(fetch(index_url), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise CrdSourceError(
            f"cannot read the chart repository index {index_url} for the CRDs of {charts.chart} {charts.version}: "
            f"{exc}; on a runner without access to it, set {ARCHIVES_ENV} to a folder holding {charts.archive}"
        ) from None
    entries = (index or {}).get("entries", {}) if isinstance(index, dict) else {}
    entry = next(
        (e for e in entries.get(charts.chart) or [] if isinstance(e, dict) and str(e.get("version")) == charts.version),
        None,
    )
    if entry is None or not entry.get("urls"):
        raise CrdSourceError(f"{index_url} lists no {charts.chart} {charts.version}")
    url = urljoin(repo, str(entry["urls"][0]))
    try:
        data = fetch(url)
    except (OSError, ValueError) as exc:
        raise CrdSourceError(
            f"cannot download {url}: {exc}; or set {ARCHIVES_ENV} to a folder holding {charts.archive}"
        ) from None
    digest = entry.get("digest")
    actual = hashlib.sha256(data).hexdigest()
    if digest and actual != digest:
        raise CrdSourceError(f"{url} has sha256 {actual}, the repository index says {digest}: refusing it")
    return data


def _checked_pieces(charts: ChartCrds, data: bytes) -> dict[str, bytes]:
    pieces: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            for f in charts.files:
                try:
                    member = tar.extractfile(charts.member(f))
                except KeyError:
                    member = None
                if member is None:
                    raise CrdFileError(f"{charts.archive} holds no {charts.member(f)}")
                pieces.update(split_checked(charts, f, member.read()))
    except tarfile.TarError as exc:
        raise CrdFileError(f"{charts.archive} is not a chart archive ({exc})") from None
    return pieces


def _write(path: Path, body: bytes) -> None:
    """Write ``body`` to ``path`` whole or not at all (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file() and path.read_bytes() == body:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(body)
    os.replace(tmp, path)
