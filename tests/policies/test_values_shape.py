"""A values file no name ties to a chart is read as a known chart's by its keys, and an umbrella chart's values.yaml
as the releases of the known charts its Chart.yaml depends on (policies/values_shape.py).

Firing forms (spent set 121): ignaciylipm/ollama-helm@6e498de6b2c89cf5ed1f6c68d5e20c63ef2386de conf/values.yaml (the
Ollama chart's ``ollama.gpu``, ``ollama.models.pull`` and ``service.type: LoadBalancer`` in a folder named ``conf``:
G32, S15 missed); fullaware/ollama-stack@82ab6ae38381a4750daf2edde0f981c57fc21131 Chart.yaml and values.yaml (an
umbrella chart depending on ollama 1.8.0 from https://otwld.github.io/ollama-helm, its values under ``ollama:``: G8,
G10 on the subchart's Deployment missed). Careful forms that stay unread: a values file of someone's own chart sharing
only generic keys, a vLLM chart's ``model.name`` (NIM's key, without the NGC secret NIM's values always name), a
dependency disabled by its condition; a careful Ollama values file is read with no finding but drain (S10: the
release reading does not carry the chart's lifecycle and terminationGracePeriodSeconds values yet).
"""

from __future__ import annotations

import json

from policies.manifests import read_manifests
from policies.values_files import READ_FROM, values_release
from policies.values_shape import chart_by_keys
from tests.conftest import check_in_process

CONF_VALUES = """\
ollama:
  gpu:
    enabled: true
    type: 'nvidia'
    number: 1
  models:
    pull:
      - qwen2.5:14b
      - mistral
service:
  type: LoadBalancer
"""

UMBRELLA_CHART = """\
apiVersion: v2
name: ollama-stack
version: 0.3.0
dependencies:
  - name: ollama
    version: 1.8.0
    repository: https://otwld.github.io/ollama-helm
"""

UMBRELLA_VALUES = """\
ollama:
  ollama:
    gpu:
      enabled: false
    models:
      pull: [llama3.2:1b]
      run: [llama3.2:1b]
"""

CAREFUL_VALUES = """\
image: {repository: ollama/ollama, tag: "0.5.4"}
ollama:
  gpu: {enabled: false}
  models: {pull: [llama3.2:1b]}
persistentVolume: {enabled: true, size: 30Gi}
resources:
  requests: {cpu: "2", memory: 6Gi, ephemeral-storage: 2Gi}
  limits: {memory: 8Gi, ephemeral-storage: 4Gi}
securityContext: {allowPrivilegeEscalation: false}
service: {type: ClusterIP}
"""


def check(folder):
    """The JSON report's findings of `python -m policies check FOLDER`, run in this process (tests.conftest)."""
    return json.loads(check_in_process(str(folder), "--format", "json").stdout)["violations"]


def test_values_in_a_folder_named_conf_are_read_by_their_keys(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "values.yaml").write_text(CONF_VALUES)
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert obj.obj["metadata"]["name"] == "ollama" and "by its keys ollama." in obj.obj["metadata"]["annotations"][READ_FROM]
    found = {(v["catalog"], v["enforcement"]) for v in check(tmp_path)}
    assert ("G32", "advisory") in found and ("S15", "advisory") in found  # LoadBalancer, GPU without toleration
    assert all(level == "advisory" for _, level in found)


def test_umbrella_values_configure_the_subchart_at_its_version(tmp_path):
    (tmp_path / "Chart.yaml").write_text(UMBRELLA_CHART)
    (tmp_path / "values.yaml").write_text(UMBRELLA_VALUES)
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert obj.obj["spec"]["chart"]["spec"] == {"chart": "ollama", "version": "1.8.0"}
    assert obj.obj["spec"]["values"] == {
        "ollama": {"gpu": {"enabled": False}, "models": {"pull": ["llama3.2:1b"], "run": ["llama3.2:1b"]}}
    }
    found = {(v["catalog"], v["resource"]) for v in check(tmp_path)}
    assert ("G8", "HelmRelease/ollama") in found and ("G10", "HelmRelease/ollama") in found
    # the parent sets nothing for it: the subchart's defaults; a variant file beside Chart.yaml is not read again
    assert values_release(str(tmp_path / "values.yaml"), {"image": {}})["spec"]["values"] == {}
    assert values_release(str(tmp_path / "values-prod.yaml"), {"ollama": {}}) is None


def test_careful_forms_stay_unread(tmp_path):
    generic = {"image": {"repository": "vllm/vllm-openai"}, "service": {"type": "ClusterIP"}, "resources": {}, "ingress": {}}
    assert chart_by_keys(generic) is None  # generic keys every chart has
    own_vllm = {"image": {"repository": "vllm/vllm-openai"}, "model": {"name": "Qwen/Qwen2.5-7B"}, "service": {}}
    assert chart_by_keys(own_vllm) is None  # NIM's model key without model.ngcAPISecret
    assert values_release("x/conf/values.yaml", {**generic, "modelsPersistence": {"enabled": True}}) is None
    (tmp_path / "Chart.yaml").write_text(
        UMBRELLA_CHART.replace("    repository:", "    condition: ollama.enabled\n    repository:")
    )
    assert values_release(str(tmp_path / "values.yaml"), {"ollama": {"enabled": False}}) is None
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: mine\nversion: 0.1.0\ndependencies:\n  - name: redis\n")
    assert values_release(str(tmp_path / "values.yaml"), {"redis": {}}) is None


def test_careful_public_chart_values_have_no_finding_but_drain(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "values.yaml").write_text(CAREFUL_VALUES)
    assert {v["catalog"] for v in check(tmp_path)} <= {"S10"}


def test_review55f_forms_stay_unread(tmp_path):
    # (1) One key alone (extraEnv, hostNetwork) is any app's: a generic app's values are not the Ollama chart's.
    orders = {"image": {"repository": "ghcr.io/acme/orders-api"}, "replicaCount": 2, "service": {}, "resources": {}}
    assert chart_by_keys({**orders, "extraEnv": [{"name": "LOG_LEVEL", "value": "info"}]}) is None
    assert chart_by_keys({"image": {"repository": "x"}, "hostNetwork": False, "resources": {}}) is None
    # (2) A dependency vendored in the parent (file://) is the repository's own chart, rendered from its templates.
    (tmp_path / "Chart.yaml").write_text(
        "apiVersion: v2\nname: stack\nversion: 0.1.0\ndependencies:\n"
        "  - name: ollama\n    version: 0.1.0\n    repository: file://charts/ollama\n"
    )
    assert values_release(str(tmp_path / "values.yaml"), {"ollama": {"gpu": {"enabled": False}}}) is None


def test_review55f_helm_decides_a_dependency_as_helm_does(tmp_path):
    # helm v3.16.4 pkg/chartutil/dependencies.go: the first condition path holding a bool decides (:48-71); with no
    # condition decided, tags all set false leave the dependency out (:74-104).
    chart = UMBRELLA_CHART.replace("    repository:", "    condition: ollama.enabled,global.ollama.enabled\n    repository:")
    (tmp_path / "Chart.yaml").write_text(chart)
    values = {"ollama": {"enabled": True}, "global": {"ollama": {"enabled": False}}}
    assert values_release(str(tmp_path / "values.yaml"), values) is not None
    (tmp_path / "Chart.yaml").write_text(UMBRELLA_CHART.replace("    repository:", "    tags: [llm]\n    repository:"))
    assert values_release(str(tmp_path / "values.yaml"), {"tags": {"llm": False}, "ollama": {}}) is None
    assert values_release(str(tmp_path / "values.yaml"), {"tags": {"llm": True}, "ollama": {}}) is not None
