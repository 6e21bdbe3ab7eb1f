"""Invariants of a Dingo card game state (the generic suite and the property tests check them)."""

from __future__ import annotations

from collections import Counter

from companion.games.dingo_cards.cards import ALL_CARDS, HAND_CARDS, STACK, rabbit, rank
from companion.games.dingo_cards.options import PLAYERS
from companion.games.dingo_cards.state import State


def invariants(s: State) -> list[str]:
    """What is wrong with ``s``: cards not conserved, hands inconsistent, scores inconsistent; [] if fine."""
    problems: list[str] = []
    placed = list(s.stack) + list(s.discards) + [c for _, c in s.table]
    for i in range(PLAYERS):
        placed += list(s.points[i]) + list(s.penalties[i])
    counts = Counter(placed)
    twice = sorted(c for c, k in counts.items() if k > 1)
    if twice:
        problems.append(f"cards in two places at once: {', '.join(twice)}")
    unknown = sorted(c for c in counts if c not in ALL_CARDS)
    if unknown:
        problems.append(f"not cards of the deck: {', '.join(unknown)}")
    if any(h < 0 for h in s.hands):
        problems.append(f"a negative hand size: {s.hands}")
    hidden = [c for c in ALL_CARDS if c not in counts]
    if s.deal_no == 0:
        if placed or any(s.hands):
            problems.append("cards placed before the first deal")
    else:
        if sum(s.hands) != len(hidden):
            problems.append(f"hands hold {sum(s.hands)} cards but {len(hidden)} cards are unaccounted for")
        strays = [c for c in hidden if c not in HAND_CARDS]
        if strays:
            problems.append(f"rabbits hidden in a hand: {', '.join(strays)}")
        if s.stack != STACK[len(STACK) - len(s.stack):]:
            problems.append(f"the stack is out of order: {s.stack}")
    aces_discarded = [c for c in s.discards if rank(c) == "A"]
    if aces_discarded:
        problems.append(f"aces on the discard pile: {', '.join(aces_discarded)}")
    if s.phase == "hunt" and (not s.stack or s.stack[0] != rabbit(s.rank or "")):
        problems.append(f"hunting {s.rank} but the stack's top is {s.stack[:1]}")
    if s.phase in ("aces", "diamond_ace") and s.stack:
        problems.append("the ace hunt started with rabbits still on the stack")
    if s.table and (s.heart_seat is None or s.table[0] != (s.heart_seat, "H" + (s.rank or ""))):
        problems.append("cards on the table before the heart")
    if len(s.deal_scores) > s.option("deals"):
        problems.append(f"{len(s.deal_scores)} deals scored, the game has {s.option('deals')}")
    if s.phase in ("deal", "over") and s.deal_scores and s.deal_scores[-1] != s.current_scores:
        problems.append("the last deal's score differs from its piles")
    if (s.phase == "over") != (len(s.deal_scores) == s.option("deals")):
        problems.append("the game is over exactly when every deal is scored")
    return problems
