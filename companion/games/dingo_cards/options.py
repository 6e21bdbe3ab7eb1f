"""The setup of the Dingo card game: four players and one setting per open reading.

Every reading is explained in ``docs/rules-dingo-cards.md``; the defaults are the readings we chose.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import SetupOption, SetupSpec

PLAYERS = 4

OPTIONS: tuple[SetupOption, ...] = (
    SetupOption("deals", 4, (1, 2, 3, 4, 5, 6, 7, 8, 12, 16),
                "How many deals make a game (4: everyone deals once)."),
    SetupOption("lone_wolf_card", "wolf-player", ("wolf-player", "heart-player", "discards"),
                "One wolf played: where its own card goes (the wolf's player also takes the rabbit)."),
    SetupOption("heart_without_wolf", "points", ("points", "discards", "penalty"),
                "No wolf played: where the heart goes (its player takes the rabbit as a penalty)."),
    SetupOption("double_wolf", "scores-as-two", ("scores-as-two", "not-allowed"),
                "One player plays both wolves of a rank: scored like two wolves, or not allowed."),
    SetupOption("wolf_order", "clockwise", ("clockwise", "any-order"),
                "After the heart: the others play or pass clockwise from its player, or in any order."),
    SetupOption("heart_ace_player_diamond", "may-not", ("may-not", "may"),
                "May the player of the heart ace also play the diamond ace (never the black aces)."),
    SetupOption("four_aces", "any-time", ("any-time", "dealt"),
                "Four aces in one hand are shown after the deal or any exchange, or only as dealt."),
    SetupOption("right_exchange", "chain", ("chain", "together"),
                "The third exchange (to the right): one after another from the dealer, or all at once."),
    SetupOption("discards_shown", "top", ("top", "all"),
                "The tablet shows only the top discard (as the rulebook's pile does) or all of them."),
)
OPTION_BY_NAME = {o.name: o for o in OPTIONS}
DEFAULTS: dict[str, Any] = {o.name: o.default for o in OPTIONS}

SETUP_SPEC = SetupSpec(min_players=PLAYERS, max_players=PLAYERS, options=OPTIONS)
