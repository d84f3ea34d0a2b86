"""Config of the capacity layer: cluster connection, pools' disruption and AMI, buffer mode, Karpenter, add-ons."""

from __future__ import annotations

import pytest

from components.config import (
    AddonConfig,
    AddonsConfig,
    BufferConfig,
    ClusterConfig,
    DisruptionConfig,
    GpuPoolConfig,
    KarpenterConfig,
    MaintenanceWindowConfig,
    load_stack_config,
)
from components.errors import ConfigError
from tests.conftest import stack_config


@pytest.mark.parametrize(
    "model",
    [
        ClusterConfig,
        GpuPoolConfig,
        BufferConfig,
        DisruptionConfig,
        MaintenanceWindowConfig,
        KarpenterConfig,
        AddonsConfig,
        AddonConfig,
    ],
)
def test_every_field_documents_its_default(model):
    for name, field in model.model_fields.items():
        assert field.description, f"{model.__name__}.{name}"
        if not field.is_required():
            assert "Default" in field.description, f"{model.__name__}.{name} does not state its default"


def _set(cfg, path, value):
    node = cfg
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


BAD = [
    (["llm-serving:cluster", "connection"], "kubectl", "cluster.connection = 'kubectl': input should be 'eks' or 'ambient'"),
    (
        ["llm-serving:cluster", "kubeContext"],
        "admin",
        'cluster = {"kubeContext": "admin", "kubernetesVersion": "1.33", "name": "llm-dev"}: kubeContext is only read with connection "ambient"',
    ),
    (
        ["llm-serving:gpuPools", 0, "amiAlias"],
        "al2023@latest",
        "gpuPools[0].amiAlias = 'al2023@latest': must be a pinned AMI alias such as al2023@v20260903",
    ),
    (
        ["llm-serving:gpuPools", 0, "buffer", "mode"],
        "balloon",
        "gpuPools[0].buffer.mode = 'balloon': input should be 'placeholder' or 'capacityBuffer'",
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"expireAfter": "12h"},
        "gpuPools[0].disruption.expireAfter = '12h': must be at least 24h",
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"expireAfter": "30d"},
        'gpuPools[0].disruption.expireAfter = \'30d\': must be a duration such as "720h", or "Never"',
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"consolidateAfter": "soon"},
        "gpuPools[0].disruption.consolidateAfter = 'soon': must be a duration",
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"consolidationPolicy": "Always"},
        "gpuPools[0].disruption.consolidationPolicy = 'Always': input should be 'WhenEmpty' or 'WhenEmptyOrUnderutilized'",
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"window": {"weekday": 7}},
        "gpuPools[0].disruption.window.weekday = 7: input should be less than or equal to 6",
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"window": {"hours": 0}},
        "gpuPools[0].disruption.window.hours = 0: input should be greater than or equal to 1",
    ),
    (
        ["llm-serving:gpuPools", 0, "disruption"],
        {"window": {"startHour": 24}},
        "gpuPools[0].disruption.window.startHour = 24: input should be less than or equal to 23",
    ),
    (["llm-serving:karpenter"], {"install": "no"}, "karpenter.install = 'no': input should be a valid boolean"),
    (
        ["llm-serving:karpenter"],
        {"nodeRoleName": "x"},
        'karpenter = {"nodeRoleName": "x"}: nodeRoleName names an existing role and is only read with install: false',
    ),
    (["llm-serving:karpenter"], {"namespace": "Kube"}, "karpenter.namespace = 'Kube': must be a DNS-1035 label"),
    (["llm-serving:addons"], {"kserve": {"install": 1}}, "addons.kserve.install = 1: input should be a valid boolean"),
    (
        ["llm-serving:addons"],
        {"istio": {"install": True}},
        "addons.istio: unknown key; allowed keys here: certManager, kserve, nvidiaDevicePlugin",
    ),
]


@pytest.mark.parametrize("path,value,expected", BAD, ids=[".".join(map(str, b[0][1:])) or b[0][0] for b in BAD])
def test_bad_value_names_field_value_and_rule(path, value, expected):
    raw = stack_config("dev")
    _set(raw, path, value)
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    lines = [str(p) for p in err.value.problems]
    assert any(line.startswith(expected) for line in lines), lines


def test_never_expiring_nodes_are_allowed_and_windows_are_read():
    raw = stack_config("dev")
    raw["llm-serving:gpuPools"][0]["disruption"] = {"expireAfter": "Never", "window": {"weekday": 3, "startHour": 1, "hours": 2}}
    pool = load_stack_config(raw).gpu_pools[0]
    assert pool.disruption.expire_after == "Never"
    assert (pool.disruption.window.weekday, pool.disruption.window.start_hour, pool.disruption.window.hours) == (3, 1, 2)
