"""Names and versions that the stack configuration documents and the builders render.

Plain constants with no imports, so the config (which describes them to the user) and the
builders and tools (which put them in manifests, tags and Helm releases) read one value, and the
config never reaches up into the builders for it.
"""

# Karpenter's discovery tag (its getting-started guide tags the cluster's subnets and node security group with it).
DISCOVERY_TAG = "karpenter.sh/discovery"
# The tag EKS puts on the cluster security group it creates (value: the cluster name).
EKS_CLUSTER_NAME_TAG = "aws:eks:cluster-name"
# The kuberay-operator Helm chart the platform installs (ray-project/kuberay v1.7.0, helm-chart/kuberay-operator).
KUBERAY_CHART_VERSION = "1.7.0"
