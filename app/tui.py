"""The Textual app: settings, theme, global keys; the main screen does the rest."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any, Literal

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.theme import Theme

from ..core.common.gcpause import COLLECTIONS
from ..core.common.glyphs import glyphs_for
from ..core.common.keybindings import Resolved, key_label, keys_label
from ..core.common.locations import SessionsRoot
from ..core.common.text import one_line, visible
from ..widgets.keys import PALETTE, bindings
from .config import Settings, config_path, terminal_hyperlinks
from .demo import demo_root, remove_demos
from .keymap import load_keys, palette_commands
from .main_screen import MainScreen

# Colours picked from the xterm 256-colour palette, so a 256-colour terminal (the usual case
# over SSH) shows exactly these and nothing is approximated into mud.
PI_DARK = Theme(
    name="pi-dark",
    primary="#5f87d7",
    secondary="#87afaf",
    accent="#d7af5f",
    warning="#d7af00",
    error="#d75f5f",
    success="#87af5f",
    foreground="#d0d0d0",
    background="#1c1c1c",
    surface="#262626",
    panel="#303030",
    dark=True,
    variables={"pane-border": "#404040"},  # the lines between panes
)

# The same roles for a light terminal, darker so that each is readable (4.5:1 at least, the
# test in tests/app/test_contrast.py) on the background, surface and panel; from the xterm
# 256-colour palette but the warning's amber. Text colours are given, not Textual's "auto":
# an auto colour in a component class is worked out against no background, and came out white.
PI_LIGHT = Theme(
    name="pi-light",
    primary="#005f87",
    secondary="#005f5f",
    accent="#5f5f00",
    warning="#7a4a00",
    error="#af0000",
    success="#005f00",
    foreground="#262626",
    background="#eeeeee",
    surface="#e4e4e4",
    panel="#dadada",
    dark=False,
    variables={
        "text": "#262626",
        "text-muted": "#4e4e4e",
        "text-disabled": "#585858",
        "block-cursor-foreground": "#ffffff",
        "block-cursor-background": "#005f87",
        "footer-key-foreground": "#005f87",
        "pane-border": "#b2b2b2",
    },
)
THEMES = {"dark": PI_DARK, "light": PI_LIGHT}


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbars drawn with colour alone: no block glyphs for `--ascii` terminals."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


class PiSessionsApp(App[None]):
    CSS_PATH = "../styles.tcss"
    TITLE = "pi-sessions"
    BINDINGS = bindings("app")

    def __init__(
        self,
        settings: Settings,
        root: SessionsRoot,
        *,
        open_path: str | None = None,
        current_cwd: str | None = None,
        cache_dir: str | None = None,
        appearance: Literal["dark", "light"] | None = None,
        notices: Sequence[str] = (),
        keys: Resolved | None = None,
        pi_agent_dir: str | None = None,
    ) -> None:
        # The keys in use: given by the command line (it reported their problems on stderr),
        # else read here. The palette's key is Textual's own: it is set before Textual's init.
        given_keys = keys
        if keys is None:
            keys = load_keys(settings.keys, config_file=str(config_path()), pi_agent_dir=pi_agent_dir)
        self.key_bindings = keys
        palette_keys = keys.keys_of(PALETTE)
        self.ENABLE_COMMAND_PALETTE = bool(palette_keys)  # type: ignore[misc]
        if palette_keys:
            self.COMMAND_PALETTE_BINDING = palette_keys[0]  # type: ignore[misc]
        # No colour at all (`--color none`, NO_COLOR): Textual then drops every colour instead of
        # turning them grey; the `-no-color` styles mark the cursor and selection by reverse video.
        super().__init__(ansi_color=settings.color == "none")
        for key in palette_keys[1:]:  # Textual binds one key to its palette: the others here
            self._bindings._add_binding(Binding(key, "command_palette", "palette", show=False, priority=True))
        self.set_keymap(keys.keymap())
        self.settings = settings
        # Resolved by the command line (it may read pi's settings); else ours, else dark.
        self.appearance = appearance or ("light" if settings.theme == "light" else "dark")
        self._start_with_theme(THEMES[self.appearance])
        self.startup_notices = list(notices)
        if given_keys is None:
            self.startup_notices += keys.problems  # (the command line passes them in `notices`)
        self.root = root
        self.open_path = open_path
        self.current_cwd = current_cwd
        self.cache_dir = cache_dir
        self.pi_agent_dir = pi_agent_dir
        # Chosen once: every widget draws with these (widgets/glyphs.py looks them up).
        self.glyphs = glyphs_for(settings.ascii)
        # File paths as OSC 8 links (widgets/links.py), where the terminal shows them.
        pi_env = {**os.environ, **({"PI_CODING_AGENT_DIR": pi_agent_dir} if pi_agent_dir else {})}
        self.hyperlinks = not settings.served and terminal_hyperlinks(pi_env)

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        # A frame goes out: collections held while it was made may run now (core/common/gcpause.py).
        # (Textual is pinned: `_display` is where its frames reach the driver.)
        super()._display(screen, renderable)
        COLLECTIONS.release()

    def _start_with_theme(self, theme: Theme) -> None:
        """Our theme before any CSS is parsed: what setting `App.theme` does (its classes,
        the ANSI filter, the CSS variables) without its refresh, which parses every stylesheet
        again and restyles every widget (~20 ms of the first frame). (Textual is pinned:
        `_watch_theme` is what setting the theme runs, `_refresh_truecolor_filter` part of it.)"""
        for each in THEMES.values():
            self.register_theme(each)
        self.set_reactive(App.theme, theme.name)
        self.update_classes(
            {f"-theme-{theme.name}": True, "-dark-mode": theme.dark, "-light-mode": not theme.dark},
            update=False,
        )
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())

    def on_mount(self) -> None:
        # Process-wide in Textual: set both ways, a previous app may have changed it.
        ScrollBar.renderer = AsciiScrollBarRender if self.settings.ascii else ScrollBarRender
        if self.settings.ascii:
            self.add_class("-ascii")
        if self.settings.color == "none":
            self.add_class("-no-color")
        if self.settings.redact:  # (the page `serve` serves: every session text drawn redacted)
            from .config import load_secrets_allow
            from .redaction import start_redaction

            start_redaction(load_secrets_allow())
        self.push_screen(self.make_main_screen())

    def on_unmount(self) -> None:
        if self.settings.redact:
            from .redaction import stop_redaction

            stop_redaction()

    def make_main_screen(self) -> MainScreen:
        notices, self.startup_notices = self.startup_notices, []  # said once, not again for the demo
        return MainScreen(
            self.settings,
            self.root,
            open_path=self.open_path,
            current_cwd=self.current_cwd,
            cache_dir=self.cache_dir,
            notices=notices,
            pi_agent_dir=self.pi_agent_dir,
        )

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification (a widget's `notify` lands here) carries paths and errors:
        plain text, made inert; markup is never interpreted, whoever asks."""
        super().notify(
            visible(message, glyphs=self.glyphs),
            title=one_line(title, 120, glyphs=self.glyphs),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def get_key_display(self, binding: Binding) -> str:
        return key_label(binding.key.split(",")[0])

    def action_help_quit(self) -> None:
        """ctrl+c does not quit (Textual's rule): say which key does, as it is bound now."""
        quit_key = keys_label(self.key_bindings.keys_of("ui.quit")[:1]) or "ctrl+q"
        self.notify(f"Press {quit_key} to quit", title="Do you want to quit?")

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: DOMNode) -> None:
        """Textual calls this on every key press; the clashes were reported once, at start."""

    def action_help(self) -> None:
        from .help_screen import HelpScreen  # (20 ms to import: not before it is asked for)

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def open_demo(self) -> None:
        """Switch to a fresh copy of the bundled demo sessions."""
        self.root = demo_root()
        self.open_path = None
        self.switch_screen(self.make_main_screen())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, MainScreen):
            for title, help_text, action, target in palette_commands(screen, self.key_bindings):
                yield SystemCommand(title, help_text, partial(self.run_action, action, target))
        yield SystemCommand("Open the demo sessions", "a temporary copy of bundled sessions", self.open_demo)


def run_app(
    settings: Settings,
    root: SessionsRoot,
    *,
    open_path: str | None = None,
    appearance: Literal["dark", "light"] | None = None,
    notices: Sequence[str] = (),
    keys: Resolved | None = None,
) -> int:
    app = PiSessionsApp(
        settings, root, open_path=open_path, appearance=appearance, notices=notices, keys=keys
    )
    try:
        app.run(mouse=settings.mouse)
    finally:
        remove_demos()
    return app.return_code or 0
