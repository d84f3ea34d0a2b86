"""The Helm renderer's bounds on values and regexes (policies/reading/gotemplate.py, helm_funcs.py, helm_regex.py).

A chart template is input anyone can write: a helper that multiplies its input (indent's width, printf's width,
repeat, until, a string doubled in a range, mul in a loop) or a backtracking regex must refuse the render
(CannotRender: the file is reported as an unrendered template) before it allocates or hangs, while what charts
write renders as Helm renders it. Cases from the cold review of 2026-12-05 (findings 2 and 3).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from policies.reading.gotemplate import CannotRender, Renderer, parse
from policies.reading.helm_funcs import functions
from tests.policies.policy_fixtures import chart_folder

ROOT = Path(__file__).resolve().parents[2]


def run(template: str, values: dict | None = None) -> str:
    table: dict = {}
    nodes = parse(template, table)
    return Renderer(functions(), table).render(nodes, {"Values": values or {}, "Release": {"Name": "r"}})


@pytest.mark.parametrize(
    "template",
    [
        "{{ len (until 100000000) }}",
        '{{ indent 1500000000 "x" | len }}',
        '{{ nindent 1500000000 "x" | len }}',
        '{{ printf "%01500000000d" 1 | len }}',
        '{{ printf "%.1500000000f" 1.0 | len }}',
        '{{ repeat 10000 (repeat 10000 (repeat 10000 "x")) | len }}',
        '{{- $s := "xxxxxxxx" }}{{- range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}{{ len $s }}',
        '{{- $s := "xxxxxxxx" }}{{- range until 40 }}{{ $s = cat $s $s }}{{ end }}{{ len $s }}',
        '{{- $s := "xxxxxxxx" }}{{- range until 40 }}{{ $s = replace "x" $s $s }}{{ end }}{{ len $s }}',
        '{{- $l := list "x" }}{{- range until 40 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l | len }}',
        "{{- $n := 3 }}{{- range until 80 }}{{ $n = mul $n $n }}{{ end }}{{ $n }}",
        "{{ range 300000000 }}{{ end }}",
        "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}",  # empty bodies: iterations are steps
        '{{ repeat -1 "x" }}',
        '{{ indent -2 "x" }}',
    ],
)
def test_a_helper_that_would_grow_without_bound_refuses_the_render(template):
    started = time.monotonic()
    if "mul" in template:  # Sprig's mul is int64 arithmetic: it wraps, it never grows
        assert len(run(template)) <= 20
    else:
        with pytest.raises(CannotRender):
            run(template)
    assert time.monotonic() - started < 30  # a hang guard (the faults took 120 s and more), not a speed target


@pytest.mark.parametrize(
    "template, expected",
    [
        ('{{ indent 4 "a\\nb" }}', "    a\n    b"),
        ('{{ "a" | nindent 2 }}', "\n  a"),
        ('{{ printf "%s-%d-%05d-%x-%.2f" "n" 3 42 255 1.5 }}', "n-3-00042-ff-1.50"),
        ('{{ printf "%v:%q" 8080 "a\\"b" }}', '8080:"a\\"b"'),
        ('{{ repeat 3 "ab" }}', "ababab"),
        ("{{ until 3 }} {{ until -2 }}", "[0 1 2] [0 -1]"),
        ("{{ range $i := until 2 }}{{ $i }}{{ end }}", "01"),
        ('{{ join "," (list "a" "b") }} {{ cat "a" "b" }} {{ replace "-" "_" "a-b" }}', "a,b a b a_b"),
        ("{{ add 1.5 1 }} {{ mul 2 3 }} {{ div -7 2 }} {{ mod -7 2 }} {{ max 1 5 2 }} {{ add1 9 }}", "2 6 -3 -1 5 10"),
        ('{{ if regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" "my-app" }}y{{ end }}', "y"),
        ('{{ regexReplaceAll "[^a-z0-9-]" "My_App.v2" "-" }}', "-y--pp-v2"),
        ('{{ regexReplaceAll "(a)(?P<x>b)" "ab" "${x}$1$$" }}', "ba$"),
    ],
)
def test_what_charts_write_still_renders_as_helm_does(template, expected):
    assert run(template) == expected


@pytest.mark.parametrize(
    "template",
    [
        '{{ regexMatch "^(a+)+$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" }}',  # nested repeat: exponential in Python
        '{{ regexMatch "(a|aa)*b" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" }}',
        '{{ regexMatch "a*a*a*a*a*b" (repeat 3000 "a") }}',  # polynomial: under MAX_COST only on short subjects
        '{{ regexMatch "(a)\\\\1" "aa" }}',  # a backreference: RE2 refuses it
        '{{ regexMatch "(?=a)" "a" }}',  # a lookahead: RE2 refuses it
        '{{ regexMatch "[[:alpha:]]" "a" }}',  # a POSIX class: Python reads a different set
        '{{ regexMatch "a{,2}" "a" }}',  # a repeat in Python, literal text in Go
        '{{ regexReplaceAll "(" "a" "b" }}',  # invalid: Go's ReplaceAllString never runs
        '{{ regexReplaceAll "a*" "baaac" "-" }}',  # empty matches: Go and Python replace them differently
        '{{ printf "%d" "x" }}',  # Go prints %!d(string=x)
        '{{ printf "%s" 3 }}',  # Go prints %!s(int=3)
        '{{ printf "%s %s" "a" }}',  # Go prints %!s(MISSING)
        '{{ printf "%b" 3 }}',
    ],
)
def test_a_regex_or_verb_python_cannot_run_as_go_does_refuses_the_render(template):
    started = time.monotonic()
    with pytest.raises(CannotRender):
        run(template)
    assert time.monotonic() - started < 30  # a hang guard (the faults took 120 s and more), not a speed target


def test_a_text_of_many_unclosed_actions_is_refused_in_linear_time():
    # 50,000 unclosed `{{ .` (200 KB): the lazy action regex rescanned the rest from each, over 120 s.
    started = time.monotonic()
    with pytest.raises(CannotRender):
        parse("data:\n  a: " + "{{ ." * 50_000, {})
    assert time.monotonic() - started < 30  # a hang guard (the faults took 120 s and more), not a speed target


@pytest.mark.parametrize(
    "template, expected",
    [
        ("{{/* a comment that quotes {{ include }} */}}x", "x"),
        ("a  {{- /* trimmed */ -}}  b", "ab"),
        ("a {{- 1 -}} b {{ 2 }}", "a1b 2"),
        ("{{-3}}", "-3"),
    ],
)
def test_comments_and_trim_markers_lex_as_go_does(template, expected):
    assert run(template) == expected


def test_a_comment_that_does_not_close_at_its_delimiter_is_refused():
    with pytest.raises(CannotRender):
        run("{{/* a */ x }}")


def test_the_cli_refuses_a_backtracking_regex_in_a_chart_quickly(tmp_path):
    # /tmp/review/h/regex: `timeout 60` killed the check before the fix.
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n"
        '  replicas: {{ if regexMatch "^(a+)+$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" }}1{{ else }}2{{ end }}\n'
    )
    chart_folder(tmp_path, {"deploy.yaml": deployment}, chart="apiVersion: v2\nname: c\nversion: 0.1.0\n")
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(tmp_path / "templates" / "deploy.yaml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "an unrendered template" in proc.stdout, proc.stdout + proc.stderr
