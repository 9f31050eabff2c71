"""Every binding of an action names a flow that exists (`flow('fork')`), and every flow has a
binding: a typo in the key table would otherwise only show when the key is pressed."""

from __future__ import annotations

import ast
import inspect

from pi_sessions.app.actions import FLOWS, Actions
from pi_sessions.app.export_flows import EXPORT_FLOWS, ExportFlows
from pi_sessions.app.marks_flow import MARK_FLOWS, MarkActions
from pi_sessions.app.view_flows import VIEW_FLOWS, ViewFlows
from pi_sessions.widgets.keys import SPECS


def _flow_calls() -> list[tuple[str, tuple[str, ...]]]:
    calls = []
    for spec in SPECS:
        action = spec.action.removeprefix("screen.")
        if action.startswith("flow("):
            call = ast.parse(action, mode="eval").body
            assert isinstance(call, ast.Call)
            args = tuple(ast.literal_eval(a) for a in call.args)
            calls.append((args[0], args[1:]))
    return calls


def test_every_flow_a_key_names_exists_and_takes_its_arguments() -> None:
    calls = _flow_calls()
    assert calls
    for name, args in calls:
        owner = (
            ViewFlows
            if name in VIEW_FLOWS
            else ExportFlows
            if name in EXPORT_FLOWS
            else MarkActions
            if name in MARK_FLOWS
            else Actions
        )
        assert name in (*FLOWS, *EXPORT_FLOWS, *VIEW_FLOWS, *MARK_FLOWS), name
        method = getattr(owner, name)
        assert inspect.iscoroutinefunction(method), name
        inspect.signature(method).bind(None, *args)  # (self, then the binding's arguments)


def test_every_flow_has_a_binding() -> None:
    named = {name for name, _ in _flow_calls()}
    assert {*FLOWS, *EXPORT_FLOWS, *VIEW_FLOWS, *MARK_FLOWS} == named
