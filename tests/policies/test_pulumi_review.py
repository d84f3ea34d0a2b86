"""Values a Pulumi program computes stay unknown, never guessed (review57p of policies/reading/pulumi_*.py).

A reader that fills a value the program computes with a guess judges a manifest nobody applies: a container spread
from a helper's return read as one with no probes, an env list extended by ``push`` read without the pushed variable,
a helper's parameter read as a same-named const of the module, ``String(8000)`` read as the number. Each form here is
one a careful program writes (pulumi/example-ai.cluster's StatefulSet, reduced, with the form spliced in); each must
read as unknown, so no rule judges it. Bounded: a const of consts of lists ends unknown, not in a hang.
"""

from __future__ import annotations

import json
import time

from policies.manifests import read_manifests
from tests.conftest import check_in_process

TS_HEAD = 'import * as k8s from "@pulumi/kubernetes";\nimport * as pulumi from "@pulumi/pulumi";\n'
DEPLOYMENT_TS = """
new k8s.apps.v1.Deployment("vllm", {
  metadata: { name: "vllm" },
  spec: {
    selector: { matchLabels: { app: "vllm" } },
    template: {
      metadata: { labels: { app: "vllm" } },
      spec: { containers: [CONTAINER] },
    },
  },
});
"""
CONTAINER = '{ name: "vllm", image: IMAGE, args: ["--model", "Qwen/Qwen2.5-7B-Instruct"], env: ENV }'


def _ts(tmp_path, head: str, container: str = CONTAINER, image: str = '"vllm/vllm-openai:v0.6.4"', env: str = "[]"):
    body = DEPLOYMENT_TS.replace("CONTAINER", container).replace("IMAGE", image).replace("ENV", env)
    (tmp_path / "index.ts").write_text(TS_HEAD + head + body)
    (deployment,) = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "Deployment"]
    return deployment.obj["spec"]["template"]["spec"]["containers"]


def _findings(folder) -> list[dict]:
    return json.loads(check_in_process(str(folder), "--format", "json").stdout)["violations"]


def test_a_container_spread_from_a_computed_value_is_unknown_not_one_without_probes(tmp_path):
    head = 'const base = makeContainer(new pulumi.Config().require("model"));\n'
    (container,) = _ts(tmp_path, head, container='{ ...base, name: "vllm", image: "vllm/vllm-openai:v0.6.4" }')
    assert container.startswith("${")  # any field (probes, resources, --model) may come from the helper
    assert not [v for v in _findings(tmp_path) if v["catalog"] in ("G4", "G5", "S55", "G8", "S16")]


def test_a_known_spread_still_reads_its_fields(tmp_path):
    head = 'const base = { readinessProbe: { httpGet: { path: "/health", port: 8000 } } };\n'
    (container,) = _ts(tmp_path, head, container='{ ...base, name: "vllm", image: "vllm/vllm-openai:v0.6.4" }')
    assert container["readinessProbe"]["httpGet"]["path"] == "/health"


def test_a_list_spread_from_a_computed_value_is_unknown(tmp_path):
    head = "const extra = sidecars();\n"
    env = _ts(tmp_path, head, env='[...extra, { name: "A", value: "1" }]')[0]["env"]
    assert isinstance(env, str) and env.startswith("${")


def test_string_of_a_number_is_text(tmp_path):
    env = _ts(tmp_path, "", env='[{ name: "VLLM_PORT_X", value: String(8000) }]')[0]["env"]
    assert env == [{"name": "VLLM_PORT_X", "value": "8000"}]


def test_a_const_changed_after_its_literal_is_unknown(tmp_path):
    head = 'const env = [{ name: "A", value: "1" }];\nenv.push({ name: "HF_TOKEN", value: "x" });\n'
    assert _ts(tmp_path, head, env="env")[0]["env"].startswith("${")
    head = 'const labels: any = { app: "vllm" };\nlabels["tier"] = "gpu";\n'
    assert _ts(tmp_path, head, env="[{ name: 'L', value: labels.app }]")[0]["env"][0]["value"].startswith("${")


def test_a_helpers_parameter_is_not_the_modules_const_of_the_same_name(tmp_path):
    head = 'const image = "vllm/vllm-openai:latest";\nfunction deploy(image: string) {}\n'
    assert _ts(tmp_path, head, image="image")[0]["image"].startswith("${")
    assert not [v for v in _findings(tmp_path) if v["catalog"] == "G1"]  # the helper's caller picks the image


def test_an_apply_that_returns_under_a_condition_is_unknown(tmp_path):
    head = 'const tag = pulumi.output("v0.6.4").apply(t => { if (t === "dev") { return "latest"; } return t; });\n'
    assert _ts(tmp_path, head, image="`vllm/vllm-openai:${tag}`")[0]["image"] == "vllm/vllm-openai:${tag}"
    head = 'const tag = pulumi.output("v0.6.4").apply(t => { return t; });\n'
    assert _ts(tmp_path, head, image="`vllm/vllm-openai:${tag}`")[0]["image"] == "vllm/vllm-openai:v0.6.4"


def test_args_the_run_computes_read_nothing(tmp_path):
    (tmp_path / "index.ts").write_text(TS_HEAD + 'new k8s.apps.v1.Deployment("vllm", { ...deploymentArgs() });\n')
    assert not [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "Deployment"]


def test_consts_of_consts_of_lists_end_unknown_not_in_a_hang(tmp_path):
    ts = [TS_HEAD, 'const a0 = ["x", "y", "z", "w", "v", "u"];']
    py = ["import json\nimport pulumi_kubernetes as k8s", 'a0 = ["x", "y", "z", "w", "v", "u"]']
    for i in range(1, 12):
        ts.append(f"const a{i} = [{', '.join([f'a{i - 1}'] * 6)}];")
        py.append(f"a{i} = [{', '.join([f'a{i - 1}'] * 6)}]")
    ts.append('new k8s.core.v1.ConfigMap("c", { data: { k: JSON.stringify(a11) } });')
    py.append('k8s.core.v1.ConfigMap("c", data={"k": json.dumps(a11)})')
    (tmp_path / "ts").mkdir()
    (tmp_path / "py").mkdir()
    (tmp_path / "ts" / "index.ts").write_text("\n".join(ts))
    (tmp_path / "py" / "__main__.py").write_text("\n".join(py))
    for folder in ("ts", "py"):
        start = time.process_time()
        (config_map,) = read_manifests([str(tmp_path / folder)]).objects
        assert config_map.obj["data"]["k"].startswith("${")
        assert time.process_time() - start < 10


PY_DEPLOYMENT = """\
import pulumi_kubernetes as k8s
HEAD
k8s.apps.v1.Deployment(
    "vllm",
    metadata={"name": "vllm"},
    spec={
        "selector": {"match_labels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {"containers": [CONTAINER]},
        },
    },
)
"""


def _py(tmp_path, head: str, container: str) -> dict:
    (tmp_path / "__main__.py").write_text(PY_DEPLOYMENT.replace("HEAD", head).replace("CONTAINER", container))
    (deployment,) = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "Deployment"]
    return deployment.obj


def test_python_dict_label_selector_has_the_sdks_field_names(tmp_path):
    # pulumi's rpc.serialize_property translates a dict's keys for an input type (LabelSelector), not for a map.
    obj = _py(tmp_path, "", '{"name": "vllm", "image": "vllm/vllm-openai:v0.6.4"}')
    assert obj["spec"]["selector"] == {"matchLabels": {"app": "vllm"}}


def test_python_computed_spreads_changes_and_parameters_are_unknown(tmp_path):
    obj = _py(tmp_path, "base = make_container()", '{**base, "name": "vllm", "image": "vllm/vllm-openai:v0.6.4"}')
    assert obj["spec"]["template"]["spec"]["containers"][0].startswith("${")
    head = 'env = [{"name": "A", "value": "1"}]\nenv += extra()'
    obj = _py(tmp_path, head, '{"name": "vllm", "image": "i:v1", "env": env}')
    assert obj["spec"]["template"]["spec"]["containers"][0]["env"].startswith("${")
    head = 'env = [{"name": "A", "value": "1"}]\nenv.append({"name": "B", "value": "2"})'
    obj = _py(tmp_path, head, '{"name": "vllm", "image": "i:v1", "env": env}')
    assert obj["spec"]["template"]["spec"]["containers"][0]["env"].startswith("${")
    head = 'image = "vllm/vllm-openai:latest"\ndef deploy(image):\n    pass'
    obj = _py(tmp_path, head, '{"name": "vllm", "image": image, "env": [{"name": "P", "value": str(8000)}]}')
    container = obj["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].startswith("${") and container["env"][0]["value"] == "8000"


RELEASE_TS = """
new k8s.helm.v3.Release("vllm", {
  chart: "vllm-stack",
  repositoryOpts: { repo: "https://vllm-project.github.io/production-stack" },
  VALUES
});
"""


def test_a_release_whose_values_the_run_computes_or_files_hold_is_not_judged_on_the_charts_defaults(tmp_path):
    for values in ("values: makeValues(),", 'valueYamlFiles: [new pulumi.asset.FileAsset("values-prod.yaml")],'):
        (tmp_path / "index.ts").write_text(TS_HEAD + RELEASE_TS.replace("VALUES", values))
        assert not read_manifests([str(tmp_path)]).objects
    (tmp_path / "index.ts").write_text(TS_HEAD + RELEASE_TS.replace("VALUES", "values: { a: 1 },"))
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.obj["spec"]["values"] == {"a": 1}


SERVICE_TS = """
new k8s.apps.v1.Deployment("vllm", {
  metadata: { name: "vllm" },
  spec: {
    selector: { matchLabels: { app: "vllm" } },
    template: { metadata: { labels: { app: "vllm" } }, spec: { containers: [
      { name: "vllm", image: "vllm/vllm-openai:v0.6.4", args: ["--model", "Qwen/Qwen2.5-7B-Instruct"] },
    ] } },
  },
});
new k8s.core.v1.Service("vllm", { METADATA spec: { selector: { app: "vllm" }, ports: [{ port: 8000 }] } });
"""


def test_an_autonamed_service_gives_no_vllm_port_variable(tmp_path):
    # Firing: a Service named vllm beside the vLLM pod (pulumi/example-ai.cluster infra/app-llms/index.ts's Service,
    # named); silent: the same Service with no metadata.name, which the provider applies as vllm-<random>
    # (pulumi-kubernetes v4.32.0 provider/pkg/metadata/naming.go:28-53), whose variables are VLLM_<RANDOM>_PORT.
    (tmp_path / "index.ts").write_text(TS_HEAD + SERVICE_TS.replace("METADATA", 'metadata: { name: "vllm" },'))
    assert any(v["catalog"] == "S41" and "the Service vllm of this namespace" in v["message"] for v in _findings(tmp_path))
    (tmp_path / "index.ts").write_text(TS_HEAD + SERVICE_TS.replace("METADATA", ""))
    (service,) = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "Service"]
    assert service.obj["metadata"] == {"name": "vllm", "annotations": {"pulumi.com/autonamed": "true"}}
    assert not [v for v in _findings(tmp_path) if v["catalog"] == "S41" and "the Service vllm of" in v["message"]]
