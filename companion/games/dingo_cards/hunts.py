"""The hunts: ranks 2 to K (heart first, then the wolves clockwise) and the ace hunt, their scoring
and the end of a deal. Called by :func:`companion.games.dingo_cards.rules.apply` after the phase check.
"""

from __future__ import annotations

from typing import Any, NoReturn

from companion.games.base import IllegalAction
from companion.games.dingo_cards.actions import Action, NoHeart, Pass, Play, ShowDiamondAce
from companion.games.dingo_cards.cards import (
    BLACK_ACES,
    DIAMOND_ACE,
    HEART_ACE,
    HUNT_RANKS,
    card_name,
    heart,
    rank,
    wolves,
)
from companion.games.dingo_cards.options import PLAYERS
from companion.games.dingo_cards.state import Piles, State


def illegal(action: Any, rule: str, reason: str) -> NoReturn:
    raise IllegalAction(action, rule, reason)


def add_to(piles: Piles, seat: int, cards: tuple[str, ...]) -> Piles:
    return tuple(p + cards if i == seat else p for i, p in enumerate(piles))


def minus(hands: tuple[int, ...], seat: int, n: int) -> tuple[int, ...]:
    return tuple(h - n if i == seat else h for i, h in enumerate(hands))


def where_is(s: State, card: str) -> str | None:
    """Where a seen card is, in words ("on the discard pile"); None if it is hidden in a hand."""
    place = s.seen().get(card)
    if place is None:
        return None
    if ":" in place:
        pile, seat = place.split(":")
        return f"on {s.names[int(seat)]}'s {'points' if pile == 'points' else 'penalty'} pile"
    return {"stack": "on the rabbit stack", "discards": "on the discard pile", "table": "on the table"}[place]


def check_in_a_hand(s: State, a: Action, card: str) -> None:
    """Refuse ``card`` if the companion has already seen it somewhere (a card is played only once)."""
    place = where_is(s, card)
    if place is not None:
        illegal(a, "card-already-seen", f"the {card_name(card)} is already {place}")


def _check_hand(s: State, a: Action, seat: int, n: int) -> None:
    if s.hands[seat] < n:
        illegal(a, "empty-hand", f"{s.names[seat]} holds only {s.hands[seat]} card(s)")


def start_hunt(s: State, r: str) -> State:
    """The dealer announces rank ``r`` (the stack's top card)."""
    return s.evolve(phase="hunt", rank=r, heart_seat=None, lap=(), table=())


def _next_rank(s: State) -> State:
    i = HUNT_RANKS.index(s.rank or "")
    if i + 1 < len(HUNT_RANKS):
        return start_hunt(s, HUNT_RANKS[i + 1])
    if s.four_aces is not None:  # the aces were shown with the four-aces rule: no ace hunt
        return end_deal(s.evolve(rank=None, heart_seat=None, lap=(), table=()))
    return s.evolve(phase="aces", rank="A", heart_seat=None, lap=(), table=())


def heart_discarded(s: State) -> bool:
    return s.phase == "hunt" and s.rank is not None and heart(s.rank) in s.discards


def open_cards(s: State) -> tuple[str, ...]:
    """The cards that may still join the current hunt after the heart (hidden in a hand)."""
    assert s.rank is not None
    candidates = wolves(s.rank) if s.phase == "hunt" else BLACK_ACES
    seen = s.seen()
    return tuple(c for c in candidates if c not in seen)


# ---------------------------------------------------------------------- actions
def no_heart(s: State, a: NoHeart) -> State:
    assert s.rank is not None and s.dealer is not None
    if s.heart_seat is not None or not heart_discarded(s):
        illegal(a, "heart-must-be-played", f"the {card_name(heart(s.rank))} is in a hand: "
                "whoever holds it must play it")
    if a.seat != s.dealer:
        illegal(a, "no-heart-the-rabbit-is-discarded",
                f"the dealer ({s.names[s.dealer]}) discards the rabbit")
    return _next_rank(s.evolve(discards=s.discards + (s.stack[0],), stack=s.stack[1:]))


def play(s: State, a: Play) -> State:
    if s.phase == "diamond_ace":
        return _play_diamond_ace(s, a)
    if s.heart_seat is None:
        return _play_heart(s, a)
    return _play_in_turn(s, a)


def _play_heart(s: State, a: Play) -> State:
    assert s.rank is not None
    target = heart(s.rank)
    if heart_discarded(s):
        illegal(a, "no-heart", f"the {card_name(target)} was discarded: nobody plays, "
                f"the dealer discards the {card_name(s.stack[0])}")
    if a.cards != (target,):
        illegal(a, "heart-first",
                f"the {card_name(target)} is played first, alone: whoever holds it must play it")
    _check_hand(s, a, a.seat, 1)
    lap = tuple((a.seat + k) % PLAYERS for k in range(1, PLAYERS))
    return _advance(s.evolve(table=((a.seat, target),), heart_seat=a.seat, lap=lap,
                             hands=minus(s.hands, a.seat, 1)))


def acting(s: State) -> tuple[int, ...]:
    """The seats that may play or pass now after the heart: the next one clockwise, or (setting
    ``wolf_order: any-order``) every player who has not had their turn and still holds cards."""
    if s.option("wolf_order") == "any-order":
        return tuple(i for i in s.lap if s.hands[i] > 0)
    return s.lap[:1]


def _turn_check(s: State, a: Action) -> None:
    seat = a.seat  # type: ignore[attr-defined]
    if seat in acting(s):
        return
    if seat == s.heart_seat:
        if s.phase == "hunt":
            illegal(a, "heart-player-plays-no-wolf", f"{s.names[seat]} played the heart and may not play "
                    "a wolf of the same rank")
        illegal(a, "heart-ace-player-plays-no-other-ace", f"{s.names[seat]} played the heart ace and may "
                "not play another ace in the lap")
    if seat not in s.lap:
        illegal(a, "one-turn-each", f"{s.names[seat]} has had their turn in this hunt")
    illegal(a, "clockwise-from-the-heart", f"{s.names[s.lap[0]]} plays or passes first "
            "(clockwise from the heart's player; setting wolf_order)")


def _play_in_turn(s: State, a: Play) -> State:
    assert s.rank is not None
    _turn_check(s, a)
    cards = a.cards
    if len(set(cards)) != len(cards):
        illegal(a, "card-already-seen", "the same card is listed twice")
    if s.phase == "hunt":
        allowed = wolves(s.rank)
        for c in cards:
            if c not in allowed:
                illegal(a, "wolves-of-the-rank", f"only the {card_name(allowed[0])} and the "
                        f"{card_name(allowed[1])} may follow the heart now, not the {card_name(c)}")
        if len(cards) > 1 and s.option("double_wolf") == "not-allowed":
            illegal(a, "double-wolf-not-allowed", "one player may not play both wolves of a rank "
                    "(setting double_wolf)")
    else:
        for c in cards:
            if rank(c) != "A" or c == HEART_ACE:
                illegal(a, "aces-only", f"only the club, spade and diamond aces may follow the heart ace, "
                        f"not the {card_name(c)}")
        blacks = tuple(c for c in cards if c != DIAMOND_ACE)
        if (DIAMOND_ACE in cards and cards[-1] != DIAMOND_ACE) or blacks != tuple(c for c in BLACK_ACES
                                                                                    if c in blacks):
            illegal(a, "ace-entry-order", "enter the club ace, then the spade ace, then the diamond ace "
                    "(the order does not change the score)")
        if DIAMOND_ACE in cards:
            out = {c for _, c in s.table} | set(blacks)
            if not all(b in out for b in BLACK_ACES):
                illegal(a, "diamond-ace-after-black-aces", "the diamond ace may be played only once both "
                        "black aces are out")
    for c in cards:
        check_in_a_hand(s, a, c)
    _check_hand(s, a, a.seat, len(cards))
    table = s.table + tuple((a.seat, c) for c in cards)
    lap = tuple(i for i in s.lap if i != a.seat)
    return _advance(s.evolve(table=table, lap=lap, hands=minus(s.hands, a.seat, len(cards))))


def pass_turn(s: State, a: Pass) -> State:
    assert s.rank is not None
    if s.heart_seat is None:
        if heart_discarded(s):
            illegal(a, "no-heart", f"the {card_name(heart(s.rank))} was discarded: the dealer discards "
                    "the rabbit")
        illegal(a, "heart-must-be-played", f"whoever holds the {card_name(heart(s.rank))} must play it")
    _turn_check(s, a)
    return _advance(s.evolve(lap=tuple(i for i in s.lap if i != a.seat)))


def _advance(s: State) -> State:
    """Skip players with empty hands; end the lap when nobody is left or nothing can still be played."""
    lap = tuple(i for i in s.lap if s.hands[i] > 0)
    if lap and open_cards(s):
        return s.evolve(lap=lap)
    s = s.evolve(lap=())
    if s.phase == "hunt":
        return _resolve_hunt(s)
    if DIAMOND_ACE not in s.seen():
        return s.evolve(phase="diamond_ace")
    return _resolve_aces(s)


def _play_diamond_ace(s: State, a: Play) -> State:
    if a.cards != (DIAMOND_ACE,):
        illegal(a, "only-the-diamond-ace", "only the diamond ace may still be played (or shown)")
    out = {c for _, c in s.table}
    if not all(b in out for b in BLACK_ACES):
        illegal(a, "diamond-ace-after-black-aces", "the diamond ace may be played only once both black "
                "aces are out: its holder shows it (a penalty)")
    if a.seat == s.heart_seat and s.option("heart_ace_player_diamond") == "may-not":
        illegal(a, "heart-ace-player-plays-no-other-ace", f"{s.names[a.seat]} played the heart ace and may "
                "not play the diamond ace (setting heart_ace_player_diamond)")
    _check_hand(s, a, a.seat, 1)
    return _resolve_aces(s.evolve(table=s.table + ((a.seat, DIAMOND_ACE),), hands=minus(s.hands, a.seat, 1)))


def show_diamond_ace(s: State, a: ShowDiamondAce) -> State:
    _check_hand(s, a, a.seat, 1)
    penalties = add_to(s.penalties, a.seat, (DIAMOND_ACE,))
    return _resolve_aces(s.evolve(penalties=penalties, hands=minus(s.hands, a.seat, 1)))


# ---------------------------------------------------------------------- scoring
def _resolve_hunt(s: State) -> State:
    """Score a hunt of rank 2..K: the heart, the wolves played after it and the stack's top rabbit."""
    (h, heart_card), *played = s.table
    top, stack = s.stack[0], s.stack[1:]
    points, penalties, discards = s.points, s.penalties, s.discards
    if not played:  # no wolf: the rabbit is the heart player's penalty
        penalties = add_to(penalties, h, (top,))
        where = s.option("heart_without_wolf")
        if where == "points":
            points = add_to(points, h, (heart_card,))
        elif where == "penalty":
            penalties = add_to(penalties, h, (heart_card,))
        else:
            discards = discards + (heart_card,)
    elif len(played) == 1:  # one wolf: the heart to its player, the rabbit to the wolf's player
        (w_seat, wolf) = played[0]
        points = add_to(points, h, (heart_card,))
        where = s.option("lone_wolf_card")
        if where == "wolf-player":
            points = add_to(points, w_seat, (wolf, top))
        else:
            points = add_to(points, w_seat, (top,))
            if where == "heart-player":
                points = add_to(points, h, (wolf,))
            else:
                discards = discards + (wolf,)
    else:  # two wolves: heart + first wolf to the heart's player, second wolf + rabbit to its player
        (_, first), (second_seat, second) = played
        points = add_to(points, h, (heart_card, first))
        points = add_to(points, second_seat, (second, top))
    return _next_rank(s.evolve(points=points, penalties=penalties, discards=discards, stack=stack, table=()))


def _resolve_aces(s: State) -> State:
    """Score the ace hunt: with the heart ace and a black ace out, every ace played scores for its
    player; the heart ace alone is its player's penalty (the diamond ace's penalty is already shown)."""
    points, penalties = s.points, s.penalties
    if any(c in BLACK_ACES for _, c in s.table):
        for seat, c in s.table:
            points = add_to(points, seat, (c,))
    else:
        for seat, c in s.table:  # only the heart ace
            penalties = add_to(penalties, seat, (c,))
    return end_deal(s.evolve(points=points, penalties=penalties, table=()))


def end_deal(s: State) -> State:
    """Record the deal's score; the game is over after the last deal, else the next player deals."""
    assert s.dealer is not None
    scores = s.deal_scores + (s.current_scores,)
    base = s.evolve(deal_scores=scores, rank=None, heart_seat=None, lap=(), table=(), round=0, done=())
    if len(scores) >= s.option("deals"):
        return base.evolve(phase="over")
    return base.evolve(phase="deal", dealer=(s.dealer + 1) % PLAYERS)
