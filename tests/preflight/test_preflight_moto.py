"""`python -m stacks preflight` end to end against a real AWS API emulation (issue 31).

moto in server mode (its own process on 127.0.0.1, one for the session) holds the account: the VPC, subnets, route
tables, security groups, the EKS cluster, IAM roles, the ACM certificate, the WAF web ACL, the S3 mirror. The stand-in
of tests/preflight/aws_emulation.py answers only what moto 5.x lacks (EKS add-ons and access entries, the cluster's
access config, capacity reservations, Service Quotas for EC2) and forwards the rest. Preflight runs as the CLI does
(`stacks.__main__.main`, or a subprocess where the time bound is measured), with credentials from the environment and
AWS_ENDPOINT_URL pointing at the stand-in. tests/preflight/test_preflight.py keeps the exact call shapes (Stubber).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import boto3
import pytest
import yaml
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from stacks import preflight as pf
from stacks import preflight_aws
from stacks.__main__ import main
from tests.conftest import ROOT
from tests.preflight.aws_emulation import MotoServer, SilentEndpoint, StandIn, aws_env, free_port

# The account of the prod stack's ARNs (the stack file refuses the documentation example 123456789012).
REGION, ACCOUNT, CLUSTER = "us-east-1", "381492650173", "llm-prod"
ELB = "kubernetes.io/role/elb"
DISCOVERY = "karpenter.sh/discovery"


@pytest.fixture(scope="session")
def emulation() -> Iterator[StandIn]:
    """moto_server and the stand-in, once for the session."""
    moto = MotoServer(ACCOUNT)
    standin = StandIn(moto)
    try:
        yield standin
    finally:
        standin.stop()
        moto.stop()


_CERTS: dict[str, tuple[bytes, bytes]] = {}
_SETUP_CLIENTS: dict[tuple[str, str], Any] = {}


def _self_signed(name: str) -> tuple[bytes, bytes]:
    """A self-signed certificate and key for ``name`` (made once per name)."""
    if name not in _CERTS:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import NameOID

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(1)
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .sign(key, hashes.SHA256())
        )
        pem_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        _CERTS[name] = (cert.public_bytes(serialization.Encoding.PEM), pem_key)
    return _CERTS[name]


class Account:
    """A prod-ready account in the emulation; tests break one thing, then run preflight on it."""

    def __init__(self, standin: StandIn, tmp_path: Path):
        self.standin, self.tmp = standin, tmp_path
        self.env = aws_env(standin.url, str(tmp_path))
        self.stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
        self.cluster_version = "1.33"
        self.cert_name = "*.llm.example.com"
        self.create_web_acl = True
        self.discovery_subnets = True
        self.elb_tags = True
        self.public_route = False  # a route to an internet gateway for the (untagged) public subnets
        self.mirror_objects = True
        self.taken_roles: list[str] = []
        self.admin = True
        # The vpc-cni add-on's configuration values (None: no managed vpc-cni add-on); EKS keeps them as given.
        self.vpc_cni_values: str | None = '{"enableNetworkPolicy": "true"}'

    def client(self, service: str) -> Any:
        """A client of the emulation for setting the account up (made once per service: creating one takes ~0.1 s)."""
        key = (service, self.standin.url)
        if key not in _SETUP_CLIENTS:
            session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION)
            _SETUP_CLIENTS[key] = session.client(service, endpoint_url=self.standin.url)
        return _SETUP_CLIENTS[key]

    def build(self) -> Path:
        """Create the account's resources in moto and the stand-in; returns the stack file to check."""
        ec2 = self.client("ec2")
        vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        self.standin.vpc_id = vpc
        private, public = [], []
        for i, zone in enumerate(("us-east-1a", "us-east-1b")):
            private.append(
                ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i + 1}.0/24", AvailabilityZone=zone)["Subnet"]["SubnetId"]
            )
            public.append(
                ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i + 101}.0/24", AvailabilityZone=zone)["Subnet"]["SubnetId"]
            )
        if self.discovery_subnets:
            ec2.create_tags(Resources=private, Tags=[{"Key": DISCOVERY, "Value": CLUSTER}])
        if self.elb_tags:
            ec2.create_tags(Resources=public, Tags=[{"Key": ELB, "Value": "1"}])
        if self.public_route:
            igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
            ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
            table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
            ec2.create_route(RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw)
            for subnet in public:
                ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
        sg = ec2.create_security_group(GroupName="eks-cluster-sg", Description="cluster", VpcId=vpc)["GroupId"]
        ec2.create_tags(Resources=[sg], Tags=[{"Key": DISCOVERY, "Value": CLUSTER}])
        self.client("eks").create_cluster(
            name=CLUSTER,
            version=self.cluster_version,
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/eks-cluster",
            resourcesVpcConfig={"subnetIds": private + public, "securityGroupIds": [sg]},
        )
        self.standin.reservations = [
            {
                "id": "cr-0123456789abcdef0",
                "type": "p5.48xlarge",
                "zone": "us-east-1a",
                "state": "active",
                "count": 2,
                "tags": {"llm-serving.io/cluster": CLUSTER},
            }
        ]
        cert, key = _self_signed(self.cert_name)
        cert_arn = self.client("acm").import_certificate(Certificate=cert, PrivateKey=key)["CertificateArn"]
        waf = self.client("wafv2")
        if self.create_web_acl:
            acl_arn = waf.create_web_acl(
                Name="llm-prod",
                Scope="REGIONAL",
                DefaultAction={"Allow": {}},
                VisibilityConfig={"SampledRequestsEnabled": True, "CloudWatchMetricsEnabled": True, "MetricName": "llm-prod"},
            )["Summary"]["ARN"]
        else:
            acl_arn = f"arn:aws:wafv2:{REGION}:{ACCOUNT}:regional/webacl/llm-prod/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3"
        s3 = self.client("s3")
        s3.create_bucket(Bucket="llm-prod-models")
        if self.mirror_objects:
            # Every S3 model of the stack file (llama-70b and qwen3-32b) is mirrored in llm-prod-models.
            for m in self.stack["config"]["llm-serving:models"]:
                source = m.get("source") or {}
                if source.get("type") == "s3":
                    bucket, _, prefix = source["uri"].removeprefix("s3://").partition("/")
                    s3.put_object(Bucket=bucket, Key=f"{prefix}/config.json", Body=b"{}")
        iam = self.client("iam")
        for role in self.taken_roles:
            iam.create_role(RoleName=role, AssumeRolePolicyDocument="{}")
        # Preflight runs as an assumed role (the usual SSO / CI case): its access entry names the role, not the session.
        trust = json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "sts:AssumeRole"}],
            }
        )
        deployer = iam.create_role(RoleName="deployer", Path="/platform/", AssumeRolePolicyDocument=trust)["Role"]["Arn"]
        creds = self.client("sts").assume_role(RoleArn=deployer, RoleSessionName="jane")["Credentials"]
        self.env.update(
            AWS_ACCESS_KEY_ID=creds["AccessKeyId"],
            AWS_SECRET_ACCESS_KEY=creds["SecretAccessKey"],
            AWS_SESSION_TOKEN=creds["SessionToken"],
        )
        if self.admin:
            admin = {"policyArn": pf.CLUSTER_ADMIN_POLICY, "accessScope": {"type": "cluster", "namespaces": []}}
            self.standin.access_entries[deployer] = [admin]
        if self.vpc_cni_values is not None:
            # moto 5.x has no EKS add-ons (moto/eks/responses.py): the stand-in answers DescribeAddon.
            self.standin.addons["vpc-cni"] = {
                "status": "ACTIVE",
                "addonVersion": "v1.20.4-eksbuild.2",
                **({"configurationValues": self.vpc_cni_values} if self.vpc_cni_values else {}),
            }
        config = self.stack["config"]
        config["llm-serving:ingress"]["certificateArn"] = cert_arn
        config["llm-serving:ingress"]["wafAclArn"] = acl_arn
        for m in config["llm-serving:models"]:
            if m.get("slo", {}).get("traffic"):
                m["slo"]["traffic"] = str(ROOT / "examples" / "traffic" / Path(m["slo"]["traffic"]).name)
        path = self.tmp / "Pulumi.prod.yaml"
        path.write_text(yaml.safe_dump(self.stack, sort_keys=False))
        return path


@pytest.fixture
def account(emulation: StandIn, tmp_path: Path) -> Account:
    emulation.moto.reset()
    emulation.reset()
    return Account(emulation, tmp_path)


def preflight(account: Account, monkeypatch, capsys, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], float]:
    """Build the account, run `python -m stacks preflight FILE --format json` in-process; (exit code, JSON, seconds)."""
    stack = account.build()
    for key in [k for k in __import__("os").environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    for key, value in (env or account.env).items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    started = time.monotonic()
    code = main(["preflight", str(stack), "--format", "json"])
    elapsed = time.monotonic() - started
    out = capsys.readouterr().out
    return code, json.loads(out), elapsed


def rows(doc: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c["check"]: c for c in doc["checks"]}


def missing(doc: dict[str, Any]) -> list[str]:
    return [c["check"] for c in doc["checks"] if c["result"] == pf.MISSING]


def test_a_ready_account_passes(account, monkeypatch, capsys):
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert missing(doc) == [] and code == 0, doc
    assert doc["account"] == ACCOUNT and doc["ok"] is True
    r = rows(doc)
    assert r["Kubernetes version"]["detail"] == "1.33 = cluster.kubernetesVersion (at least 1.30)"
    assert (
        r["cluster-admin access"]["detail"]
        == f"arn:aws:iam::{ACCOUNT}:role/deployer has AmazonEKSClusterAdminPolicy (cluster scope)"
    )
    assert r["ALB subnets (internet-facing)"]["detail"].startswith(f"2 public subnets tagged {ELB} in us-east-1a, us-east-1b")
    assert r["ingress certificate"]["detail"] == "*.llm.example.com ISSUED, covers 4 host(s) under llm.example.com"
    assert r["WAF web ACL"]["detail"].startswith("llm-prod exists in us-east-1")
    assert r["S3 reader roles"]["detail"] == "llm-serving-llm-prod-llama-70b-s3, llm-serving-llm-prod-qwen3-32b-s3 free"
    assert r["pool h100: capacity reservations"]["detail"] == "1 active (2 instances)"
    assert r["Prometheus Operator CRDs"]["result"] == pf.UNCHECKED
    assert r["VPC CNI network policy agent"]["detail"] == (
        'add-on vpc-cni v1.20.4-eksbuild.2, enableNetworkPolicy: "true": the agent enforces the 7 NetworkPolicies'
    )
    assert r["model llama-70b: S3 mirror"]["result"] == pf.OK
    # The stand-in answered only what moto lacks; the rest was moto's.
    assert set(account.standin.calls) == {
        "eks DescribeAddon",
        "eks ListAccessEntries",
        "eks ListAssociatedAccessPolicies",
        "ec2 DescribeCapacityReservations",
        "service-quotas GetServiceQuota",
    }


def test_an_unreachable_endpoint_is_a_row_and_exit_1(account, monkeypatch, capsys):
    closed = f"http://127.0.0.1:{free_port()}"
    code, doc, elapsed = preflight(account, monkeypatch, capsys, env=account.env | {"AWS_ENDPOINT_URL": closed})
    assert code == 1 and elapsed < 10, elapsed
    first = doc["checks"][0]
    assert first["check"] == "AWS credentials" and first["result"] == pf.MISSING
    assert first["detail"] == (
        f"could not reach sts at {closed}: EndpointConnectionError after 2 attempts (connection refused, or the host name "
        "did not resolve)"
    )
    assert first["fix"].startswith(f"check the network path to {closed} (VPN, proxy, firewall, AWS_ENDPOINT_URL*)")
    # Every other service shares the endpoint: named once, not tried again.
    cluster = rows(doc)["EKS cluster llm-prod"]
    assert cluster["detail"] == f"could not reach eks at {closed}: EndpointConnectionError earlier in this run; not tried again"
    assert {c["result"] for c in doc["checks"]} <= {pf.MISSING, pf.SKIPPED, pf.UNCHECKED}


def test_a_silent_endpoint_ends_within_20_seconds_with_json(account, tmp_path):
    """A socket that accepts and never answers: the real CLI in a subprocess, timed from its start."""
    silent = SilentEndpoint()
    try:
        stack = account.build()
        env = account.env | {"AWS_ENDPOINT_URL": silent.url}
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "stacks", "preflight", str(stack), "--format", "json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        elapsed = time.monotonic() - started
    finally:
        silent.close()
    assert proc.returncode == 1, proc.stderr
    assert elapsed < 20, elapsed
    doc = json.loads(proc.stdout)
    first = doc["checks"][0]
    assert (
        first["detail"]
        == f"could not reach sts at {silent.url}: ReadTimeoutError after 2 attempts (connected, no answer within 5 s)"
    )
    assert doc["ok"] is False and doc["account"] == "unknown"
    assert "Traceback" not in proc.stderr


def test_a_1_29_cluster(account, monkeypatch, capsys):
    account.cluster_version = "1.29"
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["Kubernetes version"]
    row = rows(doc)["Kubernetes version"]
    assert row["detail"] == "1.29 is older than 1.30: the pods' preStop sleep action needs 1.30 (cluster.kubernetesVersion 1.33)"
    assert row["fix"].startswith("aws eks update-cluster-version --name llm-prod --kubernetes-version 1.33")


def test_a_cluster_newer_than_the_config(account, monkeypatch, capsys):
    account.cluster_version = "1.34"
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and rows(doc)["Kubernetes version"]["fix"] == 'set llm-serving:cluster.kubernetesVersion: "1.34"'


def test_a_certificate_for_another_name(account, monkeypatch, capsys):
    account.cert_name = "*.other.example.com"
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["ingress certificate"]
    row = rows(doc)["ingress certificate"]
    assert row["detail"].startswith("names *.other.example.com do not cover chat-8b.llm.example.com, ")
    assert "--domain-name '*.llm.example.com'" in row["fix"]


def test_a_missing_web_acl(account, monkeypatch, capsys):
    account.create_web_acl = False
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["WAF web ACL"]
    assert rows(doc)["WAF web ACL"]["detail"] == "no web ACL llm-prod (3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3) in us-east-1"


def test_a_taken_reader_role_name(account, monkeypatch, capsys):
    account.taken_roles = ["llm-serving-llm-prod-llama-70b-s3"]
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["S3 reader roles"]
    assert rows(doc)["S3 reader roles"]["detail"].startswith(
        "IAM role llm-serving-llm-prod-llama-70b-s3 (model llama-70b) exists"
    )


def test_private_only_subnets_for_an_internet_facing_alb(account, monkeypatch, capsys):
    account.elb_tags = False  # no role tag, and no subnet routes to an internet gateway
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["ALB subnets (internet-facing)"]
    row = rows(doc)["ALB subnets (internet-facing)"]
    assert row["detail"].startswith("no public subnet in vpc-")
    assert f"Key={ELB},Value=1" in row["fix"]


def test_untagged_public_subnets_are_found_by_their_routes(account, monkeypatch, capsys):
    """The controller's fallback (subnet_resolver.go:199-204): no role tag, but a route to an internet gateway."""
    account.elb_tags, account.public_route = False, True
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 0, missing(doc)
    detail = rows(doc)["ALB subnets (internet-facing)"]["detail"]
    assert detail == "2 public subnets untagged, with a route to an internet gateway in us-east-1a, us-east-1b"


def test_no_subnets(account, monkeypatch, capsys):
    account.discovery_subnets = False
    code, doc, _ = preflight(account, monkeypatch, capsys)
    r = rows(doc)
    assert code == 1 and r["subnets"]["result"] == pf.MISSING
    # Nothing to compare the reservation's zone with: not ok.
    assert r["pool h100: capacity reservations"]["result"] == pf.SKIPPED
    assert r["pool h100: capacity reservations"]["detail"] == "1 active in us-east-1a; no subnets found to compare zones"


def test_no_cluster_admin_access_entry(account, monkeypatch, capsys):
    account.admin = False
    account.standin.authentication_mode = "API"
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["cluster-admin access"]
    row = rows(doc)["cluster-admin access"]
    assert row["detail"].startswith(f"arn:aws:iam::{ACCOUNT}:role/deployer has no access entry")
    assert "--access-scope type=cluster" in row["fix"]


def test_with_config_map_too_a_missing_entry_is_checked_by_hand(account, monkeypatch, capsys):
    account.admin = False
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 0 and rows(doc)["cluster-admin access"]["result"] == pf.UNCHECKED


def test_throttling_is_a_row(account, monkeypatch, capsys):
    account.standin.throttle = {"servicequotas"}
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1
    row = rows(doc)["vCPU quotas"]
    assert row["detail"].startswith("could not reach service-quotas at ") and "throttled (ThrottlingException)" in row["detail"]
    assert row["fix"].startswith("run preflight again in a minute")


def test_an_agent_installed_already_and_an_empty_mirror(account, monkeypatch, capsys):
    account.standin.addons["eks-pod-identity-agent"] = {"status": "ACTIVE", "addonVersion": "v1.3.8-eksbuild.2"}
    account.mirror_objects = False
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["EKS Pod Identity Agent", "model qwen3-32b: S3 mirror", "model llama-70b: S3 mirror"]


def test_network_policies_on_a_cluster_whose_vpc_cni_leaves_the_agent_off(account, monkeypatch, capsys):
    # prod renders 7 NetworkPolicies (routing istio); amazon-vpc-cni-k8s v1.23.0 charts/aws-vpc-cni/values.yaml:126
    # leaves enableNetworkPolicy "false" unless the add-on's configuration values say "true".
    account.vpc_cni_values = '{"enableNetworkPolicy": "false", "env": {"WARM_IP_TARGET": "5"}}'
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["VPC CNI network policy agent"]
    row = rows(doc)["VPC CNI network policy agent"]
    assert row["detail"] == (
        'add-on vpc-cni v1.20.4-eksbuild.2, enableNetworkPolicy: "false": the 7 NetworkPolicies this stack renders would '
        "be accepted and not enforced"
    )
    assert row["fix"].startswith(
        "aws eks update-addon --cluster-name llm-prod --addon-name vpc-cni --region us-east-1 "
        """--configuration-values '{"enableNetworkPolicy": "true"}'"""
    )


def test_network_policies_on_a_cluster_without_the_vpc_cni_add_on(account, monkeypatch, capsys):
    account.vpc_cni_values = None
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["VPC CNI network policy agent"]
    assert rows(doc)["VPC CNI network policy agent"]["detail"].startswith("no vpc-cni add-on: the self-managed VPC CNI")


def test_a_zero_quota(account, monkeypatch, capsys):
    account.standin.quotas["L-417A185B"] = 0.0
    code, doc, _ = preflight(account, monkeypatch, capsys)
    assert code == 1 and missing(doc) == ["quota Running On-Demand P instances"]


def test_no_credentials_and_bad_input_are_json_too(account, monkeypatch, capsys, tmp_path):
    env = {k: v for k, v in account.env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    code, doc, _ = preflight(account, monkeypatch, capsys, env=env)
    assert code == 2 and doc["command"] == "stacks preflight" and doc["exit"] == 2
    assert doc["error"].startswith("no AWS credentials found.")
    code = main(["preflight", str(tmp_path / "Pulumi.nope.yaml"), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and "no stack file" in doc["error"]
    code = main(["preflight", "prod", "--format", "json", "--bogus"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["error"] == "unrecognized arguments: --bogus"


def test_botocore_makes_exactly_the_documented_attempts():
    """total_max_attempts: 2 is two requests in all (botocore/config.py, retries/standard.py:451), not three."""
    closing = SilentEndpoint(hang_up=True)
    try:
        session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION)
        clients = pf.Clients(session, REGION)
        clients.put("sts", session.client("sts", endpoint_url=closing.url, config=preflight_aws.client_config()))
        with pytest.raises(preflight_aws.Unreachable, match=r"ConnectionClosedError after 2 attempts"):
            preflight_aws.caller_identity(clients)
        assert closing.accepted == preflight_aws.ATTEMPTS == 2
        # The endpoint is not tried again in the same run.
        with pytest.raises(preflight_aws.Unreachable, match=r"not tried again"):
            clients("sts").get_caller_identity()
        assert closing.accepted == 2
    finally:
        closing.close()


def test_after_a_failure_new_endpoints_are_tried_only_within_the_cutoff():
    """The time bound: once an endpoint failed, a service not contacted yet is skipped after NEW_ENDPOINT_CUTOFF_S."""
    now = [0.0]
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION)
    clients = pf.Clients(session, REGION, clock=lambda: now[0])
    clients.failed["http://127.0.0.1:1"] = "ReadTimeoutError after 2 attempts"
    iam = clients("iam")
    now[0] = preflight_aws.NEW_ENDPOINT_CUTOFF_S + 0.1
    with pytest.raises(preflight_aws.Unreachable, match=r"not tried: http://127.0.0.1:1 did not answer"):
        iam.get_role(RoleName="x")
    # An endpoint that has answered in this run is still asked.
    clients.answered.add(str(session.client("iam").meta.endpoint_url))
    stub = Stubber(clients._clients[("iam", REGION)])
    stub.add_client_error("get_role", "NoSuchEntity", "no", 404)
    stub.activate()
    with pytest.raises(ClientError):
        iam.get_role(RoleName="x")
