"""S63: an InferenceService's model format is one its runtime supports.

KServe's predictor reconciler (kserve/kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/components/predictor.go
reconcileModel) takes the runtime an InferenceService names in ``predictor.model.runtime`` (a ServingRuntime of its
namespace, else a ClusterServingRuntime of that name: pkg/controller/v1beta1/inferenceservice/utils/utils.go
GetServingRuntime, :304) and, at :359-365, refuses it when ``RuntimeSupportsModel`` is false: the InferenceService gets
InvalidSpec / NoSupportingRuntime ("Specified runtime does not support specified framework/version"), the reconcile
returns an error, and no predictor is ever created, so the service is never Ready. ``RuntimeSupportsModel``
(pkg/apis/serving/v1beta1/predictor_model.go:133-146) compares labels: the runtime's are mt:NAME and mt:NAME:VERSION of
every supportedModelFormats entry (every entry when the runtime is named, :153-156), the model's mt:NAME:VERSION when
``modelFormat.version`` is given, else mt:NAME; case-sensitive. So ``modelFormat: {name: huggingface}`` with
``runtime: kserve-tritonserver`` (tensorrt, tensorflow, onnx, pytorch, triton) is refused.

The runtimes are those of the run (their ``supportedModelFormats``) and those the chart kserve-runtime-configs v0.20.0
installs (components/kserve_runtimes.toml [[supports]], charts/kserve-runtime-configs/files/runtimes/resources.yaml).
Mandatory where the named runtime is settled: one of the run in the InferenceService's namespace (or a
ClusterServingRuntime of the run), or a chart runtime no object of the run shadows by name. Silent where the name is
no runtime known, a runtime of the run in another namespace shares it, the runtime is disabled (another refusal), or an
entry is not plain.

With no runtime named, the controller picks the first runtime with an autoSelect entry for the format
(predictor_model.go:88-130 GetSupportingRuntimes); where neither the run's runtimes nor the chart's have one, it finds
none ("No runtime found to support specified framework/version", predictor.go:379-389): advice, since the cluster may
hold a runtime of its own.

A ``model`` that names no format at all (brief kserve53; spent set 109 Siryoos/kserve-vllm-mini@627b171a isvc.yaml,
``runtime: vllm`` with storageUri and env only) is refused by every runtime: the field is ``+required`` in the Go type
(pkg/apis/serving/v1beta1/predictor_model.go:44-46) but the CRD lists no ``required`` for it
(config/crd/full/serving.kserve.io_inferenceservices.yaml, predictor.model) and no webhook checks it, so the API server
accepts the InferenceService; the controller then asks for the label ``mt:`` (getModelFormatLabel, :141-147), which no
runtime carries (a ServingRuntime's format name is required, pkg/apis/serving/v1alpha1/servingruntime_types.go:31-34),
and refuses the named runtime (predictor.go:358-365) or finds none (:379-389). Mandatory, whatever runtime is named or
where it lives. The same at the releases still run: v0.11.2, v0.13.1 and v0.15.2 build the same label
(predictor_model.go:137-143), their CRDs require no modelFormat either, and predictor.go refuses a named runtime
(v0.11.2:130-135, v0.13.1:132, v0.15.2:306) or finds none (v0.11.2:140-148, v0.15.2:316-323); no defaulting webhook
writes a format into ``model`` (only the old ``predictor.<framework>`` forms are converted, with theirs). Silent where
``runtime`` is written but names nothing (another refusal: S26 for a non-string; an empty name is looked up and waited
for, :331-337), in ModelMesh mode (another controller) and on a Kustomize patch (its base may hold the format).
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import KSERVE_DEPLOYMENT_MODE, annotations_of, as_dict, get
from policies.reading.kserve_runtime import builtin_supports, spec_formats, supports_format, viewed_runtimes

_ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"


def _shown(formats: tuple[tuple[str, Optional[str]], ...]) -> str:
    return ", ".join(f"{n}:{v}" if v else n for n, v in formats) or "none"


def _same_namespace(a: Optional[str], b: Optional[str]) -> bool:
    return a is None or b is None or a == b


def _named(name: str, namespace: Optional[str], fmt: str, version: Optional[str]) -> list[str]:
    # GetServingRuntime (utils.go:304): a ServingRuntime of the namespace, else a ClusterServingRuntime of the name.
    runtimes = [r for r in viewed_runtimes() if r[2] == name]
    own = [r for r in runtimes if r[0] == "ServingRuntime" and _same_namespace(r[1], namespace)]
    cluster = [r for r in runtimes if r[0] == "ClusterServingRuntime"]
    chosen = next(iter(own or cluster), None)
    if chosen is None and runtimes:
        return []  # only ServingRuntimes of other namespaces share the name: the chart's may not be the one
    if chosen is not None:
        if as_dict(chosen[3]).get("disabled") is True:
            return []
        formats = spec_formats(as_dict(chosen[3]), named=True)
        where = f"{chosen[0]}/{name} of the files"
    else:
        row = builtin_supports().get(name)
        if row is None:
            return []
        formats, where = row.formats, f"ClusterServingRuntime/{name} that KServe's chart installs ({row.source})"
    if formats is None or supports_format(formats, fmt, version):
        return []
    asked = f"{fmt}:{version}" if version else fmt
    return [
        f"spec.predictor.model: modelFormat {asked} with runtime {name}, but {where} supports only {_shown(formats)}: the "
        f"KServe controller refuses the runtime (InvalidSpec, NoSupportingRuntime: 'Specified runtime does not support "
        f"specified framework/version'), creates no predictor, and the InferenceService is never Ready; name a runtime "
        f"that lists {fmt} (formats match case-sensitively) or drop runtime to let KServe pick one"
    ]


def _auto(namespace: Optional[str], fmt: str, version: Optional[str], multinode: bool) -> list[str]:
    for kind, ns, _name, spec in viewed_runtimes():
        if kind == "ServingRuntime" and not _same_namespace(ns, namespace):
            continue
        formats = spec_formats(as_dict(spec), named=False)
        if formats is None or supports_format(formats, fmt, version):
            return []
    rows = [r for r in builtin_supports().values() if r.multinode == multinode]
    if any(supports_format(r.auto, fmt, version) for r in rows):
        return []
    asked = f"{fmt}:{version}" if version else fmt
    near = sorted({n for r in rows for n, _ in r.auto if n.lower() == fmt.lower()})
    hint = f" (KServe's runtimes spell it {', '.join(near)}: names match case-sensitively)" if near else ""
    return [
        unproven(
            f"spec.predictor.model: modelFormat {asked} names no runtime: none of the files' ServingRuntimes and none of "
            f"the ClusterServingRuntimes KServe's chart installs (components/kserve_runtimes.toml) selects it{hint}, so "
            f"unless the cluster holds one of its own the controller finds no runtime ('No runtime found to support "
            f"specified framework/version') and the InferenceService is never Ready"
        )
    ]


def _formatless(resource: Resource, model: dict) -> list[str]:
    """A predictor ``model`` with no modelFormat (or an empty name): no runtime ever supports it (module docstring)."""
    if resource.patch:
        return []
    if "modelFormat" in model and get(model, "modelFormat", "name") != "":
        return []  # named, or refused first by the CRD's schema (no name, not an object: S26)
    if annotations_of(resource.props).get(KSERVE_DEPLOYMENT_MODE) == "ModelMesh":
        return []  # modelmesh-serving reconciles it, not the predictor reconciler read here
    name = model.get("runtime")
    if name is not None and not (isinstance(name, str) and name):
        return []  # no runtime name: S26 refuses a non-string; an empty one is looked up and waited for (:331-337)
    if isinstance(name, str):
        formats = [r for r in viewed_runtimes() if r[2] == name]
        if any(n == "" for r in formats for n, _ in spec_formats(as_dict(r[3]), named=True) or ()):
            return []  # a runtime of the run that lists an empty format name would match the empty label
        refusal = (
            f"the controller refuses runtime {name} whatever formats it lists (InvalidSpec, NoSupportingRuntime: "
            f"'Specified runtime does not support specified framework/version', predictor.go:358-365)"
        )
        named = [f"{_shown(f)}" for r in formats if (f := spec_formats(as_dict(r[3]), named=True))]
        row = builtin_supports().get(name)
        hint = named[0] if named else (_shown(row.formats) if row is not None else "")
        fix = f"add modelFormat: {{name: ...}} naming a format runtime {name} lists" + (f" ({hint})" if hint else "")
    else:
        refusal = (
            "the controller finds no runtime for it (InvalidSpec, NoSupportingRuntime: 'No runtime found to support "
            "specified framework/version', predictor.go:379-389)"
        )
        fix = "add modelFormat: {name: ...} naming the model's format (vLLM, huggingface, ...)"
    return [
        f"spec.predictor.model has no modelFormat name: the CRD does not require the field, so the API server accepts "
        f"the InferenceService, but KServe matches runtimes by the label mt:<format> (predictor_model.go:133-147) and "
        f"asks for 'mt:', which no runtime carries: {refusal}, no predictor is created and the InferenceService is "
        f"never Ready; {fix}"
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    model = as_dict(predictor.get("model"))
    if isinstance(predictor.get("model"), dict):
        formatless = _formatless(resource, model)
        if formatless:
            return formatless
    fmt, version = get(model, "modelFormat", "name"), get(model, "modelFormat", "version")
    if not isinstance(fmt, str) or not fmt or not (version is None or isinstance(version, str)):
        return []
    if "$" in fmt or "{{" in fmt:
        return []
    namespace = get(resource.props, "metadata", "namespace")
    namespace = namespace if isinstance(namespace, str) else None
    name: Any = model.get("runtime")
    if isinstance(name, str) and name:
        return [] if "$" in name or "{{" in name else _named(name, namespace, fmt, version)
    if name is not None:
        return []
    return _auto(namespace, fmt, version, predictor.get("workerSpec") is not None)


POLICY = Policy(
    name="kserve-model-format-supported",
    description=(
        "An InferenceService's predictor model names its format (modelFormat: with none, no runtime ever supports it), "
        "and one its runtime supports: the runtime it names lists the format (and version) in supportedModelFormats, or "
        "some runtime selects it."
    ),
    catalog="S63",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Write the model's modelFormat name, and name a runtime whose supportedModelFormats lists it "
        "(kserve-huggingfaceserver for huggingface, kserve-vllmserver for vLLM, kserve-tritonserver for "
        "triton/onnx/tensorrt), or drop runtime."
    ),
    resource_types=(_ISVC,),
    check_resource=_check,
    rationale=(
        "kserve v0.20.0 predictor.go:359-365 refuses a named runtime whose labels (predictor_model.go:133-163 "
        "RuntimeSupportsModel, every supportedModelFormats entry when named) lack the model's mt:NAME[:VERSION]; "
        "with no runtime named, GetSupportingRuntimes (:88-130) finds only autoSelect entries; a model with no format "
        "asks for 'mt:' (:141-147), which no runtime carries, though the CRD does not require the field. The chart's runtimes: "
        "charts/kserve-runtime-configs/files/runtimes/resources.yaml at v0.20.0."
    ),
)
