"""Which long options (and entry modules) each release of an engine's server accepts, as data.

An engine row of components/serving_engines.toml may name an options file (``[engines.NAME.options]``): a JSON file
beside this module, written by tools/read_engine_options.py from the engine's PyPI wheels (``releases`` oldest first;
``options`` and ``modules`` map a name to the index ranges of the releases having it, "0-16,33-34"; ``flags``, where
present, the options that take no value, the same way; ``values``, where present, the options that must be followed by
a value; ``abbrev``, where present, the releases whose parser keeps
argparse's ``allow_abbrev``; ``provenance`` the wheels read). The reading is generous (its docstring says how), so a
name missing here is one no release read accepts. Options are looked up the way argparse reads them:
``--max_model_len`` as ``--max-model-len`` (vLLM's FlexibleArgumentParser), ``--x.key`` as ``--x`` (vLLM's JSON
options), and, where the release's parser keeps ``allow_abbrev``, a unique prefix as the option it abbreviates
(``CliOptions.accepts``).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from .images import image_repository, image_tag, is_published, named_release, release_tag
from .parse_cache import read_parsed

_HERE = Path(__file__).parent


@lru_cache(maxsize=4096)
def version_key(version: str) -> tuple[int, ...]:
    """ "0.5.5.post1" -> (0, 5, 5, 1): releases in order, a post release after its base; llama.cpp's b6080 -> (6080,).
    The one ordering of the engines' release strings (engine_env and debug_switches order their tables' releases with
    it); cached: engine_env's read_at orders every variable's first and last release on each call (~4,000 a corpus
    run)."""
    return tuple(int(p) for p in re.findall(r"\d+", version))


def decode_spans(spans: str) -> frozenset[int]:
    """Release index ranges as the tables write them ("0-3,5") read as {0, 1, 2, 3, 5}; "" is no release."""
    found: set[int] = set()
    for span in filter(None, spans.split(",")):
        first, _, last = span.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return frozenset(found)


def encode_spans(indexes: list[int]) -> str:
    """The inverse of ``decode_spans`` for ascending indexes: [0, 1, 2, 5] -> "0-2,5"."""
    runs: list[list[int]] = []
    for i in indexes:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def bounding_releases(releases: tuple[str, ...], version: str) -> tuple[str, ...]:
    """The releases of a table that bound ``version``: itself when read, else the one below and the one above (empty
    outside the range read)."""
    if version in releases:
        return (version,)
    v = version_key(version)
    below = [r for r in releases if version_key(r) < v]
    above = [r for r in releases if version_key(r) > v]
    return (below[-1], above[0]) if below and above else ()


@dataclass(frozen=True, eq=False)
class CliOptions:
    """The long options and entry modules each release read accepts (see the module docstring)."""

    releases: tuple[str, ...]
    options: Mapping[str, frozenset[int]]
    modules: Mapping[str, frozenset[int]]
    # the options that take no value (store_true, BooleanOptionalAction), by the releases read where every parser
    # entry of the name consumes no argument; empty where the table was not read for them
    no_value: Mapping[str, frozenset[int]] = field(default_factory=dict)
    # the releases whose parser keeps argparse's allow_abbrev (a unique prefix is the option it abbreviates); None where
    # the table was not read for it, and every release is taken to keep it (argparse's default)
    abbreviating: Optional[frozenset[int]] = None

    # the names the table takes only from a class field (no literal declares them), by release: a config class's
    # ``device`` is no option of a parser that declares its options by name (tools/read_engine_options.py
    # field_only_options); empty where the table was not read for them
    field_only: Mapping[str, frozenset[int]] = field(default_factory=dict)
    # how the parser reads an argument (the table's ``syntax``; argparse's, as vLLM's FlexibleArgumentParser reads it,
    # where the table does not say): ``--k=v`` splits at "=" (equals), "_" reads as "-" (underscores), ``--x.key`` is
    # a key of the JSON option ``--x`` (dotted). clap (TGI, TEI) splits at "=" and does neither of the others;
    # llama.cpp's parser turns "_" into "-" but looks the whole argument up, "=" and all.
    equals: bool = True
    underscores: bool = True
    dotted: bool = True
    # the options that must be followed by a value (one or more: argparse nargs None, an int or "+"; clap's one-value
    # fields; llama.cpp's handlers taking a value; getopt's required_argument), by release, read conservatively by the
    # tools; empty where the table was not read for them
    needs_value: Mapping[str, frozenset[int]] = field(default_factory=dict)
    # the parser takes the argument after a value option as its value even when it starts with '-' (llama.cpp's,
    # getopt_long's); argparse and clap take it for the next option, so the value option is left without one
    hyphen_values: bool = False

    def name_of(self, option: str) -> str:
        """The name the parser looks up for an option as written: vLLM's ``--max_model_len=4`` -> ``--max-model-len``,
        ``--x.key`` -> ``--x``; clap's ``--max_input_length`` stays itself; llama.cpp's ``--ctx-size=4`` too."""
        if self.equals:
            option = option.split("=", 1)[0]
        if self.dotted:
            option = option.split(".", 1)[0].rstrip("+")
        return option.replace("_", "-") if self.underscores else option

    def accepts(self, option: str, release: str) -> str:
        """How ``release``'s parser reads ``option`` (as written, ``--max_model_len=4``), as CPython's argparse
        ``_parse_optional`` does: "exact" (the option itself wins over any longer one), "prefix" (a unique prefix of one
        option, where the parser keeps ``allow_abbrev``), "ambiguous" (a prefix of two or more: argparse exits with
        "ambiguous option"), "field" (only a class field has the name, or names starting with it: no option the parser
        declares), or "unknown" (argparse exits with "unrecognized arguments"). The table is generous (a literal of
        another program counts), so "unknown" is proven, and "ambiguous" and "field" only suggested."""
        index = self.releases.index(release)
        name = self.name_of(option)
        if index in self.options.get(name, ()) and index not in self.field_only.get(name, ()):
            return "exact"
        if not any(index in self.options[known] for known in self._starting(name)):
            return "unknown"
        if self.abbreviating is not None and index not in self.abbreviating:
            return "field" if index in self.options.get(name, ()) else "unknown"
        found = len(self.declared_prefixes(option, release))
        return "field" if found == 0 else "prefix" if found == 1 else "ambiguous"

    def declared_prefixes(self, option: str, release: str) -> list[str]:
        """The options ``release``'s parser declares (not only a class field) that ``option`` is a prefix of, itself
        left out."""
        index, name = self.releases.index(release), self.name_of(option)
        return [
            known
            for known in self._starting(name)
            if known != name and index in self.options[known] and index not in self.field_only.get(known, ())
        ]

    def expansion(self, option: str, release: Optional[str]) -> Optional[str]:
        """The option a unique prefix (``--tensor-parallel``) stands for, as argparse reads it: at ``release`` when
        its parser reads it as a "prefix" (``accepts``); with no release (or one the table has not read), only where the
        name is no option of any release and abbreviates the same single option in every release that keeps
        allow_abbrev. None for a full option, an ambiguous or unknown name."""
        name = self.name_of(option)
        if release in self.releases:
            found = self.declared_prefixes(option, release) if self.accepts(option, release) == "prefix" else []
            return found[0] if found else None
        if name in self.options:
            return None
        keeping = self.abbreviating if self.abbreviating is not None else frozenset(range(len(self.releases)))
        longer = [known for known in self._starting(name) if known != name and self.options[known] & keeping]
        return longer[0] if len(longer) == 1 else None

    def takes_no_value(self, option: str, release: str) -> bool:
        """True when ``option`` (as written, ``--enforce_eager``) is, in ``release``, an option that takes no value,
        so ``--option=value`` makes argparse exit ("ignored explicit argument")."""
        return release in self.releases and self.releases.index(release) in self.no_value.get(self.name_of(option), ())

    def takes_value(self, option: str, release: str) -> bool:
        """True when ``option`` (as written, ``--tool_call_parser``; a unique prefix as the option it abbreviates) is, in
        ``release``, an option that must be followed by a value."""
        if release not in self.releases:
            return False
        name = self.name_of(option)
        if self.accepts(option, release) == "prefix":
            name = self.declared_prefixes(option, release)[0]
        return self.releases.index(release) in self.needs_value.get(name, ())

    def releases_shipping(self, module: str) -> list[str]:
        """The releases read whose wheel has the module ``module`` (``vllm.entrypoints.api_server``)."""
        return [self.releases[i] for i in sorted(self.modules.get(module, ()))]

    def releases_having(self, option: str) -> list[str]:
        """The releases read whose parser accepts ``option`` (read as the module docstring says)."""
        # The option itself, or one it abbreviates in a release without it (SGLang's --tp before 0.5.3.post1 is
        # --tp-size's prefix); an ambiguous prefix, which argparse refuses too, is let pass.
        found: set[int] = set()
        for known in self._starting(self.name_of(option)):
            found |= self.options[known]
        return [self.releases[i] for i in sorted(found)]

    def releases_with(self, option: str) -> list[str]:
        """The releases read whose parser has ``option`` itself, not only as the prefix of longer options: those of
        ``releases_having`` for which ``abbreviated`` is empty, without a search per release."""
        return [self.releases[i] for i in sorted(self.options.get(self.name_of(option), ()))]

    def releases_declaring(self, option: str) -> list[str]:
        """The releases read whose parser declares ``option`` itself (``releases_with`` less those where only a class
        field has the name)."""
        name = self.name_of(option)
        only_field = self.field_only.get(name, frozenset())
        return [self.releases[i] for i in sorted(self.options.get(name, ())) if i not in only_field]

    def abbreviated(self, option: str, release: str) -> list[str]:
        """The options of ``release`` that ``option`` abbreviates when the release lacks the option itself; two or
        more make it an ambiguous prefix, which argparse refuses ("ambiguous option", CPython 3.11 Lib/argparse.py
        _parse_optional). The table is generous (a literal of another program counts), so two names found here
        suggest, and do not prove, that the server's parser has both."""
        name = self.name_of(option)
        index = self.releases.index(release)
        if index in self.options.get(name, ()):
            return []
        return [known for known in self._starting(name) if index in self.options[known]]

    def _starting(self, name: str) -> list[str]:
        """The table's option names that start with ``name`` (itself included), in order."""
        names = _sorted_names(self)
        at = end = bisect.bisect_left(names, name)
        while end < len(names) and names[end].startswith(name):
            end += 1
        return list(names[at:end])

    def neighbours(self, version: str) -> tuple[str, ...]:
        """The releases read that bound ``version`` (``bounding_releases``); for a series tag (``2.4``, the newest
        2.4.x its publisher built: TGI's and TEI's ``{{major}}.{{minor}}`` tags) every release read of the series, or
        none while the series is the newest read (it may gain a release the table has not read: ``open_series``)."""
        series = self.series(version)
        if series:
            return () if series[-1] == self.releases[-1] else series
        return bounding_releases(self.releases, version)

    def series(self, version: str) -> tuple[str, ...]:
        """The releases read that a series tag stands for (``2.4`` -> 2.4.0, 2.4.1); () for a release read, or a
        version that names no series of the table."""
        if version in self.releases:
            return ()
        return tuple(r for r in self.releases if r.startswith(version + "."))

    def open_series(self, version: str) -> bool:
        """True for a series tag whose series holds the newest release read: the tag moves with it."""
        series = self.series(version)
        return bool(series) and series[-1] == self.releases[-1]

    def span(self, releases: list[str]) -> str:
        """Releases as runs of consecutive read releases: "0.6.0 to 0.16.0, 0.33.0 to 0.34.0"."""
        position = {release: i for i, release in reversed(list(enumerate(self.releases)))}  # as tuple.index finds
        runs: list[list[str]] = []
        for release in releases:
            if runs and position[release] == position[runs[-1][-1]] + 1:
                runs[-1].append(release)
            else:
                runs.append([release])
        return ", ".join(run[0] if len(run) == 1 else f"{run[0]} to {run[-1]}" for run in runs)


@lru_cache(maxsize=8)
def _sorted_names(table: CliOptions) -> tuple[str, ...]:
    """The table's option names in order, for the prefix search (a table is built once per file)."""
    return tuple(sorted(table.options))


@lru_cache(maxsize=8)
def cli_options(file: str = "vllm_cli_flags.json") -> CliOptions:
    """The option table of a JSON file beside this module (``vllm_cli_flags.json``, ``sglang_cli_flags.json``). The
    parse is kept beside the bytecode cache while the file's text is unchanged (components/parse_cache.py), each table
    of names as its sorted names and their spans (_packed): building the two tables a run reads from ~600 KB of JSON
    cost ~4 ms of each `policies check`, ~2 ms from the kept form."""
    data = read_parsed(_HERE / file, json.loads, "cli-tables", _packed)
    syntax = data.get("syntax", {})
    abbrev = None
    if "abbrev" in data:  # the spans of the releases keeping allow_abbrev, "" where none does
        abbrev = _Indexes({"": data["abbrev"]})[""] if data["abbrev"] else frozenset()
    return CliOptions(
        tuple(data["releases"]),
        _Indexes(data["options"]),
        _Indexes(data["modules"]),
        _Indexes(data.get("flags", {})),
        abbrev,
        _Indexes(data.get("fields", {})),
        syntax.get("equals", True),
        syntax.get("underscores", True),
        syntax.get("dotted", True),
        _Indexes(data.get("values", {})),
        syntax.get("hyphen_values", False),
    )


_TABLES = ("options", "modules", "flags", "fields", "env", "values")


def _packed(data: Any) -> Any:
    """The form kept of a parsed table file: each table of names whose names are in order (the tool writes them with
    sort_keys) as (names, spans), two tuples marshal reads back faster than a dictionary; anything else as it is."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key in _TABLES:
        table = data.get(key)
        if isinstance(table, dict) and all(type(v) is str for v in table.values()) and list(table) == sorted(table):
            out[key] = (tuple(table), tuple(table.values()))
    return out


class _Indexes(Mapping[str, frozenset[int]]):
    """{"--x": "0-3,5"} read as {"--x": {0, 1, 2, 3, 5}}, each name decoded when first looked up: a check looks up a
    few dozen of the thousands of names a table holds, and decoding them all cost ~40 ms a run (benchmarks/
    policies_check.py). Built from the dictionary, or from (names in order, their spans), looked up by bisection."""

    def __init__(self, spans_by_name: dict[str, str] | tuple[tuple[str, ...], tuple[str, ...]]) -> None:
        self._spans: dict[str, str] | None = spans_by_name if isinstance(spans_by_name, dict) else None
        self._names, self._in_order = ((), ()) if isinstance(spans_by_name, dict) else spans_by_name
        self._decoded: dict[str, frozenset[int]] = {}

    def _text(self, name: str) -> str:
        if self._spans is not None:
            return self._spans[name]
        at = bisect.bisect_left(self._names, name) if type(name) is str else len(self._names)
        if at == len(self._names) or self._names[at] != name:
            raise KeyError(name)
        return self._in_order[at]

    def __getitem__(self, name: str) -> frozenset[int]:
        if (found := self._decoded.get(name)) is None:
            found = self._decoded[name] = decode_spans(self._text(name))
        return found

    def __contains__(self, name: object) -> bool:
        if self._spans is not None:
            return name in self._spans
        try:
            self._text(name)  # type: ignore[arg-type]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans if self._spans is not None else self._names)

    def __len__(self) -> int:
        return len(self._spans if self._spans is not None else self._names)


# A release tag: v0.10.1, 0.10.1.1, v0.5.5.post1, with the CUDA build and architecture suffixes the release keeps
# (v0.5.5.post3-cu129-amd64).
_RELEASE_TAG = re.compile(r"v?(\d+\.\d+\.\d+(?:\.\d+|\.post\d+)?)(?:-cu\d+)?(?:-(?:amd64|arm64))?")


def tagged_release(image: str, repositories: tuple[str, ...], pattern: str = "") -> Optional[str]:
    """The release an image's tag names when the image is one of ``repositories`` (the engine's own images, whose tag
    is the release inside: ``vllm/vllm-openai:v0.10.1`` -> ``0.10.1``); None for any other image or tag (``latest``,
    ``nightly``, a rebuild under another name, which may carry any release). ``pattern`` (the engine table's
    ``release_tag``) is the full match of the lower-case tag whose first group is the release, as the option table
    names it (``server-cuda-b4500`` -> ``b4500``); vLLM's and SGLang's release tags when empty."""
    if not is_published(image, repositories):
        return None
    if pattern:
        match = _pattern(pattern).fullmatch((release_tag(image) or "").lower())
    else:
        match = _RELEASE_TAG.fullmatch(release_tag(image) or "")
    return named_release(match.group(1) if match else None)


@lru_cache(maxsize=16)
def _pattern(pattern: str) -> re.Pattern[str]:
    """A table's tag pattern, compiled once."""
    return re.compile(pattern)


def tag_matches(image: str, pattern: str) -> bool:
    """True when the image's lower-case tag (``latest`` where it has none) fully matches ``pattern``."""
    return bool(pattern) and _pattern(pattern).fullmatch((image_tag(image) or "latest").lower()) is not None


def fork_release(image: str, forks: tuple) -> Optional[tuple[str, str]]:
    """(engine release, how it was read) of a vendor fork's image whose path names the vendor release
    (``vault.habana.ai/gaudi-docker/1.19.0/ubuntu22.04/habanalabs/vllm-fork:latest`` -> 0.6.4.post2), whatever its
    tag: the serving_engines.toml row's ``forks`` (components.serving_engines.Fork); None for any other image."""
    repository = image_repository(image).lower()
    for fork in forks:
        at = repository.find(fork.after)
        if fork.image not in repository or at < 0:
            continue
        vendor = repository[at + len(fork.after) :].split("/", 1)[0]
        release = dict(fork.releases).get(vendor)
        if release is not None:
            return release, f"{fork.image} {vendor} is built on vLLM {release}, as the fork's tags say"
    return None


def moving_release(image: str, repositories: tuple[str, ...], moving_tags: tuple[str, ...]) -> bool:
    """True when an image is one of ``repositories`` with no tag or one of the publisher's ``moving_tags``
    (``vllm/vllm-openai:latest``): it runs whatever release was published last when the node pulled it, today the
    newest the table read, tomorrow a newer one. A digest alone (``@sha256:...``) pins a build, so it is not moving."""
    tag = image_tag(image)
    if not is_published(image, repositories) or (tag is None and "@" in image):
        return False
    return tag is None or tag.lower() in moving_tags
