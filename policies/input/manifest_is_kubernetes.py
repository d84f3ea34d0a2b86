"""S27: files checked are rendered Kubernetes manifests; an unrendered template or a file with no Kubernetes object
is reported (advisory), since nothing in it was checked.

A Helm chart's templates (`{{ .Values.x }}`, `{{- if ... }}`) are not manifests until rendered. One that lies in a
chart's templates/ folder is read best-effort (policies/reading/helm_chart.py: rendered with the chart's values.yaml,
its objects checked by every rule, every finding advice); the finding stays, says so and still says how to render
it for a full check (`helm template ... | python -m policies check -`). One that cannot be rendered is not checked. A YAML file with no document holding
apiVersion and kind (values.yaml, a CI workflow) is reported too, once per file, so a reader sees what was
not checked rather than assuming it passed. Advisory: such files are normal in a repository.

A Kubernetes object whose fields still hold placeholders meant for envsubst, sed or Terraform (``${PROJECT_ID}``,
``$HF_TOKEN``, ``YOUR_BUCKET_NAME``, ``<image>``) is reported the same way, naming the field and the placeholder
(policies/reading/placeholders.py): the file is not deployable as is. A ConfigMap's data is read by
policies/reading/config_placeholders.py: the fill-ins any program would take literally (``YOUR_...``, ``[API_Key]``,
``http://svc.<llm-namespace>.svc``), and ``${NAME}`` where the program that reads the file expands none
(components/serving_apps.toml ``[consumers]``: LiteLLM expands only ``os.environ/NAME``; nginx reads no environment,
its image renders only /etc/nginx/templates/*.template).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.input.unreadable import UNREADABLE_TYPE, message
from policies.reading.config_placeholders import CONFIG_MAP_TYPE, config_map_findings, mounts_by_config_map
from policies.reading.placeholders import placeholder_findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    mounts = mounts_by_config_map(resources) if any(r.type == CONFIG_MAP_TYPE for r in resources) else {}
    for resource in resources:
        if resource.type == CONFIG_MAP_TYPE:
            findings.extend((resource.name, m) for m in config_map_findings(resource, mounts))
        elif resource.type == UNREADABLE_TYPE:
            if resource.props.get("kind") in ("template", "not-kubernetes", "template-read"):
                findings.append((resource.name, message(resource.props)))
        else:
            findings.extend((resource.name, m) for m in placeholder_findings(resource))
    return findings


POLICY = Policy(
    name="manifest-is-kubernetes",
    description=(
        "Files checked are rendered Kubernetes manifests: templates (read best-effort where their chart is found), "
        "files with no Kubernetes object and objects whose fields hold envsubst/sed/Terraform placeholders are reported."
    ),
    catalog="S27",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Render templates before checking (`helm template RELEASE CHART -f values.yaml | python -m policies check -`, "
        "`kustomize build DIR | python -m policies check -`, `envsubst < FILE | python -m policies check -`), and "
        "point the check at the manifests' folder."
    ),
    check_stack=_check,
    per_object=True,
    rationale=(
        "What the pack did not read it did not check: a chart's templates hold Go template actions "
        "(https://helm.sh/docs/chart_template_guide/) that only `helm template` turns into manifests. Reporting them "
        "keeps the run honest about its coverage without blocking repositories that keep charts beside manifests. A chart's "
        "template (its chart: the nearest Chart.yaml above it or, with none, the folder holding its templates/ folder and a "
        "values file, named for the folder, even inside another chart's folder) is rendered best-effort with its values.yaml so that a "
        "serving Deployment kept in a chart is still checked, but its findings are advice: values files and --set change what "
        "is deployed. The Chart.yaml and values files of a chart so rendered were read as its own, not reported."
    ),
)
