"""What KServe v0.20.0 does with what we render, pinned by its source at that tag.

Each test names the upstream file and line (kserve/kserve, tag v0.20.0, commit
1fb781055dd1567164358233e1125142ca6ef1fe, as in ../shared/charts/PROVENANCE.md) whose behaviour the
rendered field must match.
"""

from __future__ import annotations

import copy

import pytest

from components.builders import addons, credentials, model_source
from components.builders import vllm_service as vllm
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    return cfg, plans, plan_pools(cfg.gpu_pools, cfg.models, plans)


def model(cfg, name):
    return next(m for m in cfg.models if m.name == name)


def test_hf_token_secret_key_is_kserves():
    # pkg/credentials/hf/hf_secret.go:24  HFTokenKey = "HF_TOKEN"; service_account_credentials.go:331 matches it.
    assert credentials.HF_TOKEN_KEY == "HF_TOKEN"
    secret = credentials.credentials_secret("llm", "hf-token")
    assert validate_object(secret) == []


def test_predictor_runs_as_a_service_account_that_lists_the_secret(prod):
    # pkg/credentials/service_account_credentials.go:261-266: KServe reads the credentials of the storage
    # initializer only from the Secrets listed on the predictor's ServiceAccount (default: "default").
    cfg, plans, pools = prod
    for name in ("chat-8b",):
        m = model(cfg, name)
        isvc = vllm.inference_service(m, plans[name], "llm", m.pool, "hf-token")
        account = isvc["spec"]["predictor"]["serviceAccountName"]
        sa = credentials.model_service_account(m, "llm", "hf-token")
        assert account == sa["metadata"]["name"] == f"{name}-model"
        assert sa["secrets"] == [{"name": "hf-token"}]
        assert validate_object(sa) == [] and validate_object(isvc) == []
    # An S3 model keeps its reader account (EKS Pod Identity), which the stack creates elsewhere.
    for name, reader in (("llama-70b", "model-reader"), ("qwen3-32b", "qwen3-model-reader")):
        m = model(cfg, name)
        isvc = vllm.inference_service(m, plans[m.name], "llm", m.pool, "hf-token")
        assert isvc["spec"]["predictor"]["serviceAccountName"] == reader
        assert not credentials.needs_model_service_account(m)


def test_no_secret_listed_without_a_token(prod):
    cfg, _, _ = prod
    assert "secrets" not in credentials.model_service_account(model(cfg, "chat-8b"), "llm", None)


def test_cache_names_the_service_account_its_download_job_reads(prod):
    # pkg/controller/v1alpha1/localmodelnode/controller.go:173-179: credentials are injected into the download
    # job only when the cache names a ServiceAccount (or storage); :266-272 looks it up in the job namespace.
    cfg, plans, _ = prod
    m = model(cfg, "chat-8b")
    cache = model_source.local_model_cache(m, plans[m.name].model.checkpoint_gib, credentials.model_service_account_name(m))
    assert cache["spec"]["serviceAccountName"] == "chat-8b-model"
    assert validate_object(cache) == []
    assert "serviceAccountName" not in model_source.local_model_cache(m, plans[m.name].model.checkpoint_gib)["spec"]
    # The job namespace: kserve-resources values kserve.localmodel.jobNamespace (no chart creates it).
    assert credentials.LOCALMODEL_JOB_NAMESPACE == "kserve-localmodel-jobs"
    assert validate_object(credentials.localmodel_job_namespace()) == []


def test_local_model_is_enabled_on_the_release_that_renders_inferenceservice_config():
    # charts/kserve-resources/files/common/configmap-patch.yaml:120-122 renders localModel.enabled from
    # .Values.kserve.localmodel.enabled; kserve-localmodel-resources never reads it (values-used.tsv).
    releases = {
        r["name"]: r for r in addons.addon_releases(load_stack_config(stack_config("prod")).addons, local_model_cache=True)
    }
    assert releases["kserve"]["values"]["kserve"]["localmodel"] == {"enabled": True}
    assert "localmodel" not in releases["kserve-localmodel"]["values"]["kserve"]
    assert "localmodel" not in addons.kserve_values()["kserve"]


def test_kserve_creates_no_ingress_where_the_stack_routes_itself():
    # pkg/controller/v1beta1/inferenceservice/reconcilers/ingress/kube_ingress_reconciler.go:106 creates an
    # Ingress per InferenceService unless ingressConfig.DisableIngressCreation (pkg/apis/serving/v1beta1/
    # configmap.go:131), which configmap-patch.yaml:89 renders from kserve.controller.gateway.disableIngressCreation.
    assert addons.kserve_values(routes_itself=True)["kserve"]["controller"]["gateway"] == {"disableIngressCreation": True}
    assert "gateway" not in addons.kserve_values()["kserve"]["controller"]


def test_deployment_mode_is_the_one_the_webhook_keeps(prod):
    # pkg/apis/serving/v1beta1/inference_service_defaults.go:168-170 rewrites "RawDeployment" to "Standard"
    # (pkg/constants/constants.go:564 marks it deprecated), so writing it drifts after a refresh.
    cfg, plans, _ = prod
    for m in cfg.models:
        if m.distributed is None:
            isvc = vllm.inference_service(m, plans[m.name], "llm", m.pool, None)
            assert isvc["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] == "Standard"
    assert addons.kserve_values()["kserve"]["controller"]["deploymentMode"] == "Standard"


def test_node_group_volume_is_the_agents_fixed_host_path(prod):
    # charts/kserve-localmodel-resources/files/resources.yaml:384-386: the node agent DaemonSet mounts
    # hostPath /models (type DirectoryOrCreate); no value of the chart changes it (values-used.tsv).
    _, _, pools = prod
    group = model_source.local_model_node_group(pools["l40s"])
    assert group["spec"]["persistentVolumeSpec"]["local"]["path"] == "/models"
    assert validate_object(group) == []


def test_cache_nodes_bind_mount_the_agents_path_onto_the_nvme_before_the_kubelet(prod):
    # amazon-eks-ami v20260724 nodeadm/cmd/nodeadm/init/init.go:140-152: the RAID0 (local-disk aspect) is set up
    # in the run phase just before the kubelet starts, after cloud-init's scripts (nodeadm-run.service
    # After=cloud-final.service), so the bind mount goes in a kubelet ExecStartPre. Karpenter v1.14.1 merges a
    # MIME archive as is (pkg/providers/amifamily/bootstrap/nodeadm.go:133-140).
    from components.builders import karpenter

    cfg, _, pools = prod
    pool = next(p for p in cfg.gpu_pools if p.name == "l40s")
    node_class = karpenter.ec2_node_class(pool, pools["l40s"], "llm-prod", "role")
    user_data = node_class["spec"]["userData"]
    assert user_data.startswith("MIME-Version: 1.0\n")
    assert "ExecStartPre=/bin/sh -c" in user_data and "mount --bind /mnt/k8s-disks/0/kserve-models /models" in user_data
    # The node agent runs as the download Job's user (model_source.agent_user_patch, below) and MkdirAlls
    # <mount>/models at start (pkg/controller/v1alpha1/localmodelnode/file_utils.go:76-81): the folder it mounts
    # must be its own.
    patch = model_source.agent_user_patch("kserve")["spec"]["template"]["spec"]["securityContext"]
    assert (
        f"chown {patch['runAsUser']}:{patch['runAsGroup']} /mnt/k8s-disks/0/kserve-models && (mountpoint -q /models" in user_data
    )
    assert node_class["spec"]["instanceStorePolicy"] == "RAID0"
    assert validate_object(node_class) == []
    h100 = next(p for p in cfg.gpu_pools if p.name == "h100")
    assert "userData" not in karpenter.ec2_node_class(h100, pools["h100"], "llm-prod", "role")["spec"]


def test_cache_pool_lets_the_download_job_schedule(prod):
    # pkg/controller/v1alpha1/localmodelnode/controller.go:191-210: the download Job selects the node by
    # kubernetes.io/hostname and sets no tolerations; platform_default.go:32 enhanceDownloadJob adds none.
    # A NoSchedule GPU taint would keep it Pending, so cache pools use PreferNoSchedule (with the S11 exemption).
    from components.builders import karpenter

    cfg, _, pools = prod
    pool = next(p for p in cfg.gpu_pools if p.name == "l40s")
    node_pool = karpenter.node_pool(pool, pools["l40s"])
    assert node_pool["spec"]["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "PreferNoSchedule"}
    ]
    assert node_pool["metadata"]["annotations"]["llm-serving.io/exempt-karpenter-gpu-nodepool-tainted"]


def test_local_cache_on_bottlerocket_is_refused(prod_config):
    raw = copy.deepcopy(prod_config)
    raw["llm-serving:gpuPools"][0]["amiAlias"] = "bottlerocket@1.55.0"
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert "models[0].source.type = 'localCache': localCache needs the host path /models" in str(err.value)


def test_the_node_agent_runs_as_the_download_jobs_user_so_it_can_clean_the_cache():
    """Review finding 6. The download Job writes as the storage-initializer image's user 1000
    (python/storage-initializer.Dockerfile:55, 68: the Job sets no runAsUser, only fsGroup from inferenceservice-config
    localModel.fsGroup, pkg/controller/v1alpha1/localmodelnode/controller.go:191-211, rendered from the kserve chart's
    kserve.localmodel.securityContext.fsGroup, configmap-patch.yaml:126) in 0755 folders; the agent deletes a model with
    os.RemoveAll (file_utils.go:48-50), which needs write access to each. The agent's DaemonSet sets no runAsUser
    (charts/kserve-localmodel-resources/files/resources.yaml:363-380) and no template reads the chart's
    kserve.localmodel.agent.securityContext.runAsUser (values-used.tsv), so a patch of the DaemonSet makes it 1000."""
    import yaml

    from tests.conftest import shared_path

    patch = model_source.agent_user_patch("kserve")
    assert (patch["kind"], patch["metadata"]["name"], patch["metadata"]["namespace"]) == (
        "DaemonSet",
        "kserve-localmodelnode-agent",  # files/resources.yaml:318-326
        "kserve",
    )
    context = patch["spec"]["template"]["spec"]["securityContext"]
    assert set(patch["spec"]) == {"template"} and set(context) == {"runAsUser", "runAsGroup"}  # nothing else is ours
    # The Job's user (the image's 1000) and group (the fsGroup the kserve chart renders, 1000 by default).
    kserve = yaml.safe_load(shared_path("charts", "kserve-resources", "v0.20.0", "values.yaml").read_text())["kserve"]
    assert context == {"runAsUser": 1000, "runAsGroup": kserve["localmodel"]["securityContext"]["fsGroup"]}
    assert "securityContext" not in (addons.kserve_values(True, False)["kserve"].get("localmodel") or {})
    # Merged into a DaemonSet of the chart's name and selector (files/resources.yaml:318-331), it is a valid object.
    merged = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": patch["metadata"],
        "spec": {
            "selector": {"matchLabels": {"control-plane": "kserve-localmodelnode-agent"}},
            "template": {
                "metadata": {"labels": {"control-plane": "kserve-localmodelnode-agent"}},
                "spec": {
                    "containers": [{"name": "manager", "image": "kserve/kserve-localmodelnode-agent"}],
                    **patch["spec"]["template"]["spec"],
                },
            },
        },
    }
    assert validate_object(merged) == []
    # If the chart starts reading the agent's securityContext, set the value instead of patching.
    used = shared_path("charts", "kserve-localmodel-resources", "v0.20.0", "values-used.tsv").read_text()
    assert "kserve.localmodel.agent.securityContext" not in used
