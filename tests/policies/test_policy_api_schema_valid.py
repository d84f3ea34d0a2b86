"""S26 api-schema-valid: Kubernetes' own kinds against Kubernetes 1.33's OpenAPI schema (wrong JSON type, unknown field).

Forms the API server refuses come from real manifests; the careful forms are the values the API server accepts although
they look loose: IntOrString either way, quantities as numbers, integral floats, nulls, strategic-merge directives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from policy_fixtures import manifest

from policies.framework import UNKNOWN, Unproven
from policies.k8s_generic.api_schema_valid import POLICY
from policies.reading import core_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "Kubernetes 1.33's schema, kubernetes-validate 1.37.0"


def _found(obj: dict) -> list[tuple[str, str]]:
    """(level, message) of the policy's findings on one manifest: advisory where the finding is unproven."""
    return [
        ("advisory" if isinstance(m, Unproven) else "mandatory", m)
        for m in POLICY.check_resource(manifest(obj), {})  # type: ignore[misc]
    ]


def _pod(env: list[dict], **container: object) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "chatbot", "labels": {"app": "chatbot"}},
        "spec": {
            "containers": [
                {"name": "chatbot-model-service", "image": "quay.io/ai-lab/llamacpp_python:latest", "env": env, **container}
            ]
        },
    }


def test_an_integer_env_value_blocks():
    # containers/ai-lab-recipes recipes/natural_language_processing/chatbot/quadlet/chatbot.yaml at
    # 25fca348b7d93adfbe4601d4fdac4655203bf3ac (spent set 30, labelled S26 blocking): `- name: PORT / value: 8001`.
    found = _found(_pod([{"name": "HOST", "value": "0.0.0.0"}, {"name": "PORT", "value": 8001}]))
    assert found == [
        (
            "mandatory",
            f"spec.containers[0].env[1].value: 8001 is an integer where the schema takes a string ({SCHEMA}); the API "
            "server cannot decode the Pod and refuses it, so it is never created; quote the value or give the type the "
            "field takes",
        )
    ]


def test_a_boolean_env_value_blocks():
    # kubernetes/ingress-nginx docs/examples/auth/oauth-external-auth/vouch-proxy.yaml at
    # dbb11b92ddb77bee9c35e462479129354c84f939: Deployment/vouch-proxy `- name: VOUCH_ALLOWALLUSERS / value: true`.
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vouch-proxy", "namespace": "kube-system", "labels": {"k8s-app": "vouch-proxy"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"k8s-app": "vouch-proxy"}},
            "template": {
                "metadata": {"labels": {"k8s-app": "vouch-proxy"}},
                "spec": {
                    "containers": [
                        {
                            "env": [{"name": "VOUCH_ALLOWALLUSERS", "value": True}, {"name": "VOUCH_LISTEN", "value": "0.0.0.0"}],
                            "image": "quay.io/vouch/vouch-proxy:latest",
                            "name": "vouch-proxy",
                            "ports": [{"containerPort": 9090, "protocol": "TCP"}],
                        }
                    ]
                },
            },
        },
    }
    found = _found(deployment)
    assert [(level, m.split(" (")[0]) for level, m in found] == [
        ("mandatory", "spec.template.spec.containers[0].env[0].value: True is a boolean where the schema takes a string")
    ]


def test_a_mis_indented_field_blocks():
    # phucly01/ollama-k8s ollama/ollama.yaml at 152e6532e503b23a0a4c27aaff758f07386ca39c (spent set 20): `name:
    # ollama-storage` indented under spec.template instead of under its volume.
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama-deploy"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {
                "metadata": {"labels": {"app": "ollama"}},
                "name": "ollama-storage",
                "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:0.3.12"}]},
            },
        },
    }
    assert _found(deployment) == [
        (
            "mandatory",
            f"spec.template.name: not a field of Deployment ({SCHEMA}), often a key indented under the wrong parent; "
            "kubectl's default strict field validation refuses the object (unknown field), otherwise the API server "
            "drops the field and the setting never takes effect; move it where the type defines it or remove it",
        )
    ]


def test_labels_and_config_data_take_strings_only():
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "vllm", "labels": {"gpu": True}},
        "data": {"PORT": 8000},
    }
    assert [m.split(":")[0] for _, m in _found(config)] == ["metadata.labels.gpu", "data.PORT"]


def test_values_the_api_server_accepts_stay_silent():
    resources = {"limits": {"cpu": 2, "memory": "1e9", "nvidia.com/gpu": 1}, "requests": {"memory": 1000000000, "cpu": "500m"}}
    pod = _pod(
        [
            {"name": "A", "value": None},
            {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "C", "value": UNKNOWN},
        ],
        resources=resources,
        ports=[{"containerPort": 8000.0, "name": "http"}],
        readinessProbe={"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 5},
        livenessProbe={"tcpSocket": {"port": 8000}},
    )
    pod["metadata"]["creationTimestamp"] = None
    pod["spec"]["volumes"] = [
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": 2}},
        {"$patch": "delete", "name": "old"},
    ]
    assert _found(pod) == []
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm", "annotations": {"prometheus.io/port": "8000"}},
        "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 80, "targetPort": "http"}, {"port": 81, "targetPort": 8000}]},
    }
    assert _found(service) == []
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm"},
        "spec": {"replicas": 2.0, "strategy": strategy, "selector": {"matchLabels": {"app": "vllm"}}, "template": None},
        "status": {"replicas": 2},
    }
    assert _found(deployment) == []
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "vllm"},
        "spec": {"minAvailable": "50%"},
    }
    assert _found(pdb) == []


def test_a_non_integral_number_is_not_an_int_or_string():
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0.5}}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm"}, "spec": {"strategy": strategy}}
    assert [level for level, _ in _found(deployment)] == ["mandatory"]


def test_a_field_of_a_later_minor_is_advice():
    found = _found(_pod([], name="x") | {"spec": {"hostnameOverride": "vllm-0", "containers": []}})
    assert found == [
        (
            "advisory",
            f"spec.hostnameOverride: a field of Pod only from Kubernetes 1.34 ({SCHEMA}); on an earlier cluster "
            "kubectl's default strict field validation refuses the object (unknown field), otherwise the API server "
            "drops the field and the setting never takes effect",
        )
    ]


def test_only_kubernetes_own_kinds_are_read():
    crd_kind = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "x"},
        "spec": {"bogus": 1},
    }
    assert core_schema.errors(manifest(crd_kind).type, crd_kind) == []


def test_the_data_file_is_current_and_covers_the_listed_kinds():
    sys.path.insert(0, str(ROOT))
    from tools import core_schemas

    assert core_schema.COVERED == frozenset(core_schemas.KINDS) == frozenset(core_schema.kinds())
    assert core_schemas.main(["--check"]) == 0
    assert core_schema.source()["package"] == "kubernetes-validate" and len(core_schema.source()["sha256"]) == 64


def test_a_check_never_imports_kubernetes_validate(tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: 'b:1', env: [{name: PORT, value: 8001}]}\n"
    )
    script = (
        "import sys\nfrom policies.check import main\n"
        f"code = main([{str(path)!r}, '--format', 'json'])\n"
        "print(code, 'kubernetes_validate' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.stdout.strip().splitlines()[-1] == "1 False", proc.stderr


def _priority_class(**fields: object) -> dict:
    # ArchanaChetan07/ai-inference-observability-platform k8s/priorityclass.yaml at
    # 468d39ab08719f89ac025b9259ae85772c630a71: value 1000000, globalDefault false (a careful form).
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "vllm-inference", "labels": {"app.kubernetes.io/part-of": "vllm-latency-metrics"}},
        "value": 1000000,
        "globalDefault": False,
        "description": "Priority class for vLLM inference and latency proxy workloads",
        **fields,
    }


def test_cluster_kinds_are_read_too():
    assert _found(_priority_class()) == []
    # The same object with the flag quoted and the value as text: neither decodes into PriorityClass's bool and int32.
    found = _found(_priority_class(globalDefault="false", value="1000000"))
    assert [m.split(" (")[0] for _, m in found] == [
        "value: '1000000' is a string where the schema takes an integer",
        "globalDefault: 'false' is a string where the schema takes a boolean",
    ]
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "vllm:reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
    }
    assert _found(role) == []
    assert [m.split(":")[0] for _, m in _found({**role, "rule": []})] == ["rule"]


def test_odd_values_are_read_without_a_traceback():
    # Keys that are not text, YAML !!binary (bytes), a list where a map goes, a map where a list goes.
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", 1: "x"}, "data": {"token": b"\x00\x01"}}
    assert [m.split(":")[0] for _, m in _found(secret)] == ["metadata[1]"]
    odd = _pod([], ports={"containerPort": 80}, volumeMounts=[[{"name": "a"}]])
    assert [m.split(":")[0] for _, m in _found(odd)] == [
        "spec.containers[0].ports",
        "spec.containers[0].volumeMounts[0]",
    ]


def _check_text(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    """(level, message) of api-schema-valid's findings when ``text`` is read from a file, as `policies check` reads it."""
    import json as _json

    path = tmp_path / "m.yaml"
    path.write_text(text)
    run = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr
    found = _json.loads(run.stdout)["violations"]
    return [(f["enforcement"], f["message"]) for f in found if f["catalog"] == "S26"]


def test_plain_scalars_are_judged_as_kubectl_reads_them(tmp_path):
    # Review 41 item 1: YAML 1.1 (PyYAML) reads `12:30` as the base-60 integer 750 and `08080` as text; kubectl's reader
    # (kubernetes-sigs/yaml goyaml.v2/resolve.go at 742f5e6, resolve(): base-60 "purposefully unsupported"; then
    # strconv.ParseInt(s, 0, 64) and the yamlStyleFloat pattern) reads `12:30` as the string "12:30" and `08080` / `1e3`
    # as numbers, so the API server accepts all of these.
    text = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 09
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27.0
        ports: [{containerPort: 08080}]
        env:
        - {name: C, value: 12:30}
        - {name: D, value: 10:30:00}
        - {name: E, value: =}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data: {START: 10:30, OP: =}
"""
    assert _check_text(tmp_path, text) == []
    # The quoted forms stay what they are: text in an integer field, a number in a string field.
    quoted = text.replace("replicas: 09", 'replicas: "09"').replace("value: =", "value: 8000")
    assert [(level, m.split(":")[0]) for level, m in _check_text(tmp_path, quoted)] == [
        ("mandatory", "spec.replicas"),
        ("mandatory", "spec.template.spec.containers[0].env[2].value"),
    ]


def test_text_in_an_integer_field_blocks_only_as_a_quoted_number():
    # Review 41 item 3. A fill-in some tool replaces before applying is advice: Octopus Deploy's step-template form
    # (OctopusDeploy blog, code-index file 37963370827: `containerPort: "#{ServicePort}"`,
    # `terminationGracePeriodSeconds: "#{if X}#{X}#{/if}"`), Azure DevOps replacetokens `#{replicas}#`, `%PORT%`,
    # `@PORT@`, `{PORT}`, `{{PORT}}`, Backstage `${{ values.port }}`.
    fill_ins = ["#{ServicePort}", "#{replicas}#", "%PORT%", "@PORT@", "{PORT}", "{{PORT}}", "${{ values.port }}"]
    pod = _pod([], ports=[{"containerPort": p} for p in fill_ins])
    pod["spec"]["terminationGracePeriodSeconds"] = "#{if Grace}#{Grace}#{/if}"
    pod["spec"]["hostNetwork"] = "%HOST_NETWORK%"
    found = _found(pod)
    assert [level for level, _ in found] == ["advisory"] * 8, found
    assert "fill-in" in found[0][1]
    # The quoted form of an integer or a boolean is refused for certain.
    pod = _pod([], ports=[{"containerPort": "8080"}, {"containerPort": " 2 "}])
    pod["spec"]["hostNetwork"] = "true"
    assert [level for level, _ in _found(pod)] == ["mandatory"] * 3


def test_a_plain_number_reads_as_text_everywhere_else():
    # Review 41 item 19(a): components.loading.PlainNumber (`08`, `1e3`) reaches CEL as str (the library refuses a
    # str subclass: "Non-CEL value type") and yaml.safe_dump writes it, with either dumper.
    import yaml

    from components.loading import PlainNumber
    from policies.crd.cel import _cel_value

    value = PlainNumber("08")
    assert type(_cel_value({"a": value})["a"]) is str
    assert yaml.safe_dump({"a": value}) == yaml.dump({"a": value}, Dumper=yaml.CSafeDumper) == "a: 08\n"


def test_the_kept_form_of_the_definitions_reads_as_the_file() -> None:
    # core_schema keeps each definition marshalled apart beside the bytecode (_packed) and reads one when a walk
    # first reaches it: every definition reads back as the file has it.
    data = json.loads(core_schema.DATA.read_text())
    kept = core_schema._Definitions(core_schema._packed(data)["definitions"])
    assert all(kept.get(name) == definition for name, definition in data["definitions"].items())
    assert kept.get("io.k8s.no.such.Definition", {}) == {}


def test_a_sops_encrypted_secret_is_read_as_the_cluster_sees_it():
    """Spent set 95 tpural/flux@3f85be5136a5040822c7faf9f5fe6b27adbe9efd apps/openwebui/secret.yaml (trimmed): Flux
    decrypts the file before applying it, which removes the top-level sops block (getsops/sops v3.9.0
    stores/stores.go L28); at base S26 blocked `sops` as an unknown field of Secret. A `sops` key that is no SOPS block
    (no mac, lastmodified or version) is still an unknown field."""
    from policy_fixtures import found_by

    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "openwebui-secret", "namespace": "openwebui"},
        "type": "Opaque",
        "stringData": {"WEBUI_SECRET_KEY": "ENC[AES256_GCM,data:hrpL,iv:r0Wz,tag:oWTp,type:str]"},
        "sops": {
            "age": [{"recipient": "age1s6em2an08sfhsrrf"}],
            "lastmodified": "2025-10-07T05:43:15Z",
            "mac": "ENC[AES256_GCM,data:tk]",
            "version": "3.8.1",
        },
    }
    assert found_by([secret], "api-schema-valid") == []
    stray = {**secret, "sops": {"note": "encrypt me"}}
    assert [level for level, _ in found_by([stray], "api-schema-valid")] == ["mandatory"]


def test_cidr_fields_the_api_server_parses():
    """Spent set 94 ricardolins/akamai_inference_cloud kubernetes/vllm/service.yaml: loadBalancerSourceRanges holds the
    literal ALLOWED_ADMIN_CIDR_PLACEHOLDER, refused by ValidateService ("must be a list of IP ranges", kubernetes
    pkg/apis/core/validation/validation.go); the pack reads that placeholder as unknown (S27 reports it), so the form
    here is a word no placeholder reader knows (advice: a tool may replace it). A bare address is refused (net.ParseCIDR
    needs /n), and a NetworkPolicy ipBlock.cidr the same way (ValidateIPBlock). Valid ranges, IPv6 and templated values
    are silent."""
    from policy_fixtures import found_by

    def service(ranges):
        return {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "vllm"},
            "spec": {
                "type": "LoadBalancer",
                "selector": {"app": "vllm"},
                "ports": [{"port": 80}],
                "loadBalancerSourceRanges": ranges,
            },
        }

    ((level, message),) = found_by([service(["office-range"])], "api-schema-valid")
    assert level == "advisory" and "spec.loadBalancerSourceRanges[0]" in message and "fill-in" in message, message
    ((level, message),) = found_by([service(["203.0.113.7"])], "api-schema-valid")
    assert level == "mandatory" and "is not a CIDR" in message
    assert found_by([service(["203.0.113.0/24", " 10.0.0.0/8", "2001:db8::/32", "${ADMIN_CIDR}"])], "api-schema-valid") == []
    # review51a: an envsubst $VAR is templated and leading zeros parse (k8s.io/utils/net ParseCIDRSloppy): silent; a
    # fill-in address part (YOUR_IP/32, 10.0.x.x/16) is advice, never a blocking refusal
    assert found_by([service(["$ADMIN_CIDR", "010.000.0.0/8"])], "api-schema-valid") == []
    levels = [level for level, _ in found_by([service(["YOUR_IP/32", "10.0.x.x/16"])], "api-schema-valid")]
    assert levels == ["advisory", "advisory"], levels
    policy = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "169.254.169.254"]}}]}],
        },
    }
    ((level, message),) = found_by([policy], "api-schema-valid")
    assert level == "mandatory" and "spec.egress[0].to[0].ipBlock.except[1]" in message
