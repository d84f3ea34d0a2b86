"""Fixed physical names: fitted to the service's limit with a stable digest, replaced delete-first, and
kept under the same Pulumi names so that a refactor does not delete and recreate them."""

from __future__ import annotations

import pytest
import yaml

from components.builders.names import EVENT_RULE_NAME, HELM_RELEASE_NAME, IAM_ROLE_NAME, SQS_QUEUE_NAME, fit
from tests.conftest import stack_config
from tests.recording import record

LONG_CLUSTER = "llm-" + "x" * 90 + "-prod"  # 99 characters: EKS allows 100


def test_a_name_that_fits_is_unchanged():
    assert fit("KarpenterNodeRole-llm-prod", IAM_ROLE_NAME) == "KarpenterNodeRole-llm-prod"


def test_a_long_name_is_cut_to_the_limit_with_a_stable_digest():
    a = fit(f"llm-serving-{LONG_CLUSTER}-chat-8b-s3", IAM_ROLE_NAME)
    b = fit(f"llm-serving-{LONG_CLUSTER}-qwen3-32b-s3", IAM_ROLE_NAME)
    assert len(a) == len(b) == IAM_ROLE_NAME
    assert a != b  # they differ only past the cut: the digest tells them apart
    assert a == fit(f"llm-serving-{LONG_CLUSTER}-chat-8b-s3", IAM_ROLE_NAME)
    assert a[-9] == "-" and all(c in "0123456789abcdef" for c in a[-8:])


def test_a_limit_without_room_is_refused():
    with pytest.raises(ValueError, match="no room"):
        fit("abc", 9)


@pytest.fixture(scope="module")
def long_cluster(tmp_path_factory):
    config = stack_config("prod")
    config["llm-serving:cluster"]["name"] = LONG_CLUSTER
    path = tmp_path_factory.mktemp("long") / "Pulumi.long.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    return record(str(path))["resources"]


def test_every_fixed_name_fits_its_service_on_a_100_character_cluster(long_cluster):
    limits = {
        "aws:iam/role:Role": IAM_ROLE_NAME,
        "aws:cloudwatch/eventRule:EventRule": EVENT_RULE_NAME,
        "aws:sqs/queue:Queue": SQS_QUEUE_NAME,
        "kubernetes:helm.sh/v3:Release": HELM_RELEASE_NAME,
    }
    named = [(r["type"], r["inputs"]["name"]) for r in long_cluster if r["type"] in limits and r["inputs"].get("name")]
    assert {t for t, _ in named} == set(limits)
    too_long = [(t, n) for t, n in named if len(n) > limits[t]]
    assert too_long == []
    roles = [n for t, n in named if t == "aws:iam/role:Role"]
    assert len(roles) == len(set(roles))


def test_the_queue_and_node_role_names_agree_wherever_they_are_read(long_cluster):
    by_name = {r["name"]: r for r in long_cluster}
    queue = by_name["long-karpenter-interruption-queue"]["inputs"]["name"]
    karpenter = by_name["long-karpenter-release"]["inputs"]["values"]["settings"]
    assert karpenter["interruptionQueue"] == queue and len(queue) == SQS_QUEUE_NAME
    role = by_name["long-karpenter-node-role"]["inputs"]["name"]
    classes = [r for r in long_cluster if r["type"] == "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"]
    assert classes and all(c["inputs"]["spec"]["role"] == role for c in classes)


def test_fixed_names_are_replaced_delete_first(long_cluster):
    fixed = [
        r
        for r in long_cluster
        if r["type"]
        in ("aws:iam/role:Role", "aws:cloudwatch/eventRule:EventRule", "aws:sqs/queue:Queue", "kubernetes:helm.sh/v3:Release")
        and r["inputs"].get("name")
    ]
    assert fixed and [r["name"] for r in fixed if not r["deleteBeforeReplace"]] == []


# The Pulumi names of prod's resources with a fixed physical name. A refactor that changes one makes
# Pulumi delete the old and create the new (the physical name cannot be had twice): add
# `aliases=[pulumi.Alias(name=<old>)]` (and the old parent) where it moves, then update this list.
FIXED_IN_PROD = {
    "aws:iam/role:Role": {"prod-karpenter-node-role", "prod-karpenter-controller-role", "prod-llama-70b-s3-reader-role"},
    "aws:sqs/queue:Queue": {"prod-karpenter-interruption-queue"},
}


def test_resources_with_fixed_names_keep_their_pulumi_names():
    rec = record("prod")["resources"]
    for type_, names in FIXED_IN_PROD.items():
        assert names <= {r["name"] for r in rec if r["type"] == type_ and r["inputs"].get("name")}, type_
