"""Kubernetes objects and Helm releases declared in Pulumi programs are read (policies/reading/pulumi_program.py).

Firing forms (reduced from third-party programs):
- pulumi/example-ai.cluster@8d8f82e850224e818f17bfacb7def4eb528d5018 infra/app-llms/index.ts (spent set 123): a vLLM
  StatefulSet on ``vllm/vllm-openai:latest`` whose namespace and serviceName are other resources' names
  (``ns.metadata.name``, ``svc.metadata.name``), an internet-facing ALB Ingress whose annotations are an ``.apply``
  of the Service's name and whose host is a template string of an imported value; infra/eks-karpenter-gpu-nodes/index.ts:
  Karpenter ``v1beta1`` NodePools declared as ``apiextensions.CustomResource`` in a ``for ... of`` loop over a const
  list of instance types (one NodePool per item, without an nvidia.com/gpu limit).
- Atharva-Phatak/dharma@549a1a76f288790e004421c9476e5f3088914bf5 infrastructure/components/vllm/deploy_vllm.py: a
  Python ``helm.v3.Chart("vllm-stack", ChartOpts(chart=..., version=..., fetch_opts=FetchOpts(repo=...), values={...}))``
  whose model's KEDA autoscaling has ``minReplicaCount: 0``.
Careful forms that stay silent: the image pinned through a const, a program with no Kubernetes resource, a file that
imports no provider (never parsed: the parser is not even imported), installed packages under node_modules. Every
finding on a Pulumi object is advice; a program that does not parse is S27's advice, never a crash.
"""

from __future__ import annotations

import json
import subprocess
import sys

from policies.manifests import read_manifests
from tests.conftest import check_in_process

APP_TS = """\
import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { clusterPetName } from '../lib/clusterIdentity';

const config = new pulumi.Config();
const image = 'IMAGE';
const ns = new k8s.core.v1.Namespace('llms');

const secretConfig = new k8s.core.v1.Secret('config', {
  metadata: { namespace: ns.metadata.name },
  stringData: { HUGGING_FACE_HUB_TOKEN: config.requireSecret('huggingFaceHubToken') },
});

const svc = new k8s.core.v1.Service('vllm', {
  metadata: { namespace: ns.metadata.name },
  spec: { selector: { app: 'vllm' }, ports: [{ name: 'http', port: 8000, targetPort: 8000 }] },
});

new k8s.apps.v1.StatefulSet('vllm', {
  metadata: { namespace: ns.metadata.name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'vllm' } },
    serviceName: svc.metadata.name,
    template: {
      metadata: { labels: { app: 'vllm' } },
      spec: {
        containers: [
          {
            name: 'vllm-container',
            image,
            args: ['--model=TheBloke/Nous-Hermes-2-Mixtral-8x7B-DPO-GPTQ', '--tensor-parallel-size=4'],
            envFrom: [{ secretRef: { name: secretConfig.metadata.name } }],
            ports: [{ containerPort: 8000 }],
            resources: { requests: { 'nvidia.com/gpu': '4' }, limits: { 'nvidia.com/gpu': '4' } },
          },
        ],
        terminationGracePeriodSeconds: 10,
      },
    },
  },
});

const ingress = new k8s.networking.v1.Ingress('vllm-alb', {
  metadata: {
    namespace: ns.metadata.name,
    annotations: svc.metadata.name.apply((serviceName) => ({
      'kubernetes.io/ingress.class': 'alb',
      'alb.ingress.kubernetes.io/scheme': 'internet-facing',
      'alb.ingress.kubernetes.io/listen-ports': '[{"HTTP": 80},{"HTTPS":443}]',
      [`alb.ingress.kubernetes.io/conditions.${serviceName}`]: JSON.stringify([
        { field: 'http-header', httpHeaderConfig: { httpHeaderName: 'x-pulumi', values: ['hack'] } },
      ]),
    })),
  },
  spec: {
    tls: [{ hosts: [`vllm.${clusterPetName}.pulumi-demos.net`] }],
    rules: [
      {
        host: `vllm.${clusterPetName}.pulumi-demos.net`,
        http: {
          paths: [
            { pathType: 'Prefix', path: '/', backend: { service: { name: svc.metadata.name, port: { name: 'http' } } } },
          ],
        },
      },
    ],
  },
});

export const lb = ingress.status.apply((status) => status?.loadBalancer?.ingress?.[0]?.hostname);
"""

NODEPOOLS_TS = """\
import * as k8s from '@pulumi/kubernetes';

const gpuInstanceTypes = [
  { name: '8xA10', instance: 'g5.48xlarge', quantity: 1, cpu: 192, memory: 768, onDemand: false },
  { name: '4xA10', instance: 'g5.24xlarge', quantity: 2, cpu: 96, memory: 384, onDemand: true },
];

for (const spec of gpuInstanceTypes) {
  new k8s.apiextensions.CustomResource(`gpu-${spec.name}`, {
    apiVersion: 'karpenter.sh/v1beta1',
    kind: 'NodePool',
    metadata: { name: `gpu-${spec.name}`.toLowerCase() },
    spec: {
      disruption: { consolidationPolicy: 'WhenUnderutilized' },
      limits: { cpu: spec.cpu * (spec.quantity + 1) - 1, memory: `${spec.memory * (spec.quantity + 1) - 1}Gi` },
      template: {
        spec: {
          nodeClassRef: { name: 'gpu-nodes' },
          requirements: [
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [spec.instance] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: spec.onDemand ? ['on-demand', 'spot'] : ['spot'] },
          ],
        },
      },
    },
  });
}
"""

CHART_PY = """\
import pulumi
from pulumi_kubernetes.helm.v3 import Chart, ChartOpts, FetchOpts
import pulumi_kubernetes as k8s
import os


def deploy_vllm(provider: k8s.Provider, namespace: str):
    hf_token = os.getenv("HF_TOKEN")
    service_account = k8s.core.v1.ServiceAccount(
        "vllm-router-service-account",
        metadata={"name": "vllm-stack-router-service-account", "namespace": namespace},
        opts=pulumi.ResourceOptions(provider=provider),
    )
    return Chart(
        "vllm-stack",
        ChartOpts(
            chart="vllm-stack",
            version="0.1.9",
            fetch_opts=FetchOpts(repo="https://vllm-project.github.io/production-stack"),
            namespace=namespace,
            values={
                "servingEngineSpec": {
                    "modelSpec": [
                        {
                            "name": "nanonets-ocr2-3b",
                            "repository": "vllm/vllm-openai",
                            "tag": "v0.10.0",
                            "modelURL": "/models/Nanonets-OCR2-3B",
                            "replicaCount": 1,
                            "requestGPU": 1,
                            "vllmConfig": {"gpu_memory_utilization": 0.85, "maxModelLen": 16000},
                            "keda": {"enabled": True, "minReplicaCount": 0, "maxReplicaCount": 1},
                            "env": [{"name": "HUGGING_FACE_HUB_TOKEN", "value": hf_token}],
                        }
                    ],
                },
            },
        ),
        opts=pulumi.ResourceOptions(provider=provider, depends_on=[service_account]),
    )
"""

DEPLOYMENT_PY = """\
import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
labels = {"app": "ollama"}
k8s.apps.v1.Deployment(
    "ollama",
    metadata=k8s.meta.v1.ObjectMetaArgs(namespace="llm"),
    spec=k8s.apps.v1.DeploymentSpecArgs(
        replicas=1,
        selector=k8s.meta.v1.LabelSelectorArgs(match_labels=labels),
        template=k8s.core.v1.PodTemplateSpecArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(labels=labels),
            spec=k8s.core.v1.PodSpecArgs(
                containers=[
                    k8s.core.v1.ContainerArgs(
                        name="ollama",
                        image=f"ollama/ollama:{config.require('tag')}",
                        ports=[k8s.core.v1.ContainerPortArgs(container_port=11434)],
                        resources={"limits": {"nvidia.com/gpu": "1"}},
                    )
                ],
                node_selector={"nvidia.com/gpu.product": "NVIDIA-L4"},
            ),
        ),
    ),
)
"""


def check(folder):
    """The JSON report's findings of `python -m policies check FOLDER`, run in this process (tests.conftest)."""
    return json.loads(check_in_process(str(folder), "--format", "json").stdout)["violations"]


def test_typescript_resources_are_read_at_the_call_line_with_names_joined(tmp_path):
    (tmp_path / "index.ts").write_text(APP_TS.replace("IMAGE", "vllm/vllm-openai:latest"))
    objects = {o.kind: o for o in read_manifests([str(tmp_path)]).objects}
    assert sorted(objects) == ["Ingress", "Namespace", "Secret", "Service", "StatefulSet"]
    sts = objects["StatefulSet"]
    assert (sts.name, sts.line, sts.best_effort) == ("vllm", 19, True)
    assert sts.obj["metadata"]["namespace"] == "llms"  # ns.metadata.name: the Namespace's resource name
    assert sts.obj["spec"]["serviceName"] == "vllm"  # svc.metadata.name
    assert sts.obj["spec"]["template"]["spec"]["containers"][0]["image"] == "vllm/vllm-openai:latest"  # a const
    annotations = objects["Ingress"].obj["metadata"]["annotations"]  # an .apply of a known name
    assert annotations["alb.ingress.kubernetes.io/scheme"] == "internet-facing"
    assert "alb.ingress.kubernetes.io/conditions.vllm" in annotations
    assert objects["Ingress"].obj["spec"]["rules"][0]["host"] == "vllm.${clusterPetName}.pulumi-demos.net"
    assert objects["Secret"].obj["stringData"]["HUGGING_FACE_HUB_TOKEN"].startswith("${config_requireSecret")


def test_typescript_findings_are_advice_on_the_program(tmp_path):
    (tmp_path / "index.ts").write_text(APP_TS.replace("IMAGE", "vllm/vllm-openai:latest"))
    found = check(tmp_path)
    assert {v["enforcement"] for v in found} == {"advisory"}
    assert all(v["file"].endswith("index.ts") for v in found)
    assert any(v["catalog"] == "G1" and "latest" in v["message"] and "Pulumi program" in v["message"] for v in found)
    assert any(v["catalog"] == "G32" and v["resource"] == "Ingress/vllm-alb" for v in found)  # internet-facing, unguarded
    assert any(v["catalog"] == "G86" and v["resource"] == "StatefulSet/vllm" for v in found)  # serviceName: a ClusterIP
    # The host the program computes is a value the engine fills in: no refusal, no unrendered fill-in, a host to
    # discover a certificate by (pulumi/example-ai.cluster's G93 trap), and the secret from config is no fill-in.
    assert not [v for v in found if v["catalog"] in ("S26", "S27", "G93", "S28")]


def test_image_pinned_through_a_const_stays_silent(tmp_path):
    (tmp_path / "index.ts").write_text(APP_TS.replace("IMAGE", "vllm/vllm-openai:v0.6.4"))
    assert not [v for v in check(tmp_path) if v["catalog"] == "G1"]


def test_custom_resources_in_a_loop_over_a_known_list_are_one_per_item(tmp_path):
    (tmp_path / "index.ts").write_text(NODEPOOLS_TS)
    pools = read_manifests([str(tmp_path)]).objects
    assert [(p.kind, p.line, p.name) for p in pools] == [("NodePool", 9, "gpu-8xa10"), ("NodePool", 9, "gpu-4xa10")]
    assert pools[1].obj["spec"]["limits"] == {"cpu": 287, "memory": "1151Gi"}  # computed from the item
    assert pools[1].obj["spec"]["template"]["spec"]["requirements"][1]["values"] == ["on-demand", "spot"]
    found = check(tmp_path)
    assert {v["enforcement"] for v in found} == {"advisory"}
    assert sum(v["catalog"] == "G40" and "v1beta1" in v["message"] for v in found) == 2
    assert {v["resource"] for v in found if v["catalog"] == "S13"} == {"NodePool/gpu-8xa10", "NodePool/gpu-4xa10"}


def test_a_loop_over_an_unknown_list_is_read_once_with_its_values_unknown(tmp_path):
    program = NODEPOOLS_TS.replace("of gpuInstanceTypes", "of config.requireObject('pools')")
    (tmp_path / "index.ts").write_text(program)
    (pool,) = read_manifests([str(tmp_path)]).objects
    assert (pool.kind, pool.line, pool.name) == ("NodePool", 9, "gpu-${spec_name}")
    assert pool.obj["spec"]["template"]["spec"]["requirements"][0]["values"] == ["${spec_instance}"]
    found = check(tmp_path)
    assert any(v["catalog"] == "G40" for v in found) and {v["enforcement"] for v in found} == {"advisory"}
    assert not [v for v in found if v["catalog"] in ("S26", "S27")]  # a name the loop fills in is not refused


def test_python_chart_is_the_release_of_its_chart_with_its_values(tmp_path):
    (tmp_path / "deploy_vllm.py").write_text(CHART_PY)
    objects = {o.kind: o for o in read_manifests([str(tmp_path)]).objects}
    release = objects["HelmRelease"]
    assert release.obj["spec"]["chart"]["spec"] == {"chart": "vllm-stack", "version": "0.1.9"}
    model = release.obj["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]
    assert model["keda"]["minReplicaCount"] == 0 and model["vllmConfig"]["gpu_memory_utilization"] == 0.85  # as written
    assert objects["ServiceAccount"].name == "vllm-stack-router-service-account"
    found = check(tmp_path)
    assert {v["enforcement"] for v in found} <= {"advisory"}
    assert any(v["catalog"] == "S66" and v["file"].endswith("deploy_vllm.py") for v in found)  # served under its path


def test_python_args_classes_are_objects_with_the_sdk_field_names(tmp_path):
    (tmp_path / "__main__.py").write_text(DEPLOYMENT_PY)
    (deployment,) = read_manifests([str(tmp_path)]).objects
    assert (deployment.kind, deployment.name, deployment.line) == ("Deployment", "ollama", 6)
    spec = deployment.obj["spec"]
    assert spec["selector"] == {"matchLabels": {"app": "ollama"}}
    pod = spec["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.product": "NVIDIA-L4"}
    assert pod["containers"][0]["ports"] == [{"containerPort": 11434}]
    assert pod["containers"][0]["image"] == "ollama/ollama:${config_require_tag}"
    found = check(tmp_path)
    assert {v["enforcement"] for v in found} <= {"advisory"}
    assert not [v for v in found if v["catalog"] in ("G1", "S26", "S27", "G46")]  # a tag from config: unknown


CONFIG_TS = """\
import * as k8s from "@pulumi/kubernetes";

const server = new k8s.yaml.ConfigFile("vllm", { file: "manifests/vllm.yaml" });
new k8s.yaml.v2.ConfigGroup("extra", {
  objs: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { MODEL: "qwen" } }],
  yaml: `apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  ports: [{port: 8000}]
`,
});
new k8s.helm.v4.Chart("ollama", {
  chart: "oci://registry-1.docker.io/otwld/ollama",
  version: "1.4.0",
  values: { ollama: { gpu: { enabled: true } } },
});
"""

MANIFEST_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers: [{name: vllm, image: "vllm/vllm-openai:v0.6.4"}]
"""


def test_yaml_components_and_helm_v4_charts_are_read(tmp_path):
    (tmp_path / "index.ts").write_text(CONFIG_TS)
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "vllm.yaml").write_text(MANIFEST_YAML)
    alone = read_manifests([str(tmp_path / "index.ts")]).objects  # the file a ConfigFile names, read through it
    assert sorted((o.kind, o.name, o.line, o.best_effort) for o in alone) == [
        ("ConfigMap", "settings", 4, True),
        ("Deployment", "vllm", 3, True),
        ("HelmRelease", "ollama", 14, True),
        ("Service", "vllm", 4, True),
    ]
    release = next(o for o in alone if o.kind == "HelmRelease")
    assert release.obj["spec"]["chart"]["spec"] == {"chart": "ollama", "version": "1.4.0"}
    # In a run over the folder the YAML file is read on its own, and not again through the ConfigFile.
    whole = read_manifests([str(tmp_path)]).objects
    assert [(o.kind, o.best_effort) for o in whole if o.kind == "Deployment"] == [("Deployment", False)]


def test_python_loop_over_a_known_list_declares_one_resource_per_item(tmp_path):
    (tmp_path / "__main__.py").write_text(
        "import pulumi_kubernetes as k8s\n"
        "pools = [{'name': 'a10', 'instance': 'g5.xlarge'}, {'name': 'l4', 'instance': 'g6.xlarge'}]\n"
        "for pool in pools:\n"
        "    k8s.apiextensions.CustomResource(f\"gpu-{pool['name']}\", api_version='karpenter.sh/v1', kind='NodePool',\n"
        "        spec={'template': {'spec': {'requirements': [\n"
        "            {'key': 'node.kubernetes.io/instance-type', 'operator': 'In', 'values': [pool['instance']]}]}}})\n"
    )
    pools = read_manifests([str(tmp_path)]).objects
    assert [(p.name, p.obj["spec"]["template"]["spec"]["requirements"][0]["values"]) for p in pools] == [
        ("gpu-a10", ["g5.xlarge"]),
        ("gpu-l4", ["g6.xlarge"]),
    ]


def test_program_that_does_not_parse_is_s27_advice_never_a_crash(tmp_path):
    (tmp_path / "index.ts").write_text("import * as k8s from '@pulumi/kubernetes';\nnew k8s.core.v1.Namespace('a', {{;\n")
    (tmp_path / "main.py").write_text("import pulumi_kubernetes as k8s\nk8s.core.v1.Namespace('a',\n")
    found = check(tmp_path)
    assert sorted((v["catalog"], v["enforcement"], v["file"].rsplit("/", 1)[-1]) for v in found) == [
        ("S27", "advisory", "index.ts"),
        ("S27", "advisory", "main.py"),
    ]
    assert all("Pulumi program" in v["message"] for v in found)


def test_files_without_kubernetes_resources_are_not_read(tmp_path):
    (tmp_path / "index.ts").write_text("import * as aws from '@pulumi/aws';\nnew aws.s3.Bucket('b');\n")
    (tmp_path / "util.py").write_text("def f():\n    return 1\n")
    (tmp_path / "empty.ts").write_text("import * as k8s from '@pulumi/kubernetes';\nexport const x = 1;\n")
    package = tmp_path / "node_modules" / "@pulumi" / "kubernetes"
    package.mkdir(parents=True)
    (package / "example.js").write_text("const k8s = require('@pulumi/kubernetes');\nnew k8s.core.v1.Namespace('x');\n")
    read = read_manifests([str(tmp_path)])
    assert (read.objects, read.unreadable, read.counts.files) == ([], [], 1)  # empty.ts only
    assert "no Kubernetes object read" in json.loads(check_in_process(str(tmp_path), "--format", "json").stdout)["error"]


def test_the_parser_is_imported_only_for_a_program(tmp_path):
    (tmp_path / "app.ts").write_text("import * as aws from '@pulumi/aws';\n")
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n")
    code = (
        f"import sys; from policies.manifests import read_manifests; read_manifests([{str(tmp_path)!r}]); "
        "print('tree_sitter' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
