"""User settings: defaults, then `config.toml`, then the environment, then command-line flags,
remembering where each value came from; and the theme, which follows pi's when ours is unset."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..core.common.glyphs import ascii_terminal
from ..core.common.smallfiles import read_small_text
from ..core.writing.resume import DEFAULT_TEMPLATE

if TYPE_CHECKING:
    from ..core.audit.allowlist import AllowList
    from ..core.common.terminal_colours import TerminalColours

ColorMode = Literal["auto", "truecolor", "256", "16", "none"]
ThemeSetting = Literal["dark", "light", "system"]


@dataclass(frozen=True, slots=True)
class ExtraRoot:
    """Another folder of pi-format sessions listed beside pi's (an oh-my-pi store, a copy from
    another machine): `[[extra_roots]]` with `path` and, optionally, the `label` its sessions
    carry in the sidebar."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    path: str
    label: str | None = None

    def resolved(self) -> tuple[str, str]:
        """(the folder, its label: the one set, else the first hidden folder on its path
        without its dot, `omp` for `~/.omp/agent/sessions`, else the folder's name)."""
        path = os.path.abspath(os.path.expanduser(self.path))
        if self.label:
            return path, self.label
        hidden = [part[1:] for part in Path(path).parts if part.startswith(".") and len(part) > 1]
        return path, hidden[0] if hidden else os.path.basename(path) or path


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a user may set in `config.toml` (flags win over the file).

    A plain dataclass: most users have no config file, and then pydantic (~50 ms of the
    browser's start) is never imported; a file's values are checked by pydantic against these
    type hints (`_validate`)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}  # (read_settings drops them first)

    resume_command: str = DEFAULT_TEMPLATE  # how to resume a session; {path}, {cwd} and {id} are filled in
    exit_on_resume: bool = False
    color: ColorMode = "auto"
    ascii: bool = False
    poll: bool = False
    animations: bool = False
    mouse: bool = True
    theme: ThemeSetting | None = None  # dark, light or system; unset: follow pi's theme
    session_dir: str | None = None
    # More session folders to list (each `"path"` or `{path, label}`), labelled in the sidebar.
    extra_roots: list[ExtraRoot | str] = field(default_factory=list)
    # The `[keys]` table (binding id -> key or list of keys), kept as written for the key bindings.
    keys: dict[str, Any] = field(default_factory=dict)
    # Set by `pi-sessions serve` for the app it runs in the browser; never read from the file.
    served: bool = False
    # Set by `pi-sessions serve` (unless --no-redact): every session text drawn is redacted.
    redact: bool = False


SETTING_NAMES = tuple(f.name for f in dataclasses.fields(Settings))
NOT_FROM_FILE = frozenset({"served", "redact"})
FILE_KEYS = tuple(name for name in SETTING_NAMES if name not in NOT_FROM_FILE)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a setting's value came from."""

    kind: Literal["default", "file", "environment", "flag"]
    where: str = ""  # the file's path, the variable or the flag

    def describe(self) -> str:
        if self.kind == "default":
            return "default"
        if self.kind == "file":
            return self.where
        return f"{'environment' if self.kind == 'environment' else 'flag'} {self.where}"


@dataclass(slots=True)
class LoadedSettings:
    settings: Settings
    path: Path
    file_found: bool
    sources: dict[str, Source] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # each one line, about the file

    def source(self, name: str) -> Source:
        return self.sources.get(name, Source("default"))

    def problem_line(self) -> str | None:
        """All the file's problems as one line (the warning shown once at start)."""
        return "; ".join(self.problems) if self.problems else None

    def with_flags(self, overrides: Mapping[str, tuple[object, str]]) -> LoadedSettings:
        """Flag values win: `overrides` maps a setting to (value, the flag that set it)."""
        if not overrides:
            return self
        changes: dict[str, Any] = {name: value for name, (value, _) in overrides.items()}
        settings = dataclasses.replace(self.settings, **changes)
        sources = dict(self.sources)
        for name, (_, flag) in overrides.items():
            sources[name] = Source("flag", flag)
        return LoadedSettings(settings, self.path, self.file_found, sources, list(self.problems))


def extra_roots(settings: Settings) -> list[tuple[str, str]]:
    """The extra session folders (path, label), each once, in the order written."""
    out: list[tuple[str, str]] = []
    for item in settings.extra_roots:
        root = (ExtraRoot(item) if isinstance(item, str) else item).resolved()
        if root[0] not in (p for p, _ in out):
            out.append(root)
    return out


def config_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_path("pi-sessions")) / "config.toml"


def secrets_allow_path() -> Path:
    """The secrets audit's allow-list (core/audit/allowlist.py), next to config.toml."""
    from ..core.audit.allowlist import ALLOW_FILE

    return config_path().parent / ALLOW_FILE


def load_secrets_allow() -> AllowList:
    """The allow-list every redaction and audit uses (its problems are in `.problems`)."""
    from ..core.audit.allowlist import load_allow_list

    return load_allow_list(secrets_allow_path())


def read_settings(path: Path | None = None, env: Mapping[str, str] | None = None) -> LoadedSettings:
    """The settings from the file and the environment, where each came from, and what was
    wrong with the file: unknown keys are reported and ignored, a bad value falls back to its
    default alone, an unreadable file to all defaults."""
    path = path or config_path()
    env = os.environ if env is None else env
    loaded = LoadedSettings(Settings(), path, file_found=False)
    data: dict[str, Any] = {}
    try:
        text = read_small_text(path)
        import tomllib  # (read only when there is a file: most users have none)

        data = tomllib.loads(text)
        loaded.file_found = True
    except FileNotFoundError:
        pass
    except (
        OSError,
        UnicodeDecodeError,
        ValueError,
        RecursionError,
    ) as e:  # (TOMLDecodeError is a ValueError)
        loaded.file_found = os.path.lexists(path)
        why = (
            "nested too deeply to read"
            if isinstance(e, RecursionError)
            else getattr(e, "strerror", None) or e
        )
        loaded.problems.append(f"{path}: {why}; using the defaults")
        data = {}
    unknown = [key for key in data if key not in FILE_KEYS]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        loaded.problems.append(
            f"{path}: unknown setting{'s' if len(unknown) > 1 else ''} {names} ignored "
            f"(known: {', '.join(FILE_KEYS)})"
        )
    known = {key: value for key, value in data.items() if key in FILE_KEYS}
    settings, bad = _validate(known)
    for key, message in bad:
        loaded.problems.append(f"{path}: {key}: {message}; using the default")
    loaded.settings = settings
    for key in known:
        if key not in dict(bad):
            loaded.sources[key] = Source("file", str(path))
    if "color" not in loaded.sources and env.get("NO_COLOR"):
        # no-color.org: a config file or a flag overrides NO_COLOR; NO_COLOR overrides the default.
        loaded.settings = dataclasses.replace(loaded.settings, color="none")
        loaded.sources["color"] = Source("environment", "NO_COLOR")
    if "ascii" not in loaded.sources and (why := ascii_terminal(env)):
        # A console or a non-UTF-8 locale: ASCII by itself (`ascii = false` in the file or a flag wins).
        loaded.settings = dataclasses.replace(loaded.settings, ascii=True)
        loaded.sources["ascii"] = Source("environment", why)
    return loaded


def _validate(data: dict[str, Any]) -> tuple[Settings, list[tuple[str, str]]]:
    """Validate, dropping each key whose value is wrong (and saying why), keeping the rest."""
    if not data:
        return Settings(), []  # (no file, or nothing set in it: pydantic is not needed)
    from pydantic import TypeAdapter, ValidationError

    adapter = TypeAdapter(Settings)
    bad: list[tuple[str, str]] = []
    data = dict(data)
    while True:
        try:
            return adapter.validate_python(data), bad
        except ValidationError as e:
            dropped = False
            for error in e.errors():
                loc = error.get("loc", ())
                key = str(loc[0]) if loc else ""
                if key in data:
                    bad.append((key, str(error.get("msg"))))
                    del data[key]
                    dropped = True
            if not dropped:
                return Settings(), bad


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The settings and, if the file had problems, what they were (one line)."""
    loaded = read_settings(path)
    return loaded.settings, loaded.problem_line()


def color_system(mode: ColorMode, env: dict[str, str] | None = None, cwd: str | None = None) -> str | None:
    """The Textual colour system for a mode (None: no colour at all).

    `auto` asks what pi asks first: pi's `terminal.trueColor` setting, then `PI_TRUE_COLOR`
    (1 or 0), which matter over SSH where COLORTERM is dropped. Without them it does not trust
    a missing COLORTERM: truecolor only when the terminal says so and 256 colours otherwise,
    except on the Linux console. (NO_COLOR is applied when the settings are read: a flag or
    the file overrides it.)
    """
    env = dict(os.environ) if env is None else env
    if mode == "none":
        return None
    if mode == "truecolor":
        return "truecolor"
    if mode == "256":
        return "256"
    if mode == "16":
        return "standard"
    pi_says = pi_true_color(env, cwd)
    if pi_says is not None:
        return "truecolor" if pi_says else "256"
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    term = env.get("TERM", "")
    if term in ("linux", "vt100", "vt220", "ansi") or term.startswith("vt"):
        return "standard"
    return "256"


# ---------------------------------------------------------------------- theme
@dataclass(frozen=True, slots=True)
class ThemeChoice:
    appearance: Literal["dark", "light"]
    why: str  # for `pi-sessions config`: which setting decided


def resolve_theme(
    setting: ThemeSetting | None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    *,
    ask: Callable[[], TerminalColours | None] | None = None,
) -> ThemeChoice:
    """Dark or light. Ours when set; unset, pi's `theme` setting (the project's
    `.pi/settings.json` over the agent folder's `settings.json`); neither: dark.

    `system`, as pi decides it: the background the terminal reports (`ask`, asked only then:
    core/common/terminal_query.py, OSC 11 and 10), else COLORFGBG, else dark. A pi `light/dark` pair
    picks by the same rule; a custom pi theme by its `appearance`."""
    env = os.environ if env is None else env
    if setting in ("dark", "light"):
        return ThemeChoice(setting, f"theme = {setting!r}")
    if setting == "system":
        found_appearance, how = _system_appearance(env, ask)
        return ThemeChoice(found_appearance, f"theme = 'system' ({how})")
    found = pi_theme_setting(env, cwd)
    if found is None:
        return ThemeChoice("dark", "default (neither we nor pi set a theme)")
    value, settings_path = found
    if value == "system" or "/" in value:
        system, how = _system_appearance(env, ask)
        chosen = _pi_theme_appearance(value, env, system)
        return ThemeChoice(chosen, f"pi's theme {value!r} in {settings_path} ({how})")
    return ThemeChoice(_pi_theme_appearance(value, env), f"pi's theme {value!r} in {settings_path}")


def _system_appearance(
    env: Mapping[str, str], ask: Callable[[], TerminalColours | None] | None
) -> tuple[Literal["dark", "light"], str]:
    """pi's `detectTerminalTheme`: the reported background, else COLORFGBG, else dark; and
    what decided, in words."""
    from ..core.common.terminal_colours import appearance, hex_of

    colours = ask() if ask is not None else None
    if colours is not None and colours.background is not None:
        return appearance(colours.background, colours.foreground), (
            f"the terminal's background {hex_of(colours.background)}"
        )
    asked = "no colour reply, " if colours is not None else ""
    return terminal_appearance(env), f"{asked}COLORFGBG, else dark"


def terminal_appearance(env: Mapping[str, str]) -> Literal["dark", "light"]:
    """pi's COLORFGBG rule: the last field is the background's ANSI index; 0-6 and 8 are dark,
    7 and 9-15 light; anything else says nothing (then dark)."""
    background = env.get("COLORFGBG", "").split(";")[-1].strip()
    if not background.isdigit() or len(background) > 2 or int(background) > 15:
        return "dark"
    index = int(background)
    return "dark" if index <= 6 or index == 8 else "light"


def pi_settings_files(env: Mapping[str, str], cwd: str | None = None) -> Iterator[tuple[dict[str, Any], str]]:
    """pi's settings files that parse, each with its path, the project's first (it wins)."""
    from ..core.common.locations import agent_dir

    candidates = (
        os.path.join(cwd or os.getcwd(), ".pi", "settings.json"),
        os.path.join(agent_dir(env), "settings.json"),
    )
    for path in candidates:
        try:
            data = json.loads(read_small_text(path))
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            yield data, path


def pi_theme_setting(env: Mapping[str, str], cwd: str | None = None) -> tuple[str, str] | None:
    """pi's `theme` setting and the file it is in (the project's settings win), if any."""
    for data, path in pi_settings_files(env, cwd):
        value = data.get("theme")
        if isinstance(value, str) and value.strip():
            return value.strip(), path
    return None


def pi_true_color(env: Mapping[str, str], cwd: str | None = None) -> bool | None:
    """Whether pi would draw in truecolor, where pi is told: `terminal.trueColor` (true or
    false) in its settings wins over `PI_TRUE_COLOR` (1 or 0); None when neither says."""
    for data, _ in pi_settings_files(env, cwd):
        terminal = data.get("terminal")
        if isinstance(terminal, dict) and isinstance(terminal.get("trueColor"), bool):
            return bool(terminal["trueColor"])
    return {"1": True, "0": False}.get(env.get("PI_TRUE_COLOR", ""))


def _pi_theme_appearance(
    value: str, env: Mapping[str, str], system: Literal["dark", "light"] | None = None
) -> Literal["dark", "light"]:
    """The appearance of pi's theme `value` (`system`: the terminal's, found already)."""
    terminal = system if system is not None else terminal_appearance(env)
    if value == "system":
        return terminal
    if "/" in value:
        light, _, dark = value.partition("/")
        if not light.strip() or not dark.strip() or "/" in dark:
            return "dark"  # pi ignores a malformed pair
        value = (light if terminal == "light" else dark).strip()
    if value in ("dark", "light"):
        return value  # type: ignore[return-value]
    from ..core.common.locations import agent_dir

    try:
        data = json.loads(read_small_text(os.path.join(agent_dir(env), "themes", f"{value}.json")))
    except (OSError, ValueError, RecursionError):
        return "dark"
    appearance = data.get("appearance") if isinstance(data, dict) else None
    return "light" if appearance == "light" else "dark"


def terminal_hyperlinks(env: Mapping[str, str] | None = None, cwd: str | None = None) -> bool:
    """Whether file paths may be drawn as OSC 8 hyperlinks, by pi's rule: its
    `terminal.hyperlinks` setting, then `PI_HYPERLINKS` (1 or 0), else only the terminals pi
    knows show them (a terminal that does not would hide a link's text). Under tmux pi asks
    tmux; we do not, so there it takes the setting or the variable."""
    env = os.environ if env is None else env
    for data, _ in pi_settings_files(env, cwd):
        terminal = data.get("terminal")
        if isinstance(terminal, dict) and isinstance(terminal.get("hyperlinks"), bool):
            return bool(terminal["hyperlinks"])
    told = {"1": True, "0": False}.get(env.get("PI_HYPERLINKS", ""))
    if told is not None:
        return told
    term_program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if env.get("TMUX") or term.startswith(("tmux", "screen")):
        return False
    if any(env.get(name) for name in _HYPERLINK_VARIABLES):
        return True
    return term_program in _HYPERLINK_PROGRAMS or term.startswith(
        ("alacritty", "xterm-kitty", "xterm-ghostty")
    )


# What pi 1.6.0 (pi-tui's terminal-image.js) recognises as a terminal that shows OSC 8 links.
_HYPERLINK_VARIABLES = (
    "KITTY_WINDOW_ID",
    "GHOSTTY_RESOURCES_DIR",
    "WEZTERM_PANE",
    "WARP_SESSION_ID",
    "WARP_TERMINAL_SESSION_UUID",
    "ITERM_SESSION_ID",
    "WT_SESSION",
    "ALACRITTY_WINDOW_ID",
)
_HYPERLINK_PROGRAMS = (
    "kitty",
    "ghostty",
    "wezterm",
    "warpterminal",
    "iterm.app",
    "alacritty",
    "vscode",
    "zed",
)
