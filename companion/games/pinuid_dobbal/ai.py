"""Computer players and hints for Pinuid Dobbal: random, greedy and Monte-Carlo tree search.

Pure: the random source ``rng`` (a ``random.Random``) and the search's iteration budget are inputs;
no clock here. A wall-clock budget ("think one second") is kept outside the core by running
:class:`Search` in slices (see ``companion.bench.pinuid.think``).

- ``random``: a uniformly random legal action.
- ``greedy``: looks at every way to finish the current turn and takes the one whose end position
  :func:`evaluate` rates best (one turn of look-ahead, no dice of the opponent).
- ``mcts``: takes a win within the turn if one exists (an exhaustive look at the turn), else UCT over
  the actions with chance nodes for the dice; each new node is rated by :func:`evaluate` at the end of
  its turn (optionally after ``rollout_turns`` random whole turns of :func:`playout`).
"""

from __future__ import annotations

import math
from itertools import product
from typing import Any

from companion.games.pinuid_dobbal.actions import Action, Assign, Move, PutBack, Remove, Roll
from companion.games.pinuid_dobbal.board import Board, squares_of
from companion.games.pinuid_dobbal.playout import playout
from companion.games.pinuid_dobbal.rules import (
    alternatives,
    do_assign,
    do_move,
    do_put_back,
    do_remove,
    do_roll,
    step_moves,
    wins,
)
from companion.games.pinuid_dobbal.state import State

STRENGTHS = ("random", "greedy", "mcts")
DEFAULT_ITERATIONS = 400
"""The search's budget per decision when none is given (see BENCHMARKS.md for its speed)."""

Raw = tuple  # ("move", f, t) | ("remove", q) | ("back", q) | ("assign", v) | ("roll", dice)


# ----------------------------------------------------------------------------------- raw actions


def raw_actions(s: State, b: Board | None = None) -> list[Raw]:
    """The legal actions as small tuples, in the order of :func:`legal_actions`."""
    if s.phase == "roll":
        return [("roll", d) for d in product(range(1, s.options.faces + 1), repeat=3)]
    if s.phase == "assign":
        return [("assign", v) for v in sorted(set(s.dice))]
    if s.phase != "move":
        return []
    if b is None:
        b = s.options.board()
    out: list[Raw] = [("move", f, t) for f, t in step_moves(s, b)]
    if s.double:
        removes, backs = alternatives(s, b)
        out += [("remove", q) for q in removes]
        out += [("back", q) for q in backs]
    return out


def apply_raw(s: State, a: Raw, b: Board | None = None) -> State:
    """Apply a legal raw action (not checked: it comes from :func:`raw_actions`)."""
    kind = a[0]
    if kind == "move":
        return do_move(s, a[1], a[2], b)
    if kind == "roll":
        return do_roll(s, a[1])
    if kind == "assign":
        return do_assign(s, a[1])
    if kind == "remove":
        return do_remove(s, a[1], b)
    return do_put_back(s, a[1], b)


def to_action(s: State, a: Raw) -> Action:
    """The typed action of raw action ``a`` in state ``s``."""
    names = s.options.board().names
    kind = a[0]
    if kind == "move":
        return Move(names[a[1]], names[a[2]])
    if kind == "roll":
        return Roll(a[1])
    if kind == "assign":
        return Assign(a[1])
    if kind == "remove":
        return Remove(names[a[1]])
    return PutBack(names[a[1]])


# ----------------------------------------------------------------------------------- evaluation

WIN = 1000.0


def evaluate(s: State, seat: int) -> float:
    """How good position ``s`` is for ``seat`` (between turns; positive = better), in rough points.

    The play-pin's progress towards ``seat``'s goal line counts most, then who stands next to it (the
    side that moves next may take it away), then the pins left and their progress.
    """
    if s.phase == "over":
        return WIN if s.winner == seat else -WIN
    return evaluate_raw(s, s.options.board(), s.pins, s.play, seat, s.current)


def evaluate_raw(s: State, b: Board, pins: tuple[int, int], play: int, seat: int, to_move: int) -> float:
    h = b.height - 1
    row = b.row_of[play]
    prog = row if seat == 0 else h - row  # the play-pin's rows towards seat's goal line
    score = 3.0 * (2 * prog - h)
    near = b.neighbours[play]
    mine, theirs = pins[seat], pins[1 - seat]
    adj_me, adj_them = bool(near & mine), bool(near & theirs)
    w_me = 2.5 if to_move == seat else 1.5
    w_them = 2.5 if to_move != seat else 1.5
    score += w_me * adj_me - w_them * adj_them
    n_me, n_them = mine.bit_count(), theirs.bit_count()
    score += 4.0 * (n_me - n_them)
    adv = 0
    for q in squares_of(mine):
        r = b.row_of[q]
        adv += r if seat == 0 else h - r
    for q in squares_of(theirs):
        r = b.row_of[q]
        adv -= (h - r) if seat == 0 else r
    score += 0.4 * adv
    # one step from winning: the play-pin on the goal line with a pin of the side beside it
    if prog == h and adj_me:
        score += 8.0
    if prog == 0 and adj_them:
        score -= 8.0
    return score


# ----------------------------------------------------------------------------------- players


def random_action(s: State, rng: Any) -> Raw:
    return rng.choice(raw_actions(s))


def _turn_leaves(s: State, b: Board, seat: int, turn: int, best: list[float]) -> None:
    """Depth-first over the rest of the turn; ``best[0]`` the best evaluation of an end position."""
    for a in raw_actions(s, b):
        t = apply_raw(s, a, b)
        if t.phase == "over" or t.turn != turn or t.phase == "roll":
            v = WIN if t.winner == seat else (-WIN if t.winner is not None else evaluate(t, seat))
            if v > best[0]:
                best[0] = v
            if v >= WIN:
                return
        else:
            _turn_leaves(t, b, seat, turn, best)
            if best[0] >= WIN:
                return


def greedy_action(s: State, rng: Any) -> Raw:
    """The action starting the best way to finish this turn (ties broken by ``rng``)."""
    acts = raw_actions(s)
    if len(acts) == 1:
        return acts[0]
    b = s.options.board()
    seat, turn = s.current, s.turn
    scored = []
    for a in acts:
        t = apply_raw(s, a, b)
        if t.phase == "over" or t.phase == "roll":
            v = WIN if t.winner == seat else evaluate(t, seat)
        else:
            best = [-math.inf]
            _turn_leaves(t, b, seat, turn, best)
            v = best[0]
        scored.append((v, a))
    top = max(v for v, _ in scored)
    return rng.choice([a for v, a in scored if v >= top - 1e-9])


class _Node:
    __slots__ = ("state", "mover", "children", "untried", "n", "w0")

    def __init__(self, state: State) -> None:
        self.state = state
        self.mover = -1 if state.phase in ("roll", "over") else state.current
        self.children: dict[Raw, _Node] = {}
        self.untried: list[Raw] | None = None
        self.n = 0
        self.w0 = 0.0  # total reward for seat 0


class Search:
    """Monte-Carlo tree search from ``state`` (a player's decision); run it in slices with :meth:`run`.

    ``rollout_turns`` random whole turns (default none) rate a new node before :func:`evaluate`
    (squashed to 0..1);
    ``c`` is the UCT exploration constant.
    """

    def __init__(self, state: State, rng: Any, rollout_turns: int = 0, c: float = 0.7, scale: float = 6.0):
        self.root = _Node(state)
        self.rng = rng
        self.rollout_turns = rollout_turns
        self.c = c
        self.scale = scale
        self.board = state.options.board()
        self.iterations = 0

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (select, expand, rate, back up)."""
        for _ in range(iterations):
            self._iterate()
        self.iterations += iterations

    def _iterate(self) -> None:
        rng, b = self.rng, self.board
        node = self.root
        path = [node]
        while True:
            s = node.state
            if s.phase == "over":
                break
            if s.phase == "roll":
                dice = rng.choice(_ROLLS[s.options.faces])
                child = node.children.get(dice)
                if child is None:
                    child = node.children[dice] = _Node(do_roll(s, dice))
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            if node.untried is None:
                node.untried = raw_actions(s, b)
            if node.untried:
                a = node.untried.pop(rng.randrange(len(node.untried)))
                child = node.children[a] = _Node(apply_raw(s, a, b))
                path.append(child)
                break
            node = self._select(node)
            path.append(node)
        reward = self._rate(path[-1].state)
        for nd in path:
            nd.n += 1
            nd.w0 += reward

    def _select(self, node: _Node) -> _Node:
        log_n = math.log(node.n)
        c = self.c
        best, best_v = None, -math.inf
        mine = node.mover == 0
        for child in node.children.values():
            q = child.w0 / child.n
            v = (q if mine else 1.0 - q) + c * math.sqrt(log_n / child.n)
            if v > best_v:
                best, best_v = child, v
        assert best is not None
        return best

    def _rate(self, s: State) -> float:
        """A reward in 0..1 for seat 0."""
        rng, b = self.rng, self.board
        while s.phase not in ("roll", "over"):  # finish the turn at random
            s = apply_raw(s, rng.choice(raw_actions(s, b)), b)
        if s.phase == "over":
            return 1.0 if s.winner == 0 else 0.0
        w, _, pins, play = playout(s.options, rng, s.pins, s.play, s.current, s.removed, s.put_back,
                                   self.rollout_turns)
        if w is not None:
            return 1.0 if w == 0 else 0.0
        turns = self.rollout_turns
        to_move = s.current if turns % 2 == 0 else 1 - s.current
        v = evaluate_raw(s, b, pins, play, 0, to_move)
        return 1.0 / (1.0 + math.exp(-v / self.scale))

    def best(self) -> Raw:
        """The most visited action at the root (an untried one if nothing was searched)."""
        root = self.root
        if not root.children:
            return (root.untried or raw_actions(root.state, self.board))[0]
        return max(root.children.items(), key=lambda kv: kv[1].n)[0]

    def ranking(self) -> list[tuple[Raw, int, float]]:
        """Root actions with visits and win rate for the player to move, most visited first."""
        mine = self.root.mover == 0
        out = []
        for a, ch in self.root.children.items():
            q = ch.w0 / ch.n if ch.n else 0.5
            out.append((a, ch.n, q if mine else 1.0 - q))
        return sorted(out, key=lambda x: -x[1])


_ROLLS: dict[int, list[tuple[int, ...]]] = {f: list(product(range(1, f + 1), repeat=3)) for f in (3, 6)}


def _can_win(s: State, b: Board, seat: int, turn: int) -> bool:
    """Whether some way to finish this turn wins. Pruned: the play-pin moves only in step 2, so once
    it is done the play-pin must already stand on the goal line."""
    goal = b.back_line[1 - seat]
    if s.phase == "move" and s.step == 3 and not goal >> s.play & 1:
        return False
    for a in raw_actions(s, b):
        if s.phase == "move" and s.step == 2 and not goal >> a[2] & 1:
            continue
        t = apply_raw(s, a, b)
        if t.winner == seat:
            return True
        if t.phase not in ("roll", "over") and _can_win(t, b, seat, turn):
            return True
    return False


def winning_action(s: State) -> Raw | None:
    """The first action of a way to win within this turn, if there is one."""
    b = s.options.board()
    seat, turn = s.current, s.turn
    for a in raw_actions(s, b):
        t = apply_raw(s, a, b)
        if t.winner == seat or t.phase not in ("roll", "over") and _can_win(t, b, seat, turn):
            return a
    return None


def mcts_action(s: State, rng: Any, iterations: int = DEFAULT_ITERATIONS) -> Raw:
    """The search's action: a win within the turn if there is one, else the most visited after
    ``iterations`` iterations."""
    acts = raw_actions(s)
    if len(acts) == 1:
        return acts[0]
    win = winning_action(s)
    if win is not None:
        return win
    search = Search(s, rng)
    search.run(iterations)
    return search.best()


def choose(s: State, strength: str, rng: Any, budget: int | None = None) -> Raw:
    """The raw action of a computer player of ``strength`` ("random", "greedy", "mcts") for ``s``."""
    if s.phase in ("roll", "over"):
        raise ValueError(f"no player decides now (phase {s.phase}): the dice or nobody")
    if strength == "random":
        return random_action(s, rng)
    if strength == "greedy":
        return greedy_action(s, rng)
    if strength == "mcts":
        return mcts_action(s, rng, DEFAULT_ITERATIONS if budget is None else budget)
    raise ValueError(f"unknown strength {strength!r} (strengths: {', '.join(STRENGTHS)})")


def ai_action(s: State, strength: str, rng: Any, budget: int | None = None) -> Action:
    """The typed action a computer player of ``strength`` takes in ``s`` (``budget``: MCTS iterations)."""
    return to_action(s, choose(s, strength, rng, budget))


def hint(s: State, rng: Any, budget: int | None = None) -> dict[str, Any]:
    """"Show the best move": the search's choice as JSON with a sentence and the alternatives' win rates."""
    from companion.games.pinuid_dobbal.describe import describe_action

    acts = raw_actions(s)
    if not acts or s.phase == "roll":
        raise ValueError("no player decides now")
    search = Search(s, rng)
    if len(acts) > 1:
        search.run(DEFAULT_ITERATIONS if budget is None else budget)
    best = search.best()
    action = to_action(s, best)
    return {"action": action.to_json(), "text": "Best: " + describe_action(s, action),
            "forced": len(acts) == 1,
            "options": [{"action": to_action(s, a).to_json(), "visits": n, "win_rate": round(q, 3)}
                        for a, n, q in search.ranking()[:5]]}


__all__ = ["DEFAULT_ITERATIONS", "STRENGTHS", "Search", "ai_action", "apply_raw", "choose", "evaluate",
           "greedy_action", "hint", "mcts_action", "random_action", "raw_actions", "to_action", "wins"]
