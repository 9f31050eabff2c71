"""Every key binding of the app, in one table: its id, where it works, its default keys, what
it does (for the help and the palette) and its footer label and priority.

Each widget and screen takes its BINDINGS from here (`bindings(place)`), the help, the footer
and the command palette read the same rows, and the user's `[keys]` table and pi's
`keybindings.json` rebind them by id (core/common/keybindings.py, app/keymap.py). Where pi has the same
action, the row has pi's id and pi's default key (pi 1.6.0, docs/keybindings.md); our own
single letters are rows of their own, so rebinding pi's id leaves them alone. (Over 450
lines: it is one table, a row per binding; split, the help and the palette would read several.)
"""

from __future__ import annotations

from textual.binding import Binding

from ..core.common.keybindings import UNBOUND, KeySpec, Places

PALETTE = "ui.palette"  # Textual's own binding: its key is set on the app (COMMAND_PALETTE_BINDING)


def _k(*keys: str) -> tuple[str, ...]:
    return keys


SPECS: tuple[KeySpec, ...] = (
    # ------------------------------------------------------------------ everywhere (the app)
    KeySpec("ui.quit", "app", _k("q"), "quit", "quit", footer="Quit", rank=0),
    KeySpec(
        "ui.help",
        "app",
        _k("question_mark", "f1"),
        "help",
        "this help: every key, and what the marks in the panes mean",
        footer="Help",
        rank=0,
    ),
    KeySpec(
        PALETTE,
        "app",
        _k("ctrl+p"),
        "command_palette",
        "command palette: every action by name, with its key",
        footer="Palette",
        rank=3,
    ),
    # ------------------------------------------------------------------ everywhere (the main screen)
    KeySpec(
        "ui.nextPane",
        "main",
        _k("tab"),
        "next_pane",
        "next pane: sessions, tree, context",
        footer="Next pane",
        rank=1,
        priority=True,
        palette="Next pane",
    ),
    KeySpec("ui.previousPane", "main", _k("shift+tab"), "previous_pane", "previous pane", priority=True),
    KeySpec(
        "ui.search",
        "main",
        _k("slash"),
        "search",
        "search: sessions in the sidebar, entries in the tree",
        footer="Search",
        rank=4,
        palette="Search",
    ),
    KeySpec(
        "ui.back", "main", _k("escape"), "escape", "back: close the search, or go to the pane on the left"
    ),
    KeySpec(
        "sessions.resume",
        "main",
        _k("r"),
        "flow('resume')",
        "resume the session in pi",
        footer="Resume",
        rank=2,
        palette="Resume in pi",
    ),
    KeySpec(
        "tree.fork",
        "main",
        _k("f"),
        "flow('fork')",
        "fork at the selected entry: a new session up to it (then resume it with a key)",
        footer="Fork",
        rank=5,
        palette="Fork at the selected entry",
    ),
    KeySpec(
        "ui.copy",
        "main",
        _k("y"),
        "flow('copy')",
        "copy: the entry's text, the session's path or id, or the resume command",
        footer="Copy",
        rank=6,
        palette="Copy",
    ),
    KeySpec(
        "context.excluded",
        "main",
        _k("x"),
        "toggle_excluded",
        "show or hide what is not in context, and why",
        footer="Excluded",
        rank=8,
        palette="Show or hide excluded entries",
    ),
    KeySpec(
        "tree.follow",
        "main",
        _k("F"),
        "toggle_follow",
        "follow: keep the selection on the newest entry",
        footer="Follow",
        rank=9,
        palette="Follow the newest entry",
    ),
    KeySpec(
        "tree.rawJson",
        "main",
        _k("i"),
        "flow('inspect')",
        "raw JSON of the selected entry, as it is in the file",
        palette="Raw JSON of the selected entry",
    ),
    KeySpec(
        "tree.compare",
        "main",
        _k("equals_sign"),
        "flow('compare')",
        "compare the marked entry with the selected one: split point, spend, context difference",
        palette="Compare the marked entry with the selected one",
    ),
    KeySpec(
        "tree.files",
        "main",
        _k("w"),
        "flow('files')",
        "files: what the model knew of each file at the selected entry, and the text it saw",
        palette="Files the model knew at the selected entry",
    ),
    KeySpec(
        "app.tree.editLabel",
        "main",
        _k("L"),
        "flow('label')",
        "label the selected entry (empty clears it), as pi does",
        footer="Label",
        rank=11,
        pi=True,
        palette="Label the selected entry",
    ),
    KeySpec(
        "sessions.clone",
        "main",
        _k("C"),
        "flow('clone')",
        "clone the session: a fork at its active leaf",
        palette="Clone the session",
    ),
    KeySpec(
        "sessions.rename",
        "main",
        _k("M"),
        "flow('rename')",
        "rename the session (appends a name, as pi's /name does)",
        palette="Rename the session",
    ),
    KeySpec(
        "sessions.delete",
        "main",
        _k("D"),
        "flow('delete')",
        "delete the session: its file goes to the trash",
        palette="Delete the session",
    ),
    KeySpec(
        "sessions.pin",
        "main",
        _k("p"),
        "flow('pin')",
        "pin the session to the top of its folder's group (again: unpin); kept beside, not in, the file",
        palette="Pin or unpin the session",
    ),
    KeySpec(
        "sessions.archive",
        "main",
        _k("z"),
        "flow('archive')",
        "archive the session: out of the list, found by searching is:archived (again: unarchive)",
        palette="Archive or unarchive the session",
    ),
    KeySpec(
        "sessions.tag",
        "main",
        _k("t"),
        "flow('tag')",
        "tag the session (words; tag:NAME in the search keeps the tagged ones)",
        palette="Tag the session",
    ),
    KeySpec(
        "sessions.export",
        "main",
        _k("E"),
        "flow('export')",
        "export: the context or the tree (Markdown and JSON), or pi's HTML",
        palette="Export",
    ),
    KeySpec(
        "sessions.exportContext",
        "main",
        (),
        "flow('export_into', 'context')",
        "export the context at the selected entry (Markdown and JSON)",
        palette="Export the context",
    ),
    KeySpec(
        "sessions.exportTree",
        "main",
        (),
        "flow('export_into', 'tree')",
        "export the whole session tree (Markdown and JSON)",
        palette="Export the session tree",
    ),
    KeySpec(
        "sessions.rescan",
        "main",
        _k("R"),
        "rescan",
        "read the sessions folder again",
        palette="Rescan sessions",
    ),
    KeySpec(
        "context.compactionAudit",
        "main",
        _k("A"),
        "flow('compaction_audit')",
        "compaction audit: what each compaction on the path kept, summarized and left out of its summary",
        palette="Compaction audit of the path",
    ),
    KeySpec(
        "sessions.sizeDoctor",
        "main",
        _k("S"),
        "flow('size_doctor')",
        "size doctor: what makes the session file big, and what a clone would drop",
        palette="Size doctor: what makes the file big",
    ),
    KeySpec(
        "ui.labels",
        "main",
        _k("number_sign"),
        "flow('labels')",
        "every label of every session, filterable; enter lands on the labelled entry",
        palette="Every label (all sessions)",
    ),
    KeySpec(
        "ui.costs",
        "main",
        _k("dollar_sign"),
        "flow('costs')",
        "costs of every session: tokens and cost per day, week, month, model or project",
        palette="Costs of every session",
    ),
    KeySpec("ui.demo", "main", _k("d"), "demo", "open the bundled demo sessions (when there are none)"),
    # ------------------------------------------------------------------ the sessions list
    KeySpec(
        "sessions.search",
        "sessions",
        _k("slash"),
        "search",
        'search as you type: words, "a phrase", re:regex, @7d (active within 7 days)',
        footer="Search",
        rank=4,
    ),
    KeySpec("sessions.clearSearch", "sessions", _k("escape"), "clear_search", "clear the search"),
    KeySpec(
        "sessions.deepSearch",
        "sessions",
        _k("ctrl+f"),
        "toggle_deep",
        "deep search on / off: also tool output, bash, thinking, custom messages, summaries, labels",
        footer="Deep",
        rank=9,
        palette="Search: deep scope on or off",
    ),
    KeySpec(
        "sessions.scope",
        "sessions",
        _k("c"),
        "toggle_scope",
        "this folder only / all folders",
        footer="This folder/all",
        rank=7,
        palette="Sessions: this folder or all",
    ),
    KeySpec(
        "sessions.namedOnly",
        "sessions",
        _k("n"),
        "toggle_named",
        "named sessions only (again: all)",
        palette="Sessions: named only",
    ),
    KeySpec(
        "app.session.toggleNamedFilter",
        "sessions",
        _k("ctrl+n"),
        "toggle_named",
        "named sessions only (again: all)",
        pi=True,
    ),
    KeySpec(
        "sessions.sort",
        "sessions",
        _k("s"),
        "cycle_sort",
        "sort: recent, name, size, cost",
        footer="Sort",
        rank=10,
        palette="Sessions: sort order",
    ),
    KeySpec(
        "app.session.toggleSort",
        "sessions",
        _k("ctrl+s"),
        "cycle_sort",
        "sort: recent, name, size, cost",
        footer="Sort",
        rank=10,
        pi=True,
    ),
    KeySpec(
        "app.session.rename", "sessions", _k("ctrl+r"), "screen.flow('rename')", "rename the session", pi=True
    ),
    KeySpec(
        "app.session.delete",
        "sessions",
        _k("ctrl+d"),
        "screen.flow('delete')",
        "delete the session (to the trash)",
        pi=True,
    ),
    # ------------------------------------------------------------------ every list (sessions, tree)
    KeySpec("list.up", "list", _k("up", "k"), "cursor_up", "move up"),
    KeySpec("list.down", "list", _k("down", "j"), "cursor_down", "move down"),
    KeySpec("list.pageUp", "list", _k("pageup"), "page_up", "a page up"),
    KeySpec("list.pageDown", "list", _k("pagedown"), "page_down", "a page down"),
    KeySpec("list.first", "list", _k("home"), "first", "the first row"),
    KeySpec("list.last", "list", _k("end"), "last", "the last row"),
    KeySpec(
        "list.open", "list", _k("enter"), "activate", "open: a session's tree, or the context at an entry"
    ),
    # ------------------------------------------------------------------ the branch tree
    KeySpec("tree.fold", "tree", _k("left", "h"), "fold", "fold the branch (or the branch this entry is on)"),
    KeySpec("tree.unfold", "tree", _k("right", "l"), "unfold", "unfold"),
    KeySpec(
        "tree.toggleFold", "tree", _k("space"), "toggle_fold", "fold / unfold", footer="Fold/unfold", rank=10
    ),
    KeySpec(
        "app.tree.foldOrUp",
        "tree",
        _k("ctrl+left", "alt+left"),
        "fold_or_up",
        "fold the branch, or go to the start of the branch above",
        pi=True,
    ),
    KeySpec(
        "app.tree.unfoldOrDown",
        "tree",
        _k("ctrl+right", "alt+right"),
        "unfold_or_down",
        "unfold, or go to the next branch start (or this branch's end)",
        pi=True,
    ),
    KeySpec("tree.prevFork", "tree", _k("left_square_bracket"), "prev_fork", "previous fork point"),
    KeySpec("tree.nextFork", "tree", _k("right_square_bracket"), "next_fork", "next fork point"),
    KeySpec(
        "tree.activeLeaf",
        "tree",
        _k("a"),
        "active_leaf",
        "jump to the active leaf (where pi would resume)",
        footer="Active leaf",
        rank=8,
        palette="Jump to the active leaf",
    ),
    KeySpec(
        "tree.cycleFilter",
        "tree",
        _k("v"),
        "cycle_filter",
        "view filter: conversation, no tool results, user only, labelled, everything",
        footer="View filter",
        rank=7,
        palette="Cycle the tree view filter",
    ),
    KeySpec(
        "app.tree.filter.cycleForward",
        "tree",
        _k("ctrl+o"),
        "cycle_filter",
        "view filter: conversation, no tool results, user only, labelled, everything",
        footer="View filter",
        rank=7,
        pi=True,
    ),
    KeySpec(
        "app.tree.filter.cycleBackward",
        "tree",
        _k("ctrl+shift+o"),
        "cycle_filter_back",
        "view filter, backwards",
        pi=True,
    ),
    KeySpec(
        "app.tree.filter.default",
        "tree",
        _k("ctrl+d"),
        "set_filter('default')",
        "view: the conversation (the default)",
        pi=True,
    ),
    KeySpec(
        "app.tree.filter.noTools",
        "tree",
        _k("ctrl+t"),
        "toggle_filter('no-tools')",
        "view: no tool results (again: the default)",
        pi=True,
    ),
    KeySpec(
        "app.tree.filter.userOnly",
        "tree",
        _k("ctrl+u"),
        "toggle_filter('user-only')",
        "view: user messages only (again: the default)",
        pi=True,
    ),
    KeySpec(
        "app.tree.filter.labeledOnly",
        "tree",
        _k("ctrl+l"),
        "toggle_filter('labeled-only')",
        "view: labelled entries only (again: the default)",
        pi=True,
    ),
    KeySpec(
        "app.tree.filter.all",
        "tree",
        _k("ctrl+a"),
        "toggle_filter('all')",
        "view: everything, bookkeeping too (again: the default)",
        pi=True,
    ),
    KeySpec(
        "app.message.copy",
        "tree",
        _k("ctrl+x"),
        "screen.flow('copy_entry_text')",
        "copy the selected entry's text, as pi's tree does",
        pi=True,
    ),
    KeySpec(
        "tree.mark",
        "tree",
        _k("m"),
        "toggle_mark",
        "mark the entry to compare it with another (again: unmark)",
        palette="Mark the selected entry to compare",
    ),
    KeySpec("tree.nextMatch", "tree", _k("n"), "next_match", "next search hit in this session"),
    KeySpec("tree.prevMatch", "tree", _k("N"), "prev_match", "previous search hit in this session"),
    # ------------------------------------------------------------------ the context pane
    KeySpec("context.up", "context", _k("up", "k"), "scroll_lines(-1)", "scroll up"),
    KeySpec("context.down", "context", _k("down", "j"), "scroll_lines(1)", "scroll down"),
    KeySpec("context.pageUp", "context", _k("pageup"), "scroll_lines(-20)", "a page up"),
    KeySpec("context.pageDown", "context", _k("pagedown"), "scroll_lines(20)", "a page down"),
    KeySpec("context.start", "context", _k("home"), "to_start", "the first message"),
    KeySpec("context.end", "context", _k("end"), "to_end", "the last message"),
    KeySpec("context.prevMessage", "context", _k("left_square_bracket"), "block(-1)", "previous message"),
    KeySpec("context.nextMessage", "context", _k("right_square_bracket"), "block(1)", "next message"),
    KeySpec(
        "context.expand",
        "context",
        _k("enter", "space"),
        "toggle_block",
        "expand / collapse the message (thinking, long output)",
        footer="Expand",
        rank=7,
    ),
    # ------------------------------------------------------------------ dialogs
    KeySpec("help.close", "help", _k("escape", "q", "question_mark", "f1"), "dismiss", "close the help"),
    KeySpec("rawJson.close", "rawJson", _k("escape", "q", "i"), "dismiss", "close the raw JSON"),
    KeySpec("confirm.yes", "confirm", _k("y", "enter"), "answer(True)", "a question: yes"),
    KeySpec("confirm.no", "confirm", _k("n", "escape"), "answer(False)", "a question: no"),
    KeySpec("prompt.cancel", "prompt", _k("escape"), "cancel", "a prompt: cancel"),
    KeySpec("menu.cancel", "menu", _k("escape"), "cancel", "a menu: cancel"),
    KeySpec("forkPreview.fork", "forkPreview", _k("enter"), "choose('fork')", "the fork preview: fork"),
    KeySpec(
        "forkPreview.resume",
        "forkPreview",
        _k("r"),
        "choose('fork-resume')",
        "the fork preview: fork and resume in pi",
    ),
    KeySpec(
        "forkPreview.otherDir",
        "forkPreview",
        _k("c"),
        "choose('cwd')",
        "the fork preview: fork into another directory",
    ),
    KeySpec(
        "forkPreview.cancel", "forkPreview", _k("escape", "n"), "choose(None)", "the fork preview: cancel"
    ),
    KeySpec("text.close", "text", _k("escape", "q"), "close", "close the text view"),
    KeySpec("compare.split", "compare", _k("s"), "jump('split')", "the comparison: go to the split point"),
    KeySpec("compare.leafA", "compare", _k("a"), "jump('a')", "the comparison: go to leaf A (marked)"),
    KeySpec("compare.leafB", "compare", _k("b"), "jump('b')", "the comparison: go to leaf B (selected)"),
    KeySpec("compare.close", "compare", _k("escape", "q"), "close", "close the comparison"),
    KeySpec(
        "files.previousTouch",
        "files",
        _k("left", "left_square_bracket"),
        "touch(-1)",
        "the files view: an earlier read or edit of the file",
    ),
    KeySpec(
        "files.nextTouch",
        "files",
        _k("right", "right_square_bracket"),
        "touch(1)",
        "the files view: a later read or edit of the file",
    ),
    KeySpec("files.close", "files", _k("escape", "q"), "close", "close the files view"),
    KeySpec("audit.close", "audit", _k("escape", "q", "A"), "close", "close the compaction audit"),
    KeySpec("sizeDoctor.close", "sizeDoctor", _k("escape", "q", "S"), "close", "close the size doctor"),
    KeySpec(
        "sizeDoctor.clone",
        "sizeDoctor",
        _k("C"),
        "choose('clone')",
        "the size doctor: clone the session (a fork at its active leaf keeps only that path)",
    ),
    KeySpec(
        "sizeDoctor.fork",
        "sizeDoctor",
        _k("f"),
        "choose('fork')",
        "the size doctor: fork at the selected entry (keeps only the path to it)",
    ),
    KeySpec("labels.close", "labels", _k("escape"), "close", "close the labels list"),
    KeySpec(
        "costs.by",
        "costs",
        _k("g"),
        "next_grouping",
        "the costs: group by the next of day, week, month, model and project",
    ),
    KeySpec(
        "costs.split",
        "costs",
        _k("p"),
        "toggle_split",
        "the costs: plot each period's cost per model, or per project",
    ),
    KeySpec("costs.close", "costs", _k("escape", "q", "dollar_sign"), "close", "close the costs"),
)

SPEC_BY_ID = {spec.id: spec for spec in SPECS}

DIALOGS = (
    "help",
    "rawJson",
    "confirm",
    "prompt",
    "menu",
    "forkPreview",
    "text",
    "audit",
    "sizeDoctor",
    "costs",
)

# Where keys are looked up together (innermost first); a widget's inherited keys share its namespace.
PLACES = Places(
    names={
        "app": "everywhere",
        "main": "everywhere",
        "sessions": "the sessions list",
        "list": "the lists",
        "tree": "the tree",
        "context": "the context pane",
        "help": "the help",
        "rawJson": "the raw JSON view",
        "confirm": "a question",
        "prompt": "a prompt",
        "menu": "a menu",
        "forkPreview": "the fork preview",
        "text": "the text view",
        "compare": "the comparison",
        "files": "the files view",
        "audit": "the compaction audit",
        "sizeDoctor": "the size doctor",
        "labels": "the labels list",
        "costs": "the costs",
    },
    chains={
        "sessions": (("list",), ("sessions",), ("main",), ("app",)),
        "tree": (("list", "tree"), ("main",), ("app",)),
        "context": (("context",), ("main",), ("app",)),
        **{dialog: ((dialog,),) for dialog in DIALOGS},
        # Views over a list: the list's keys first, then the view's own.
        "compare": (("list",), ("compare",)),
        "files": (("list",), ("files",)),
        "labels": (("list",), ("labels",), ("app",)),
    },
)

DIALOG_PLACES = frozenset({*DIALOGS, "compare", "files", "labels"})

# The help's sections: a heading and the places it lists.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Everywhere", ("app", "main")),
    ("Sessions", ("sessions",)),
    ("Sessions and tree", ("list",)),
    ("Branch tree", ("tree",)),
    ("Context", ("context",)),
    ("Compare and files", ("compare", "files")),
    ("Every label", ("labels",)),
    ("Dialogs", DIALOGS),
)


# What Textual's `BINDINGS` class attribute is declared as (a list is invariant).
BindingList = list[Binding | tuple[str, str] | tuple[str, str, str]]


def bindings(place: str) -> BindingList:
    """The BINDINGS of a widget or screen: the table's rows for `place`, with their default
    keys (the app's keymap puts the user's keys in their place)."""
    return [
        Binding(
            ",".join(spec.keys) or UNBOUND + spec.id,
            spec.action,
            spec.footer or spec.title,
            show=bool(spec.footer),
            priority=spec.priority,
            id=spec.id,
        )
        for spec in SPECS
        if spec.place == place and spec.id != PALETTE
    ]
