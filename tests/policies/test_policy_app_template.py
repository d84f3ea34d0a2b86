"""A Flux HelmRelease (or Argo CD Application) of bjw-s app-template read as the pods the chart renders
(policies/app_template.py), so the pod rules reach model servers written that way.

The firing form is that of spent set 85 (rafaribe/home-ops@34c1ee960295ae8575cab3306cc0f5c0e416d53d:
kubernetes/apps/ai/ollama/app/helmrelease.yaml and tyriis/home-ops@245f3c5863161f208c1e5155ffca9f742476b1fb:
kubernetes/main/apps/ai/ollama/app/helm-release.yaml, reduced): app containers with no probes enabled, a privileged
container, a hostPath /dev/dri persistence item, a branch tag. The chart renders a probe only when its ``enabled`` is
true (bjw-s-labs/helm-charts common-4.1.1 templates/lib/container/fields/_probes.tpl:14-20), ``repository:tag`` as
the image (fields/_image.tpl:9-14), numbers of an env map as strings (fields/_env.tpl:69-70).
"""

from __future__ import annotations

import copy
import io
from contextlib import redirect_stdout
from pathlib import Path

from policies import evaluate
from policies.app_template import app_template_pod_specs
from policies.check import main as check_main
from policies.framework import Resource
from policies.kube import pod_specs

HR_TYPE = "kubernetes:helm.toolkit.fluxcd.io/v2:HelmRelease"

RELEASE = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "ollama"},
    "spec": {
        "chartRef": {"kind": "OCIRepository", "name": "ollama"},
        "values": {
            "defaultPodOptions": {"securityContext": {"runAsUser": 0, "runAsGroup": 0}},
            "controllers": {
                "ollama": {
                    "containers": {
                        "app": {
                            "image": {"repository": "docker.io/ollama/ollama", "tag": "main"},
                            "env": {"OLLAMA_HOST": "0.0.0.0", "OLLAMA_NUM_PARALLEL": 1, "OLLAMA_FLASH_ATTENTION": True},
                            "securityContext": {"privileged": True},
                        }
                    }
                }
            },
            "service": {"app": {"controller": "ollama", "ports": {"http": {"port": 11434}}}},
            "persistence": {
                "models": {"existingClaim": "ollama-models", "globalMounts": [{"path": "/models"}]},
                "dri": {"type": "hostPath", "hostPath": "/dev/dri"},
            },
        },
    },
}

CAREFUL_APP = {
    "image": {"repository": "docker.io/ollama/ollama", "tag": "0.32.15"},
    "env": {"OLLAMA_HOST": "0.0.0.0"},
    "securityContext": {"allowPrivilegeEscalation": False},
    "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "8Gi"}},
    "probes": {
        "liveness": {"enabled": True},
        "readiness": {
            "enabled": True,
            "custom": True,
            "spec": {"httpGet": {"path": "/api/version", "port": 11434}, "periodSeconds": 10},
        },
        "startup": {"enabled": True, "spec": {"failureThreshold": 30, "periodSeconds": 10}},
    },
}


def _careful() -> dict:
    release = copy.deepcopy(RELEASE)
    values = release["spec"]["values"]
    values["controllers"]["ollama"]["containers"]["app"] = copy.deepcopy(CAREFUL_APP)
    values.pop("defaultPodOptions")
    values["persistence"].pop("dri")
    return release


def _catalogs(props: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for v in evaluate([Resource(type=HR_TYPE, name="ollama", props=props)]):
        found.setdefault(v.catalog, set()).add(v.enforcement)
    return found


def test_the_values_become_the_pod_the_chart_renders():
    ((path, pod),) = pod_specs(Resource(type=HR_TYPE, name="ollama", props=RELEASE))
    assert path == "spec.values.controllers.ollama"
    (app,) = pod["containers"]
    assert app["image"] == "docker.io/ollama/ollama:main"
    # Numbers and booleans of an env map are rendered as strings (no refused env value).
    assert {"name": "OLLAMA_NUM_PARALLEL", "value": "1"} in app["env"]
    assert {"name": "OLLAMA_FLASH_ATTENTION", "value": "true"} in app["env"]
    assert not any(k.endswith("Probe") for k in app)  # no probe enabled: none rendered
    assert pod["securityContext"] == {"runAsUser": 0, "runAsGroup": 0}
    assert {"name": "dri", "hostPath": {"path": "/dev/dri"}} in pod["volumes"]
    assert {"name": "models", "persistentVolumeClaim": {"claimName": "ollama-models"}} in pod["volumes"]
    assert {"name": "dri", "mountPath": "/dev/dri"} in app["volumeMounts"]
    assert {"name": "models", "mountPath": "/models"} in app["volumeMounts"]


def test_enabled_probes_are_rendered_custom_or_on_the_primary_port():
    ((_, pod),) = app_template_pod_specs(_careful())
    (app,) = pod["containers"]
    assert app["livenessProbe"] == {"tcpSocket": {"port": 11434}}
    assert app["readinessProbe"] == {"httpGet": {"path": "/api/version", "port": 11434}, "periodSeconds": 10}
    assert app["startupProbe"] == {"failureThreshold": 30, "periodSeconds": 10, "tcpSocket": {"port": 11434}}


def test_the_set_85_form_fires_the_pod_rules_as_advice():
    found = _catalogs(RELEASE)
    for catalog in ("G4", "G1", "G26", "G31", "G8", "G10"):
        assert found.get(catalog) == {"advisory"}, (catalog, found)
    assert "S26" not in found  # env numbers are strings once rendered
    assert all(levels == {"advisory"} for levels in found.values()), found


def test_the_careful_form_is_silent():
    found = _catalogs(_careful())
    for catalog in ("G4", "G1", "G26", "G31", "G8", "G10", "G5"):
        assert catalog not in found, (catalog, found)


def test_a_blocking_rule_on_release_values_is_advice():
    # runAsNonRoot with runAsUser 0 blocks on a Deployment (G28); on chart values it is advice.
    release = _careful()
    release["spec"]["values"]["controllers"]["ollama"]["pod"] = {"securityContext": {"runAsNonRoot": True, "runAsUser": 0}}
    assert _catalogs(release).get("G28") == {"advisory"}


def test_other_values_and_kinds_are_not_read_this_way():
    other = copy.deepcopy(RELEASE)
    other["spec"]["values"] = {"image": {"repository": "ollama/ollama", "tag": "0.32.15"}, "ollama": {"gpu": {"enabled": True}}}
    assert app_template_pod_specs(other) == []
    assert app_template_pod_specs({"spec": "x"}) == [] and app_template_pod_specs({}) == []
    bad = copy.deepcopy(RELEASE)
    bad["spec"]["values"]["controllers"]["ollama"]["containers"]["app"]["env"] = "x"
    bad["spec"]["values"]["persistence"] = {"a": None, "b": {"globalMounts": "x"}}
    assert len(app_template_pod_specs(bad)) == 1


def test_an_argo_application_values_object_is_read():
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "spec": {"source": {"chart": "app-template", "helm": {"valuesObject": RELEASE["spec"]["values"]}}},
    }
    resource = Resource(type="kubernetes:argoproj.io/v1alpha1:Application", name="ollama", props=app)
    assert [p for p, _ in pod_specs(resource)] == ["spec.source.helm.valuesObject.controllers.ollama"]


RELEASE_TEXT = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: open-webui
spec:
  values:
    controllers:
      main:
        containers:
          app:
            image:
              repository: ghcr.io/open-webui/open-webui
              tag: v0.11.0
    persistence:
      data:
        existingClaim: "{{ .Release.Name }}-data"
"""


def test_a_quoted_value_the_chart_renders_keeps_the_release_readable(tmp_path: Path):
    path = tmp_path / "helmrelease.yaml"
    path.write_text(RELEASE_TEXT)
    out = io.StringIO()
    with redirect_stdout(out):
        check_main([str(path)])
    assert "serving-readiness-probe (G4)" in out.getvalue() and "unrendered template" not in out.getvalue()
    # The same action outside quotes (a chart that renders HelmReleases) is still a template.
    path.write_text(RELEASE_TEXT.replace('"{{ .Release.Name }}-data"', "{{ .Release.Name }}-data"))
    out = io.StringIO()
    with redirect_stdout(out):
        check_main([str(path)])
    assert "unrendered template" in out.getvalue()


def test_a_load_balancer_service_of_the_release_in_front_of_a_model_server_is_advised():
    release = copy.deepcopy(RELEASE)
    release["spec"]["values"]["service"]["app"]["type"] = "LoadBalancer"  # set 85 rafaribe/home-ops, Cilium LB IP
    found = [v for v in evaluate([Resource(type=HR_TYPE, name="ollama", props=release)]) if v.catalog == "G32"]
    assert len(found) == 1 and found[0].enforcement == "advisory"
    assert "spec.values.service.app.type: LoadBalancer" in found[0].message and "no API key" in found[0].message
    # ClusterIP (the chart's default) is silent, and so is a LoadBalancer selecting a controller with no model server.
    assert "G32" not in _catalogs(RELEASE)
    release["spec"]["values"]["service"]["app"]["controller"] = "other"
    assert "G32" not in _catalogs(release)
