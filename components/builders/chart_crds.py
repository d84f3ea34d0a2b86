"""CRDs that a chart keeps in its ``crds/`` folder, owned by Pulumi instead of Helm.

Helm installs a chart's ``crds/`` files on the first install only and never upgrades or deletes them (Helm docs,
"Custom Resource Definitions": "There is no support at this time for upgrading or deleting CRDs using Helm"), so a
chart upgrade would leave the old CRD schema serving the new operator. Every chart listed in :data:`CHARTS` is
installed with ``skipCrds`` (components/helm.py) and each of its CRDs becomes an explicit Pulumi resource: one
``kubernetes:yaml/v2:ConfigFile`` per CRD, applied server-side on every ``pulumi up`` (so a chart bump upgrades
it), created before the release, and retained on delete as Helm leaves it.

Where the bytes come from (components/chart_crd_files.py): the chart archive itself, the one Helm installs the
release from (the chart repository's index, or a folder of archives saved by ``helm pull`` for a runner without
egress), never a third host. Each CRD file read from it is checked against the sha256 pinned here before anything
is written or applied; the checked CRDs are written one per file under :data:`CACHE_DIR` and the ConfigFile
reads that file (a path relative to the program's directory, as pulumi-kubernetes v4.20.0 reads it:
provider/pkg/provider/yaml/v2/yaml.go:72-90 reads a non-URL ``file`` from disk; its own test
tests/sdk/java/testdata/yamlv2/Pulumi.yaml:19-24 applies CRDs from ``file: ./crds.yaml``). A URL would be fetched
by the provider with a bare ``http.Get`` whose status and digest nobody checks (yaml.go:59-71).

Each file's sha256 is that of the chart's ``crds/`` file at the chart's release, and a test checks them (and the CRD
names in each file) against the pinned chart data of the reference folder (tests/builders/test_chart_crds.py).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Optional

# Where the checked CRD files are written, relative to the Pulumi program's directory (the provider's too).
CACHE_DIR = ".chart-crds"
# A YAML document separator on a line of its own.
_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)


class CrdFileError(ValueError):
    """A chart's CRD file is not the pinned one (its sha256 or its documents differ)."""


@dataclass(frozen=True)
class CrdFile:
    """One CRD file of a chart: its path below the chart's folder, its sha256, the CRDs it holds in order (name and
    kind of each)."""

    path: str
    sha256: str
    crds: tuple[str, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class ChartCrds:
    """The ``crds/`` files of one pinned chart (``source``: where the chart is built from, at which tag and commit)."""

    chart: str
    version: str
    source: str
    files: tuple[CrdFile, ...]

    @property
    def archive(self) -> str:
        """The archive's file name as a chart repository serves it and ``helm pull`` saves it."""
        return f"{self.chart}-{self.version}.tgz"

    def member(self, f: CrdFile) -> str:
        """The file's path inside the archive (a chart archive holds one top folder named after the chart)."""
        return f"{self.chart}/{f.path}"

    def crds(self) -> list[str]:
        """Every CRD name of the chart, in file order."""
        return [name for f in self.files for name in f.crds]

    def kinds(self) -> dict[str, str]:
        """``"<group>/<Kind>"`` of each CRD name (the group is the name after its plural)."""
        return {name: f"{name.split('.', 1)[1]}/{kind}" for f in self.files for name, kind in zip(f.crds, f.kinds)}

    def local_path(self, crd: str) -> str:
        """Where the checked CRD ``crd`` is written and read from (relative to the program's directory)."""
        return f"{CACHE_DIR}/{self.chart}-{self.version}/{crd}.yaml"


def resource_part(crd: str) -> str:
    """A short resource-name part for a CRD (rayclusters.ray.io -> rayclusters)."""
    return crd.split(".", 1)[0]


def split_checked(charts: ChartCrds, f: CrdFile, data: bytes) -> dict[str, bytes]:
    """Each CRD of ``f`` as its own YAML document, once ``data`` is checked to be the pinned file.

    The file is split at its document separators, byte for byte (no YAML round trip: the prometheus-operator CRDs
    hold values that YAML 1.1 loaders misread); each piece must name its CRD as pinned.
    """
    digest = hashlib.sha256(data).hexdigest()
    where = f"{charts.archive}:{charts.member(f)}"
    if digest != f.sha256:
        raise CrdFileError(f"{where} has sha256 {digest}, not the pinned {f.sha256}: refusing to apply it")
    text = data.decode("utf-8")
    pieces = [p for p in _SEPARATOR.split(text) if _has_content(p)]
    if len(pieces) != len(f.crds):
        raise CrdFileError(f"{where} holds {len(pieces)} documents, the pin lists {len(f.crds)} CRDs")
    out: dict[str, bytes] = {}
    for name, piece in zip(f.crds, pieces):
        if not re.search(r"^kind: CustomResourceDefinition\s*$", piece, re.MULTILINE) or not re.search(
            rf"^  name: {re.escape(name)}\s*$", piece, re.MULTILINE
        ):
            raise CrdFileError(f"{where}: the document pinned as CRD {name} does not define it")
        out[name] = piece.lstrip("\n").encode("utf-8")
    return out


def _has_content(piece: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in piece.splitlines())


def for_chart(chart: str, version: str) -> Optional[ChartCrds]:
    """The pinned CRDs of ``chart`` at ``version`` (None: the chart keeps no CRDs in crds/, or is not pinned here)."""
    return CHARTS.get((chart, version))


# ray-project/kuberay tag v1.7.0 (commit 59d663aeec13760646da3db9c1cf8cfe883e30b7), helm-chart/kuberay-operator/crds/:
# byte-identical to ray-operator/config/crd/bases/ at the tag and to the chart's crds/ of kuberay-operator 1.7.0.
KUBERAY_OPERATOR = ChartCrds(
    chart="kuberay-operator",
    version="1.7.0",
    source="ray-project/kuberay v1.7.0 (59d663aeec13760646da3db9c1cf8cfe883e30b7) helm-chart/kuberay-operator",
    files=(
        CrdFile(
            "crds/ray.io_rayclusters.yaml",
            "c44704442eef0c6721ad40c1d66782c8bd3fdab9d3344306a5820910a679baa1",
            ("rayclusters.ray.io",),
            ("RayCluster",),
        ),
        CrdFile(
            "crds/ray.io_raycronjobs.yaml",
            "31c2c753bba01f7e8e89cb8e8c504131b58ee42090ca536d87f5ac27605a568e",
            ("raycronjobs.ray.io",),
            ("RayCronJob",),
        ),
        CrdFile(
            "crds/ray.io_rayjobs.yaml",
            "01a5cf3b17c1769fda44af7e82debcd98722f0c27b9ab84d084681c6649121f5",
            ("rayjobs.ray.io",),
            ("RayJob",),
        ),
        CrdFile(
            "crds/ray.io_rayservices.yaml",
            "0a8fc325e6e22b9231c1f282b309555e2ecf94227ca20a03df3d1d9a403907ab",
            ("rayservices.ray.io",),
            ("RayService",),
        ),
    ),
)

# aws/eks-charts tag v0.0.242 (commit 5239609242f3430be50fb0b714a24d3ef2b47983), stable/aws-load-balancer-controller/
# crds/: controller v3.5.0's CRDs (crds.yaml: four in one file; gateway-crds.yaml: the three gateway.k8s.aws ones).
AWS_LOAD_BALANCER_CONTROLLER = ChartCrds(
    chart="aws-load-balancer-controller",
    version="3.5.0",
    source="aws/eks-charts v0.0.242 (5239609242f3430be50fb0b714a24d3ef2b47983) stable/aws-load-balancer-controller",
    files=(
        CrdFile(
            "crds/crds.yaml",
            "cb00e9a8ee22cc51307bbed799faff306ab4d23a9fd201d26fcd53ab035777d9",
            (
                "albtargetcontrolconfigs.elbv2.k8s.aws",
                "globalaccelerators.aga.k8s.aws",
                "ingressclassparams.elbv2.k8s.aws",
                "targetgroupbindings.elbv2.k8s.aws",
            ),
            ("ALBTargetControlConfig", "GlobalAccelerator", "IngressClassParams", "TargetGroupBinding"),
        ),
        CrdFile(
            "crds/gateway-crds.yaml",
            "fce68bbfc74b4ed7dbea675f46981cbef1fffc8981cf19c0c1e7a2e9d6464862",
            (
                "listenerruleconfigurations.gateway.k8s.aws",
                "loadbalancerconfigurations.gateway.k8s.aws",
                "targetgroupconfigurations.gateway.k8s.aws",
            ),
            ("ListenerRuleConfiguration", "LoadBalancerConfiguration", "TargetGroupConfiguration"),
        ),
    ),
)

# prometheus-community/helm-charts tag kube-prometheus-stack-88.5.3 (commit ea930baeebeba39f56d6b44e351f23b2a072a600),
# charts/kube-prometheus-stack/charts/crds/crds/: the prometheus-operator v0.93.1 CRDs, in the local `crds` subchart
# (its `crds.enabled` condition only decides whether Helm installs them once; with skipCrds it installs none).
_KPS = "charts/crds/crds"
KUBE_PROMETHEUS_STACK = ChartCrds(
    chart="kube-prometheus-stack",
    version="88.5.3",
    source="prometheus-community/helm-charts kube-prometheus-stack-88.5.3 (ea930baeebeba39f56d6b44e351f23b2a072a600) "
    "charts/kube-prometheus-stack",
    files=tuple(
        CrdFile(f"{_KPS}/crd-{plural}.yaml", digest, (f"{plural}.monitoring.coreos.com",), (kind,))
        for plural, kind, digest in (
            ("alertmanagerconfigs", "AlertmanagerConfig", "8b99c40209fe22cf825ac86aca786d4864f627fde51b1eb5316bda78cd4080d0"),
            ("alertmanagers", "Alertmanager", "afe1da0b7be024c656a7ae387576caac97c3f057b953e169ffa9fee854417496"),
            ("podmonitors", "PodMonitor", "41de2587baafa31240438654a3ae5dc19ef40296c31cb186855fa4ce85b03fb9"),
            ("probes", "Probe", "ecdd35902462d861ea824669008546563c5c0b3308e58622865c83d5b0475262"),
            ("prometheusagents", "PrometheusAgent", "62f6cdac08e5c188d9ed3873f252708b91d4cc984996948566402c02c89e5ddf"),
            ("prometheuses", "Prometheus", "69e7ba4f57570bf1181f7f63aab42fd916caccf6a9c5bc8519ff55b64a9ac147"),
            ("prometheusrules", "PrometheusRule", "72b1e5f9959e67990d1598eb31b24ca4415007e31df3916356ef216316b2bf40"),
            ("scrapeconfigs", "ScrapeConfig", "64d41ae0db231a1db450b3b268bc99a29cdc8b5f11f3cb62be140e91e0a36838"),
            ("servicemonitors", "ServiceMonitor", "3322d612f23bf144c887c94bf247b0b4a69189adf37c0d482d2c6267ffe906ab"),
            ("thanosrulers", "ThanosRuler", "5c4e7bad31aedf4f5d77a1c30d4ea4b288bedf86fa2e77588d068057d5b00628"),
        )
    ),
)

# Every chart the stack installs whose crds/ Helm would own. karpenter 1.14.1 also keeps CRDs in crds/, but the
# karpenter-crd release renders the same CRDs as templates (upgraded by Helm) and the karpenter release skips its
# crds/ (builders/karpenter_aws.py); nvidia-device-plugin 0.20.0's only crds/ are in its node-feature-discovery
# subchart, which is off (docs/controllers.md).
CHARTS: dict[tuple[str, str], ChartCrds] = {
    (c.chart, c.version): c for c in (KUBERAY_OPERATOR, AWS_LOAD_BALANCER_CONTROLLER, KUBE_PROMETHEUS_STACK)
}
