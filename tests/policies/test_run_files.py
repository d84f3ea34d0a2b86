"""The files a run reads (policies/input/run_files.py manifest_paths): a symbolic link found under a checked folder
whose target lies outside it is not read (review57), as policies/reading/run_bounds.py keeps a helmfile's, Argo CD
source's or Terraform ``file()`` path within the run.

Firing form: a checkout whose ``deploy/values.yaml`` links to a file outside it (``/etc/...``, a sibling checkout:
``../../other/x.yaml``): on a pull request the link is the author's and the file the CI runner's. Careful forms that
are read: a link to a file inside the folder (``current.yaml -> v2/deployment.yaml``), a link named on the command line.
"""

from __future__ import annotations

import os
from pathlib import Path

from policies.input.run_files import LINK_OUT, manifest_paths
from policies.manifests import read_manifests

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: NAME\nspec:\n  containers:\n    - name: c\n      image: nginx:1.27\n"


def _checkout(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(POD.replace("NAME", "outside"))
    repo = tmp_path / "repo"
    (repo / "deploy" / "v2").mkdir(parents=True)
    (repo / "deploy" / "v2" / "deployment.yaml").write_text(POD.replace("NAME", "inside"))
    os.symlink(tmp_path / "outside" / "secret.yaml", repo / "deploy" / "linked-out.yaml")
    os.symlink(Path("..") / ".." / "outside" / "secret.yaml", repo / "deploy" / "climbs-out.yaml")
    os.symlink(Path("v2") / "deployment.yaml", repo / "deploy" / "current.yaml")
    return repo


def test_a_link_out_of_the_checked_folder_is_not_read(tmp_path):
    repo = _checkout(tmp_path)
    names = sorted(Path(p).name for p in manifest_paths([str(repo)]))
    assert names == ["current.yaml", "deployment.yaml"]
    read = read_manifests([str(repo)])
    assert "outside" not in {o.name for o in read.objects}
    assert sorted((Path(u.file).name, u.why, u.kind) for u in read.unreadable) == [
        ("climbs-out.yaml", LINK_OUT, "not-kubernetes"),
        ("linked-out.yaml", LINK_OUT, "not-kubernetes"),
    ]


def test_a_link_named_on_the_command_line_is_read(tmp_path):
    repo = _checkout(tmp_path)
    named = str(repo / "deploy" / "linked-out.yaml")
    assert manifest_paths([named]) == [named]
