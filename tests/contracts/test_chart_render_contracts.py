"""What two charts render from our values, pinned against their templates at the pinned tag.

Templates are cited, not copied (read with `git show <tag>:<path>` of a fetched snapshot; tags and
commits in ../shared/charts/PROVENANCE.md). The values-used.tsv rows each test relies on are read
from ../shared, so a chart bump that moves the value fails here.
"""

from __future__ import annotations

from components.builders import model_source
from components.builders.addons import KSERVE_LOCALMODEL
from components.builders.karpenter import GPU_TOLERATION
from components.builders.prometheus_adapter import PROMETHEUS_ADAPTER, adapter_config, adapter_values
from components.config import load_stack_config
from tests.conftest import shared_path, stack_config
from tests.recording import record


def _tsv(chart, version) -> dict[str, str]:
    path = shared_path("charts", chart, version, "values-used.tsv")
    rows = [line.split("\t") for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return {r[0]: r[1] for r in rows}


def test_local_model_agent_selects_the_cache_nodes_and_tolerates_the_gpu_taint():
    # kserve v0.20.0 (1fb7810) charts/kserve-localmodel-resources/files/resources.yaml:375-376: the node agent
    # DaemonSet selects `kserve/localmodel: worker`; files/daemonset-patch.yaml:9-12 replaces that selector only
    # when kserve.localmodelnode.controller.nodeSelector is set, and :13-14 renders its tolerations from
    # kserve.localmodelnode.controller.tolerations (default: none).
    used = _tsv(KSERVE_LOCALMODEL.name, KSERVE_LOCALMODEL.version)
    assert used["kserve.localmodelnode.controller.tolerations"] == "files/daemonset-patch.yaml"
    assert used["kserve.localmodelnode.controller.nodeSelector"] == "files/daemonset-patch.yaml"
    values = model_source.localmodel_values()
    controller = values["kserve"]["localmodelnode"]["controller"]
    assert "nodeSelector" not in controller  # the agent keeps the chart's selector ...
    assert model_source.LOCALMODEL_NODE_LABEL == {"kserve/localmodel": "worker"}  # ... which our cache nodes carry
    assert GPU_TOLERATION in controller["tolerations"]
    # resources.yaml:384-386: hostPath /models, fixed (no value templates it).
    assert model_source.AGENT_HOST_PATH == "/models"
    assert not any("hostPath" in p or "agent" in p.split(".") for p in used)


def test_cache_pools_label_their_nodes_for_the_agent():
    rec = record("prod")["resources"]
    pools = [r for r in rec if r["type"] == "kubernetes:karpenter.sh/v1:NodePool"]
    caches = [r for r in rec if r["type"] == "kubernetes:serving.kserve.io/v1alpha1:LocalModelCache"]
    cache_pools = {g for c in caches for g in c["inputs"]["spec"]["nodeGroups"]}
    assert cache_pools
    for p in pools:
        labels = p["inputs"]["spec"]["template"]["metadata"].get("labels") or {}
        assert (labels.get("kserve/localmodel") == "worker") == (p["inputs"]["metadata"]["name"] in cache_pools)


def test_adapter_renders_exactly_our_rules_in_its_config_map():
    # prometheus-community/helm-charts prometheus-adapter-5.3.0 (e6e041b)
    # charts/prometheus-adapter/templates/configmap.yaml: line 1 renders the ConfigMap unless rules.existing;
    # lines 15-17 write `rules:` and the six default namespace-wide rules only with rules.default; lines 85-86
    # append rules.custom with toYaml; lines 89-91 externalRules only when rules.external is not empty.
    used = _tsv(PROMETHEUS_ADAPTER.name, PROMETHEUS_ADAPTER.version)
    for key in ("rules.existing", "rules.default", "rules.custom", "rules.external"):
        assert "templates/configmap.yaml" in used[key], key
    cfg = load_stack_config(stack_config("prod"))
    values = adapter_values(cfg.models, cfg.namespace, cfg.monitoring)
    config = adapter_config(values)
    assert config == {"rules": values["rules"]["custom"]}  # no default rules, no externalRules key
    assert config["rules"] and all(r["name"]["as"].startswith("vllm_requests_in_flight_") for r in config["rules"])
    # The chart's own switches, read the same way.
    assert adapter_config({"rules": {"existing": "mine"}}) is None
    assert adapter_config({"rules": {"default": True, "custom": []}}) == {"rules": [], "defaultRules": True}
