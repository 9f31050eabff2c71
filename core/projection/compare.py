"""Two leaves side by side: where their paths split, what each spent since, and how the two
contexts pi would send differ (entries sent on one side only, or sent in another form).

Pure record walks: `compare()` projects both leaves (no message body is read) and pairs the
fates of the entries both paths share. A view renders the result and jumps to its entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..reading.records import EntryRecord
from ..session.session import Session, Totals
from .context import Fate, Projection, project
from .tokens import context_tokens


class Relation(StrEnum):
    """How the two leaves sit in the tree."""

    SAME = "same"  # one leaf, twice
    A_BELOW_B = "a-below-b"  # B is an ancestor of A: the split is B itself
    B_BELOW_A = "b-below-a"  # A is an ancestor of B: the split is A itself
    FORKED = "forked"  # siblings somewhere below a common entry
    UNRELATED = "unrelated"  # different roots: nothing in common


@dataclass(slots=True)
class Side:
    """One leaf of a comparison and what lies between the split and it."""

    leaf: EntryRecord
    projection: Projection
    since_split: list[EntryRecord]  # root-to-leaf order, the split excluded
    totals: Totals  # tokens and cost of the entries since the split
    message_count: int  # message entries since the split
    only_here: list[EntryRecord]  # context entries sending messages here, absent from the other path
    context_tokens: int | float  # pi's estimate of the context size at this leaf

    @property
    def context_message_count(self) -> int:
        """Messages pi would send at this leaf (the whole projection, not only since the split)."""
        return self.projection.message_count


@dataclass(frozen=True, slots=True)
class FormDifference:
    """An entry both paths hold that the two contexts send differently (or one does not send)."""

    record: EntryRecord
    a: Fate
    b: Fate


@dataclass(slots=True)
class Comparison:
    split: EntryRecord | None  # the deepest entry both paths share; None for different roots
    relation: Relation
    a: Side
    b: Side
    different_form: list[FormDifference]  # root-to-split order
    shared_count: int  # entries both contexts send in the same form

    @property
    def split_id(self) -> str | None:
        return self.split.id if self.split is not None else None


def split_index(path_a: list[EntryRecord], path_b: list[EntryRecord]) -> int:
    """Position of the deepest entry two root-to-leaf paths share (-1: different roots).

    Paths of one tree share a prefix: once they part they never meet again."""
    shared = 0
    for a, b in zip(path_a, path_b, strict=False):
        if a is not b:
            break
        shared += 1
    return shared - 1


def compare(session: Session, leaf_a: str, leaf_b: str) -> Comparison:
    """Compare the paths ending at `leaf_a` and `leaf_b` (raises UnknownEntryError)."""
    proj_a = project(session, leaf_a)
    proj_b = project(session, leaf_b) if leaf_b != leaf_a else proj_a
    path_a, path_b = proj_a.path, proj_b.path
    split = split_index(path_a, path_b)
    fates_a, fates_b = proj_a.fates, proj_b.fates
    differences: list[FormDifference] = []
    shared = 0
    for position in range(split + 1):
        fa, fb = fates_a[position], fates_b[position]
        if not (fa.message_count or fb.message_count):
            continue  # neither side sends it: no difference the model could notice
        if fa.reason is fb.reason and fa.by == fb.by:
            shared += 1
        else:
            differences.append(FormDifference(fa.record, fa, fb))
    side_a = _side(session, proj_a, split, fates_a)
    side_b = _side(session, proj_b, split, fates_b)
    return Comparison(
        path_a[split] if split >= 0 else None,
        _relation(split, len(path_a), len(path_b)),
        side_a,
        side_b,
        differences,
        shared,
    )


def _side(session: Session, projection: Projection, split: int, fates: list[Fate]) -> Side:
    since = projection.path[split + 1 :]
    totals = Totals()
    messages = 0
    for record in since:
        totals.add(record)
        if record.type == "message":
            messages += 1
    # Entries after the split lie on this path only, so what this side sends of them is
    # sent on this side only.
    only_here = [f.record for f in fates[split + 1 :] if f.message_count]
    tokens = context_tokens(session, projection)
    return Side(projection.path[-1], projection, since, totals, messages, only_here, tokens)


def _relation(split: int, length_a: int, length_b: int) -> Relation:
    if split < 0:
        return Relation.UNRELATED
    a_is_split, b_is_split = split == length_a - 1, split == length_b - 1
    if a_is_split and b_is_split:
        return Relation.SAME
    if b_is_split:
        return Relation.A_BELOW_B
    if a_is_split:
        return Relation.B_BELOW_A
    return Relation.FORKED
