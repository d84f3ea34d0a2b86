"""G57 nginx-regex-path-type: a regex path with pathType Prefix on ingress-nginx, refused from v1.12.0 (blocking when
the files pin such a controller, advice otherwise). Minimal hand-written shapes of the cited files."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "nginx-regex-path-type"


def _ingress(name: str, path: str, path_type: str = "Prefix", klass: str | None = "nginx") -> dict:
    spec: dict = {
        "rules": [
            {
                "http": {
                    "paths": [
                        {"path": path, "pathType": path_type, "backend": {"service": {"name": "s", "port": {"number": 80}}}}
                    ]
                }
            }
        ]
    }
    if klass:
        spec["ingressClassName"] = klass
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "annotations": {"nginx.ingress.kubernetes.io/rewrite-target": "/$2"}},
        "spec": spec,
    }


def _controller(tag: str) -> dict:
    container = {"name": "controller", "image": f"registry.k8s.io/ingress-nginx/controller:{tag}"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ingress-nginx-controller", "namespace": "ingress-nginx"},
        "spec": {
            "selector": {"matchLabels": {"app": "c"}},
            "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [container]}},
        },
    }


# Set 18: yuxiaojian/ollama-k8s ingress.yaml at 833f071914fd3e32682668c01b299dbbe5073471 (Ingress ollama-ingress).
YUXIAOJIAN = _ingress("ollama-ingress", "/()(.*)")
# Found by grepping stored repositories: TylrDn/model-serving-stack kubernetes/ingress.yaml at
# ddc2787880308540d0ed122a14ca2d16257066d2 (/vllm(/|$)(.*) with pathType Prefix).
TYLRDN = _ingress("llm-serving-ingress", "/vllm(/|$)(.*)")


def test_a_regex_prefix_path_is_advice_when_the_controller_is_not_in_the_files():
    ((level, message),) = found_by([YUXIAOJIAN], POLICY)
    assert (level, message) == (
        "advisory",
        "spec.rules[0].http.paths[0].path /()(.*) is a regex (or holds characters outside letters, digits, '.', '_', "
        "'-', '/') with pathType Prefix: ingress-nginx from v1.12.0 validates such paths by default "
        "(strict-validate-path-type) and its admission webhook refuses the Ingress ('path /()(.*) cannot be used with "
        "pathType Prefix'); use pathType ImplementationSpecific for a regex path (the controller's release is not in "
        "these files)",
    )
    assert [lv for lv, _ in found_by([TYLRDN], POLICY)] == ["advisory"]


def test_it_blocks_when_the_files_pin_a_strict_controller():
    ((level, message),) = found_by([TYLRDN, _controller("v1.12.1")], POLICY)
    assert level == "mandatory" and message.endswith("(the files pin controller v1.12.1)")
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "ingress-nginx"},
        "spec": {"chart": {"spec": {"chart": "ingress-nginx", "version": "4.12.0"}}},
    }
    assert [lv for lv, _ in found_by([TYLRDN, release], POLICY)] == ["mandatory"]


def test_careful_forms_stay_silent():
    # The ingress-nginx rewrite example's own form: the regex path with pathType ImplementationSpecific.
    assert found_by([_ingress("rewrite", "/something(/|$)(.*)", "ImplementationSpecific")], POLICY) == []
    assert found_by([_ingress("plain", "/v1/chat", "Prefix"), _ingress("dotted", "/v1.0", "Prefix")], POLICY) == []
    # An older pinned controller (strict validation off by default) or the check turned off in its ConfigMap.
    assert found_by([TYLRDN, _controller("v1.11.3")], POLICY) == []
    off = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ingress-nginx-controller"},
        "data": {"strict-validate-path-type": "false"},
    }
    assert found_by([TYLRDN, _controller("v1.12.1"), off], POLICY) == []
    # Another controller's Ingress.
    assert found_by([_ingress("alb", "/()(.*)", klass="alb")], POLICY) == []


def _flux(values: dict | None = None, values_from: list | None = None) -> dict:
    spec: dict = {"chart": {"spec": {"chart": "ingress-nginx", "version": "4.12.0"}}}
    if values is not None:
        spec["values"] = values
    if values_from is not None:
        spec["valuesFrom"] = values_from
    return {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": {"name": "ingress-nginx"}, "spec": spec}


def _argo(helm: dict) -> dict:
    source = {"repoURL": "https://kubernetes.github.io/ingress-nginx", "chart": "ingress-nginx", "targetRevision": "4.12.1"}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "ingress-nginx"},
        "spec": {"source": {**source, "helm": helm}},
    }


def test_the_check_turned_off_in_the_charts_values_is_read():
    # Cold review 29, finding 8: the chart renders controller.config into the controller's ConfigMap, so the same
    # HelmRelease or Application that pins the chart turns the check off there (values, valuesObject, values text,
    # parameters): silent.
    off = {"controller": {"config": {"strict-validate-path-type": "false"}}}
    assert found_by([TYLRDN, _flux(off)], POLICY) == []
    assert found_by([TYLRDN, _argo({"valuesObject": off})], POLICY) == []
    assert found_by([TYLRDN, _argo({"values": 'controller:\n  config:\n    strict-validate-path-type: "false"\n'})], POLICY) == []
    assert (
        found_by(
            [TYLRDN, _argo({"parameters": [{"name": "controller.config.strict-validate-path-type", "value": "false"}]})], POLICY
        )
        == []
    )
    # Turned on, or values the files do not show (valuesFrom, valueFiles): a block only where the values are all here.
    on = {"controller": {"config": {"strict-validate-path-type": "true"}}}
    assert [lv for lv, _ in found_by([TYLRDN, _flux(on)], POLICY)] == ["mandatory"]
    elsewhere = [{"kind": "ConfigMap", "name": "nginx-values"}]
    assert [lv for lv, _ in found_by([TYLRDN, _flux(values_from=elsewhere)], POLICY)] == ["advisory"]
    assert [lv for lv, _ in found_by([TYLRDN, _argo({"valueFiles": ["values-prod.yaml"]})], POLICY)] == ["advisory"]
