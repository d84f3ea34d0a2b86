"""``--set`` types a value from its text, ``--set-string`` keeps it text (policies/reading/helm_values.py set_value).

helm v3.16.4 pkg/strvals/parser.go:528-560 typedVal: ``true``/``false``/``null`` and an integer not led by a zero are
typed under ``--set``; under ``--set-string`` everything is text. The forms that choose one or the other:

- helmfile ``set:``/``setString:`` (helmfile pkg/state/state.go:5186-5233 setFlags/setStringFlags@v1.7.4; the form of
  docs/configuration.md:206);
- Argo CD ``helm.parameters[].forceString`` (argo-cd util/helm/cmd.go:445-448, types.go:610@v3.5.1);
- Terraform ``helm_release`` ``set``/``set_sensitive`` with ``type = "string"`` (terraform-provider-helm v3.1.2
  helm/resource_helm_release.go:1547-1557; its docs/resources/release.md:150-165 example sets ``metrics.enabled =
  "true"`` (a boolean) and ``service.annotations.prometheus\\.io/port = "9127"`` with ``type = "string"`` (text)).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.manifests import read_manifests
from policies.reading.gitops_charts import _argo_values
from policies.reading.helm_values import set_value, typed


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("FALSE", False), ("null", None), ("0", 0), ("9127", 9127), ("-3", -3), ("007", "007"), ("1.5", "1.5")],
)
def test_set_types_a_value_as_helm_does(text, value):
    assert typed(text) == value and type(typed(text)) is type(value)


def test_set_string_keeps_the_text_of_a_yaml_boolean():
    values: dict = {}
    set_value(values, "a.enabled", True, string=True)
    set_value(values, "a.port", "9127", string=True)
    set_value(values, "b.enabled", "true")
    assert values == {"a": {"enabled": "true", "port": "9127"}, "b": {"enabled": True}}


HELMFILE = """\
repositories:
  - name: o
    url: https://otwld.github.io/ollama-helm/
releases:
  - name: ollama
    chart: o/ollama
    version: 1.26.0
    set:
      - name: ollama.gpu.enabled
        value: "true"
    setString:
      - name: podAnnotations.prometheus\\.io/scrape
        value: true
      - name: podAnnotations.prometheus\\.io/port
        value: 11434
"""


def test_helmfile_set_string_stays_text_and_set_is_typed(tmp_path: Path):
    (tmp_path / "helmfile.yaml").write_text(HELMFILE)
    (release,) = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "HelmRelease"]
    assert release.obj["spec"]["values"] == {
        "ollama": {"gpu": {"enabled": True}},
        "podAnnotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "11434"},
    }


def test_argo_force_string_stays_text(tmp_path: Path):
    helm = {
        "parameters": [
            {"name": "image.tag", "value": "001", "forceString": True},
            {"name": "replicaCount", "value": "3"},
            {"name": "gpu.enabled", "value": "true", "forceString": True},
        ]
    }
    assert _argo_values(helm, str(tmp_path)) == {"image": {"tag": "001"}, "replicaCount": 3, "gpu": {"enabled": "true"}}


TERRAFORM = """\
resource "helm_release" "example" {
  name       = "my-redis-release"
  repository = "https://charts.bitnami.com/bitnami"
  chart      = "redis"
  version    = "6.0.1"

  set = [
    {
      name  = "metrics.enabled"
      value = "true"
    },
    {
      name  = "service.annotations.prometheus\\\\.io/port"
      value = "9127"
      type  = "string"
    }
  ]
}
"""


def test_terraform_set_type_string_stays_text(tmp_path: Path):
    (tmp_path / "main.tf").write_text(TERRAFORM)
    (release,) = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "HelmRelease"]
    assert release.obj["spec"]["values"] == {
        "metrics": {"enabled": True},
        "service": {"annotations": {"prometheus.io/port": "9127"}},
    }
