"""Print the Prometheus metric families vLLM's V1 engine defines in each wheel given (the source of
components/vllm_metrics.py; run by hand, never by the product or the tests).

    pip download vllm==0.33.0 --no-deps -d wheels/
    python tools/read_vllm_metrics.py wheels/vllm-*.whl

Reads ``vllm/v1/metrics/loggers.py`` (PrometheusStatLogger: the V1 engine, vLLM's default since 0.8)
without importing it: every ``name="vllm:..."`` argument of a Gauge, Counter or Histogram constructor
(``prometheus_client.Gauge(...)`` in older releases, ``self._gauge_cls(...)`` in newer ones), with the
line it is on. prometheus_client exposes a Counter ``x`` as ``x_total`` and a Histogram as
``x_bucket``/``x_sum``/``x_count``.
"""

from __future__ import annotations

import re
import sys
import zipfile

LOGGERS = "vllm/v1/metrics/loggers.py"
CONSTRUCTOR = re.compile(
    r"(?:prometheus_client\.|_)(gauge|counter|histogram|Gauge|Counter|Histogram)(?:_cls)?\(\s*name=\s*[\"'](vllm:[a-z0-9_]+)[\"']"
)


def families(wheel: str) -> dict[str, tuple[str, int]]:
    """{family: (kind, line)} of one wheel's V1 stat logger."""
    text = zipfile.ZipFile(wheel).read(LOGGERS).decode()
    out: dict[str, tuple[str, int]] = {}
    for m in CONSTRUCTOR.finditer(text):
        out.setdefault(m.group(2), (m.group(1).lower(), text[: m.start()].count("\n") + 1))
    return out


if __name__ == "__main__":
    for wheel in sys.argv[1:]:
        print(f"# {wheel}")
        for name, (kind, line) in sorted(families(wheel).items()):
            print(f"{kind}\t{name}\t{LOGGERS}:{line}")
