"""Go and Helm semantics the best-effort renderer follows (cold review 2026-12-05 findings 4 and 9): values numbers
are float64 and print as Go's %v, eq/lt across kinds fail as Go's do, int parameters refuse a float64, Sprig's
int64 arithmetic, strings.Title, fmt.Sprint spacing, strval of nil; number literals Go writes differently (0x10,
017) stop the render instead of a misread. Helm fails where Go fails, so those cases are CannotRender here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.manifests import read_manifests
from policies.reading.go_format import go_float, helm_numbers
from policies.reading.gotemplate import CannotRender, Renderer, go_text, parse
from policies.reading.helm_funcs import functions
from tests.policies.policy_fixtures import chart_folder


def run(template: str, values: dict | None = None) -> str:
    table: dict = {}
    nodes = parse(template, table)
    return Renderer(functions(), table).render(nodes, {"Values": helm_numbers(values or {}), "Release": {"Name": "r"}})


@pytest.mark.parametrize(
    "value, text",
    [(1e6, "1e+06"), (1048576.0, "1.048576e+06"), (123456.0, "123456"), (0.9, "0.9"), (1e-5, "1e-05"), (-0.0, "-0")],
)
def test_a_float64_prints_as_gos_v(value, text):
    # go1.22 src/strconv/ftoa.go: shortest digits, %e when the exponent is < -4 or >= 6 (helm/helm#12195: 1e+06).
    assert go_float(value) == text == go_text(value)


@pytest.mark.parametrize(
    "template, values, expected",
    [
        ("{{ .Values.tokens }}", {"tokens": 1048576}, "1.048576e+06"),
        ("{{ .Values.port }} {{ quote .Values.port }}", {"port": 8080}, '8080 "8080"'),
        ("{{ toYaml .Values.res }}", {"res": {"port": 8080, "f": 0.5}}, "f: 0.5\nport: 8080"),
        ("{{ toJson .Values.res }}", {"res": {"port": 8080}}, '{"port":8080}'),
        ('{{ typeIs "float64" .Values.n }} {{ typeIs "int" .Values.n }} {{ kindOf 3 }}', {"n": 2}, "true false int"),
        ("{{ if eq (int .Values.n) 1 }}one{{ end }} {{ if gt .Values.n 0.5 }}big{{ end }}", {"n": 1}, "one big"),
        ("{{ range until (int .Values.n) }}x{{ end }}", {"n": 2}, "xx"),
        ("{{ add .Values.n 1 }} {{ add 1.5 1 }}", {"n": 2}, "3 2"),
        ('{{ title "hello world_x 1st it\'s" }}', {}, "Hello World_x 1st It'S"),
        ('{{ print 1 2 "a" "b" 3 }} {{ println 1 "a" }}', {}, "1 2ab3 1 a\n"),
        ("{{ toString .Values.missing }}", {}, "<nil>"),
    ],
)
def test_values_and_functions_render_as_helm_does(template, values, expected):
    assert run(template, values) == expected


@pytest.mark.parametrize(
    "template, values",
    [
        ("{{ if eq .Values.replicas 1 }}one{{ end }}", {"replicas": 1}),  # float64 vs int: incompatible types
        ('{{ if eq .Values.port "8080" }}y{{ end }}', {"port": 8080}),
        ("{{ if gt .Values.replicas 1 }}many{{ end }}", {"replicas": 2}),
        ("{{ range until .Values.n }}x{{ end }}", {"n": 2}),  # until(count int) given a float64
        ('{{ indent .Values.n "x" }}', {"n": 2}),
        ('{{ printf "%d" .Values.port }}', {"port": 8080}),  # Go prints %!d(float64=8080)
        ("{{ 0x10 }}", {}),
        ("{{ 017 }}", {}),
        ("{{ 1_000 }}", {}),
    ],
)
def test_what_helm_fails_or_go_reads_differently_stops_the_render(template, values):
    with pytest.raises(CannotRender):
        run(template, values)


def test_a_charts_large_integer_value_renders_as_helm_prints_it(tmp_path: Path):
    config_map = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n"
        '  tokens: "{{ .Values.maxNumBatchedTokens }}"\n  replicas: "{{ .Values.replicas }}"\n'
    )
    values = "maxNumBatchedTokens: 1048576\nreplicas: 2\n"
    root = chart_folder(tmp_path / "chart", {"cm.yaml": config_map}, values, "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (obj,) = read_manifests([str(root)]).objects
    assert obj.obj["data"] == {"tokens": "1.048576e+06", "replicas": "2"}
