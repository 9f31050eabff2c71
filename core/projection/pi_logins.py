"""Whether pi 1.6.0 has a login for a provider: an entry in the agent folder's auth.json, or one of
the API-key variables pi-ai reads for it. Only whether one is there: no secret is kept, shown or
sent anywhere, and auth.json is read with the guarded small-file reader.

pi restores a session's model only when `modelRuntime.hasConfiguredAuth(provider)` (sdk.js); a
provider's auth counts when auth.json holds an `oauth` credential or an `api_key` one whose key
resolves to something, or when a variable of pi-ai's `getApiKeyEnvVars(provider)` is set
(env-api-keys.js; Amazon Bedrock and Google Vertex also take their cloud credentials). A provider
this table does not know (an extension's, or one models.json defines) is not judged: `None`.
Checked against the real pi: docs/RESUME_CHECKS.md."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..common.locations import agent_dir as default_agent_dir
from ..common.smallfiles import read_small_text
from .window import read_json_file

__all__ = ["EVERY_LOGIN_VARIABLE", "login_check", "login_variables"]

# pi-ai 1.6.0's getApiKeyEnvVars: the variables that are a login for each provider.
_VARIABLES: dict[str, tuple[str, ...]] = {
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "anthropic": ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "ant-ling": ("ANT_LING_API_KEY",),
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-individual-cn": ("QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "typesafe": ("TYPESAFE_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "meta": ("META_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
    "amazon-bedrock": (),  # its cloud credentials only (below)
}
_BEDROCK_ANY = (
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)
_CLOUD = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS",
)
# Every variable a login here depends on (a test starts without any of them).
EVERY_LOGIN_VARIABLE = frozenset(
    name for names in (*_VARIABLES.values(), _BEDROCK_ANY, _CLOUD) for name in names
)
_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def login_variables(provider: str) -> tuple[str, ...] | None:
    """The variables that are a login for `provider` (None: a provider pi-ai has no table for)."""
    return _VARIABLES.get(provider)


def login_check(
    agent: str | None = None, env: Mapping[str, str] | None = None
) -> Callable[[str], bool | None]:
    """provider -> whether pi has a login for it here (None: cannot tell). auth.json and
    models.json are read once, when the check is made."""
    folder = agent or default_agent_dir()
    env = os.environ if env is None else env
    stored = _stored_logins(os.path.join(folder, "auth.json"), env)
    configured = _models_json_keys(folder)

    def has_login(provider: str) -> bool | None:
        variables = _VARIABLES.get(provider)
        if variables is None or provider in configured:
            return None  # an extension's provider, or models.json sets its key: not ours to judge
        if provider in stored or any(env.get(name) for name in variables):
            return True
        return _cloud_login(provider, env)

    return has_login


def _stored_logins(path: str, env: Mapping[str, str]) -> set[str]:
    """The providers auth.json holds a usable credential for (what pi's ReadOnlyAuthStorage
    accepts and resolves to a key); none when it is absent or unreadable."""
    try:
        data = json.loads(read_small_text(path).removeprefix("\ufeff"))
    except (OSError, ValueError, RecursionError):
        return set()
    if not isinstance(data, dict):
        return set()
    return {provider for provider, credential in data.items() if _usable(credential, env)}


def _usable(credential: Any, env: Mapping[str, str]) -> bool:
    if not isinstance(credential, dict):
        return False
    if credential.get("type") == "oauth":
        return all(isinstance(credential.get(k), str) for k in ("access", "refresh")) and isinstance(
            credential.get("expires"), int | float
        )
    if credential.get("type") != "api_key":
        return False
    key = credential.get("key")
    if not isinstance(key, str) or not key:
        return False
    if key.startswith("!"):
        return True  # a command pi runs for the key: never run here, taken as a login
    given = credential.get("env")
    own: dict[Any, Any] = given if isinstance(given, dict) else {}
    references = [a or b for a, b in _REFERENCE.findall(key.replace("$$", ""))]
    if references and not _REFERENCE.sub("", key.replace("$$", "")):
        # Only variables: a key when one of them is set (pi resolves an unset one to nothing).
        return any(own.get(name) or env.get(name) for name in references)
    return True


def _models_json_keys(folder: str) -> set[str]:
    """Providers whose models.json entry sets an `apiKey` (a key of its own, whatever the table)."""
    config = read_json_file(os.path.join(folder, "models.json"), comments=True)
    providers = config.get("providers") if isinstance(config, dict) else None
    if not isinstance(providers, dict):
        return set()
    return {p for p, entry in providers.items() if isinstance(entry, dict) and entry.get("apiKey")}


def _cloud_login(provider: str, env: Mapping[str, str]) -> bool:
    if provider == "amazon-bedrock":
        keys = bool(env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"))
        return keys or any(env.get(name) for name in _BEDROCK_ANY)
    if provider == "google-vertex":
        project = env.get("GOOGLE_CLOUD_PROJECT") or env.get("GCLOUD_PROJECT")
        if not (project and env.get("GOOGLE_CLOUD_LOCATION")):
            return False
        explicit = env.get("GOOGLE_APPLICATION_CREDENTIALS")
        home = os.path.expanduser("~")
        adc = explicit or os.path.join(home, ".config", "gcloud", "application_default_credentials.json")
        return os.path.exists(adc)
    return False
