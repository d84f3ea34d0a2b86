"""The words of a credential's name and value that no-literal-secret-env, no-literal-credential and the command-line
reader share: which names hold a secret (the namePatterns default), which secret-named variables hold a setting about
it, and which values are a stand-in, a mask or a user name repeated rather than a credential."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from functools import lru_cache

from policies.reading.placeholders import placeholder_in

# Names of variables, flags and keys that hold a secret (the namePatterns default; no-literal-credential reads them too).
# SECRET_KEY: the web frameworks' signing key (Django settings SECRET_KEY, Flask's app.config["SECRET_KEY"]), which
# ``*_SECRET*`` misses for want of a prefix (spent set 86 alexmachulsky/devops-chatbot@37636001 k8s/deployment.yaml
# SECRET_KEY "devops-chatbot-k8s-demo", labelled G35).
NAME_PATTERNS = (
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "*_TOKEN",
    "*_SECRET*",
    "SECRET_KEY",
    "*PASSWORD*",
    "*API_KEY*",
    "AWS_SECRET_ACCESS_KEY",
)


# Names that end in _TOKEN but count or time tokens, not credentials: llm-d/llm-d-inference-sim's
# --time-to-first-token / --inter-token-latency family (manifests/vllm-config.yaml@86ce94f time-to-first-token),
# benchmarks' TIME_PER_OUTPUT_TOKEN, MAX_NEW_TOKEN.
_COUNTED_TOKEN = re.compile(r"(?:^|_)(?:FIRST|PER|OUTPUT|INTER|NEXT|LAST|NEW|EACH)_TOKEN$")


# A secret-named variable that holds a setting about the secret, not the secret: a switch (Open WebUI's
# ENABLE_PASSWORD_AUTH: "false" in k3s-ia-lab/infra apps/open-webui/open-webui.yaml@ff7dd27, blocked as a literal
# credential), or where a file holding it is (POSTGRES_PASSWORD_FILE: /run/secrets/db, the Docker images' _FILE
# convention), or which Secret holds it (KServe's SERVICE_CA_SIGNING_SECRET_NAME / _NAMESPACE, johnahull/llm-d-xks-gke
# backups/kserve-controller-backup.yaml@7630140). Recognised by the name (ENABLE_/DISABLE_ first, _ENABLED/_DISABLED/
# _FILE/_PATH/_DIR/_NAME/_NAMESPACE/_REF last) or by a value no credential takes: a YAML boolean word or a path.
# A switch word may sit inside the name too (huggingface_hub's HF_HUB_DISABLE_TOKEN: "1", constants.py
# `HF_HUB_DISABLE_TOKEN = _is_true(...)`, read on spent set 68 israa-benrjab/genai-platform k8s/backend.yaml), and a
# switch may be written 0 or 1: no credential is a single digit. A name ending in a word that describes how a secret is
# handled holds that description, not the secret: PASSWORD_HASH_SCHEME ("bcrypt"; fresh set 83, a ConfigMap key drew a
# mandatory G35 its labeller did not label, session 50), JWT_SECRET_ALGORITHM ("HS256"), TOKEN_TTL, PASSWORD_MIN_LENGTH,
# API_KEY_HEADER ("Authorization"), TOKEN_TYPE ("Bearer").
_SETTING_NAME = re.compile(
    r"(?:^|_)(?:ENABLE|DISABLE)_|_(?:ENABLED|DISABLED|FILE|PATH|DIR|NAME|NAMESPACE|REF|SCHEME|ALGORITHM|ALGO|POLICY|"
    r"LENGTH|LEN|TTL|EXPIRY|EXPIRES|EXPIRATION|LIFETIME|TIMEOUT|ROTATION|HEADER|TYPE|MODE|FORMAT|PROVIDER)$",
    re.I,
)
_SETTING_VALUE = re.compile(r"^(?:true|false|yes|no|on|off|[01]|/\S*|\./\S*)$", re.I)


# A value made of x's or asterisks (xxx, sk-xxxx, ****): a stand-in a sample writes where the OpenAI client insists on
# some key (walidshaari/sample-aws-eks-auto-mode examples/gpu/open-webui.yaml@8ebbbeb, OPENAI_API_KEY "xxx" for a
# keyless vLLM), the masked form url_password already skips. Advice: no secret is committed.
_MASK = re.compile(r"^(?:sk-)?[xX*]{3,}$")


# A quantity about a secret (a rate limit, a count, a size per key), written as a number: RATE_LIMIT_PER_API_KEY "120"
# (spent set 93 dios07022004-coder/ai-generation-api k8s/configmap.yaml drew a mandatory G35 its labeller did not
# label), MAX_API_KEYS "5", TOKEN_BUDGET "4096". Both must hold: a password of digits under PASSWORD stays a credential.
_QUANTITY_NAME = re.compile(r"(?:^|_)(?:PER|RATE|LIMIT|LIMITS|MAX|MIN|COUNT|NUM|SIZE|QUOTA|BUDGET|RPM|TPM|RPS)(?:_|$)", re.I)
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def names_a_setting(name: str, value: object) -> bool:
    """True when a secret-named variable holds a switch, a file's path or a quantity, not a credential (see
    _SETTING_NAME, _QUANTITY_NAME)."""
    if _SETTING_NAME.search(name):
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return False
    text = value.strip()
    return bool(_SETTING_VALUE.match(text)) or (bool(_QUANTITY_NAME.search(name)) and bool(_NUMBER.match(text)))


def looks_secret(name: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Whether a name matches one of the shell-style, case-insensitive secret-name patterns (a latency or count name
    such as TIME_TO_FIRST_TOKEN never does)."""
    # Asked ~700 times a run over manifests-v2, of a few dozen names, each a fnmatch per pattern: answered once a name.
    try:
        return _looks_secret(name, tuple(patterns))
    except TypeError:  # a pattern list that cannot be a key (an object in a config the CLI did not validate)
        return _looks_secret.__wrapped__(name, patterns)


@lru_cache(maxsize=4096)
def _looks_secret(name: str, patterns: tuple[str, ...] | list[str]) -> bool:
    upper = name.upper().replace("-", "_")
    if _COUNTED_TOKEN.search(upper):
        return False
    return any(fnmatchcase(name.upper(), str(p).upper()) for p in patterns)


def repeats_user(user: object, password: object) -> bool:
    """True when a password is its user name written again (postgres:postgres, guest:guest, minioadmin:minioadmin):
    the default credential a sample or a dev stack starts its service with (RabbitMQ's guest/guest, the Postgres
    image's superuser named postgres), which anyone guesses. Committing it leaks no secret, so it is advice (a default
    credential left in place), not a blocking leak: spent set 57's labeller left postgresql://postgres:postgres@...
    in a ConfigMap unlabelled, while set 46's labelled litellm:postgres123 blocking."""
    return isinstance(user, str) and isinstance(password, str) and bool(user) and user.lower() == password.lower()


# Words a sample writes where the reader puts their own password (USER:PASSWORD@HOST, :changeme@redis): a stand-in,
# not a credential (cold review 29, finding 1). Fill-ins the placeholder recogniser names (REPLACE_ME, your-password,
# YOUR_PASSWORD) count too, as S28 and G46 read them.
_STAND_INS = frozenset({"password", "passwd", "pass", "pw", "pwd", "secret", "changeme", "change-me", "change_me"})


def stand_in_password(password: str) -> bool:
    """True for a password a sample writes for the reader to replace (changeme, your-password, REPLACE_ME)."""
    return password.lower() in _STAND_INS or placeholder_in(password) is not None
