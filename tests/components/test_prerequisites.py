"""AWS prerequisites the platform installs or checks (issue 19, Deliver 3), run under the offline engine.

- the EKS Pod Identity Agent add-on (``eks-pod-identity-agent``), skippable, and the Pod Identity
  associations of Karpenter, the load balancer controller and the S3 readers wait for it;
- the region is the AWS provider's (aws.get_region), refused when aws:region names another;
- the kubeconfig's ``aws eks get-token`` runs as the provider's profile / assumed role;
- the S3 reader: KMS decrypt through S3 only, partition-aware ARNs, pods after the reader;
- placeholder ARNs refused naming the field.
"""

from __future__ import annotations

import copy
import json

import pytest

from components.builders.kubeconfig import eks_kubeconfig
from components.builders.model_source import s3_read_policy
from components.config import load_stack_config
from components.errors import ConfigError
from stacks.offline import StackFile, load_stack_file, run_program
from tests.conftest import stack_config

KEY = "arn:aws:kms:us-east-1:381492650173:key/1f6b2a4c-7d3e-4b5a-9c8d-0e1f2a3b4c5d"


def _run(config: dict, name: str = "prod"):
    base = load_stack_file(name)
    return run_program(StackFile(name=name, path=base.path, config=config))


@pytest.fixture(scope="module")
def prod():
    return run_program(load_stack_file("prod"))


def by_name(rec):
    return {r.name: r for r in rec.resources}


def test_the_pod_identity_agent_is_installed_and_the_associations_wait_for_it(prod):
    res = by_name(prod)
    addon = res["prod-addons-pod-identity-agent"]
    assert addon.type == "aws:eks/addon:Addon"
    assert addon.inputs["addonName"] == "eks-pod-identity-agent" and addon.inputs["clusterName"] == "llm-prod"
    associations = [r for r in prod.resources if r.type == "aws:eks/podIdentityAssociation:PodIdentityAssociation"]
    assert sorted(r.name for r in associations) == [
        "prod-ingress-lb-controller-pod-identity",
        "prod-karpenter-pod-identity",
        "prod-llama-70b-s3-reader-pod-identity",
        "prod-qwen3-32b-s3-reader-pod-identity",
    ]
    for association in associations:
        assert "prod-addons-pod-identity-agent" in association.dependencies, association.name


def test_the_agent_add_on_is_skippable():
    config = stack_config("prod")
    config["llm-serving:addons"] = {"podIdentityAgent": {"install": False}}
    rec = _run(config)
    assert not [r for r in rec.resources if r.type == "aws:eks/addon:Addon"]
    association = by_name(rec)["prod-karpenter-pod-identity"]
    assert association.dependencies == ("prod-karpenter-controller-role",)


def test_an_s3_models_pods_start_after_its_service_account_and_association(prod):
    isvc = by_name(prod)["prod-llama-70b-isvc"]
    assert {"prod-llama-70b-s3-reader-sa", "prod-llama-70b-s3-reader-pod-identity", "prod-llama-70b-s3-reader-read"} <= set(
        isvc.dependencies
    )


def test_the_platform_exports_its_region_endpoint_and_a_secret_kubeconfig(prod):
    assert prod.outputs["region"] == "us-east-1"
    assert prod.outputs["clusterEndpoint"].endswith(".gr7.us-east-1.eks.amazonaws.com")
    assert prod.outputs["kubeconfig"] == "[secret]"
    (provider,) = [r for r in prod.resources if r.type == "pulumi:providers:kubernetes"]
    assert provider.inputs["kubeconfig"] == "[secret]"


def test_without_aws_region_the_providers_region_is_used():
    config = stack_config("dev")
    del config["aws:region"]
    assert load_stack_config(config).region is None
    rec = _run(config, "dev")
    # The offline engine's default provider answers for us-west-2 when aws:region is unset.
    assert rec.outputs["region"] == "us-west-2"
    values = by_name(rec)["dev-ingress-lb-controller-release"].inputs["values"]
    assert values["region"] == "us-west-2"


def test_a_provider_in_another_region_than_aws_region_is_refused():
    import pulumi
    import pulumi_aws as aws

    from components.cluster import RegionMismatch
    from components.platform import LlmPlatform, LlmPlatformArgs

    cfg = load_stack_config(stack_config("dev"))

    def program():
        provider = aws.Provider("eu", region="eu-west-1")
        LlmPlatform("dev", LlmPlatformArgs(config=cfg, aws_provider=provider))
        return pulumi.Output.from_input(None)

    base = load_stack_file("dev")
    # The engine wraps the error of the input it was resolving; the message is ours, naming both regions.
    with pytest.raises(Exception) as err:
        run_program(base, program)
    assert (
        "aws:region = 'us-west-2': is 'us-west-2' but the AWS provider's region is 'eu-west-1'; ARNs, the kubeconfig's --region "
        "and the controllers' settings must name the region the resources are made in: make them the same"
    ) in str(err.value)
    assert issubclass(RegionMismatch, ConfigError) and issubclass(RegionMismatch, pulumi.RunError)


def test_the_exec_plugin_runs_as_the_providers_profile_or_role():
    plain = json.loads(eks_kubeconfig("c", "https://e", "Q0E=", "us-east-1"))["users"][0]["user"]["exec"]
    assert "env" not in plain and "--role-arn" not in plain["args"]
    role = "arn:aws:iam::381492650173:role/deployer"
    both = json.loads(eks_kubeconfig("c", "https://e", "Q0E=", "us-east-1", "prod-admin", role))["users"][0]["user"]["exec"]
    assert both["env"] == [{"name": "AWS_PROFILE", "value": "prod-admin"}]
    assert both["args"][-2:] == ["--role-arn", role]
    assert both["args"][:2] == ["--region", "us-east-1"]


@pytest.mark.parametrize(
    "key, value, field",
    [
        ("aws:profile", "prod-admin", "aws_profile"),
        ("aws:assumeRoles", [{"roleArn": "arn:aws:iam::381492650173:role/deployer", "sessionName": "pulumi"}], "aws_role_arn"),
        ("aws:assumeRole", {"roleArn": "arn:aws:iam::381492650173:role/deployer"}, "aws_role_arn"),
    ],
)
def test_the_providers_identity_is_read_from_the_stack(key, value, field):
    config = stack_config("dev")
    config[key] = value
    got = getattr(load_stack_config(config), field)
    assert got == (value if isinstance(value, str) else "arn:aws:iam::381492650173:role/deployer")


@pytest.mark.parametrize(
    "key, value, message",
    [
        (
            "aws:assumeRoles",
            [{"roleArn": "arn:aws:iam::381492650173:role/a"}, {"roleArn": "arn:aws:iam::381492650173:role/b"}],
            "aws:assumeRoles: chains several roles; kubectl's exec plugin (aws eks get-token --role-arn) assumes one. Assume the chain "
            "in a profile of ~/.aws/config and set aws:profile instead",
        ),
        (
            "aws:assumeRoles",
            [{"roleArn": "arn:aws:iam::381492650173:role/a", "externalId": "x"}],
            "aws:assumeRoles[0].externalId: cannot be passed to aws eks get-token, so kubectl would reach the cluster as another identity; "
            "put the role in a profile of ~/.aws/config and set aws:profile instead",
        ),
        (
            "aws:assumeRoles",
            [{"roleArn": "arn:aws:iam::123456789012:role/deployer"}],
            "aws:assumeRoles[0].roleArn = 'arn:aws:iam::123456789012:role/deployer': holds the placeholder account id 123456789012 "
            "(documentation example); use the ARN from your account",
        ),
        (
            "aws:assumeRole",
            {"roleArn": "deployer"},
            "aws:assumeRole.roleArn = 'deployer': must be an IAM role ARN such as arn:aws:iam::<account>:role/<name>",
        ),
        (
            "aws:profile",
            "my profile",
            "aws:profile = 'my profile': must be a profile name of ~/.aws/config (letters, digits and _ . @ + = -)",
        ),
    ],
)
def test_an_identity_kubectl_cannot_share_is_refused(key, value, message):
    config = stack_config("dev")
    config[key] = value
    with pytest.raises(ConfigError) as err:
        load_stack_config(config)
    assert [str(p) for p in err.value.problems] == [message]


def test_the_kubeconfig_carries_the_stacks_profile():

    from components.platform import LlmPlatform, LlmPlatformArgs

    config = stack_config("dev")
    config["aws:profile"] = "dev-admin"
    cfg = load_stack_config(config)
    seen = {}

    def program():
        platform = LlmPlatform("dev", LlmPlatformArgs(config=cfg))
        # Unwrapped inside the program only; every output of the engine shows it as [secret].
        return platform.kubeconfig.apply(lambda text: seen.update(kubeconfig=json.loads(text)))

    run_program(load_stack_file("dev"), program)
    plugin = seen["kubeconfig"]["users"][0]["user"]["exec"]
    assert plugin["env"] == [{"name": "AWS_PROFILE", "value": "dev-admin"}]
    assert plugin["args"][:2] == ["--region", "us-west-2"]


def test_a_kms_mirror_may_be_decrypted_through_s3_only():
    policy = s3_read_policy(
        "s3://bucket/prefix",
        "aws-cn",
        "arn:aws-cn:kms:cn-north-1:381492650173:key/1f6b2a4c-7d3e-4b5a-9c8d-0e1f2a3b4c5d",
        "cn-north-1",
        "amazonaws.com.cn",
    )
    read, listing, decrypt = policy["Statement"]
    assert read["Resource"] == "arn:aws-cn:s3:::bucket/prefix/*" and listing["Resource"] == "arn:aws-cn:s3:::bucket"
    assert decrypt == {
        "Sid": "DecryptMirror",
        "Effect": "Allow",
        "Action": "kms:Decrypt",
        "Resource": "arn:aws-cn:kms:cn-north-1:381492650173:key/1f6b2a4c-7d3e-4b5a-9c8d-0e1f2a3b4c5d",
        "Condition": {"StringEquals": {"kms:ViaService": "s3.cn-north-1.amazonaws.com.cn"}},
    }
    assert len(s3_read_policy("s3://bucket/prefix")["Statement"]) == 2


def test_prods_reader_gets_the_kms_key_from_its_source():
    config = stack_config("prod")
    source = next(m for m in config["llm-serving:models"] if m["name"] == "llama-70b")["source"]
    source["kmsKeyArn"] = KEY
    policy = json.loads(by_name(_run(config))["prod-llama-70b-s3-reader-read"].inputs["policy"])
    assert policy["Statement"][-1]["Resource"] == KEY
    assert policy["Statement"][-1]["Condition"] == {"StringEquals": {"kms:ViaService": "s3.us-east-1.amazonaws.com"}}


@pytest.mark.parametrize(
    "key, message",
    [
        (
            "arn:aws:kms:us-west-2:381492650173:key/1f6b2a4c-7d3e-4b5a-9c8d-0e1f2a3b4c5d",
            "kmsKeyArn is in us-west-2, the bucket in us-east-1: S3 uses a key of the bucket's region",
        ),
        (
            "arn:aws:kms:us-east-1:123456789012:key/1f6b2a4c-7d3e-4b5a-9c8d-0e1f2a3b4c5d",
            "kmsKeyArn holds the placeholder account id 123456789012 (documentation example); use the ARN from your account",
        ),
        (
            "arn:aws:kms:us-east-1:381492650173:alias/models",
            "kmsKeyArn must be an ARN such as arn:aws:kms:<region>:<account>:key/<key id>",
        ),
    ],
)
def test_a_bad_kms_key_is_refused_naming_the_field(key, message):
    config = stack_config("prod")
    index = next(i for i, m in enumerate(config["llm-serving:models"]) if m["name"] == "llama-70b")
    config["llm-serving:models"][index]["source"]["kmsKeyArn"] = key
    with pytest.raises(ConfigError) as err:
        load_stack_config(config)
    (problem,) = err.value.problems
    assert problem.path == f"models[{index}].source" and problem.rule == message


def test_kms_key_is_only_read_with_s3():
    config = copy.deepcopy(stack_config("dev"))
    config["llm-serving:models"][0]["source"] = {"type": "huggingface", "kmsKeyArn": KEY}
    with pytest.raises(ConfigError) as err:
        load_stack_config(config)
    assert "kmsKeyArn are not read with type huggingface" in str(err.value)
