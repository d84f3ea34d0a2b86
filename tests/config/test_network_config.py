"""Subnet and security-group selection in the stack file: each bad value named with its field path (issue 19)."""

from __future__ import annotations

import pytest

from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config


def _error(edit) -> str:
    raw = stack_config("prod")
    edit(raw)
    with pytest.raises(ConfigError) as caught:
        load_stack_config(raw)
    return str(caught.value)


def _cluster(**keys):
    return lambda raw: raw["llm-serving:cluster"].update(keys)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _cluster(subnets={"ids": ["sub-1"]}),
            "cluster.subnets.ids[0] = 'sub-1': must be a subnet id (subnet- and 8 or 17 lowercase hex digits)",
        ),
        (
            _cluster(securityGroups={"ids": ["sg-12345678", "sg-XYZ"]}),
            "cluster.securityGroups.ids[1] = 'sg-XYZ': must be a security group id (sg- and 8 or 17 lowercase hex digits)",
        ),
        (
            _cluster(subnets={"ids": ["subnet-12345678"], "tags": {"tier": "private"}}),
            "set ids or tags, not both (Karpenter ORs its terms: both would widen the selection)",
        ),
        (
            _cluster(securityGroups={"tags": {"team": ""}}),
            'cluster.securityGroups.tags = {"team": ""}: tag \'team\': keys and values must be non-empty',
        ),
        (
            _cluster(securityGroups={"ids": ["sg-12345678"], "eksClusterSecurityGroup": True}),
            "set one of ids, tags or eksClusterSecurityGroup",
        ),
        (_cluster(securityGroups={"eksClusterSecurityGroup": "yes"}), "cluster.securityGroups.eksClusterSecurityGroup = 'yes'"),
        (_cluster(subnets={"id": ["subnet-12345678"]}), "cluster.subnets.id"),
        (
            _cluster(subnets={"ids": ["subnet-12345678"]}, tagForDiscovery={"subnetIds": ["subnet-12345678"]}),
            'cluster.tagForDiscovery.subnetIds = ["subnet-12345678"]: adds the karpenter.sh/discovery tag, which only the default '
            "subnets selector reads",
        ),
        (
            _cluster(securityGroups={"eksClusterSecurityGroup": True}, tagForDiscovery={"securityGroupIds": ["sg-12345678"]}),
            'cluster.tagForDiscovery.securityGroupIds = ["sg-12345678"]: adds the karpenter.sh/discovery tag',
        ),
        (
            _cluster(tagForDiscovery={"subnetIds": ["subnet-1"]}),
            "cluster.tagForDiscovery.subnetIds[0] = 'subnet-1': must be a subnet id",
        ),
    ],
)
def test_bad_network_values_name_the_field(edit, expected):
    assert expected in _error(edit)


def test_good_selectors_load():
    raw = stack_config("prod")
    raw["llm-serving:cluster"].update(
        subnets={"ids": ["subnet-0123456789abcdef0"]},
        securityGroups={"eksClusterSecurityGroup": True},
    )
    cfg = load_stack_config(raw)
    assert cfg.cluster.subnets.ids == ("subnet-0123456789abcdef0",)
    assert cfg.cluster.security_groups.eks_cluster_security_group is True
    raw = stack_config("prod")
    raw["llm-serving:cluster"]["tagForDiscovery"] = {"subnetIds": ["subnet-12345678"], "securityGroupIds": ["sg-12345678"]}
    assert load_stack_config(raw).cluster.tag_for_discovery.security_group_ids == ("sg-12345678",)
