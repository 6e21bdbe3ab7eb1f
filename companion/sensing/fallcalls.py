"""``judge.falls``: the fall readings as the stages the judge hands itself to call them.

``tipepisode.py``, ``explain.py`` and ``massonly.py`` are given the judge and read the falls
through ``judge.falls`` (``loss_events``, ``read_loss``, ``weighed_falls``, the picks budget, and
the fall state: what was lost, the pawns on the base plate). ``FallCalls`` is that view of the
segment's ``FallWatch``: each call is passed on with the segment's facts (``SegmentFacts``) the
judge builds for it, so ``FallWatch`` itself reads nothing of the judge. It holds no state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.falls import Decomposition, Pawn
    from companion.sensing.fallwatch import FallWatch
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.segfacts import SegmentFacts


class FallCalls:
    """``FallWatch``'s readings with the judge's ``facts(t)`` for each call (``t``: the sample the
    reading is for, None when the facts of any sample will do), and its fall state."""

    __slots__ = ("_watch", "_facts")

    def __init__(self, watch: FallWatch, facts: Callable[[int | None], SegmentFacts]) -> None:
        self._watch = watch
        self._facts = facts

    def loss_events(self, pipe: Pipeline, t: int, lost: float, moment: tuple[float, float] | None,
                    removed: bool) -> list[dict]:
        """``FallWatch.loss_events``: ``removed`` or ``fell`` for a loss of mass."""
        return self._watch.loss_events(pipe, t, lost, moment, removed, self._facts(t))

    def read_loss(self, pipe: Pipeline, lost: float | list[float],
                  moment: tuple[float, float] | None) -> Decomposition | None:
        """``FallWatch.read_loss``: the pawns a loss is."""
        return self._watch.read_loss(pipe, lost, moment, self._facts(None))

    def weighed_falls(self, pipe: Pipeline, t: int) -> list[dict]:
        """``FallWatch.weighed_falls``: pawns that slid off onto the base plate."""
        return self._watch.weighed_falls(pipe, t, self._facts(t))

    def picks_budget(self, pipe: Pipeline) -> int:
        """``FallWatch.picks_budget``: the pawn subsets this sample may still score."""
        return self._watch.picks_budget(pipe)

    def spend_picks(self, dec: Decomposition | None) -> None:
        """``FallWatch.spend_picks``: count a decomposition's picks."""
        self._watch.spend_picks(dec)

    @property
    def lost_reported(self) -> float:
        """Grams already reported as fallen in this tip."""
        return self._watch.lost_reported

    @property
    def lost_moment(self) -> tuple[float, float]:
        """The moment the pawns reported fallen had where they stood."""
        return self._watch.lost_moment

    @property
    def last_loss_t(self) -> int:
        """When the last loss of this tip was reported (-1: none)."""
        return self._watch.last_loss_t

    @property
    def on_base(self) -> list[Pawn]:
        """The pawns seen landing on the base plate in this tip (still weighed)."""
        return self._watch.on_base

    @on_base.setter
    def on_base(self, pawns: list[Pawn]) -> None:
        self._watch.on_base = pawns
