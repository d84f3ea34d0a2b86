"""Names the option table (components/vllm_cli_flags.json) holds only because a parser file quotes them in an error
hint, not because a parser declares them.

tools/read_engine_options.py is generous: every ``--name`` literal of a parser file counts as an option, so an option
vLLM removed stays "accepted" while its own hint names it. vLLM 0.34.0 vllm/utils/argparse_utils.py:182-194
(FlexibleArgumentParser.error) appends "Hint: --task is not a vllm serve option. For embedding, reranking, or reward
models, use --runner pooling ..." to an "unrecognized arguments" error naming --task, and :320-322 looks for the same
literal; vllm/engine/arg_utils.py of that wheel declares no --task (PoolerConfig.task, vllm/config/pooler.py:32, is
a field of --pooler-config, which the parser adds by name). Each entry is the first release where that was read in
the wheel; a release before it is left to the table (the removal release was not read).
"""

from __future__ import annotations

from typing import Optional

from components.engine_options import version_key

# option -> (first release read where the parser refuses it, why, the fix)
HINT_ONLY = {
    "--task": (
        "0.34.0",
        "its parser no longer declares --task: vLLM's own error hint says '--task is not a vllm serve option' "
        "(0.34.0 vllm/utils/argparse_utils.py:182-194; the option table counts that literal)",
        "use --runner pooling (with --convert embed, classify or reward to adapt a generative model)",
    )
}


def hint_only(option: str, bounds: tuple[str, ...]) -> Optional[tuple[str, str]]:
    """(why, fix) when ``option`` (as written: ``--task``, ``--task=embed``) is, at every release of ``bounds``, a name
    the table holds only from an error hint; else None."""
    name = "--" + option.split("=", 1)[0].lstrip("-").replace("_", "-")
    entry = HINT_ONLY.get(name)
    if entry is None or not bounds or any(version_key(b) < version_key(entry[0]) for b in bounds):
        return None
    return entry[1], entry[2]


# Options the parser dropped while a configuration class kept the field (the table records such a name as "field" or
# as a prefix, and judges it advice): verified in the wheels. vLLM 0.10.1 vllm/engine/arg_utils.py adds no DeviceConfig
# argument group (the engine builds DeviceConfig from current_platform.device_type at :1055-1056), so --device is
# unrecognized; 0.33.0 declares --device-ids (:1195) and --device-memory-utilization (:1390), so --device is ambiguous.
PARSER_DROPPED = {
    "--device": (
        "0.10.0",
        "the parser dropped it in 0.10.0 (0.10.1 vllm/engine/arg_utils.py has no DeviceConfig group: the platform "
        "decides the device) and from 0.31.0 it is an ambiguous prefix of --device-ids and --device-memory-utilization "
        "(0.33.0 arg_utils.py:1195, :1390)",
    )
}
