"""What may be entered now (``legal_actions``) and who acts (``to_move``), given what the companion has
seen. Hidden hands are unknown, so any unseen card may be in any hand that still holds cards."""

from __future__ import annotations

from itertools import combinations

from companion.games.base import LegalAction, ToMove
from companion.games.dingo_cards.actions import (
    Action,
    Deal,
    Discard,
    Exchange,
    FirstDealer,
    FourAces,
    NoHeart,
    Pass,
    Play,
    ShowDiamondAce,
)
from companion.games.dingo_cards.cards import BLACK_ACES, DIAMOND_ACE, card_name, heart, rank
from companion.games.dingo_cards.hunts import acting, heart_discarded, open_cards
from companion.games.dingo_cards.options import PLAYERS
from companion.games.dingo_cards.rules import exchange_givers, exchange_target, four_aces_open
from companion.games.dingo_cards.state import State


def _holding(s: State, n: int = 1) -> tuple[int, ...]:
    return tuple(i for i in range(PLAYERS) if s.hands[i] >= n)


def _la(action: Action, label: str) -> LegalAction:
    return LegalAction(action=action, label=label)


def _cards_label(cards: tuple[str, ...]) -> str:
    return " + ".join(card_name(c) for c in cards)


def legal_actions(s: State) -> list[LegalAction]:
    """Every action the host may enter now (exhaustive; ``apply`` accepts exactly these)."""
    n = s.names
    if s.phase == "over":
        return []
    if s.phase == "first_dealer":
        return [_la(FirstDealer(seat=i), f"{n[i]} deals first") for i in range(PLAYERS)]
    assert s.dealer is not None
    if s.phase == "deal":
        return [_la(Deal(seat=s.dealer), f"{n[s.dealer]}: cards dealt")]
    out: list[LegalAction] = []
    if four_aces_open(s):
        out += [_la(FourAces(seat=i), f"{n[i]}: four aces!") for i in _holding(s, 4)]
    if s.phase == "discard":
        hidden = [c for c in s.cards_in_hands() if rank(c) != "A"]
        for i in _holding(s):
            if i not in s.done:
                out += [_la(Discard(seat=i, card=c), f"{n[i]}: discard {card_name(c)}") for c in hidden]
        return out
    if s.phase == "exchange":
        return out + [_la(Exchange(seat=i), f"{n[i]} gave a card to {n[exchange_target(s, i)]}")
                      for i in exchange_givers(s) if s.hands[i] >= 1]
    assert s.rank is not None
    if s.phase == "diamond_ace":
        out = []
        table = {c for _, c in s.table}
        if all(b in table for b in BLACK_ACES):
            may = s.option("heart_ace_player_diamond") == "may"
            out += [_la(Play(seat=i, cards=(DIAMOND_ACE,)), f"{n[i]}: diamond ace")
                    for i in _holding(s) if i != s.heart_seat or may]
        return out + [_la(ShowDiamondAce(seat=i), f"{n[i]} shows the diamond ace (not played)")
                      for i in _holding(s)]
    if s.heart_seat is None:
        if heart_discarded(s):
            return [_la(NoHeart(seat=s.dealer), f"{card_name(s.stack[0])} to the discards")]
        h = heart(s.rank)
        return [_la(Play(seat=i, cards=(h,)), f"{n[i]}: {card_name(h)}") for i in _holding(s)]
    for seat in acting(s):
        plays = _plays_in_turn(s, seat)
        out += [_la(Play(seat=seat, cards=p), f"{n[seat]}: {_cards_label(p)}") for p in plays]
        out.append(_la(Pass(seat=seat), f"{n[seat]}: pass"))
    return out


def _plays_in_turn(s: State, seat: int) -> list[tuple[str, ...]]:
    """The card groups ``seat`` may play after the heart (wolves of the rank, or the other aces)."""
    open_ = open_cards(s)
    room = s.hands[seat]
    if s.phase == "hunt":
        plays = [(c,) for c in open_]
        if len(open_) == 2 and room >= 2 and s.option("double_wolf") == "scores-as-two":
            plays += [open_, (open_[1], open_[0])]
        return plays
    plays = []
    out = {c for _, c in s.table}
    diamond_hidden = DIAMOND_ACE not in s.seen()
    for k in range(1, len(open_) + 1):
        for group in combinations(open_, k):
            if len(group) <= room:
                plays.append(group)
            if diamond_hidden and len(group) + 1 <= room and all(b in out or b in group for b in BLACK_ACES):
                plays.append(group + (DIAMOND_ACE,))
    return plays


def to_move(s: State) -> ToMove:
    """Who acts now: one seat, several (discards, who holds the heart), or nobody once over."""
    if s.phase == "over":
        return ToMove(())
    if s.phase == "first_dealer":
        return ToMove(tuple(range(PLAYERS)))
    assert s.dealer is not None
    if s.phase == "deal":
        return ToMove((s.dealer,))
    if s.phase == "discard":
        return ToMove(tuple(i for i in _holding(s) if i not in s.done))
    if s.phase == "exchange":
        return ToMove(exchange_givers(s))
    if s.phase == "diamond_ace":
        return ToMove(_holding(s))
    if s.heart_seat is None:
        return ToMove((s.dealer,) if heart_discarded(s) else _holding(s))
    return ToMove(acting(s))
