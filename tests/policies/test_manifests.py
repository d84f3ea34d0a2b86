"""Reading manifests for `python -m policies check` (policies/manifests.py): files, folders,
stdin, Lists flattened (nested and typed), counts, and unreadable files as input errors."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest

from policies.input.run_files import LINK_OUT, ManifestReadError
from policies.manifests import manifest_paths, pulumi_type, read_manifests

DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec: {}\n"


def test_files_folders_and_stdin_in_a_stable_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.yml").write_text(DEPLOY % "z")
    (tmp_path / "a.yaml").write_text(DEPLOY % "a")
    (tmp_path / "c.json").write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}')
    (tmp_path / "notes.txt").write_text("not a manifest")
    paths = manifest_paths([str(tmp_path), "-"])
    assert [os.path.relpath(p, tmp_path) if p != "-" else p for p in paths] == ["a.yaml", "b/z.yml", "c.json", "-"]
    read = read_manifests([str(tmp_path), "-"], stdin=io.BytesIO((DEPLOY % "s").encode()))
    assert [(os.path.basename(o.file), o.name) for o in read.objects] == [
        ("a.yaml", "a"),
        ("z.yml", "z"),
        ("c.json", "c"),
        ("<stdin>", "s"),
    ]
    assert read.counts.as_dict() == {"files": 4, "documents": 4, "empty_documents": 0, "objects": 4, "lists": 0, "skipped": {}}


def test_manifest_templates_in_a_folder_are_read_best_effort(tmp_path):
    # chrismld/ai-on-eks-demos demos/vllm-autoscaling/kubernetes/vllm/deployment.yaml.template (spent set 23): sed fills
    # REGISTRY_PLACEHOLDER before kubectl apply; its Deployment is what the PDB and ScaledObject beside it select.
    (tmp_path / "deployment.yaml.template").write_text(DEPLOY % "vllm")
    (tmp_path / "values.yaml.tpl").write_text("replicas: ${count}\n")
    (tmp_path / "broken.yml.tmpl").write_text("{{ if .x }}\nkind: [\n")
    read = read_manifests([str(tmp_path)])
    assert [(os.path.basename(o.file), o.name) for o in read.objects] == [("deployment.yaml.template", "vllm")]
    # What does not parse, or holds no Kubernetes object, is not a finding of its own in a template.
    assert read.unreadable == []


def test_symlinked_folders_are_not_followed(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.yaml").write_text(DEPLOY % "a")
    (tmp_path / "real" / "loop").symlink_to(tmp_path / "real")
    assert [os.path.basename(p) for p in manifest_paths([str(tmp_path)])] == ["a.yaml"]


def test_lists_are_flattened_nested_and_typed(tmp_path):
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: List\n  items:\n"
        "  - " + "\n    ".join((DEPLOY % "inner").splitlines()) + "\n"
        "- apiVersion: apps/v1\n  kind: DeploymentList\n  items:\n"
        "  - metadata: {name: typed}\n    spec: {}\n"
        "- just a string\n"
        "---\n"
        "apiVersion: v1\nkind: PodList\nitems: [{metadata: {name: p}}]\n"
    )
    (tmp_path / "lists.yaml").write_text(text)
    read = read_manifests([str(tmp_path / "lists.yaml")])
    got = [(o.kind, o.api_version, o.name, o.document, o.item, o.line, o.resource_type) for o in read.objects]
    assert got == [
        ("Deployment", "apps/v1", "inner", 0, (0, 0), 7, "kubernetes:apps/v1:Deployment"),
        ("Deployment", "apps/v1", "typed", 0, (1, 0), 14, "kubernetes:apps/v1:Deployment"),
        ("Pod", "v1", "p", 1, (0,), 20, "kubernetes:core/v1:Pod"),
    ]
    assert read.objects[1].location.endswith("lists.yaml#0[1][0]")
    assert read.counts.lists == 4
    assert read.counts.skipped == {"(scalar)": 1}


def test_counts_name_what_was_skipped(tmp_path):
    (tmp_path / "mixed.yaml").write_text(
        DEPLOY % "d" + "---\n---\nkind: Kustomization\nresources: []\n---\n[1, 2]\n---\nfoo: bar\n---\nvalue\n"
    )
    counts = read_manifests([str(tmp_path)]).counts
    assert counts.as_dict() == {
        "files": 1,
        "documents": 6,
        "empty_documents": 1,
        "objects": 1,
        "lists": 0,
        "skipped": {"(list)": 1, "(mapping without kind)": 1, "(scalar)": 1, "Kustomization": 1},
    }
    assert counts.skipped_total == 4


def test_objects_keep_the_line_of_their_document(tmp_path):
    (tmp_path / "two.yaml").write_text("# header\n" + DEPLOY % "a" + "---\n\n" + DEPLOY % "b")
    assert [(o.document, o.line) for o in read_manifests([str(tmp_path / "two.yaml")]).objects] == [(0, 2), (1, 8)]


def test_every_unreadable_file_is_named(tmp_path):
    (tmp_path / "ok.yaml").write_text(DEPLOY % "ok")
    (tmp_path / "bad.yaml").write_text("a: [1, 2\n")
    (tmp_path / "deep.json").write_text("[" * 500 + "]" * 500)
    (tmp_path / "binary.yml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ManifestReadError) as info:
        read_manifests([str(tmp_path), str(tmp_path / "missing.yaml")])
    lines = str(info.value).splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == [str(tmp_path / "missing.yaml")]
    assert lines == [f"{tmp_path / 'missing.yaml'}: no such file or folder"]
    # Every file that cannot be read is named with its line and why; the readable one is still read.
    read = read_manifests([str(tmp_path)])
    messages = [u.text for u in read.unreadable]
    assert messages[0].startswith(f"{tmp_path / 'bad.yaml'}#0: line 2: is not valid YAML")
    assert messages[1] == f"{tmp_path / 'binary.yml'}: is not UTF-8 text (byte 0)"
    assert messages[2].startswith(f"{tmp_path / 'deep.json'}: line 1: nested deeper than 100 levels")
    assert len(messages) == 3
    assert [o.name for o in read.objects] == ["ok"]


def test_a_device_is_not_read(tmp_path):
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (unread,) = read_manifests([str(tmp_path / "zero.yaml")]).unreadable
    assert unread.text == f"{tmp_path / 'zero.yaml'}: is not a regular file" and unread.kind == "invalid"
    # under a checked folder it is a link out of it (policies/input/run_files.py): not opened at all
    (unread,) = read_manifests([str(tmp_path)]).unreadable
    assert unread.text == f"{tmp_path / 'zero.yaml'}: {LINK_OUT}" and unread.kind == "not-kubernetes"


@pytest.mark.parametrize(
    "api_version,kind,expected",
    [
        ("v1", "Pod", "kubernetes:core/v1:Pod"),
        ("apps/v1", "Deployment", "kubernetes:apps/v1:Deployment"),
        ("serving.kserve.io/v1beta1", "InferenceService", "kubernetes:serving.kserve.io/v1beta1:InferenceService"),
    ],
)
def test_pulumi_type_tokens(api_version, kind, expected):
    assert pulumi_type(api_version, kind) == expected


# Cold review 2026-12-05 finding 16: a folder scan of a chart repository (otwld/ollama-helm) met its GitHub workflows,
# whose `on:` key YAML 1.1 reads as a bool, and etalab-ia/opengatellm-helm's helmfile (`namespace: {{ .Namespace }}`),
# and blocked on each (mandatory manifest-readable). Neither names apiVersion and kind, so neither can hold an object.
WORKFLOW = "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n"
HELMFILE = "releases:\n  - name: api\n    namespace: {{ .Namespace }}\n    chart: ./charts/api\n"
# Another tool's YAML tags: NVIDIA/k8s-nim-operator .common-ci.yml (GitLab CI `!reference [.x, script]`, mirrored HEAD
# of 2026-12-05) was a mandatory manifest-readable finding; a CloudFormation template's `!Ref` is the same class.
GITLAB_CI = "include:\n  - local: a.yml\nbuild:\n  script:\n    - !reference [.setup, script]\n"
CLOUDFORMATION = "Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref Name\n"


@pytest.mark.parametrize(
    "name, text, line",
    [
        (".github/workflows/ci.yaml", WORKFLOW, 2),
        (".common-ci.yml", GITLAB_CI, 5),
        ("template.yaml", CLOUDFORMATION, 5),
    ],
)
def test_an_unreadable_file_that_names_no_apiversion_and_kind_is_not_kubernetes(tmp_path, name, text, line):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    read = read_manifests([str(tmp_path)])
    assert [(u.kind, u.line) for u in read.unreadable] == [("not-kubernetes", line)]


def test_a_helmfile_is_read_for_its_releases_never_as_an_unreadable_manifest(tmp_path):
    """Session 56: a helmfile is read by policies/reading/helmfile.py (its chart folder absent here: nothing rendered)."""
    (tmp_path / "helmfile.yaml").write_text(HELMFILE)
    read = read_manifests([str(tmp_path)])
    assert read.unreadable == [] and read.objects == []


def test_a_kubernetes_file_with_a_yaml_tag_stays_invalid(tmp_path):
    # A file that names apiVersion and kind keeps the reading it had (not changed by the foreign-tag case above).
    (tmp_path / "d.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: !Ref Name\n")
    assert [u.kind for u in read_manifests([str(tmp_path)]).unreadable] == ["invalid"]


def test_an_unreadable_kubernetes_file_stays_invalid(tmp_path):
    # The same bool key in a Deployment's labels is a real defect (the API server gets the key "true"): still invalid.
    (tmp_path / "d.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels:\n    on: x\n")
    assert [u.kind for u in read_manifests([str(tmp_path)]).unreadable] == ["invalid"]


def test_a_template_action_the_pattern_does_not_know_is_an_unrendered_template(tmp_path):
    # /tmp/review/h/lenint2: `replicas: {{ len 5 }}` made YAML stop on a mapping key; it is a template, not bad YAML.
    (tmp_path / "d.yaml").write_text(
        DEPLOY % "d" + "---\n" + (DEPLOY % "e").replace("spec: {}", "spec:\n  replicas: {{ len 5 }}")
    )
    read = read_manifests([str(tmp_path)])
    assert [o.name for o in read.objects] == ["d"]
    assert [(u.kind, u.document, u.line) for u in read.unreadable] == [("template", 1, 10)]


def test_a_long_line_of_opening_braces_is_read_in_linear_time(tmp_path):
    # Where YAML stops, the line is searched for a {{ ... }} action: by str.find, not a backtracking regex (a regex
    # took ~0.5 s for 20,000 '{{', quadratically more for the 2,000,000 here).
    (tmp_path / "d.yaml").write_text(DEPLOY % "d" + "---\na: " + "{{" * 2_000_000 + "\n")
    started = time.monotonic()
    read = read_manifests([str(tmp_path)])
    assert time.monotonic() - started < 10
    assert [(u.kind, u.line) for u in read.unreadable] == [("invalid", 6)]  # the depth limit, as before


def test_a_json_file_that_does_not_parse_and_names_no_apiversion_and_kind_is_not_kubernetes(tmp_path):
    # eternalismic/tennis-ML-AI-platform woow/ui/tsconfig.json (JSON with comments, TypeScript's own format) was a
    # mandatory manifest-readable finding in a folder scan; a Kubernetes object in broken JSON stays invalid.
    (tmp_path / "tsconfig.json").write_text('{\n  // strict mode\n  "compilerOptions": {"strict": true}\n}\n')
    (tmp_path / "cm.json").write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},}')
    # smeyanoff/kuberay-serving-system sample.json: a data file holding NaN (not JSON, not Kubernetes either).
    (tmp_path / "sample.json").write_text('{"e_req_vars": NaN}')
    read = read_manifests([str(tmp_path)])
    assert sorted((Path(u.file).name, u.kind) for u in read.unreadable) == [
        ("cm.json", "invalid"),
        ("sample.json", "not-kubernetes"),
        ("tsconfig.json", "not-kubernetes"),
    ]
