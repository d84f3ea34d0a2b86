"""OpenVINO Model Server as a row of the engine table (components/serving_engines.toml [engines.ovms], v2026.3).

Firing form: jkershawrh/fleet-llm-d@e32439843589cf62d9ed61a7d70ce61ebff35d44 deploy/arena/granite-inference.yaml, an
openvino/model_server Deployment with readiness and startup probes but no livenessProbe (spent set 116, G5 advisory),
which the pack did not know for a model server. Careful forms stay silent on the rules that read the row's ports:
OVMS serves REST only on --rest_port (no default) and gRPC on --port, so a Service to the gRPC port is no unserved port
(S51), and openvinotoolkit/model_server v2026.3 extras/openshift_AI/ServingRuntime.yaml (--rest_port=8888, containerPort
8888) listens where KServe routes (kserve-serving-port).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

GRANITE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ovms-granite-2b", "namespace": "fleet-llm-d"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ovms-granite-2b"}},
        "template": {
            "metadata": {"labels": {"app": "ovms-granite-2b"}},
            "spec": {
                "containers": [
                    {
                        "name": "ovms",
                        "image": "openvino/model_server:latest",
                        "args": [
                            "--model_name",
                            "granite-2b-cpu",
                            "--model_path",
                            "/models/ov/granite-2b",
                            "--rest_port",
                            "8080",
                        ],
                        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        "readinessProbe": {"httpGet": {"path": "/v2/health/ready", "port": 8080}, "periodSeconds": 10},
                        "startupProbe": {
                            "httpGet": {"path": "/v2/health/ready", "port": 8080},
                            "initialDelaySeconds": 10,
                            "periodSeconds": 5,
                            "failureThreshold": 30,
                        },
                        "resources": {"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "8Gi"}},
                    }
                ]
            },
        },
    },
}
GRPC = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ovms-resnet", "namespace": "serving"},
    "spec": {
        "selector": {"matchLabels": {"app": "ovms-resnet"}},
        "template": {
            "metadata": {"labels": {"app": "ovms-resnet"}},
            "spec": {
                "containers": [
                    {
                        "name": "ovms",
                        "image": "openvino/model_server:2025.1",
                        "args": [
                            "--model_name",
                            "resnet",
                            "--model_path",
                            "/models/resnet",
                            "--port",
                            "9000",
                            "--rest_port",
                            "8000",
                        ],
                        "ports": [{"containerPort": 9000, "name": "grpc"}, {"containerPort": 8000, "name": "http"}],
                        "readinessProbe": {"httpGet": {"path": "/v2/health/ready", "port": 8000}},
                        "livenessProbe": {"httpGet": {"path": "/v2/health/live", "port": 8000}},
                    }
                ]
            },
        },
    },
}
GRPC_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "ovms-resnet", "namespace": "serving"},
    "spec": {
        "selector": {"app": "ovms-resnet"},
        "ports": [{"name": "grpc", "port": 9000, "targetPort": 9000}, {"name": "http", "port": 8000, "targetPort": 8000}],
    },
}
UPSTREAM_RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "kserve-ovms-2026-2"},
    "spec": {
        "containers": [
            {
                "args": [
                    "--model_name={{.Name}}",
                    "--port=8001",
                    "--rest_port=8888",
                    "--model_path=/mnt/models",
                    "--file_system_poll_wait_seconds=0",
                    "--metrics_enable",
                ],
                "image": "docker.io/openvino/model_server:weekly",
                "startupProbe": {
                    "periodSeconds": 5,
                    "failureThreshold": 9999,
                    "httpGet": {"path": "/v2/health/ready", "port": "rest"},
                },
                "name": "kserve-container",
                "ports": [{"containerPort": 8888, "name": "rest", "protocol": "TCP"}],
            }
        ],
        "supportedModelFormats": [{"autoSelect": True, "name": "openvino_ir", "version": "opset13"}],
    },
}


def _found(*objs):
    return [(v.catalog, v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None)]


def test_an_ovms_server_without_a_liveness_probe_is_advised():
    found = _found(GRANITE)
    (g5,) = [f for f in found if f[0] == "G5"]
    assert g5[1] == "advisory"
    assert g5[2].startswith("container ovms: no livenessProbe on this OpenVINO Model Server server")
    assert all(level == "advisory" for _, level, _ in found)


def test_careful_forms_stay_silent_on_ports_and_probes():
    found = _found(GRPC, GRPC_SERVICE, UPSTREAM_RUNTIME)
    assert [f for f in found if f[0] in ("G4", "S51")] == []
    assert [f for f in found if f[0] == "G5" and "ovms-resnet" in f[2]] == []
    assert all(level == "advisory" for _, level, _ in found)


def test_probe_advice_names_the_rest_port_setting_not_port_0():
    """review56d: with no default HTTP port in the row (port 0), G4 and G5 told a gRPC-only OVMS to probe
    "GET /v2/health/ready (port 0 unless moved)"; they name --rest_port, without which no REST server starts."""
    grpc_only = copy.deepcopy(GRPC)
    container = grpc_only["spec"]["template"]["spec"]["containers"][0]
    container["args"] = container["args"][:-2]
    del container["readinessProbe"], container["livenessProbe"]
    found = {catalog: message for catalog, _, message in _found(grpc_only) if catalog in ("G4", "G5")}
    assert sorted(found) == ["G4", "G5"]
    for message in found.values():
        assert "port 0" not in message
        assert (
            "(on the port --rest_port gives: it has no default, and without it OpenVINO Model Server serves no HTTP)" in message
        )
