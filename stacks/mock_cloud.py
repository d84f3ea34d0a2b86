"""What the offline plan's mock engine answers for cloud lookups and computed outputs.

The program looks the EKS cluster up by name (``aws:eks/getCluster:getCluster``) and reads
outputs AWS computes (a role's ARN, a queue's URL). Offline there is no AWS: these answers are
plausible, deterministic stand-ins in the shapes AWS returns, derived from the request alone,
so the same stack always renders the same files. The account id is AWS's documentation
example account (123456789012).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Mapping

ACCOUNT_ID = "123456789012"
PARTITION = "aws"
# A certificate-shaped placeholder: the kubeconfig built from it is a secret and never written.
_CA_PEM = b"-----BEGIN CERTIFICATE-----\nMIIC/offline-plan-placeholder/\n-----END CERTIFICATE-----\n"


def _hex(*parts: str, n: int = 32) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n].upper()


def eks_cluster(name: str, region: str) -> dict[str, Any]:
    """An ``aws.eks.get_cluster`` result for cluster ``name`` (camelCase wire names)."""
    endpoint_id = _hex(name, region)
    return {
        "id": name,
        "name": name,
        "arn": f"arn:{PARTITION}:eks:{region}:{ACCOUNT_ID}:cluster/{name}",
        "endpoint": f"https://{endpoint_id}.gr7.{region}.eks.amazonaws.com",
        "certificateAuthorities": [{"data": base64.b64encode(_CA_PEM).decode()}],
        "status": "ACTIVE",
        "version": "1.33",
        "platformVersion": "eks.10",
        "roleArn": f"arn:{PARTITION}:iam::{ACCOUNT_ID}:role/{name}-cluster",
        "accessConfigs": [{"authenticationMode": "API_AND_CONFIG_MAP", "bootstrapClusterCreatorAdminPermissions": True}],
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{region}.amazonaws.com/id/{endpoint_id}"}]}],
        "vpcConfig": {
            "clusterSecurityGroupId": f"sg-{_hex(name, 'sg', n=17).lower()}",
            "vpcId": f"vpc-{_hex(name, 'vpc', n=17).lower()}",
            "subnetIds": [f"subnet-{_hex(name, z, n=17).lower()}" for z in ("a", "b", "c")],
            "endpointPrivateAccess": True,
            "endpointPublicAccess": False,
        },
        "tags": {},
    }


def invoke(token: str, args: Mapping[str, Any], region: str) -> dict[str, Any]:
    """The answer to one provider function call (an empty result for functions nobody mocks)."""
    if token == "aws:eks/getCluster:getCluster":
        return eks_cluster(str(args.get("name", "")), region)
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {
            "accountId": ACCOUNT_ID,
            "arn": f"arn:{PARTITION}:iam::{ACCOUNT_ID}:user/offline",
            "id": ACCOUNT_ID,
            "userId": "AIDAOFFLINE",
        }
    if token == "aws:index/getPartition:getPartition":
        return {"partition": PARTITION, "dnsSuffix": "amazonaws.com", "id": PARTITION}
    if token == "aws:index/getRegion:getRegion":
        # The region of the provider the call went to (offline: the stack's aws:region, or an explicit provider's).
        return {"region": region, "name": region, "id": region, "endpoint": f"ec2.{region}.amazonaws.com", "description": region}
    return {}


def physical_id(type_: str, name: str) -> str:
    """A resource's id: AWS's own shape where something validates it (a security group id in an EC2NodeClass)."""
    if type_ == "aws:ec2/securityGroup:SecurityGroup":
        return f"sg-{_hex(name, 'sg', n=17).lower()}"
    return f"{name}-id"


def computed_outputs(type_: str, name: str, inputs: Mapping[str, Any], region: str) -> dict[str, Any]:
    """Outputs AWS computes for a resource, added to its inputs by the mock engine."""
    physical = str(inputs.get("name") or name)
    if type_ == "aws:iam/role:Role":
        return {"arn": f"arn:{PARTITION}:iam::{ACCOUNT_ID}:role/{physical}", "uniqueId": f"AROA{_hex(physical, n=17)}"}
    if type_ == "aws:iam/policy:Policy":
        return {"arn": f"arn:{PARTITION}:iam::{ACCOUNT_ID}:policy/{physical}"}
    if type_ == "aws:sqs/queue:Queue":
        return {
            "arn": f"arn:{PARTITION}:sqs:{region}:{ACCOUNT_ID}:{physical}",
            "url": f"https://sqs.{region}.amazonaws.com/{ACCOUNT_ID}/{physical}",
        }
    if type_ == "aws:cloudwatch/eventRule:EventRule":
        return {"arn": f"arn:{PARTITION}:events:{region}:{ACCOUNT_ID}:rule/{physical}"}
    return {}
