"""S26 api-object-valid: names the API server refuses per kind, and an Ingress that sets its class twice."""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest, messages

from policies.framework import Resource, Unproven
from policies.k8s_generic.api_object_valid import POLICY


def _found(obj: dict) -> list[tuple[str, str]]:
    """(level, message) of the policy's findings on one manifest: advisory where the finding is unproven."""
    resource = manifest(obj)
    return [
        ("advisory" if isinstance(m, Unproven) else "mandatory", m)
        for m in POLICY.check_resource(resource, {})  # type: ignore[misc]
    ]


def _llmisvc(name: str = "SET_AT_RUNTIME", namespace: str = "SET_AT_RUNTIME") -> dict:
    # The metadata of openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-simple.yaml at
    # cfc3e8a2df2096f4c69ae86ba80d201875aa61f8 (spent set 31): name and namespace are the literal SET_AT_RUNTIME, which
    # its test harness replaces before applying (labelled NONE, blocking as committed).
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"model": {"uri": "hf://openai/gpt-oss-20b"}, "replicas": 1},
    }


def test_a_placeholder_name_is_advice():
    found = _found(_llmisvc())
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[0][1].startswith(
        "metadata.name 'SET_AT_RUNTIME' is an unrendered placeholder, not a valid LLMInferenceService name (a "
        "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
        "and end with an alphanumeric character); applied as committed the API server refuses the LLMInferenceService"
    )
    assert found[1][1].startswith("metadata.namespace 'SET_AT_RUNTIME' is an unrendered placeholder")


def test_a_plainly_invalid_name_blocks():
    # The same object with a name nobody fills in: uppercase and an underscore are refused as written.
    found = _found(_llmisvc(name="Llama_3-8B", namespace="llm-d"))
    assert found == [
        (
            "mandatory",
            "metadata.name 'Llama_3-8B': a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character; the API server refuses the "
            "LLMInferenceService (metadata.name: Invalid value), so it is never created; use lowercase letters, digits "
            "and '-'",
        )
    ]


def _service(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000, "targetPort": "http"}]},
    }


def _deployment(name: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "vllm"}}, "template": {"metadata": {"labels": {"app": "vllm"}}}},
    }


def test_a_dotted_name_is_a_deployment_name_but_not_a_service_name():
    # A Service's name is a DNS-1035 label (ValidateServiceName = NameIsDNS1035Label): no dots, a letter first.
    assert _found(_deployment("llama-3.1-8b-instruct.serving.example.com")) == []
    found = _found(_service("llama-3.1-8b"))
    assert [level for level, _ in found] == ["mandatory"]
    assert "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic" in found[0][1]
    assert [level for level, _ in _found(_service("8b-llama"))] == ["mandatory"]


def test_careful_names_stay_silent():
    assert _found(_service("vllm-llama3-8b")) == []
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"generateName": "benchmark-", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [{"name": "bench", "image": "busybox:1.36"}]}}},
    }
    assert POLICY.check_resource(_as_generated(job), {}) == []  # type: ignore[misc]
    # A Helm template's name is left to S27; a kind whose names take any path segment (RBAC) is not judged.
    assert _found(_deployment("{{ .Release.Name }}-vllm")) == []
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "vllm:reader"}}
    assert _found(role) == []
    # A namespace on a cluster-scoped kind is dropped by the API server, not judged.
    cls = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "llm", "namespace": "X_Y"}}
    assert _found(cls) == []


def _as_generated(obj: dict) -> Resource:
    """A generateName-only object as the reader names it (manifest() needs a name)."""
    return Resource(type="kubernetes:batch/v1:Job", name="Job/benchmark-", props=obj)


def test_cronjob_names_stop_at_52_characters():
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "a" * 53}, "spec": {}}
    assert [level for level, _ in _found(cron)] == ["mandatory"]
    assert "must be no more than 52 characters" in _found(cron)[0][1]
    assert _found({**cron, "metadata": {"name": "a" * 52}}) == []


def _ingress(annotation: str | None, field: str | None) -> dict:
    # aws-samples/scalable-hw-agnostic-inference mistral/mistral-g5-ing.yaml at ed2cb2646d45f188efd18cf1660ae0db7067af42
    # (spent set 31) and kyourselfer/OTUS_LLM-llm_mlflow k8s/vllm-deployment.yaml at
    # 7d642bd48ce0e43ad7a0529e229752e4c03253be (spent set 24, labelled NONE, blocking): the annotation (alb; nginx) and
    # spec.ingressClassName with the same value.
    annotations = {"alb.ingress.kubernetes.io/scheme": "internet-facing"}
    spec: dict = {"rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix"}]}}]}
    if annotation is not None:
        annotations["kubernetes.io/ingress.class"] = annotation
    if field is not None:
        spec["ingressClassName"] = field
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "mistral-g5-ing", "annotations": annotations},
        "spec": spec,
    }


def test_both_ingress_classes_agreeing_is_advice():
    found = _found(_ingress("alb", "alb"))
    assert found == [
        (
            "advisory",
            "metadata.annotations[kubernetes.io/ingress.class] (alb) and spec.ingressClassName (alb) are both set; API "
            "servers from v1.18 refuse the Ingress on create (annotations.kubernetes.io/ingress.class: Invalid value: "
            "can not be set when the class field is also set) until the release that accepts a matching annotation; "
            "drop the deprecated annotation",
        )
    ]


def test_two_different_ingress_classes_block():
    found = _found(_ingress("nginx", "alb"))
    assert [level for level, _ in found] == ["mandatory"]
    assert "name different classes; the API server refuses the Ingress on create" in found[0][1]


def test_one_ingress_class_stays_silent():
    assert _found(_ingress(None, "alb")) == []
    assert _found(_ingress("alb", None)) == []


def test_the_pack_reports_it_under_s26():
    obj = copy.deepcopy(_service("llama-3.1-8b"))
    found = messages(POLICY, manifest(obj))
    assert len(found) == 1 and POLICY.catalog == "S26"


def _service_account(labels: dict) -> dict:
    # kevinmeix1/kserve-model-serving-platform kubernetes/workload-identity.yaml at
    # f9ace49b5f15bea6c02b3ead5dac8d4d2c18c400: a SPIFFE id (a URL) as a label value.
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": "credit-risk-router",
            "namespace": "mlops-serving",
            "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/credit-risk-router"},
            "labels": labels,
        },
        "automountServiceAccountToken": False,
    }


def test_a_url_as_a_label_value_blocks():
    found = _found(
        _service_account(
            {
                "app.kubernetes.io/part-of": "kserve-model-serving-platform",
                "spiffe.io/spiffe-id": "spiffe://mlops.local/ns/mlops-serving/sa/credit-risk-router",
            }
        )
    )
    assert found == [
        (
            "mandatory",
            "metadata.labels[spiffe.io/spiffe-id] = 'spiffe://mlops.local/ns/mlops-serving/sa/credit-risk-router': a "
            "valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
            "and end with an alphanumeric character; the API server refuses the ServiceAccount (metadata.labels: "
            "Invalid value), so it is never created; keep labels to short tokens and put a model id or URL in an "
            "annotation",
        )
    ]


def test_a_model_id_in_a_pod_template_label_blocks_and_careful_labels_stay_silent():
    deployment = _deployment("vllm")
    deployment["spec"]["template"]["metadata"]["labels"]["model"] = "meta-llama/Llama-3.1-8B-Instruct"
    deployment["spec"]["selector"]["matchLabels"]["model"] = "meta-llama/Llama-3.1-8B-Instruct"
    found = _found(deployment)
    assert [(level, m.split(" = ")[0]) for level, m in found] == [
        ("mandatory", "spec.selector.matchLabels[model]"),
        ("mandatory", "spec.template.metadata.labels[model]"),
    ]
    careful = _service_account({"app.kubernetes.io/part-of": "kserve", "model": "llama-3.1-8b_instruct", "empty": ""})
    assert _found(careful) == []
    # A placeholder is S27's; a Helm template's; a number is api-schema-valid's type error.
    assert _found(_service_account({"model": "<model-name>", "app": "{{ .Chart.Name }}", "gpus": 8})) == []
    # On a custom resource a template's labels are the operator's to copy onto pods: advice.
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llama"},
        "spec": {"predictor": {"metadata": {"labels": {"model": "meta-llama/Llama-3.1-8B"}}}},
    }
    assert [level for level, _ in _found(isvc)] == ["advisory"]


def _named(api_version: str, kind: str, name: str, **metadata: str) -> dict:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, **metadata}}


def test_names_of_aggregated_api_kinds_are_not_judged_as_crd_names():
    # Review 41 item 2. OpenShift's kinds are served by openshift-apiserver with name rules of its own: an
    # ImageStreamTag is named `<stream>:<tag>` (`python-base:3.11`, code-index file 56478892321; `camel-app:latest`,
    # 44375710362), a Group takes any path segment name without ':' (openshift/origin
    # pkg/user/apis/user/validation/validation.go ValidateGroupName, code-index file 50106789), and
    # authorization.openshift.io's `system:image-pullers` is OpenShift's own default binding.
    for obj in (
        _named("image.openshift.io/v1", "ImageStreamTag", "python-base:3.11", namespace="team-troubleshoot-builds"),
        _named("image.openshift.io/v1", "ImageStreamTag", "camel-app:latest", namespace="camel-observability-demo"),
        _named("user.openshift.io/v1", "Group", "ML_Team"),
        _named("authorization.openshift.io/v1", "RoleBinding", "system:image-pullers"),
        _named("metrics.k8s.io/v1beta1", "PodMetrics", "Vllm_0"),
    ):
        assert _found(obj) == [], obj
    # A group no pinned CRD serves may be an aggregated API too: advice, saying why.
    found = _found(_named("example.com/v1", "Widget", "My_Widget"))
    assert [level for level, _ in found] == ["advisory"]
    assert "if a CRD serves Widget" in found[0][1]
    # A pinned CRD's kind (KServe's) is CRD-served: its name is a subdomain for certain.
    found = _found(_named("serving.kserve.io/v1beta1", "InferenceService", "Llama_8B"))
    assert [level for level, _ in found] == ["mandatory"]


def test_helm_release_name_and_pipeline_tokens_are_placeholders():
    # Review 41 items 4 and 11. `helm template` without a release name renders RELEASE-NAME (Helm 2, early Helm 3):
    # `name: RELEASE-NAME-cmdb` in a committed render (code-index file 94116644). Azure DevOps replacetokens
    # `#{appName}#`, Octopus `#{ServiceName}` (code-index file 37963370827), `@VERSION@`.
    for name in ("RELEASE-NAME-cmdb", "#{appName}#", "#{ServiceName}", "app-@VERSION@", "%APP_NAME%"):
        found = _found(_service(name))
        assert [level for level, _ in found] == ["advisory"], (name, found)
    assert _found(_service("${{ values.name }}")) == []  # `{{`: a template's, left to S27
    deployment = _deployment("vllm")
    deployment["metadata"]["namespace"] = "#{namespace}#"
    deployment["metadata"]["labels"] = {"app": "#{appName}#", "version": "@VERSION@"}
    found = _found(deployment)
    assert [level for level, _ in found] == ["advisory"]
    assert "is an unrendered placeholder, not a valid namespace (" in found[0][1]
    # A plainly invalid name beside them still blocks.
    assert [level for level, _ in _found(_service("Vllm-Server"))] == ["mandatory"]


def test_hpa_metric_selectors_are_not_label_validated_on_create():
    # Review 41 item 8: kubernetes pkg/apis/autoscaling/validation/validation.go validateExternalSource /
    # validateObjectSource run validateMetricIdentifier only, so the API server creates this HPA.
    metric = {"name": "vllm:num_requests_waiting", "selector": {"matchLabels": {"model_name": "meta-llama/Llama-3.1-8B"}}}
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"},
            "maxReplicas": 4,
            "metrics": [{"type": "External", "external": {"metric": metric, "target": {"type": "Value", "value": "5"}}}],
        },
    }
    assert _found(hpa) == []


def test_client_side_config_files_are_not_judged():
    # Review 41 items 17 and 20(b). eksctl's ClusterConfig (the form of code-index file 66765098064: eksctl.io/v1alpha5,
    # `name: llm-inference-cluster`, managedNodeGroups) names an EKS cluster, which takes capitals and '_' (AWS EKS
    # CreateCluster: "alphanumeric characters (case-sensitive), hyphens, and underscores"); Skaffold, Kustomize and k3d
    # configs are read by their CLIs and never reach an API server.
    for obj in (
        _named("eksctl.io/v1alpha5", "ClusterConfig", "LLM_Cluster", region="us-east-1"),
        _named("skaffold/v4beta6", "Config", "llm_serving"),
        _named("kustomize.config.k8s.io/v1beta1", "Kustomization", "LLM_Stack"),
        _named("k3d.io/v1alpha5", "Simple", "GPU_Cluster"),
    ):
        obj["metadata"]["labels"] = {"model": "meta-llama/Llama-3.1-8B"}
        assert _found(obj) == [], obj


def test_a_kind_defined_by_a_crd_of_the_files_read_is_crd_served():
    # Review 41 item 20(c): the apiextensions validator applies to a kind whose CRD is among the files read.
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced"},
    }
    widget = _named("example.com/v1", "Widget", "My_Widget")
    assert [level for level, _ in found_by([crd, widget], "api-object-valid")] == ["mandatory"]
    assert [level for level, _ in found_by([widget], "api-object-valid")] == ["advisory"]


def test_capitals_joined_by_dashes_are_a_placeholder_only_when_they_say_fill_in():
    # Review 41 item 20(a): LLM-API and VLLM-SERVER are plain mistakes, refused as written.
    for name in ("LLM-API", "VLLM-SERVER"):
        assert [level for level, _ in _found(_service(name))] == ["mandatory"], name
    for name in ("RELEASE-NAME-vllm", "MODEL-NAME", "YOUR-APP"):
        assert [level for level, _ in _found(_service(name))] == ["advisory"], name


def test_one_capitalised_word_naming_a_fill_in_is_a_placeholder():
    # alisachen-google/gcp-dynamo-cuj dynamo-disagg-sweep/dsv4-sweep/manifests/bench-template.yaml at
    # 0dd63192144f001b35049800be0332fce4c99942: Job dsv4-bench-JOBSUFFIX, the suffix a sweep script substitutes; it
    # was a mandatory finding on a file nobody applies as written. The same class: app-ENV, vllm-VERSION.
    for name in ("dsv4-bench-JOBSUFFIX", "vllm-ENV", "llama-VERSION-server"):
        assert [level for level, _ in _found(_deployment(name))] == ["advisory"], name
    # Capitals that name no fill-in are a plain mistake the API server refuses.
    for name in ("qwen-AWQ", "llama3-8B-instruct", "vllm-GPU"):
        assert [level for level, _ in _found(_deployment(name))] == ["mandatory"], name


def _pod_refs(kind: str = "Deployment", api: str = "apps/v1", annotations: dict | None = None) -> dict:
    # A model server whose Secret and ServiceAccount are named like environment variables (session 48, class 4: a
    # reference name with '_' or capitals; kubernetes pkg/apis/core/validation/validation.go
    # validateSecretKeySelector, validateConfigMapEnvSource, ValidatePodSpec serviceAccountName).
    template = {
        "metadata": {"labels": {"app": "vllm"}, **({"annotations": annotations} if annotations else {})},
        "spec": {
            "serviceAccountName": "vllm_sa",
            "volumes": [
                {"name": "cache", "persistentVolumeClaim": {"claimName": "Model_Cache"}},
                {"name": "cfg", "configMap": {"name": "vllm_config"}},
            ],
            "containers": [
                {
                    "name": "vllm",
                    "image": "vllm/vllm-openai:v0.10.0",
                    "env": [
                        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf_token", "key": "token"}}},
                        {"name": "A", "valueFrom": {"secretKeyRef": {"name": "HF_TOKEN", "key": "token"}}},
                    ],
                    "envFrom": [{"configMapRef": {"name": "vllm-env-"}}, {"secretRef": {"name": "Vllm-Env"}}],
                }
            ],
        },
    }
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "vllm"}}, "template": template},
    }


def test_a_reference_name_the_api_server_validates_is_refused():
    found = _found(_pod_refs())
    wheres = [(level, m.split(" ", 1)[0]) for level, m in found]
    assert wheres == [
        ("mandatory", "spec.template.spec.serviceAccountName"),
        ("mandatory", "spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name"),
        # An ALL_CAPS name reads as a placeholder a script fills in: advice.
        ("advisory", "spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.name"),
        ("mandatory", "spec.template.spec.containers[0].envFrom[1].secretRef.name"),
    ]
    assert "refuses the Deployment (name: Invalid value)" in found[1][1]


def test_references_the_api_server_does_not_validate_stay_silent():
    # claimName and a configMap volume's name are only Required (validatePersistentClaimVolumeSource,
    # validateConfigMapVolumeSource); an envFrom name may end in '-' (prefix true: maskTrailingDash).
    messages_ = " ".join(m for _, m in _found(_pod_refs()))
    assert "Model_Cache" not in messages_ and "vllm_config" not in messages_ and "vllm-env-" not in messages_


def test_a_cloud_run_service_names_secret_manager_secrets():
    # Cloud Run's Knative Service: secretKeyRef names a Secret Manager secret (HF_TOKEN, '_' and capitals allowed).
    obj = _pod_refs("Service", "serving.knative.dev/v1", {"run.googleapis.com/cpu-throttling": "false"})
    obj["spec"].pop("selector")
    assert not any("secretKeyRef" in m or "serviceAccountName" in m for _, m in _found(obj))


def _isvc_model(**model: object) -> dict:
    # The usual LLM InferenceService form, review48 item 6 (/tmp/r48/s26/c.yaml and d.yaml): env and envFrom on the
    # predictor's model (kserve v0.20.0 pkg/apis/serving/v1beta1/predictor_model.go:43-53, a ModelSpec inlining a
    # corev1.Container through PredictorExtensionSpec, predictor.go:122-135).
    spec = {"modelFormat": {"name": "huggingface"}, "storageUri": "hf://Qwen/Qwen2.5-0.5B-Instruct", **model}
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llm", "namespace": "llm"},
        "spec": {"predictor": {"model": spec}},
    }


def test_a_kserve_model_s_env_and_env_from_are_read_as_a_container_s():
    env = [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf_secret", "key": "token"}}}]
    found = _found(_isvc_model(env=env, envFrom=[{"secretRef": {"name": "hf_secret"}}]))
    assert [(level, m.split(" ", 1)[0]) for level, m in found] == [
        ("advisory", "spec.predictor.model.env[0].valueFrom.secretKeyRef.name"),
        ("advisory", "spec.predictor.model.envFrom[0].secretRef.name"),
    ]
    careful = [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-secret", "key": "token"}}}]
    assert _found(_isvc_model(env=careful, envFrom=[{"secretRef": {"name": "hf-secret"}}])) == []


def test_an_empty_reference_name_is_refused():
    # validateSecretKeySelector runs the name function on "" (Invalid value); validateSecretEnvSource refuses an empty
    # name first (Required value); an empty serviceAccountName is skipped (kubernetes pkg/apis/core/validation).
    obj = _pod_refs()
    pod = obj["spec"]["template"]["spec"]
    pod["serviceAccountName"] = ""
    pod["containers"][0]["env"] = [{"name": "Z", "valueFrom": {"secretKeyRef": {"name": "", "key": "a"}}}]
    pod["containers"][0]["envFrom"] = [{"secretRef": {"name": ""}}]
    found = _found(obj)
    assert [(level, m.split(" ", 2)[:2]) for level, m in found] == [
        ("mandatory", ["spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name", "'':"]),
        ("mandatory", ["spec.template.spec.containers[0].envFrom[0].secretRef.name", "'':"]),
    ]
    assert "refuses the Deployment (name: Invalid value)" in found[0][1] and "name the object it reads" in found[0][1]
    assert "refuses the Deployment (name: Required value)" in found[1][1]
