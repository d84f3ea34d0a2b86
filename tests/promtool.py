"""Run the real promtool (Debian package `prometheus`) on rules and rule unit tests.

Where promtool is missing the tests skip, except in CI (`CI` set, or `.ci/run`, which exports
LLM_SERVING_REQUIRE_PROMTOOL=1): there a missing promtool fails them, so the rule checks can
never silently stop running.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Mapping

import pytest
import yaml

REQUIRE_ENV = "LLM_SERVING_REQUIRE_PROMTOOL"


def required() -> bool:
    """True when a missing promtool must fail the tests rather than skip them."""
    return bool(os.environ.get("CI")) or os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def promtool() -> str:
    """The promtool executable; skips (or fails, in CI) when it is not installed."""
    path = shutil.which("promtool") or ("/usr/bin/promtool" if Path("/usr/bin/promtool").is_file() else None)
    if path is None:
        message = "promtool is not installed (apt-get install prometheus; .ci/run installs it)"
        if required():
            pytest.fail(f"{message}; CI requires it ({REQUIRE_ENV} or CI is set)")
        pytest.skip(message)
    return path


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """promtool with arguments, in ``cwd``, bounded in time."""
    return subprocess.run([promtool(), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def write_yaml(path: Path, doc: Any) -> Path:
    """Write one YAML document (block style, stable key order)."""
    path.write_text(yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=1000))
    return path


_FIELD = re.compile(r"<<\s*\.(\w+)\s*>>")


def fill_adapter_template(template: str, fields: Mapping[str, str]) -> str:
    """Fill a Prometheus Adapter metricsQuery as the adapter does (Go template, `<< >>` delimiters).

    Only the fields the adapter provides for a plain query are known (.Series, .LabelMatchers,
    .GroupBy; kubernetes-sigs/prometheus-adapter v0.12.0 docs/config.md, "Querying"); any other template action
    is an error here rather than text passed through to Prometheus.
    """

    def field(match: re.Match) -> str:
        name = match.group(1)
        if name not in fields:
            raise KeyError(f"metricsQuery uses <<.{name}>>, which this test does not provide")
        return fields[name]

    filled = _FIELD.sub(field, template)
    if "<<" in filled or ">>" in filled:
        raise ValueError(f"metricsQuery has a template action other than a plain field: {template}")
    return filled
