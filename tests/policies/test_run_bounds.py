"""References inside checked files read only under what the run checks (policies/reading/run_bounds.py).

A helmfile ``values:`` entry, a helmfile ``chart:`` path, an Argo CD source's ``valueFiles`` and a Terraform
``file()`` may name any path; on a pull request the files are the author's and the machine is the CI runner's. Each
form here names a file outside the checked folder (``../outside/...``, an absolute path, a symbolic link out): the
pack reads it as a file the run does not hold. The same form naming a file inside the folder is read (the control),
so each test fails if the bound stops being applied or starts refusing the run's own files.
"""

from __future__ import annotations

import os
from pathlib import Path

from policies.manifests import read_manifests
from policies.reading.run_bounds import run_bounds, within_run
from tests.policies.policy_fixtures import chart_folder

SECRET_IMAGE = "registry.example/outside-the-run:leaked"

CHART_YAML = "apiVersion: v2\nname: vllm\nversion: 0.0.1\n"
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "{{ .Release.Name }}-vllm"
spec:
  selector:
    matchLabels: {app: vllm}
  template:
    metadata:
      labels: {app: vllm}
    spec:
      containers:
        - name: vllm
          image: "{{ .Values.image }}"
"""
VALUES = f"image: {SECRET_IMAGE}\n"
HELMFILE = "releases:\n- name: vllm\n  chart: ./charts/vllm\n  values:\n  - VALUES\n"


def _images(root: Path) -> set[str]:
    objects = read_manifests([str(root)]).objects
    return {
        c.get("image")
        for o in objects
        for c in (((o.obj.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
        if isinstance(c, dict)
    }


def _chart(root: Path) -> None:
    chart_folder(root / "charts" / "vllm", {"deployment.yaml": DEPLOYMENT}, chart=CHART_YAML)


def _outside(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "vllm.yaml").write_text(VALUES)
    return tmp_path / "outside" / "vllm.yaml"


def test_helmfile_values_outside_the_checked_folder_are_not_read(tmp_path):
    outside = _outside(tmp_path)
    for entry in ("../outside/vllm.yaml", str(outside)):
        root = tmp_path / f"repo{len(entry)}"
        _chart(root)
        (root / "helmfile.yaml").write_text(HELMFILE.replace("VALUES", entry))
        assert SECRET_IMAGE not in _images(root), entry


def test_helmfile_values_inside_the_checked_folder_are_read(tmp_path):
    root = tmp_path / "repo"
    _chart(root)
    (root / "values").mkdir()
    (root / "values" / "vllm.yaml").write_text(VALUES)
    (root / "helmfile.yaml").write_text(HELMFILE.replace("VALUES", "values/vllm.yaml"))
    assert SECRET_IMAGE in _images(root)


def test_a_symbolic_link_out_of_the_folder_is_outside(tmp_path):
    outside = _outside(tmp_path)
    root = tmp_path / "repo"
    _chart(root)
    (root / "values").mkdir()
    os.symlink(outside, root / "values" / "linked.yml")
    (root / "helmfile.yaml").write_text(HELMFILE.replace("VALUES", "values/linked.yml"))
    with run_bounds([str(root)]):
        assert not within_run(str(root / "values" / "linked.yml"))
        assert within_run(str(root / "charts" / "vllm" / "Chart.yaml"))


def test_a_helmfile_chart_folder_outside_is_not_rendered(tmp_path):
    _chart(tmp_path / "shared")
    (tmp_path / "shared" / "values.yaml").write_text(VALUES)
    (tmp_path / "shared" / "charts" / "vllm" / "values.yaml").write_text(VALUES)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "helmfile.yaml").write_text("releases:\n- name: vllm\n  chart: ../shared/charts/vllm\n")
    assert SECRET_IMAGE not in _images(root)
    inside = tmp_path / "shared"
    (inside / "helmfile.yaml").write_text("releases:\n- name: vllm\n  chart: ./charts/vllm\n")
    assert SECRET_IMAGE in _images(inside)


TERRAFORM = 'resource "kubectl_manifest" "vllm" {\n  yaml_body = file("PATH")\n}\n'
MANIFEST = f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  selector:
    matchLabels: {{app: vllm}}
  template:
    metadata:
      labels: {{app: vllm}}
    spec:
      containers:
        - name: vllm
          image: {SECRET_IMAGE}
"""


def test_terraform_file_outside_the_checked_folder_is_not_read(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "deploy.yaml").write_text(MANIFEST)
    for path in ("../outside/deploy.yaml", str(tmp_path / "outside" / "deploy.yaml")):
        root = tmp_path / f"tf{len(path)}"
        root.mkdir()
        (root / "main.tf").write_text(TERRAFORM.replace("PATH", path))
        assert SECRET_IMAGE not in _images(root), path
    # the control: a file() of a file under the folder (in a folder the run does not list as manifests, a .tpl)
    inside = tmp_path / "tf-inside"
    (inside / "k8s").mkdir(parents=True)
    (inside / "k8s" / "deploy.yaml.tpl").write_text(MANIFEST)
    (inside / "main.tf").write_text(TERRAFORM.replace("PATH", "k8s/deploy.yaml.tpl"))
    assert SECRET_IMAGE in _images(inside)


APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: vllm
spec:
  source:
    repoURL: https://example.invalid/repo.git
    path: charts/vllm
    helm:
      valueFiles: [VALUES]
  destination: {namespace: llm}
"""


def test_argo_value_files_outside_the_checked_folder_are_not_read(tmp_path):
    _outside(tmp_path)
    root = tmp_path / "repo"
    _chart(root)
    (root / "charts" / "vllm" / "inside.yaml").write_text(VALUES)
    (root / "app.yaml").write_text(APPLICATION.replace("VALUES", "../../../outside/vllm.yaml"))
    assert SECRET_IMAGE not in _images(root)
    (root / "app.yaml").write_text(APPLICATION.replace("VALUES", "inside.yaml"))
    assert SECRET_IMAGE in _images(root)


def test_no_bounds_outside_a_run_and_a_file_argument_bounds_to_its_folder(tmp_path):
    assert within_run("/etc/hostname")  # a reader called on its own (a unit test) has no run to bound it
    (tmp_path / "a").mkdir()
    with run_bounds([str(tmp_path / "a" / "x.yaml"), "-"]):
        assert within_run(str(tmp_path / "a" / "values.yaml"))
        assert not within_run(str(tmp_path / "b.yaml"))
    assert within_run(str(tmp_path / "b.yaml"))  # the bound ends with the block
