"""Credentials written into a command line (a container's argv, a ConfigMap's script): G35 advice read by
no-literal-secret-env. The words of names and stand-ins are secret_words'."""

from __future__ import annotations

import re

from components.secrets import placeholder_value
from policies.framework import unproven
from policies.k8s_generic.secret_words import (
    _MASK,
    _SETTING_VALUE,
    NAME_PATTERNS,
    looks_secret,
    names_a_setting,
    repeats_user,
    stand_in_password,
)

# Credentials written into a command line, where no flag name of namePatterns is read: the MinIO client's positional
# keys (`mc alias set ALIAS URL ACCESSKEY SECRETKEY`: minio/mc cmd/alias-set.go:69@RELEASE.2024-11-21T17-21-54Z; the
# older `mc config host add ALIAS URL ACCESSKEY SECRETKEY`, cmd/config-host-add.go:52@RELEASE.2020-01-13T22-49-03Z), a
# secret-named variable assigned in the shell (`PGPASSWORD=x psql ...`, `export API_KEY=x`), the MySQL clients'
# attached `-pPASSWORD`, redis-cli `-a PASSWORD`, sshpass `-p PASSWORD` and curl `-u user:password`. Advice: a command
# line is read by the files' reader, not proven to reach a server that checks it (spent set 80
# schoolofdevops/302-llmops@a3fe73c3 course-code/labs/lab-08/solution/k8s/20-inferenceservice.yaml, labelled G35
# advisory: `mc alias set minio http://minio.minio:9000 minio minio123` in a KServe predictor's init container).
_CLI_PREFILTER = re.compile(r"alias\s+set|host\s+add|[A-Z0-9_]=|\s-[pau]|--user")
_MC_KEYS = re.compile(r"\bmc(?:li)?\s+(?:alias\s+set|config\s+host\s+add)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
# NAME=value at a command's start (or after export/env), the name upper case as environment variables are; the value
# quoted or a bare word. Python's `API_KEY = os.environ[...]` has spaces or brackets and is not read.
_ASSIGNED = re.compile(
    r"(?:^|[\s;&|(])(?:export\s+|env\s+)?([A-Z_][A-Z0-9_]*)=(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|()\[\]{}]+)(?=[\s;&|)]|$)"
)
_CLIENT_PASSWORDS = (
    re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n;|&]*?\s-p([^\s;&|]+)"),
    re.compile(r"\bredis-cli\b[^\n;|&]*?\s-a\s+([^\s;&|]+)"),
    re.compile(r"\bsshpass\s+-p\s*([^\s;&|]+)"),
    re.compile(r"\bcurl\b[^\n;|&]*?\s(?:-u|--user)(?:\s+|=)[\"']?[^\s:;&|\"']*:([^\s;&|@\"']+)"),
)
# What a value read elsewhere starts with: a variable ($VAR, ${VAR}, $(cmd)), a command substitution, a template.
_READ_ELSEWHERE = ("$", "`", "{{", "<", "%")


def _cli_literal(value: str, name: str = "") -> bool:
    """A value written into a command line that is a credential: no reference, fill-in or committed stand-in."""
    text = value.strip().strip("\"'")
    return (
        bool(text)
        and not text.startswith(_READ_ELSEWHERE)
        and not text.startswith(("/", "./"))
        and not placeholder_value(text, name or "PASSWORD")
        and not stand_in_password(text)
        and not _MASK.match(text)
        and not _SETTING_VALUE.match(text)
    )


def command_line_credentials(text: str, patterns: list[str] | tuple[str, ...] = NAME_PATTERNS) -> list[str]:
    """What of ``text`` (a command line, a script) writes a credential out, each as a message fragment: a MinIO client
    alias with its keys, a secret-named shell variable assigned a literal, a database or HTTP client's password."""
    if not _CLI_PREFILTER.search(text):
        return []
    found: list[str] = []
    for match in _MC_KEYS.finditer(text):
        access, secret = match.group(3), match.group(4)
        if _cli_literal(secret):
            default = " (the access key repeated, a default credential)" if repeats_user(access, secret) else ""
            verb = "alias set" if "alias" in match.group(0) else "config host add"
            found.append(f"`mc {verb}` passes the MinIO secret key as a literal{default}")
    for name, value in _ASSIGNED.findall(text):
        if looks_secret(name, patterns) and not names_a_setting(name, value.strip("\"'")) and _cli_literal(value, name):
            found.append(f"the shell assigns {name} a literal value")
    for pattern in _CLIENT_PASSWORDS:
        for match in pattern.finditer(text):
            if _cli_literal(match.group(1)):
                found.append(f"`{match.group(0).split()[0]}` is given a literal password")
                break
    return list(dict.fromkeys(found))


def _cli_message(where: str, found: list[str], fix: str) -> str:
    return unproven(
        f"{where}: {'; '.join(found)}: a credential in a command line is clear text in the object and the repository's "
        f"history (and in the process list); {fix}"
    )
