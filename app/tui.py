"""The Textual app: settings, theme, global keys; the main screen does the rest."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.theme import Theme

from ..core.glyphs import glyphs_for
from ..core.locations import SessionsRoot
from ..core.text import one_line, visible
from .config import Settings
from .demo import demo_root, remove_demos
from .main_screen import MainScreen
from .screens import HelpScreen

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
)

# The same roles for a light terminal, again from the xterm 256-colour palette.
PI_LIGHT = Theme(
    name="pi-light",
    primary="#005faf",
    secondary="#5f8787",
    accent="#af5f00",
    warning="#af8700",
    error="#af0000",
    success="#5f8700",
    foreground="#262626",
    background="#eeeeee",
    surface="#e4e4e4",
    panel="#d0d0d0",
    dark=False,
)
THEMES = {"dark": PI_DARK, "light": PI_LIGHT}


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbars drawn with colour alone: no block glyphs for `--ascii` terminals."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


class PiSessionsApp(App[None]):
    CSS_PATH = "../styles.tcss"
    TITLE = "pi-sessions"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark,f1", "help", "Help"),
    ]

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
    ) -> None:
        super().__init__()
        self.settings = settings
        # Resolved by the command line (it may read pi's settings); else ours, else dark.
        self.appearance = appearance or ("light" if settings.theme == "light" else "dark")
        self.startup_notices = list(notices)
        self.root = root
        self.open_path = open_path
        self.current_cwd = current_cwd
        self.cache_dir = cache_dir
        # Chosen once: every widget draws with these (widgets/glyphs.py looks them up).
        self.glyphs = glyphs_for(settings.ascii)

    def on_mount(self) -> None:
        for theme in THEMES.values():
            self.register_theme(theme)
        self.theme = THEMES[self.appearance].name
        # Process-wide in Textual: set both ways, a previous app may have changed it.
        ScrollBar.renderer = AsciiScrollBarRender if self.settings.ascii else ScrollBarRender
        if self.settings.ascii:
            self.add_class("-ascii")
        self.push_screen(self.make_main_screen())

    def make_main_screen(self) -> MainScreen:
        return MainScreen(
            self.settings,
            self.root,
            open_path=self.open_path,
            current_cwd=self.current_cwd,
            cache_dir=self.cache_dir,
            notices=self.startup_notices,
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
        shown = super().get_key_display(binding)
        if self.settings.ascii and not shown.isascii():
            return binding.key.split(",")[0]
        return shown

    def action_help(self) -> None:
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
            for title, help_text, action in COMMANDS:
                yield SystemCommand(title, help_text, _runner(screen, action))
        yield SystemCommand("Open the demo sessions", "a temporary copy of bundled sessions", self.open_demo)


COMMANDS = [
    ("Search sessions", "filter the sidebar as you type (/)", "search"),
    ("Show or hide excluded entries", "what is not in context, and why (x)", "toggle_excluded"),
    ("Follow the newest entry", "keep the selection on the newest entry (F)", "toggle_follow"),
    ("Resume in pi", "run pi on the selected session (r)", "resume"),
    ("Fork at the selected entry", "a new session holding the path to this entry (f)", "fork"),
    ("Copy", "message text, path, id or resume command (y)", "copy"),
    ("Raw JSON of the selected entry", "the line as it is in the file (i)", "inspect"),
    ("Rescan sessions", "read the sessions folder again (R)", "rescan"),
    ("Next pane", "sessions, tree, context (tab)", "next_pane"),
    ("Clone the session", "fork at the default leaf", "clone"),
    ("Rename the session", "append a session name, as pi's /name does", "rename"),
    ("Label the selected entry", "set or clear a label, as pi does", "label"),
    ("Delete the session", "move the file to the trash", "delete"),
    ("Export the context", "what the model saw at this entry, as Markdown and JSON", "export_context"),
    ("Export the session tree", "every entry, as Markdown and JSON", "export_tree"),
    ("Cycle the tree view filter", "conversation, no tools, user, labelled, everything (v)", "tree_filter"),
    ("Jump to the active leaf", "where pi would resume (a)", "active_leaf"),
    ("Sessions: this folder or all", "(c)", "toggle_scope"),
    ("Sessions: named only", "(n)", "toggle_named"),
    ("Sessions: sort order", "recent, name, size (s)", "cycle_sort"),
]


def _runner(screen: MainScreen, action: str):  # type: ignore[no-untyped-def]
    def run() -> None:
        screen.run_named_action(action)

    return run


def run_app(
    settings: Settings,
    root: SessionsRoot,
    *,
    open_path: str | None = None,
    appearance: Literal["dark", "light"] | None = None,
    notices: Sequence[str] = (),
) -> int:
    app = PiSessionsApp(settings, root, open_path=open_path, appearance=appearance, notices=notices)
    try:
        app.run(mouse=settings.mouse)
    finally:
        remove_demos()
    return app.return_code or 0
