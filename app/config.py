"""User settings: a TOML file under the platform's config folder, then command-line flags."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.resume import DEFAULT_TEMPLATE

ColorMode = Literal["auto", "truecolor", "256", "16", "none"]


class Settings(BaseModel):
    """Everything a user may set in `config.toml` (flags win over the file)."""

    model_config = ConfigDict(extra="ignore")

    resume_command: str = Field(
        DEFAULT_TEMPLATE, description="how to resume a session; {path}, {cwd} and {id} are filled in"
    )
    exit_on_resume: bool = False
    color: ColorMode = "auto"
    ascii: bool = False
    poll: bool = False
    animations: bool = False
    session_dir: str | None = None


def config_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_path("pi-sessions")) / "config.toml"


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The settings and, if the file was unusable, why (the defaults are used then)."""
    path = path or config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings(), None
    except (OSError, tomllib.TOMLDecodeError) as e:
        return Settings(), f"{path}: {e}; using defaults"
    try:
        return Settings.model_validate(data), None
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return Settings(), f"{path}: {where}: {first.get('msg')}; using defaults"


def color_system(mode: ColorMode, env: dict[str, str] | None = None) -> str | None:
    """The Textual colour system for a mode (None: no colour at all).

    `auto` does not trust a missing COLORTERM (SSH rarely forwards it): it uses truecolor
    only when the terminal says so and 256 colours otherwise, except on the Linux console.
    """
    env = dict(os.environ) if env is None else env
    if mode == "none" or "NO_COLOR" in env:
        return None
    if mode == "truecolor":
        return "truecolor"
    if mode == "256":
        return "256"
    if mode == "16":
        return "standard"
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    term = env.get("TERM", "")
    if term in ("linux", "vt100", "vt220", "ansi") or term.startswith("vt"):
        return "standard"
    return "256"
