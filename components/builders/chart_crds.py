"""CRDs that a chart keeps in its ``crds/`` folder, owned by Pulumi instead of Helm.

Helm installs a chart's ``crds/`` files on the first install only and never upgrades or deletes them (Helm docs,
"Custom Resource Definitions": "There is no support at this time for upgrading or deleting CRDs using Helm"), so a
chart upgrade would leave the old CRD schema serving the new operator. Each chart listed here is installed with
``skipCrds`` and its CRDs become explicit Pulumi resources: one ``kubernetes:yaml/v2:ConfigFile`` per CRD file, read
from the upstream repository at the chart's pinned commit (an immutable URL), applied server-side by the Kubernetes
provider on every ``pulumi up`` (so a version bump upgrades them), created before the release, and deleted after it.

Why URLs at a commit and not the YAML kept in this repository: the four KubeRay v1.7.0 CRDs alone are 4.1 MB, which
every prod plan would carry as rendered files and serialise through the engine on each run. The sha256 of each file
is kept here with its source, and a test checks them against the pinned chart's ``crds/`` (the chart data of the
reference folder) and the upstream tag (tests/builders/test_chart_crds.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CrdFile:
    """One CRD file of a chart: its path in the upstream repository and its sha256."""

    path: str
    sha256: str


@dataclass(frozen=True)
class ChartCrds:
    """The ``crds/`` folder of one pinned chart, read at one upstream commit."""

    chart: str
    version: str
    repository: str  # owner/name on GitHub
    tag: str
    commit: str
    files: tuple[CrdFile, ...]

    def url(self, f: CrdFile) -> str:
        """The file at the pinned commit (raw.githubusercontent.com serves a commit's blob as is)."""
        return f"https://raw.githubusercontent.com/{self.repository}/{self.commit}/{f.path}"

    def name(self, f: CrdFile) -> str:
        """A short resource-name part for the file (ray.io_rayclusters.yaml -> rayclusters)."""
        return f.path.rsplit("/", 1)[-1].removesuffix(".yaml").split("_", 1)[-1]


# ray-project/kuberay tag v1.7.0 (commit 59d663aeec13760646da3db9c1cf8cfe883e30b7), helm-chart/kuberay-operator/crds/:
# byte-identical to ray-operator/config/crd/bases/ at the tag and to the chart's crds/ of kuberay-operator 1.7.0.
KUBERAY_OPERATOR = ChartCrds(
    chart="kuberay-operator",
    version="1.7.0",
    repository="ray-project/kuberay",
    tag="v1.7.0",
    commit="59d663aeec13760646da3db9c1cf8cfe883e30b7",
    files=(
        CrdFile(
            "helm-chart/kuberay-operator/crds/ray.io_rayclusters.yaml",
            "c44704442eef0c6721ad40c1d66782c8bd3fdab9d3344306a5820910a679baa1",
        ),
        CrdFile(
            "helm-chart/kuberay-operator/crds/ray.io_raycronjobs.yaml",
            "31c2c753bba01f7e8e89cb8e8c504131b58ee42090ca536d87f5ac27605a568e",
        ),
        CrdFile(
            "helm-chart/kuberay-operator/crds/ray.io_rayjobs.yaml",
            "01a5cf3b17c1769fda44af7e82debcd98722f0c27b9ab84d084681c6649121f5",
        ),
        CrdFile(
            "helm-chart/kuberay-operator/crds/ray.io_rayservices.yaml",
            "0a8fc325e6e22b9231c1f282b309555e2ecf94227ca20a03df3d1d9a403907ab",
        ),
    ),
)
