"""Plain sentences: what an action did and what the table does next (the companion's announcements)."""

from __future__ import annotations

from typing import Any

from companion.games.base import IllegalAction
from companion.games.dingo_cards.actions import (
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
from companion.games.dingo_cards.cards import RANK_NAMES, card_name, heart, point_value
from companion.games.dingo_cards.hunts import acting, heart_discarded, open_cards
from companion.games.dingo_cards.options import PLAYERS
from companion.games.dingo_cards.rules import (
    EXCHANGES,
    apply,
    exchange_givers,
    exchange_order,
    exchange_target,
    four_aces_open,
)
from companion.games.dingo_cards.state import State

_EXCHANGE_WORDS = {"left": "to the left", "opposite": "with the player opposite", "right": "to the right"}


def _names(s: State, seats: tuple[int, ...] | list[int]) -> str:
    names = [s.names[i] for i in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cards(cards: tuple[str, ...] | list[str]) -> str:
    return " and ".join(f"the {card_name(c)}" for c in cards)


def _gains(before: State, after: State) -> str:
    """What each pile gained between two states (the scoring of a hunt), as a sentence."""
    parts = []
    for i in range(PLAYERS):
        got = after.points[i][len(before.points[i]):] if after.deal_no == before.deal_no else ()
        lost = after.penalties[i][len(before.penalties[i]):] if after.deal_no == before.deal_no else ()
        if got:
            parts.append(f"{before.names[i]} scores {_cards(got)}")
        if lost:
            parts.append(f"{before.names[i]} takes {_cards(lost)} as a penalty")
    return "; ".join(parts)


def describe_action(s: State, a: Any) -> str:
    """A sentence for ``a`` applied to ``s`` (with the scoring when it ends a hunt)."""
    n = s.names
    if isinstance(a, FirstDealer):
        text = f"{n[a.seat]} deals first."
    elif isinstance(a, Deal):
        text = f"{n[a.seat]} dealt deal {s.deal_no + 1}: the diamonds 2 to king face up, 10 cards each."
    elif isinstance(a, FourAces):
        text = f"{n[a.seat]} shows all four aces: 19 points."
    elif isinstance(a, Discard):
        text = f"{n[a.seat]} discarded the {card_name(a.card)}."
    elif isinstance(a, Exchange):
        text = f"{n[a.seat]} gave a card face down to {n[exchange_target(s, a.seat)]}."
    elif isinstance(a, Play):
        text = f"{n[a.seat]} played {_cards(a.cards)}."
    elif isinstance(a, Pass):
        text = f"{n[a.seat]} passed."
    elif isinstance(a, NoHeart):
        top = card_name(s.stack[0]) if s.stack else "rabbit"
        text = f"Nobody has the heart: {n[a.seat]} discards the {top}."
    elif isinstance(a, ShowDiamondAce):
        text = f"{n[a.seat]} shows the unplayed diamond ace."
    elif isinstance(a, NewGame):
        deals = dict(a.options).get("deals", s.option("deals"))
        return f"New Dingo card game: {', '.join(a.players)}; {deals} deal{'s' if deals != 1 else ''}."
    else:
        return f"{type(a).__name__}"
    try:
        after = apply(s, a)
    except IllegalAction as err:
        return f"{text} Not allowed: {err.reason}."
    gains = _gains(s, after) if not isinstance(a, FourAces) else ""
    if gains:
        text += f" {gains}."
    if s.deal_open and not after.deal_open:
        text += " " + _deal_result(after)
    return text


def _deal_result(s: State) -> str:
    last = s.deal_scores[-1]
    scores = ", ".join(f"{s.names[i]} {last[i]:+d}" for i in range(PLAYERS))
    return f"Deal {len(s.deal_scores)} scores: {scores}."


def describe_next(s: State) -> str:
    """What happens next, as the companion announces it."""
    n = s.names
    if s.phase == "first_dealer":
        return "Choose the first dealer any way you like (rock-paper-scissors), then press their name."
    if s.phase == "over":
        totals = s.totals
        best = max(totals)
        winners = [i for i in range(PLAYERS) if totals[i] == best]
        deals = len(s.deal_scores)
        return f"Game over after {deals} deal{'s' if deals > 1 else ''}: {_names(s, winners)} " \
               f"{'wins' if len(winners) == 1 else 'share the win'} with {best} points."
    assert s.dealer is not None
    d = n[s.dealer]
    if s.phase == "deal":
        return (f"Deal {s.deal_no + 1} of {s.option('deals')}: {d} deals. Take out the diamonds 2 to king, "
                "face up in order with the 2 on top; shuffle the other 40 cards and deal 10 to each player.")
    if s.phase == "discard":
        left = [i for i in range(PLAYERS) if i not in s.done]
        aces = " Anyone holding all four aces shows them now." if four_aces_open(s) else ""
        return f"Discard {s.round} of 4: {_names(s, left)}, discard one card face up (never an ace).{aces}"
    if s.phase == "exchange":
        direction = EXCHANGES[s.round]
        head = f"Exchange {s.round} of 3, {_EXCHANGE_WORDS[direction]}: "
        if exchange_order(s) is None:
            pairs = [f"{n[i]} to {n[exchange_target(s, i)]}" for i in exchange_givers(s)]
            return head + "each gives one card face down: " + ", ".join(pairs) + "."
        giver = exchange_givers(s)[0]
        after = " (after looking at the card received)" if s.done else ""
        return head + f"{n[giver]}{after} gives one card face down to {n[exchange_target(s, giver)]}."
    assert s.rank is not None
    if s.phase == "diamond_ace":
        if all(b in {c for _, c in s.table} for b in ("CA", "SA")):
            return "Whoever holds the diamond ace: play it now (10 points) or show it (3 points of penalty)."
        return "The diamond ace could not be played: whoever holds it shows it (3 points of penalty)."
    h = heart(s.rank)
    if s.heart_seat is None:
        if s.phase == "aces":
            return f"{d} announces the ace hunt. Whoever holds the heart ace must play it."
        top = card_name(s.stack[0])
        said = RANK_NAMES.get(s.rank, s.rank)
        if heart_discarded(s):
            return f"{d} announces {said} (the {top}). The {card_name(h)} was discarded: nobody plays; " \
                   f"{d} puts the {top} on the discard pile."
        value = point_value(s.stack[0])
        return f"{d} announces {said}: the {top} ({value} point{'s' if value > 1 else ''}) is hunted. " \
               f"Whoever holds the {card_name(h)} must play it."
    who = _names(s, acting(s))
    free = " (in any order)" if len(acting(s)) > 1 else ""
    options = " or ".join(f"the {card_name(c)}" for c in open_cards(s))
    extra = " (the diamond ace once both black aces are out)" if s.phase == "aces" else ""
    return f"{who}: play {options}{extra}, or pass{free}."
