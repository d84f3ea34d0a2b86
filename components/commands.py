"""The command-line contract of every tool, in one table: usage, help text, exit codes, JSON mode.

`python -m stacks ...` and `python -m policies check` build their ``--help`` from :data:`COMMANDS`, and
docs/cli.md is generated from it (``python tools/cli_docs.py --write``; tests/test_cli_docs.py fails when the page
differs, and checks every parser's ``--help`` against the table). Pure data and string functions, no imports from
the rest of the package, so the layers above (policies, stacks) can all read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

# Every command: a bug (not bad input) exits 3 with one line on stderr instead of a traceback.
INTERNAL_ERROR = (3, "internal error: a bug, said in one line on stderr (LLM_SERVING_DEBUG=1 shows the traceback)")


@dataclass(frozen=True)
class Command:
    """One command's contract."""

    name: str  # as typed after `python -m`: "stacks plan", "policies check"
    usage: str  # the synopsis line
    summary: str  # one line: the subcommand list of the parent's --help
    description: str  # what it does (plain text: --help prints it as written)
    exit_codes: tuple[tuple[int, str], ...]  # (code, meaning), 0 first; INTERNAL_ERROR is added to every command
    json_flag: Optional[str] = None  # the flag that makes stdout JSON, on every exit ("--format json", "--json")
    json_fields: str = ""  # what the JSON holds (docs only)
    see: str = ""  # the docs page that tells more, relative to docs/
    pending: str = ""  # not on the command line yet: what will add it (the docs say so; tests check it is absent)
    internal_error: str = ""  # what exit 3 means where the command says more than INTERNAL_ERROR does

    def epilog(self) -> str:
        """The exit codes (and JSON rule) as --help prints them after the options."""
        width = max(len(str(code)) for code, _ in self.codes())
        lines = ["exit codes:"] + [f"  {code:<{width}}  {meaning}" for code, meaning in self.codes()]
        if self.json_flag:
            lines += ["", f"With {self.json_flag}, stdout is one JSON object on every exit: on exit 2 or 3, {JSON_ERROR_SHAPE}."]
        if self.see:
            lines += ["", f"More: docs/{self.see}"]
        return "\n".join(lines)

    def codes(self) -> tuple[tuple[int, str], ...]:
        """The command's exit codes, the internal-error code last."""
        return self.exit_codes + ((INTERNAL_ERROR[0], self.internal_error) if self.internal_error else INTERNAL_ERROR,)

    def help(self) -> str:
        """The description and the exit codes, as one text (what a test compares --help with)."""
        return f"{self.description}\n\n{self.epilog()}"


JSON_ERROR_SHAPE = '{"command": NAME, "exit": CODE, "error": MESSAGE}'

_PLAN_CODES = (
    (0, "no mandatory policy violation"),
    (1, "mandatory policy violations (listed in the report)"),
    (2, "invalid configuration: the message names the field path, the value and the rule; nothing is written"),
)

COMMANDS: tuple[Command, ...] = (
    Command(
        name="stacks plan",
        usage="python -m stacks plan STACK [--out DIR] [--format text|json|markdown|sarif]",
        summary="offline plan of a stack: manifests, policy violations, capacity figures",
        description=(
            "Run the stack's real Pulumi program in-process under an offline engine (no Pulumi CLI, no cloud, no\n"
            "credentials), evaluate every policy of the pack on what was recorded, write one YAML document per\n"
            "Kubernetes object under DIR/kubernetes/, one JSON file per cloud resource under DIR/aws/, one YAML file\n"
            "per Helm release under DIR/helm/, one YAML document per object the controllers will create from ours\n"
            "under DIR/derived/ (KServe's predictor Deployment and Service; checked by the pack's per-object\n"
            "policies like our own) and the stack's outputs (DIR/outputs.json, secrets redacted; default\n"
            "DIR build/STACK), print the report and say where it wrote. STACK is a stack name\n"
            "(stacks/Pulumi.STACK.yaml) or the path of any file in that format. The folder is for review: Secrets\n"
            "hold placeholders, so deploy with `pulumi up`, not `kubectl apply`. The same input gives\n"
            "byte-identical files."
        ),
        exit_codes=_PLAN_CODES,
        json_flag="--format json",
        json_fields=(
            "`stack`, `resources` [{type, name, parent, dependsOn}], `violations` [{policy, catalog, enforcement, "
            "resource, message, file, line}], `models` [{name, ...capacity plan figures..., `controllers` [{controller, "
            "kind, name, path, summary}]}], `pools`"
        ),
    ),
    Command(
        name="stacks size",
        usage=(
            "python -m stacks size --model ID | --model-config PATH --weights-gib N  --gpu NAME [engine flags]\n"
            "                      [--vllm-version X] [--image REF] [--flashinfer-sampler | --no-flashinfer-sampler] [--json]"
        ),
        summary="capacity plan of one model on one GPU type",
        description=(
            "The capacity plan of one model on one GPU type: weights, activations, KV cache per GPU, KV tokens,\n"
            "the concurrency at max_model_len, and whether it fits. Flags take the bounds the stack configuration\n"
            "puts on the same engine fields, so what `size` accepts a stack accepts too."
        ),
        exit_codes=(
            (0, "the model fits"),
            (1, 'it does not fit (the output still says why: the reason line, or "fits": false in --json)'),
            (2, "invalid flags: the message names the flag, the value and the rule"),
        ),
        json_flag="--json",
        json_fields=(
            "`weights_gib`, `activation_gib`, `non_torch_gib`, `kv_cache_gib` (per GPU), `kv_bytes_per_token`, "
            "`kv_cache_tokens`, `max_concurrency`, `fits`, `reason`, ..."
        ),
        see="sizing.md",
    ),
    Command(
        name="stacks simulate",
        usage=(
            "python -m stacks simulate STACK --traffic PROFILE.yaml [--duration D] [--seed N] [--out DIR]\n"
            "                          [--format text|json|markdown] [--no-defaults]"
        ),
        summary="discrete-event simulation of the stack under a traffic profile",
        description=(
            "Plan the stack offline (nothing written), read each model's settings from its capacity plan and the\n"
            "rendered manifests, and simulate the traffic profile twice on the same requests: with the derived\n"
            "settings and with the seeds' defaults. Prints a table and writes report.json, report.md and one PNG\n"
            "per model under --out (default build/STACK/simulate), all or nothing. The same seed gives the same\n"
            "bytes."
        ),
        exit_codes=(
            (0, "simulated: the report is printed and written"),
            (2, "invalid input (stack, profile, duration, seed): the message names the field and the rule; nothing is written"),
        ),
        json_flag="--format json",
        json_fields="the report (the same object as report.json)",
        see="simulate.md",
    ),
    Command(
        name="stacks preflight",
        usage="python -m stacks preflight STACK [--format text|json]",
        summary="read-only AWS checks of what the stack needs before pulumi up",
        description=(
            "Read-only checks, with your AWS credentials, of what the stack needs of the account and the cluster\n"
            "before `pulumi up`: the cluster, its Kubernetes version and authentication mode, your cluster-admin\n"
            "access entry, add-ons, IAM names, subnets and security groups, GPU offerings, quotas and reservations,\n"
            "the ALB's subnets, certificate and WAF web ACL, the model mirrors. A service that does not answer is a\n"
            "row of its own (exit 1), within about 20 seconds; nothing is ever written."
        ),
        exit_codes=(
            (0, "every prerequisite is present"),
            (1, "something is missing, or an AWS service did not answer: each row says what and how to fix it"),
            (2, "bad input (the stack file, by field path) or no usable credentials (none found, or rejected by AWS)"),
        ),
        json_flag="--format json",
        json_fields="`stack`, `region`, `account`, `ok`, `checks` [{check, result, detail, fix}]",
        see="preflight.md",
    ),
    Command(
        name="stacks models lock",
        usage="python -m stacks models lock [STACK...] [--lock PATH]",
        summary="resolve the stacks' models from the Hugging Face Hub into stacks/models.lock.json",
        description=(
            "For every model and revision the stack files name, read the model's config.json at that revision and\n"
            "the checkpoint's size (from the Hub's safetensors metadata) from the Hugging Face Hub, and write them to\n"
            "stacks/models.lock.json (sorted keys, no timestamps). plan, size and policies check read that file\n"
            "offline before the built-in catalogue. Needs the network; HF_TOKEN for gated models;\n"
            "LLM_SERVING_MODELS_LOCK names another lock file."
        ),
        exit_codes=(
            (0, "every model locked"),
            (1, "some model could not be resolved (each named, with why; the lock file is left as it was)"),
            (2, "invalid input (a stack file, the lock file)"),
        ),
        see="sizing.md#models-outside-the-catalogue",
    ),
    Command(
        name="stacks schema",
        usage="python -m stacks schema",
        summary="print the Pulumi package schema the component package serves",
        description=(
            "Print the Pulumi package schema that the component package (package/) serves over GetSchema, as the\n"
            "SDK infers it from components/hosted/: the same bytes as the committed package/schema.json, for review\n"
            "in pull requests."
        ),
        exit_codes=((0, "the schema is printed"), (2, "invalid arguments")),
        see="package.md",
    ),
    Command(
        name="policies check",
        usage="python -m policies check PATH... | - [--config FILE] [--format text|json|markdown|sarif]",
        summary="run the llm-serving pack over Kubernetes manifests",
        description=(
            "The pack over plain Kubernetes manifests: files, folders of .yaml/.yml/.json, or standard input as -;\n"
            "multi-document files; List objects flattened. A folder's manifest templates (.yaml.template, .yaml.tmpl,\n"
            ".yaml.tpl) are read best-effort: their objects are checked, what does not parse is skipped. Reading is bounded (file size, depth, aliases expanded),\n"
            "so hostile input is refused quickly. A file, or one document of a multi-document file, that cannot be\n"
            "read is a finding of its own (file, line, why) in every format, SARIF included, and every other file is\n"
            "still checked:\n"
            "  manifest-readable (S27, mandatory, exit 1): not valid YAML or JSON, over the size or depth limits, not UTF-8;\n"
            "  manifest-is-kubernetes (S27, advisory): an unrendered Helm/Go template ({{ .Values... }}), or a file with\n"
            "    no Kubernetes object in it (a file holding only the values of a chart the pack knows, named for it by\n"
            "    its path, is read as a release of that chart instead, unless a templates/ folder or Chart.yaml beside\n"
            "    it makes it a local chart's). A chart's template is rendered best-effort with its values.yaml, every\n"
            "    finding advice; its chart is the nearest Chart.yaml above it or, with none, the folder holding its\n"
            "    templates/ folder and a values file (named for the folder, version unknown), even inside another\n"
            "    chart's folder; that chart's Chart.yaml and values files are read as its own, not reported."
        ),
        exit_codes=(
            (0, "no mandatory policy violation"),
            (1, "mandatory policy violations (an unreadable file included)"),
            (
                2,
                "a path that does not exist, an invalid --config, or no Kubernetes object read at all (the unreadable "
                "files are still reported)",
            ),
        ),
        json_flag="--format json",
        json_fields=(
            "`files`, `documents`, `objects`, `skipped`, `violations` [{policy, catalog, enforcement, file, document, "
            "line, resource, message}], `unsized` [{resource, server, model, gpu, reason}], `scopes`, `generic`, "
            "`templates` [{file, chart, values, objects}], `salvaged` [{file, document, line, repair, objects}], "
            "`kustomize` [{kustomization, objects, changed, skipped}] (a violation found on an object a kustomization "
            "builds carries `built`: true); on exit 3 after checks that raised, the same report with `command`, `exit` "
            "and `error` beside it"
        ),
        internal_error=(
            "internal error (a bug): a policy that raised on one object is reported there as 'could not be checked: "
            "<exception type>' (advisory, in every format; SARIF's invocation says executionSuccessful false) and every "
            "other policy and object is still checked; one line on stderr says so (LLM_SERVING_DEBUG=1 shows the traceback)"
        ),
        see="limits.md",
    ),
)

_BY_NAME = {c.name: c for c in COMMANDS}


def command(name: str) -> Command:
    """The table's row of a command ("stacks plan", "policies check", ...)."""
    return _BY_NAME[name]


def json_error(name: str, code: int, message: str) -> str:
    """The JSON a command prints on stdout when it ends in error (exit 2 or 3) in its JSON mode."""
    return json.dumps({"command": name, "error": message, "exit": code}, indent=2, sort_keys=True) + "\n"


def wants_json(name: str, argv: list[str]) -> bool:
    """Whether ``argv`` asks ``name`` for JSON output (read before, or when, the arguments do not parse)."""
    flag = command(name).json_flag
    if flag is None:
        return False
    if flag == "--format json":
        return any(a == "--format=json" for a in argv) or any(
            a == "--format" and i + 1 < len(argv) and argv[i + 1] == "json" for i, a in enumerate(argv)
        )
    return flag in argv
