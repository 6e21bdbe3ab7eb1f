"""The Dingo card game rules: ``initial_state`` and the pure ``apply(state, action) -> state``.

The deal and the exchanges live here, the hunts in :mod:`.hunts`. Readings of open points are in
``docs/rules-dingo-cards.md``. Every check happens before a new state is built, so an illegal
action changes nothing. Rule ids are the ones the tests are named after.
"""

from __future__ import annotations

from typing import Any, NoReturn

from companion.games.base import IllegalAction, OptionError
from companion.games.dingo_cards import hunts
from companion.games.dingo_cards.actions import (
    Action,
    Deal,
    Discard,
    Exchange,
    FirstDealer,
    FourAces,
    NewGame,
    NoHeart,
    Pass,
    Play,
    ShowDiamondAce,
)
from companion.games.dingo_cards.cards import ACES, ALL_CARDS, STACK, card_name, rank
from companion.games.dingo_cards.options import PLAYERS, SETUP_SPEC
from companion.games.dingo_cards.state import State

EXCHANGES = {1: "left", 2: "opposite", 3: "right"}
"""Exchange k follows discard k: to the left, with the player opposite, to the right."""
_STEP = {"left": 1, "opposite": 2, "right": -1}


def illegal(action: Any, rule: str, reason: str) -> NoReturn:
    raise IllegalAction(action, rule, reason)


def initial_state(setup: NewGame) -> State:
    """The state after ``new_game``: four players, options checked, the first dealer not chosen yet."""
    if not isinstance(setup, NewGame):
        illegal(setup, "setup", "a game starts with a new_game action")
    if setup.game != "dingo-cards":
        illegal(setup, "setup", f"unknown game {setup.game!r} (this core plays 'dingo-cards')")
    names = tuple(n.strip() for n in setup.players)
    if len(names) != PLAYERS:
        illegal(setup, "four-players", f"the Dingo card game is for exactly 4 players, got {len(names)}")
    if any(not n for n in names) or len(set(names)) != len(names):
        illegal(setup, "setup", "player names must be non-empty and distinct")
    try:
        opts = SETUP_SPEC.resolve_options(setup.options)
    except OptionError as err:
        raise IllegalAction(setup, "setup-option", str(err)) from None
    return State(names=names, options=tuple(sorted(opts.items())))


# ---------------------------------------------------------------------- helpers shared with legal.py
def exchange_target(s: State, seat: int) -> int:
    """Who ``seat`` gives a card to in the current exchange."""
    return (seat + _STEP[EXCHANGES[s.round]]) % PLAYERS


def exchange_order(s: State) -> tuple[int, ...] | None:
    """The givers' fixed order in the current exchange (a chain from the dealer), or None if any order."""
    assert s.dealer is not None
    direction = EXCHANGES[s.round]
    if direction == "opposite" or (direction == "right" and s.option("right_exchange") == "together"):
        return None
    step = _STEP[direction]
    return tuple((s.dealer + step * k) % PLAYERS for k in range(PLAYERS))


def exchange_givers(s: State) -> tuple[int, ...]:
    """The seats that may give their card now."""
    order = exchange_order(s)
    if order is None:
        return tuple(i for i in range(PLAYERS) if i not in s.done)
    return (order[len(s.done)],)


def four_aces_open(s: State) -> bool:
    """Whether a player may show four aces now: at the start of a discard round (after the deal or an
    exchange, the only moments a hand gains cards), round 1 only with ``four_aces: dealt``."""
    if s.phase != "discard" or s.done or s.four_aces is not None:
        return False
    return s.round == 1 or s.option("four_aces") == "any-time"


# ---------------------------------------------------------------------- transitions
def _check_seat(s: State, a: Action) -> int:
    seat = a.seat  # type: ignore[attr-defined]
    if not 0 <= seat < PLAYERS:
        illegal(a, "bad-seat", f"seat must be 0 to {PLAYERS - 1}, got {seat}")
    return seat


def _first_dealer(s: State, a: FirstDealer) -> State:
    return s.evolve(dealer=a.seat, first_dealer=a.seat, phase="deal")


def _deal(s: State, a: Deal) -> State:
    if a.seat != s.dealer:
        assert s.dealer is not None
        illegal(a, "dealer-deals", f"{s.names[s.dealer]} deals this time, not {s.names[a.seat]}")
    empty: tuple[tuple[str, ...], ...] = ((),) * PLAYERS
    return s.evolve(phase="discard", round=1, done=(), deal_no=s.deal_no + 1, hands=(10,) * PLAYERS,
                    stack=STACK, discards=(), points=empty, penalties=empty, table=(), rank=None,
                    heart_seat=None, lap=(), four_aces=None)


def _four_aces(s: State, a: FourAces) -> State:
    if not four_aces_open(s):
        when = "after the deal" if s.option("four_aces") == "dealt" else "after the deal or an exchange"
        illegal(a, "four-aces-at-once", f"four aces are shown at once, {when}, before anyone discards")
    if s.hands[a.seat] < 4:
        illegal(a, "four-aces-at-once", f"{s.names[a.seat]} holds only {s.hands[a.seat]} cards")
    points = hunts.add_to(s.points, a.seat, ACES)
    hands = hunts.minus(s.hands, a.seat, 4)
    return s.evolve(points=points, hands=hands, four_aces=a.seat)


def _discard(s: State, a: Discard) -> State:
    if a.seat in s.done:
        illegal(a, "one-discard-each", f"{s.names[a.seat]} has already discarded in discard {s.round}")
    if rank(a.card) == "A":
        illegal(a, "never-discard-an-ace", f"an ace may never be discarded ({card_name(a.card)})")
    hunts.check_in_a_hand(s, a, a.card)
    if s.hands[a.seat] < 1:
        illegal(a, "empty-hand", f"{s.names[a.seat]} has no card left")
    done = s.done + (a.seat,)
    s2 = s.evolve(discards=s.discards + (a.card,), hands=hunts.minus(s.hands, a.seat, 1), done=done)
    if len(done) < PLAYERS:
        return s2
    if s.round == 4:
        return hunts.start_hunt(s2.evolve(round=0, done=()), "2")
    return s2.evolve(phase="exchange", done=())


def _exchange(s: State, a: Exchange) -> State:
    givers = exchange_givers(s)
    if a.seat not in givers:
        if a.seat in s.done:
            illegal(a, "one-card-each", f"{s.names[a.seat]} has already given a card in this exchange")
        illegal(a, "exchange-order", f"{s.names[givers[0]]} gives next (the dealer starts, "
                f"each player gives after receiving)")
    if s.hands[a.seat] < 1:
        illegal(a, "empty-hand", f"{s.names[a.seat]} has no card left")
    to = exchange_target(s, a.seat)
    hands = list(s.hands)
    hands[a.seat] -= 1
    hands[to] += 1
    done = s.done + (a.seat,)
    if len(done) < PLAYERS:
        return s.evolve(hands=tuple(hands), done=done)
    return s.evolve(hands=tuple(hands), done=(), phase="discard", round=s.round + 1)


_PHASE_OF = {FirstDealer: ("first_dealer",), Deal: ("deal",), Discard: ("discard",), Exchange: ("exchange",),
             FourAces: ("discard", "exchange", "hunt", "aces", "diamond_ace"), NoHeart: ("hunt",),
             Play: ("hunt", "aces", "diamond_ace"),
             Pass: ("hunt", "aces"), ShowDiamondAce: ("diamond_ace",)}
_HANDLERS = {FirstDealer: _first_dealer, Deal: _deal, Discard: _discard, Exchange: _exchange,
             FourAces: _four_aces, NoHeart: hunts.no_heart, Play: hunts.play, Pass: hunts.pass_turn,
             ShowDiamondAce: hunts.show_diamond_ace}


def apply(s: State, a: Action) -> State:
    """The state after ``a``; raise :class:`IllegalAction` (state unchanged) if ``a`` breaks a rule."""
    if isinstance(a, NewGame):
        illegal(a, "wrong-phase", "the game has already started (new_game is the first action only)")
    handler = _HANDLERS.get(type(a))
    if handler is None:
        illegal(a, "unknown-action", f"not an action of the Dingo card game: {a!r}")
    if s.phase == "over":
        illegal(a, "game-over", "the game is over")
    if s.phase not in _PHASE_OF[type(a)]:
        from companion.games.dingo_cards.describe import describe_next

        illegal(a, "wrong-phase", f"not possible now; next: {describe_next(s)}")
    _check_seat(s, a)
    for card in getattr(a, "cards", ()) + ((a.card,) if isinstance(a, Discard) else ()):
        if card not in ALL_CARDS:
            illegal(a, "bad-card", f"not a card: {card!r} (cards are like 'H7', 'C10', 'SQ', 'DA')")
    return handler(s, a)  # type: ignore[operator]
