"""Helm charts of LLM serving apps as data: the rows of helm_charts.toml (the defaults a chart renders into its
server's pod: image and the tag each chart version renders, the probes it writes, the data folder, the port) as
frozen records. The pack reads a release object of one of these charts as the pod it renders
(policies/helm_charts.py). A row with an unknown or missing field fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field
from functools import lru_cache
from pathlib import Path

from .parse_cache import read_toml
from .table_rows import exact_fields

TABLE = Path(__file__).with_name("helm_charts.toml")
_FIELDS = (
    "display",
    "names",
    "repositories",
    "container",
    "image",
    "port",
    "data_mount",
    "probes",
    "probe_path",
    "probes_since",
    "probe_settings",
    "sources",
    "default_tags",
    "edge",
    "values_file_names",
)


@dataclass(frozen=True)
class Chart:
    """One chart (a row of helm_charts.toml)."""

    key: str
    display: str
    names: tuple[str, ...]
    repositories: tuple[str, ...]
    container: str
    image: str
    port: int
    data_mount: str
    probes: tuple[str, ...]  # the probe fields the chart renders by default (path ``probe_path``)
    probe_path: str
    probes_since: dict[str, str]  # probe field -> the first chart version that renders it
    probe_settings: dict[str, dict]  # probe field -> its default settings (charts whose probes come from values)
    sources: tuple[str, ...]
    default_tags: dict[str, str]  # chart version -> image tag rendered when values set none
    edge: dict[str, str] = _field(default_factory=dict)  # the values keys of the chart's Service and Ingress (G32)
    # Words naming the chart in a values file's path besides ``names``, and the dotted path the file must then set.
    values_file_words: tuple[str, ...] = ()
    values_file_needs: str = ""

    def default_tag(self, version: str) -> str | None:
        """The image tag ``version`` of the chart renders without image.tag, or None for a version not in the table."""
        return self.default_tags.get(version.lstrip("v"))

    def probes_at(self, version: str) -> tuple[str, ...]:
        """The probe fields chart ``version`` renders by default: a field first rendered at a later version is left out;
        a version that is not X.Y.Z (not pinned) is taken as the newest."""
        key = _numbers(version)
        return tuple(
            p for p in self.probes if key is None or p not in self.probes_since or key >= (_numbers(self.probes_since[p]) or key)
        )

    def nearest_tag(self, version: str) -> str | None:
        """The tag of the closest chart version the table has read at or below ``version`` (X.Y.Z), else the lowest:
        for a pinned version newer than the table or never tagged in the chart's repository."""
        key = _numbers(version)
        if key is None:
            return None
        known = sorted((k, v) for k, v in ((_numbers(name), tag) for name, tag in self.default_tags.items()) if k is not None)
        below = [tag for k, tag in known if k <= key]
        return below[-1] if below else (known[0][1] if known else None)

    def newest_tag(self) -> str | None:
        """The tag of the newest chart version the table has read: what a release that pins no chart version installs
        (Flux's default version is ``*``, the newest), as probes_at takes it."""
        known = [(k, tag) for k, tag in ((_numbers(name), tag) for name, tag in self.default_tags.items()) if k is not None]
        return max(known)[1] if known else None


def _numbers(version: str) -> tuple[int, int, int] | None:
    parts = version.lstrip("v").split("-", 1)[0].split("+", 1)[0].split(".")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 9 for p in parts):  # int(): 4300 digits
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


@lru_cache(maxsize=1)
def charts() -> tuple[Chart, ...]:
    """Every row of helm_charts.toml."""
    data = read_toml(TABLE).get("charts")
    if not isinstance(data, dict):
        raise ValueError(f"{TABLE.name}: no [charts] table")
    out = []
    for key, raw in data.items():
        row = exact_fields(f"{TABLE.name} [charts.{key}]", raw, _FIELDS)
        tags = {}
        for item in row["default_tags"]:
            version, _, tag = str(item).partition("=")
            tags[version] = tag
        since = {}
        for item in row["probes_since"]:
            field, _, first = str(item).partition("=")
            since[field] = first
        named = row["values_file_names"]
        if not isinstance(named, dict) or set(named) - {"names", "needs"} or bool(named) != ("needs" in named):
            raise ValueError(f"{TABLE.name} [charts.{key}]: values_file_names must be {{}} or {{ names, needs }}")
        settings = row["probe_settings"]
        if not isinstance(settings, dict) or not all(isinstance(v, dict) for v in settings.values()):
            raise ValueError(f"{TABLE.name} [charts.{key}]: probe_settings must be a table of tables")
        out.append(
            Chart(
                key=key,
                display=str(row["display"]),
                names=tuple(row["names"]),
                repositories=tuple(row["repositories"]),
                container=str(row["container"]),
                image=str(row["image"]),
                port=int(row["port"]),
                data_mount=str(row["data_mount"]),
                probes=tuple(row["probes"]),
                probe_path=str(row["probe_path"]),
                probes_since=since,
                probe_settings={str(k): dict(v) for k, v in settings.items()},
                sources=tuple(row["sources"]),
                default_tags=tags,
                edge={str(k): str(v) for k, v in dict(row["edge"]).items()},
                values_file_words=tuple(str(w) for w in named.get("names", ())),
                values_file_needs=str(named.get("needs", "")),
            )
        )
    return tuple(out)


# Folder names that say nothing of which chart they hold (a vendored copy's folder, a values file's folders).
GENERIC_FOLDERS = frozenset({"chart", "charts", "helm", "deploy"})


def chart_named(name: str, repository: str = "") -> Chart | None:
    """The row whose chart name is ``name`` (the last segment of an OCI reference counts), or whose repository
    ``repository`` names, or None."""
    base = name.rstrip("/").rsplit("/", 1)[-1].lower()
    for chart in charts():
        if base in chart.names:
            return chart
    repo = repository.lower()
    if repo:
        for chart in charts():
            if any(r in repo for r in chart.repositories):
                return chart
    return None
