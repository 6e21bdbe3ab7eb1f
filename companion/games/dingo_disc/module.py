"""The Dingo Disc as a complete game module (``companion.games.base.GameModule``).

``legal_actions`` builds every candidate action the table could take now (the host's choices,
the dice and colour-die outcomes, the first-player draw, the corrections, and one representative
sensed fall) and keeps those the core's :func:`apply` accepts, so the list and the rules cannot
disagree. Sensed actions carry measured values (where a pawn stands, what fell, how long a hand
held the disc): :data:`FREE_FIELDS` names them; they are not choices, so they are not listed
(one fall is, so random games exercise falls) and the generic game suite does not ask them to be.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from companion.games.base import (
    CHANCE,
    IllegalAction,
    LegalAction,
    Outcome,
    SetupOption,
    SetupSpec,
    ToMove,
)
from companion.games.dingo_disc.actions import (
    COLOURS,
    SIZES,
    AcceptPlacement,
    Action,
    ConfirmFall,
    CorrectSize,
    DismissFlag,
    EndGame,
    Fall,
    FirstPlayer,
    Give,
    NewGame,
    Place,
    RedoPlacement,
    Roll,
    RollColour,
    TakeDice,
    action_from_json,
)
from companion.games.dingo_disc.describe import describe_action as describe_json
from companion.games.dingo_disc.describe import fall_to_whom
from companion.games.dingo_disc.expected import expected
from companion.games.dingo_disc.rules import apply, initial_state
from companion.games.dingo_disc.state import OPTION_VALUES, PAWNS_PER_SIZE, State, state_from_json

FREE_FIELDS: Mapping[str, frozenset[str] | None] = MappingProxyType({
    "place": frozenset({"zone", "number", "x_mm", "y_mm", "sensed"}),  # where the sensors saw the pawn
    "hand": None,  # a hand on the disc, a pawn lifted off or falling: sensed, not chosen
    "removed": None,
    "fall": None,  # what fell is measured: any fall the disc's contents allow (one is listed)
    "confirm_fall": None,
    "correct_fall": None,
})
"""Fields whose values are measured, not chosen (None: every field of that action type; such
actions are listed by one representative at most)."""

_OPTION_HELP = {
    "version": "1: roll the colour die and the number die; 2: each player has their own colour",
    "draw_window": "a draw is when everyone finishes in the same round, or within one more turn each",
    "last_pawn_gift": "a giver with a single pawn left keeps it, or gives it (and finishes)",
    "placed_fell_default": "when unsure, the pawn just placed counts as fallen if its size fell",
}


def normalise_setup(setup: Any) -> Any:
    """A ``new_game`` JSON in the generic form (``options.version``) -> the Disc's (top-level version).

    A missing version is 1, as the setup spec says. Typed actions pass through.
    """
    if not isinstance(setup, dict):
        return setup
    data = dict(setup)
    options = data.get("options")
    if isinstance(options, dict) and "version" in options:
        options = dict(options)
        version = options.pop("version")
        if "version" in data and data["version"] != version:
            data["options"] = options
            return data  # both given and different: the core's version wins, the option is ignored
        data["version"], data["options"] = version, options
    data.setdefault("type", "new_game")
    data.setdefault("version", 1)
    return data


class DingoDiscRules:
    """The ``GameModule`` object of Dingo Disc (registered as ``"dingo-disc"``)."""

    name = "dingo-disc"
    title = "Dingo Disc"
    scoring = "rank"
    free_fields = FREE_FIELDS

    # -- the core ----------------------------------------------------------------------------

    def initial_state(self, setup: Any) -> State:
        """State after ``new_game`` (an action or its JSON object, ``version`` top-level or an option)."""
        if isinstance(setup, dict):
            setup = action_from_json(normalise_setup(setup))
        return initial_state(setup)

    def apply(self, state: State, action: Action) -> State:
        """Pure transition; raises IllegalAction."""
        return apply(state, action)

    def action_from_json(self, data: Any) -> Action:
        """Typed action from JSON; raises ActionFormatError."""
        if isinstance(data, dict) and data.get("type") == "new_game":
            data = normalise_setup(data)
        return action_from_json(data)

    def state_from_json(self, data: Any) -> State:
        """State from ``State.to_json()``; raises StateFormatError."""
        return state_from_json(data)

    def new_match(self, setup: Any) -> Any:
        """A :class:`~companion.games.dingo_disc.match.Match` started by ``setup`` (NewGame or JSON)."""
        from companion.games.dingo_disc.match import Match

        if isinstance(setup, dict):
            setup = self.action_from_json(setup)
        if not isinstance(setup, NewGame):
            raise TypeError("new_match needs a new_game action")
        return Match(setup)

    # -- the protocol ------------------------------------------------------------------------

    def setup_spec(self) -> SetupSpec:
        """2 to 6 players; the rules version and the options of docs/rules.md."""
        options = [SetupOption("version", 1, (1, 2), _OPTION_HELP["version"])]
        options += [SetupOption(key, values[0], values, _OPTION_HELP.get(key, ""))
                    for key, values in OPTION_VALUES.items()]
        return SetupSpec(min(PAWNS_PER_SIZE), max(PAWNS_PER_SIZE), tuple(options))

    def legal_actions(self, state: State) -> list[LegalAction]:
        """Every action the core accepts now (sensed ones by one representative each)."""
        if state.phase == "over":
            return []
        out: list[LegalAction] = []
        names = list(state.names)
        for candidate, chance, p in _candidates(state):
            try:
                apply(state, candidate)
            except IllegalAction:
                continue
            label = _label(state, candidate, names)
            out.append(LegalAction(candidate, chance, p if chance else None, label))
        chances = [la for la in out if la.chance]
        if chances:  # the outcomes that apply share the probability (they always all apply)
            p = 1.0 / len(chances)
            out = [LegalAction(la.action, True, p, la.label) if la.chance else la for la in out]
        return out

    def to_move(self, state: State) -> ToMove:
        """Who acts: the host's choice or a draw for the first player, chance for the dice, a seat."""
        phase, n = state.phase, state.n
        cur = state.current
        if phase == "over":
            return ToMove(())
        if phase == "first_player":
            return ToMove((*range(n), CHANCE))
        if phase == "colours":
            return ToMove((CHANCE,))
        if phase == "roll":
            assert cur is not None
            return ToMove((cur, CHANCE))
        if phase == "penalty":
            return ToMove((state.givers[0],))
        if phase == "confirm_fall":
            owner = state.window.seat if state.window is not None else cur
            return ToMove((owner,) if owner is not None else tuple(range(n)))
        if cur is not None and phase in ("place", "review"):
            return ToMove((cur,))
        return ToMove(tuple(range(n)))  # "ending": the table confirms the disc is still

    def outcome(self, state: State) -> Outcome | None:
        """Over: the first to finish wins (ranking = finishing order); a draw ranks everyone first."""
        if state.phase != "over":
            return None
        everyone = tuple(range(state.n))
        if state.draw:
            return Outcome((), (everyone,), None, True)
        order = tuple(f.seat for f in state.finishing)
        rest = tuple(s for s in everyone if s not in order)
        ranking = tuple((s,) for s in order) + ((rest,) if rest else ())
        return Outcome((order[0],) if order else (), ranking, None, False)

    def describe_action(self, state: State, action: Action) -> str:
        """A plain sentence for ``action`` applied to ``state`` (the table's feed line)."""
        data = action.to_json()
        text = describe_json(data, list(state.names))
        if data.get("type") == "fall":
            w = state.window
            seat = w.seat if w is not None else state.current
            if seat is not None:
                text = fall_to_whom(text, data, {"current": seat, "players": list(state.names)})
        return text

    def describe_next(self, state: State) -> str:
        """What the table does next (the page's prompt)."""
        return str(expected(state)["prompt"])

    def example_setups(self) -> list[dict[str, Any]]:
        """Both versions, 2 to 6 players, every option value at least once."""
        names = ["Anna", "Ben", "Cleo", "Dan", "Eve", "Finn"]
        return [
            {"type": "new_game", "game": self.name, "players": names[:2], "options": {}},
            {"type": "new_game", "game": self.name, "players": names[:3], "options": {"version": 2}},
            {"type": "new_game", "game": self.name, "version": 1, "players": names[:4],
             "options": {"draw_window": "cycle", "last_pawn_gift": "give"}},
            {"type": "new_game", "game": self.name, "players": names[:6],
             "options": {"version": 2, "placed_fell_default": "no", "last_pawn_gift": "give"}},
            {"type": "new_game", "game": self.name, "players": names[:5], "options": {"version": 1}},
        ]

    def invariants(self, state: State) -> list[str]:
        """Pawns conserved size by size; the disc's pawn list matches its counts; seats in range."""
        problems = []
        k = PAWNS_PER_SIZE.get(state.n)
        if k is None:
            return [f"{state.n} players: the Disc is for 2 to 6"]
        for i, size in enumerate(SIZES):
            total = sum(c[i] for c in state.supply) + state.disc[i] + state.in_hand[i]
            if total != k * state.n:
                problems.append(f"{size} pawns: {total} in supplies, on the disc and in hand, "
                                f"dealt {k * state.n}")
            if any(c[i] < 0 for c in state.supply):
                problems.append(f"a negative {size} supply")
        if len(state.disc_pawns) != sum(state.disc):
            problems.append(f"{len(state.disc_pawns)} pawn positions for {sum(state.disc)} pawns on the disc")
        if state.current is not None and not 0 <= state.current < state.n:
            problems.append(f"current seat {state.current} out of range")
        if len({f.seat for f in state.finishing}) != len(state.finishing):
            problems.append("a player finished twice")
        if state.phase == "over" and state.current is not None:
            problems.append("the game is over but a player is to move")
        return problems


def _candidates(s: State) -> list[tuple[Action, bool, float]]:
    """Every action that may be legal now: (action, chance, probability if chance)."""
    n, phase = s.n, s.phase
    out: list[tuple[Action, bool, float]] = []
    if phase == "first_player":
        out += [(FirstPlayer(seat=i), False, 0.0) for i in range(n)]
        out += [(FirstPlayer(seat=i, drawn=True), True, 1 / n) for i in range(n)]
    elif phase == "colours":
        out += [(RollColour(colour=c), True, 1 / 6) for c in COLOURS]
    elif phase == "roll":
        out.append((TakeDice(), False, 0.0))
        if s.version == 1:
            out += [(Roll(number=k, colour=c), True, 1 / 36) for c in COLOURS for k in range(1, 7)]
        else:
            out += [(Roll(number=k), True, 1 / 6) for k in range(1, 7)]
    elif phase == "penalty":
        out += [(Give(giver=s.givers[0], size=size), False, 0.0) for size in SIZES]
    elif phase == "place":
        out += [(Place(size=size), False, 0.0) for size in SIZES]
    elif phase == "review":
        out += [(AcceptPlacement(), False, 0.0), (RedoPlacement(), False, 0.0)]
    elif phase == "confirm_fall":
        out.append((ConfirmFall(), False, 0.0))
    elif phase == "ending":
        out.append((EndGame(), False, 0.0))
    # one representative of what the sensors report: as the next player is about to roll, the
    # smallest pawn on the disc falls as the disc tips (hands, lifted pawns, the other falls and
    # corrections of a fall are sensed or typed, not chosen: see FREE_FIELDS)
    on_disc = [i for i in range(3) if s.disc[i]]
    if on_disc and phase == "roll":
        out.append((Fall(pawns=_one(on_disc[0]), tipped=True), False, 0.0))
    out += [(DismissFlag(id=f.id), False, 0.0) for f in s.flags]
    if s.last_place is not None:
        out += [(CorrectSize(size=size), False, 0.0) for size in SIZES]
    return out


def _one(i: int) -> tuple[int, int, int]:
    return (1, 0, 0) if i == 0 else (0, 1, 0) if i == 1 else (0, 0, 1)


def _label(s: State, a: Action, names: list[str]) -> str:
    """A short button label a child reads."""
    cur = names[s.current] if s.current is not None else "The player"
    if isinstance(a, FirstPlayer):
        return f"Draw: {names[a.seat]}" if a.drawn else f"{names[a.seat]} plays first"
    if isinstance(a, TakeDice):
        return f"{cur} takes the dice"
    if isinstance(a, Place):
        return f"{cur} placed a {a.size} pawn"
    if isinstance(a, AcceptPlacement):
        return "Accept the placement"
    if isinstance(a, RedoPlacement):
        return "Redo the placement"
    if isinstance(a, ConfirmFall):
        return "Confirm the fall"
    if isinstance(a, EndGame):
        return "The disc is still: end the game"
    if isinstance(a, DismissFlag):
        flag = next((f for f in s.flags if f.id == a.id), None)
        return f"Dismiss: {flag.kind if flag else a.id}"
    if isinstance(a, CorrectSize):
        return f"The placed pawn was {a.size}"
    return describe_json(a.to_json(), names)


DINGO_DISC = DingoDiscRules()
"""The one rules object (stateless) the registry and :class:`Match` use."""
