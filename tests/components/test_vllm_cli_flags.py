"""components/vllm_cli_flags.json (every long option of vLLM's server parser, per release, read from the wheels by
tools/read_engine_options.py) against the hand-kept flag lists of components/vllm_flags.py, and the reading rules."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import pytest

from components import engine_options
from components.engine_options import cli_options, tagged_release
from components.serving_engines import engine_named
from components.vllm_flags import FIRST_RELEASE, IN_EVERY_RELEASE, NEWEST_READ, OLDEST_READ, parse_version

ROOT = Path(__file__).resolve().parents[2]


def _in_range(release: str) -> bool:
    return parse_version(OLDEST_READ) <= parse_version(release) <= parse_version(NEWEST_READ)


def test_hand_lists_agree_with_the_wheels():
    table = cli_options()
    for name in sorted(n for n in IN_EVERY_RELEASE if n.startswith("--")):
        missing = [r for r in table.releases if _in_range(r) and r not in table.releases_having(name)]
        assert missing == [], f"{name} is listed in every release but the wheels of {missing} lack it"
    for name, first in FIRST_RELEASE.items():
        if name.startswith("--"):
            having = [r for r in table.releases_having(name) if _in_range(r)]
            assert having and having[0] == first, (name, first, having[:1])
            assert all(r in having for r in table.releases if _in_range(r) and parse_version(r) >= parse_version(first))


def test_reading_rules():
    table = cli_options()
    assert table.releases[0] == "0.4.0" and table.releases[-1] == "0.34.0"
    # 0.21.0 exists only as a manylinux_2_24 wheel with a build tag (review R16); it is read like the others.
    assert "0.21.0" in table.releases and table.neighbours("0.21.0") == ("0.21.0",)
    assert table.releases_having("--prefix-cache-block-size") == []
    assert table.releases_having("--max_model_len") == table.releases_having("--max-model-len") == list(table.releases)
    assert table.releases_having("--max-num-seq") == table.releases_having("--max-num-seqs")  # argparse abbreviation
    assert table.releases_having("--compilation-config.mode") == table.releases_having("--compilation-config")
    # --swap-space: its last add_argument is 0.17.x (0.17.0 vllm/engine/arg_utils.py:951).
    assert table.releases_having("--swap-space")[-1] == "0.17.1"
    assert table.neighbours("0.10.1") == ("0.10.1",)
    # every release PyPI has from 0.4.0 on is read, patch and post releases too (0.10.1.1, 0.5.3.post1)
    assert table.neighbours("0.10.1.1") == ("0.10.1.1",) and table.neighbours("0.5.3.post1") == ("0.5.3.post1",)
    assert table.neighbours("0.10.3") == ("0.10.2", "0.11.0")  # a release not read, between two read ones
    assert table.neighbours("0.3.3") == () and table.neighbours("0.40.0") == ()
    assert table.releases_shipping("vllm.entrypoints.api_server")[-1] == "0.24.0"


def test_abbreviations_and_fields_as_each_release_parser_reads_them():
    table = cli_options()
    # No vLLM wheel from 0.4.0 to 0.34.0 sets allow_abbrev (argparse's default True is kept).
    assert table.abbreviating == frozenset(range(len(table.releases)))
    assert table.accepts("--max-model-len", "0.4.3") == "exact"
    assert table.accepts("--max-num-seq", "0.4.3") == "prefix"
    assert table.accepts("--otlp-traces-endpoint", "0.4.3") == "unknown"  # 0.5.1 added it
    assert table.accepts("--otlp-traces-endpoint", "0.5.1") == "exact"
    # --device: EngineArgs' literal up to 0.9.2; from 0.10.0 only DeviceConfig.device (vllm/config) has the name, and
    # 0.34.0 declares --device-ids (vllm/engine/arg_utils.py:1210) and --device-memory-utilization (:1405).
    assert table.releases_declaring("--device")[-1] == "0.9.2" and table.releases_with("--device")[-1] == "0.34.0"
    assert table.accepts("--device", "0.9.2") == "exact"
    assert table.accepts("--device", "0.11.2") == "field"
    assert table.accepts("--device", "0.34.0") == "ambiguous"
    assert table.declared_prefixes("--device", "0.34.0") == ["--device-ids", "--device-memory-utilization"]
    # an exact match wins over the longer options it is a prefix of
    assert table.accepts("--model", "0.34.0") == "exact"


def test_provenance_names_each_wheel_read():
    written = json.loads((ROOT / "components" / "vllm_cli_flags.json").read_text())
    wheels = written["provenance"]["wheels"]
    assert sorted(wheels) == sorted(written["releases"])
    assert all(wheel.startswith(f"vllm-{release}-") and wheel.endswith(".whl") for release, wheel in wheels.items())
    files = written["provenance"]["parser_files"]
    assert files["vllm/entrypoints/openai/cli_args.py"].startswith("0-") and "vllm/utils/argparse_utils.py" in files


@pytest.mark.parametrize(
    "image,release",
    [
        ("vllm/vllm-openai:v0.10.1", "0.10.1"),
        ("docker.io/vllm/vllm-openai:v0.10.1.1", "0.10.1.1"),
        ("vllm/vllm-openai:latest", None),
        ("vllm/vllm-openai:v0.10.1-cu128", "0.10.1"),
        ("vllm/vllm-openai:v0.10.1-rc1", None),
        ("registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0", None),
        ("ghcr.io/llm-d/llm-d-cuda:v0.8.0", None),
    ],
)
def test_tagged_release(image, release):
    assert tagged_release(image, ("vllm/vllm-openai",)) == release


def test_sglang_options():
    row = engine_named("sglang")
    assert row is not None and row.options is not None
    table = cli_options(row.options.file)
    assert tagged_release("lmsysorg/sglang:v0.5.5.post1-cu129", row.options.images) == "0.5.5.post1"
    assert tagged_release("docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64", row.options.images) == "0.5.5.post3"
    assert table.releases_having("--tp-size") == list(table.releases)
    assert table.releases_having("--prefix-cache-block-size") == []
    assert table.releases_shipping("sglang.launch_server") == list(table.releases)
    # every release on PyPI from 0.2.0 (launch_server parses strictly: 0.2.0 sglang/launch_server.py:9-11), and no
    # SGLang parser file sets allow_abbrev
    assert table.releases[0] == "0.2.0" and table.neighbours("0.3.4.post2") == ("0.3.4.post2",)
    assert table.abbreviating == frozenset(range(len(table.releases)))
    assert table.releases_having("--enable-metrics")[0] == "0.3.5.post1"
    written = json.loads((ROOT / "components" / "sglang_cli_flags.json").read_text())
    assert sorted(written["provenance"]["wheels"]) == sorted(written["releases"])
    assert written["provenance"]["parser_files"]["sglang/srt/server_args.py"] == f"0-{len(table.releases) - 1}"


def test_the_tool_writes_spans_the_loader_reads_back():
    spec = importlib.util.spec_from_file_location("read_engine_options", ROOT / "tools" / "read_engine_options.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    data = tool.table(
        {"0.10.0": {"--a", "--b"}, "0.9.0": {"--a"}, "0.11.0": {"--a"}}, {"0.9.0": set(), "0.10.0": {"m"}, "0.11.0": set()}
    )
    assert data == {"releases": ["0.9.0", "0.10.0", "0.11.0"], "options": {"--a": "0-2", "--b": "1"}, "modules": {"m": "1"}}
    assert tool.inverses({"--enable-log-requests"}) == {"--disable-log-requests", "--no-disable-log-requests"}
    assert tool._version("sglang-0.5.5.post1-py3-none-any.whl") == "0.5.5.post1"
    for name in ("vllm_cli_flags.json", "sglang_cli_flags.json"):
        written = json.loads((ROOT / "components" / name).read_text())
        assert {"releases", "options", "modules"} <= set(written)
        assert set(written) <= {"releases", "options", "modules", "flags", "fields", "values", "abbrev", "provenance"}
    flagged = tool.table({"0.9.0": {"--a"}, "0.10.0": {"--a"}}, {"0.9.0": set(), "0.10.0": set()}, {"0.10.0": {"--a"}})
    assert flagged["flags"] == {"--a": "1"}


_ARG_UTILS = """
import argparse
from dataclasses import dataclass

def get_kwargs(cls):
    for name in names:
        if contains_type(type_hints, bool):
            # Creates --no-<name> and --<name> flags
            kwargs[name]["action"] = argparse.BooleanOptionalAction

@dataclass
class EngineArgs:
    enforce_eager: bool = False
    trust_remote_code: bool | None = None
    hf_token: bool | str | None = None
    tokenizer_mode: str = "auto"
    quiet: bool = False

    @staticmethod
    def add_cli_args(parser):
        kw = get_kwargs(EngineArgs)
        kw["quiet"]["type"] = str
        parser.add_argument("--enforce-eager", **kw["enforce_eager"])
        parser.add_argument("--trust-remote-code", **kw["trust_remote_code"])
        parser.add_argument("--hf-token", **kw["hf_token"])
        parser.add_argument("--tokenizer-mode", **kw["tokenizer_mode"])
        parser.add_argument("--quiet", **kw["quiet"])
        parser.add_argument("--headless", action="store_true")
        parser.add_argument("--disable-x", action=StoreBoolean)
        parser.add_argument("--both", action="store_true")
"""
_BENCH = """
def add(parser):
    parser.add_argument("--both", type=int)
"""


def test_no_value_options_reads_each_parser_entry_conservatively(tmp_path):
    spec = importlib.util.spec_from_file_location("read_engine_options", ROOT / "tools" / "read_engine_options.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    wheel = tmp_path / "vllm-0.99.0-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("vllm/engine/arg_utils.py", _ARG_UTILS)
        archive.writestr("vllm/benchmarks/serve.py", _BENCH)
    found = tool.no_value_options(str(wheel))
    # bool fields through get_kwargs (with their --no- form) and store_true; not a bool|str field, a str field, a field
    # whose kwargs the source changes, a custom action, or a name another parser entry gives a value.
    assert found == {"--enforce-eager", "--no-enforce-eager", "--trust-remote-code", "--no-trust-remote-code", "--headless"}


@pytest.mark.parametrize("file", ["vllm_cli_flags.json", "sglang_cli_flags.json"])
def test_releases_with_are_the_releases_whose_option_is_no_abbreviation(file):
    # releases_with answers in one lookup what engine-options-exist asked release by release (abbreviated == []).
    table = cli_options(file)
    for option in [*table.options, "--max_model_len", "--tp", "--cuda-graph-max-bs", "--no-such-option"]:
        having = table.releases_having(option)
        assert table.releases_with(option) == [r for r in having if table.abbreviated(option, r) == []], option
        assert table.span(having) == _span_by_index(table.releases, having), option


def _span_by_index(releases: tuple[str, ...], having: list[str]) -> str:
    # CliOptions.span as it was written first, one tuple.index per release.
    runs: list[list[str]] = []
    for release in having:
        if runs and releases.index(release) == releases.index(runs[-1][-1]) + 1:
            runs[-1].append(release)
        else:
            runs.append([release])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]} to {run[-1]}" for run in runs)


@pytest.mark.parametrize("file", ["vllm_cli_flags.json", "sglang_cli_flags.json"])
def test_the_kept_form_of_a_table_reads_as_the_parsed_file(file: str) -> None:
    # cli_options keeps each table of names as (names in order, spans) beside the bytecode (engine_options._packed):
    # the tables read from it answer as those read from the JSON, in the same order.
    data = json.loads((Path(engine_options.__file__).parent / file).read_text())
    packed = engine_options._packed(data)
    for key in engine_options._TABLES:
        if key not in data:
            continue
        assert isinstance(packed[key], tuple), key
        parsed, kept = engine_options._Indexes(data[key]), engine_options._Indexes(packed[key])
        assert list(parsed) == list(kept) and len(parsed) == len(kept)
        for name in [*list(data[key])[::5], "--no-such-option", "", "~", 3]:
            assert (name in parsed) == (name in kept) and parsed.get(name) == kept.get(name)  # type: ignore[arg-type]


_VALUE_ARG_UTILS = """
import argparse
from dataclasses import dataclass
from typing import Literal, Union

BlockSize = Literal[8, 16]
Mode = Union[bool, str]

def get_kwargs(cls):
    for name in names:
        if contains_type(type_hints, bool):
            kwargs[name]["action"] = argparse.BooleanOptionalAction

@dataclass
class EngineArgs:
    max_model_len: int | None = None
    served_model_name: list[str] | None = None
    hf_token: bool | str | None = None
    block_size: BlockSize = 16
    mode: Mode = "a"
    lora: list[str] | None = None
    enforce_eager: bool = False

    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(EngineArgs)
        model_kwargs["lora"]["action"] = LoRAAction
        for name in ("max_model_len", "served_model_name", "hf_token", "block_size", "mode", "lora", "enforce_eager"):
            pass
        parser.add_argument("--max-model-len", **model_kwargs["max_model_len"])
        parser.add_argument("--served-model-name", **model_kwargs["served_model_name"])
        parser.add_argument("--hf-token", **model_kwargs["hf_token"])
        parser.add_argument("--block-size", **model_kwargs["block_size"])
        parser.add_argument("--mode", **model_kwargs["mode"])
        parser.add_argument("--lora", **model_kwargs["lora"])
        parser.add_argument("--enforce-eager", **model_kwargs["enforce_eager"])
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--opt", type=str, nargs="?", const="x")
        parser.add_argument("--many", nargs="+")
        parser.add_argument("--both", type=int)
        parser.add_argument("--custom", action=Custom)
        parser.add_argument("--splat", **other)
"""
_VALUE_FRONTEND = """
from dataclasses import dataclass

@dataclass
class FrontendArgs:
    tool_call_parser: str | None = None
    enable_auto_tool_choice: bool = False

    @classmethod
    def add_cli_args(cls, parser):
        for key, value in get_kwargs(cls).items():
            parser.add_argument(f"--{key.replace('_', '-')}", **value)
"""
_VALUE_BENCH = """
def add(parser):
    parser.add_argument("--both", action="store_true")
"""


def test_value_options_read_each_parser_entry_conservatively(tmp_path):
    # session 47: the options that must be followed by a value (argparse exits with "expected one argument" when the
    # next argument is an option, or none is left), per wheel, for S38.
    spec = importlib.util.spec_from_file_location("read_engine_options", ROOT / "tools" / "read_engine_options.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    wheel = tmp_path / "vllm-0.99.0-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("vllm/engine/arg_utils.py", _VALUE_ARG_UTILS)
        archive.writestr("vllm/entrypoints/openai/cli_args.py", _VALUE_FRONTEND)
        archive.writestr("vllm/benchmarks/serve.py", _VALUE_BENCH)
    found = tool.value_options(str(wheel))
    # a field of no bool type (its aliases expanded), a literal with a type, nargs "+", an entry args class's field
    # declared by its loop; not a bool or bool|str field (an alias holding bool too), a field whose action the source
    # changes, nargs "?", a custom action, a dict of kwargs not read, a name another parser entry gives no value
    assert found == {"--max-model-len", "--served-model-name", "--block-size", "--port", "--many", "--tool-call-parser"}
    # where the release generates no kwargs from types, a field's splat is not read
    older = tmp_path / "vllm-0.98.0-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(older, "w") as archive:
        archive.writestr("vllm/engine/arg_utils.py", _VALUE_ARG_UTILS.replace("argparse.BooleanOptionalAction", "x"))
        archive.writestr("vllm/entrypoints/openai/cli_args.py", _VALUE_FRONTEND)
    assert tool.value_options(str(older)) == {"--port", "--many", "--both"}


def test_the_table_records_options_taking_a_value_per_release():
    table = cli_options()
    assert table.takes_value("--tool-call-parser", "0.10.1") and table.takes_value("--tool_call_parser", "0.34.0")
    assert table.takes_value("--max-model-len", "0.33.0") and table.takes_value("--served-model-name", "0.6.0")
    assert table.takes_value("--tool-call", "0.6.0") == (table.accepts("--tool-call", "0.6.0") == "prefix")
    for flag in ("--enforce-eager", "--enable-prefix-caching", "--enable-auto-tool-choice", "--trust-remote-code"):
        assert not any(table.takes_value(flag, r) for r in table.releases), flag
    assert not table.takes_value("--hf-token", "0.34.0")  # bool | str | None: nargs "?"
