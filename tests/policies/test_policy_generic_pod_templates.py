"""Pod templates in custom resources no reader knows (policies/kube.py generic_pod_specs): the generic pod rules
still run on them, and reports say which objects were read that way.

The operator CRs below are written for these tests (an invented ``serving.example.com`` kind, and a
Dynamo-style ``extraPodSpec.mainContainer``: ai-dynamo/dynamo deploy/cloud/operator api/v1alpha1
DynamoComponentDeploymentSharedSpec.ExtraPodSpec holds a core/v1 PodSpec plus MainContainer).
"""

from __future__ import annotations

import io
import json

from policies import evaluate
from policies.check import main as check_main
from policies.framework import Resource
from policies.kube import WORKLOAD_TYPES, generic_pod_specs, pod_specs, read_generically

CR_TYPE = "kubernetes:serving.example.com/v1:ModelDeployment"

SERVER = {
    "name": "server",
    "image": "vllm/vllm-openai:v0.33.0",
    "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "2"],
}


def _cr(container: dict) -> Resource:
    props = {
        "apiVersion": "serving.example.com/v1",
        "kind": "ModelDeployment",
        "metadata": {"name": "llama", "namespace": "llm", "annotations": {"x": "y"}},
        "spec": {"replicas": 2, "workers": [{"name": "w0", "template": {"spec": {"containers": [container]}}}]},
        "status": {"template": {"spec": {"containers": [{"image": "never-read"}]}}},
    }
    return Resource(type=CR_TYPE, name="llama", props=props)


def test_a_custom_resource_with_no_reader_is_a_workload_type_and_its_template_is_found():
    cr = _cr(SERVER)
    assert CR_TYPE in WORKLOAD_TYPES
    assert "kubernetes:core/v1:ConfigMap" not in WORKLOAD_TYPES
    assert [path for path, _ in pod_specs(cr)] == ["spec.workers[0].template.spec"]
    assert read_generically(cr) == ["spec.workers[0].template.spec"]


def test_a_known_kind_is_not_read_generically():
    deployment = Resource(
        type="kubernetes:apps/v1:Deployment",
        name="d",
        props={"spec": {"template": {"spec": {"containers": [SERVER]}}}},
    )
    assert read_generically(deployment) == []
    # Kubernetes' own kinds outside the readers' list are never searched.
    config_map = Resource(type="kubernetes:core/v1:ConfigMap", name="c", props={"data": {"containers": [SERVER]}})
    assert pod_specs(config_map) == [] and read_generically(config_map) == []


def test_a_single_main_container_is_read_with_its_pod_fields():
    cr = Resource(
        type="kubernetes:nvidia.com/v1alpha1:DynamoGraphDeployment",
        name="dyn",
        props={
            "spec": {
                "services": {"decode": {"extraPodSpec": {"terminationGracePeriodSeconds": 600, "mainContainer": dict(SERVER)}}}
            }
        },
    )
    ((path, pod),) = generic_pod_specs(cr)
    assert path == "spec.services.decode.extraPodSpec.mainContainer"
    assert pod["terminationGracePeriodSeconds"] == 600 and pod["containers"] == [SERVER]


def test_the_generic_rules_run_on_an_operator_cr_without_a_reader():
    violations = evaluate([_cr(SERVER)])
    catalogs = {v.catalog for v in violations}
    # GPU limit (G13), probes (S16, G4), drain (S10), image (G1 not: pinned), model pinning (S17), shm (S4).
    assert {"G13", "S16", "G4", "S10", "S17", "S4"} <= catalogs, sorted(catalogs)
    assert "G1" not in catalogs
    assert all(v.resource == "llama" for v in violations)


def test_the_careful_form_of_the_same_cr_is_silent_on_the_pod_rules():
    careful = dict(
        SERVER,
        args=[*SERVER["args"], "--revision", "0e9e39f249a16976918f6564b8830bc894c89659", "--shutdown-timeout", "300"],
        resources={
            "requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 2, "ephemeral-storage": "100Gi"},
            "limits": {"memory": "64Gi", "nvidia.com/gpu": 2, "ephemeral-storage": "100Gi"},
        },
        startupProbe={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 90},
        readinessProbe={"httpGet": {"path": "/health", "port": 8000}},
        lifecycle={"preStop": {"sleep": {"seconds": 15}}},
        volumeMounts=[{"name": "dshm", "mountPath": "/dev/shm"}],
    )
    cr = _cr(careful)
    pod = cr.props["spec"]["workers"][0]["template"]["spec"]
    pod["terminationGracePeriodSeconds"] = 360
    pod["volumes"] = [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]
    catalogs = {v.catalog for v in evaluate([cr])}
    assert not catalogs & {"S3", "S16", "G4", "S10", "S17", "S4", "G8", "G10", "G13"}, sorted(catalogs)


def test_check_reports_the_objects_read_generically_in_every_format(tmp_path):
    import yaml

    path = tmp_path / "cr.yaml"
    path.write_text(yaml.safe_dump(_cr(SERVER).props), encoding="utf-8")
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        # The exit code follows the findings' levels (all advisory rows here); what is pinned is the generic report.
        assert check_main([str(path), "--format", "json"]) in (0, 1)
    report = json.loads(out.getvalue())
    assert report["generic"] == [
        {
            "document": 0,
            "file": str(path),
            "line": 1,
            "paths": ["spec.workers[0].template.spec"],
            "resource": "ModelDeployment/llama",
        }
    ]
    for fmt, needle in (("text", "[read generically]"), ("markdown", "Read generically")):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            check_main([str(path), "--format", fmt])
        assert needle in out.getvalue() and "spec.workers[0].template.spec" in out.getvalue()
