"""S61: the prefill and decode servers of one model agree on KV transfer.

In prefill/decode disaggregation the prefill server computes a prompt's KV cache and the decode server pulls it through
a KV connector: both vLLM servers need ``--kv-transfer-config`` with the same ``kv_connector`` (vLLM
docs/features/disagg_prefill.md; KServe v0.20.0's own P/D sample,
docs/samples/llmisvc/single-node-gpu/llm-inference-service-pd-qwen2-7b-gpu.yaml, gives NixlConnector to both, as
kv_consumer and kv_producer). KServe's presets pass none for P/D (the script's KV_TRANSFER_ARGS is only KV offloading,
config/llmisvcconfig/config-llm-template.yaml:158-164 and config_merge.go:641), so each side states its own, most
often in VLLM_ADDITIONAL_ARGS (read into the derived pod's command line, policies/llmisvc_presets.py). With
NixlConnector each side also advertises the host of its handshake side channel, VLLM_NIXL_SIDE_CHANNEL_HOST, which is
``localhost`` unless set (vllm-project/vllm@001f69f8 vllm/envs.py, environment_variables
["VLLM_NIXL_SIDE_CHANNEL_HOST"]): a side that leaves it unset while the other sets it (the sample sets status.podIP on
both) advertises an address its peer in another pod cannot reach.

Read on an LLMInferenceService with ``spec.prefill``: the main container of the derived decode pod
(``spec.template``) against that of the derived prefill pod (``spec.prefill.template``). Advice: a request still gets
an answer when the transfer does not happen (the decode server recomputes, or the router falls back), and a flag set
where the files cannot see it (a VLLM_ADDITIONAL_ARGS from a ConfigMap) keeps the rule silent.
"""

from __future__ import annotations

import json
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, pod_specs
from policies.reading.vllm_args import vllm_args

_TYPES = (
    "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService",
    "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
)
_SIDE_CHANNEL = "VLLM_NIXL_SIDE_CHANNEL_HOST"


def _main(podspec: dict) -> Optional[dict]:
    for container in as_list(podspec.get("containers")):
        if isinstance(container, dict) and container.get("name") == "main":
            return container
    return None


def _unseen(container: dict) -> bool:
    """True when an env the files cannot read may carry the flags: VLLM_ADDITIONAL_ARGS from valueFrom, or with a
    placeholder the controller renders (``{{ ChildName ... }}``, read as unknown), or an envFrom."""
    if container.get("envFrom"):
        return True
    return any(
        isinstance(e, dict) and e.get("name") == "VLLM_ADDITIONAL_ARGS" and not isinstance(e.get("value"), str)
        for e in as_list(container.get("env"))
    )


def _connector(value: Optional[str]) -> str:
    """The kv_connector a --kv-transfer-config names, or "" when its JSON cannot be read."""
    try:
        config = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return ""
    return str(config.get("kv_connector") or "") if isinstance(config, dict) else ""


def _kv(container: dict) -> tuple[bool, str]:
    args = vllm_args(container)
    return "kv-transfer-config" in args, _connector(args.get("kv-transfer-config"))


def _env_names(container: dict) -> set[str]:
    return {str(e.get("name")) for e in as_list(container.get("env")) if isinstance(e, dict)}


def _check(resource: Resource, config: dict) -> list[str]:
    if not isinstance(as_dict(as_dict(resource.props).get("spec")).get("prefill"), dict):
        return []
    pods = dict(pod_specs(resource))
    decode, prefill = (_main(as_dict(pods.get(p))) for p in ("spec.template", "spec.prefill.template"))
    if decode is None or prefill is None or _unseen(decode) or _unseen(prefill):
        return []
    (decode_set, decode_conn), (prefill_set, prefill_conn) = _kv(decode), _kv(prefill)
    sides = {"decode (spec.template)": decode_set, "prefill (spec.prefill.template)": prefill_set}
    if decode_set != prefill_set:
        has = next(k for k, v in sides.items() if v)
        lacks = next(k for k, v in sides.items() if not v)
        return [
            unproven(
                f"{lacks} container main starts vLLM with no --kv-transfer-config while {has} sets one "
                f"({decode_conn or prefill_conn or 'a KV connector'}): no KV cache passes between them, so the "
                f"prefill/decode split does nothing (the decode server recomputes every prompt or the transfer fails); "
                f"give both the same kv_connector (VLLM_ADDITIONAL_ARGS --kv-transfer-config)"
            )
        ]
    if decode_conn and prefill_conn and decode_conn != prefill_conn:
        return [
            unproven(
                f"decode (spec.template) uses kv_connector {decode_conn} but prefill (spec.prefill.template) uses "
                f"{prefill_conn}: they cannot exchange KV cache; use one connector on both"
            )
        ]
    if decode_conn == prefill_conn == "NixlConnector":
        names = {"decode (spec.template)": _env_names(decode), "prefill (spec.prefill.template)": _env_names(prefill)}
        missing = [k for k, v in names.items() if _SIDE_CHANNEL not in v]
        if len(missing) == 1:
            return [
                unproven(
                    f"{missing[0]} container main uses NixlConnector without {_SIDE_CHANNEL} while its peer sets it: "
                    f"vLLM then advertises its handshake side channel on localhost, which the other pod cannot reach; "
                    f"set {_SIDE_CHANNEL} from status.podIP on both"
                )
            ]
    return []


POLICY = Policy(
    name="prefill-decode-kv-agree",
    description=(
        "The prefill and decode servers of one model agree on KV transfer: both set --kv-transfer-config with the same "
        "kv_connector, and with NixlConnector both advertise a reachable side channel (advice)."
    ),
    rationale=(
        "Disaggregated serving moves each prompt's KV cache from the prefill server to the decode server through a KV "
        "connector both must run; KServe v0.20.0's presets pass none for P/D (config-llm-template.yaml:158-164), and "
        "VLLM_NIXL_SIDE_CHANNEL_HOST defaults to localhost (vllm/envs.py)."
    ),
    catalog="S61",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Give spec.template and spec.prefill.template the same --kv-transfer-config kv_connector (kv_consumer / "
        "kv_producer roles as KServe's P/D sample), and VLLM_NIXL_SIDE_CHANNEL_HOST from status.podIP on both."
    ),
    config_schema={},
    resource_types=_TYPES,
    check_resource=_check,
)
