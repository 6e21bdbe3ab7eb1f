"""The Pinuid Dobbal rules: ``initial_state``, the move generator and the pure ``apply``.

A turn: ``roll`` (chance), in option ``play_pin_die = "chosen"`` an ``assign``, then step 1 (a running
pin, either running die), step 2 (the play-pin, its die), step 3 (a running pin, the other die). A step
with no legal move is skipped by the core itself and recorded in ``skips`` with its rule id; the player
must make any move that is possible (the legal list is exactly those). A double on the running dice
opens, at step 1, the alternative ``remove`` / ``put_back`` which ends the turn. The win is checked
once the whole turn is over. Internal moves are ``(from, to)`` square numbers; see ``board.py``.
"""

from __future__ import annotations

from typing import Any, NoReturn

from companion.games.base import IllegalAction
from companion.games.pinuid_dobbal.actions import GAME, Action, Assign, Move, NewGame, PutBack, Remove, Roll
from companion.games.pinuid_dobbal.board import Board, line_between, squares_of
from companion.games.pinuid_dobbal.state import PINS, Options, State, options_from

REMOVAL_LIMIT = 3


def illegal(action: Any, rule: str, reason: str) -> NoReturn:
    raise IllegalAction(action, rule, reason)


# ----------------------------------------------------------------------------------- setup


def start_squares(o: Options, seat: int) -> tuple[list[int], int]:
    """The squares of ``seat``'s 5 running pins at the start and of its opening."""
    w, h = o.width, o.height
    offset = (w - 6) // 2
    row = 0 if seat == 0 else h - 1
    cols = [offset + k for k in range(6)]
    if seat == 1:  # counted from seat 1's own left: the board seen from the other side
        cols = [w - 1 - c for c in cols]
    opening = cols[o.opening - 1]
    return [row * w + c for c in cols if c != opening], row * w + opening


def initial_state(setup: NewGame) -> State:
    """The position of the rulebook: 5 running pins on each back line, the play-pin in the starting
    player's opening (the starting player is the first name, seat 0), waiting for the first roll."""
    if not isinstance(setup, NewGame):
        raise IllegalAction(setup, "setup", "a game starts with a new_game action")
    if setup.game != GAME:
        illegal(setup, "setup", f"unknown game {setup.game!r} (this core plays {GAME!r})")
    names = tuple(n.strip() for n in setup.players)
    if len(names) != 2:
        illegal(setup, "two-players", f"Pinuid Dobbal is for 2 players, got {len(names)}")
    if any(not n for n in names) or names[0] == names[1]:
        illegal(setup, "setup", "the two player names must be distinct and not empty")
    try:
        options = options_from(dict(setup.options), "new_game", ValueError)
    except ValueError as err:
        illegal(setup, "setup", str(err))
    pins = []
    for seat in (0, 1):
        squares, _ = start_squares(options, seat)
        pins.append(sum(1 << q for q in squares))
    _, opening = start_squares(options, 0)
    return State(options=options, names=(names[0], names[1]), pins=(pins[0], pins[1]), play=opening)


# ----------------------------------------------------------------------------------- generator


def _running(b: Board, own: int, occ: int, d: int, out: list[tuple[int, int]]) -> None:
    rays = b.rays
    m = own
    while m:
        low = m & -m
        sq = low.bit_length() - 1
        m ^= low
        for mask, t in rays[sq][d]:
            if not occ & mask:
                out.append((sq, t))


def _play_moves(s: State, b: Board, occ: int) -> list[tuple[int, int]]:
    d = s.dice[2]
    ban = 0 if s.options.play_pin_own_back_line else b.back_line[s.current]
    return [(s.play, t) for mask, t in b.rays[s.play][d] if not occ & mask and not ban >> t & 1]


def step_moves(s: State, b: Board | None = None) -> list[tuple[int, int]]:
    """Every legal ``(from, to)`` of the current step (running pin or play-pin); [] outside a step.

    With the double's alternative open and ``double_normal_turn`` off, moves are not allowed: [].
    """
    if s.phase != "move":
        return []
    if b is None:
        b = s.options.board()
    pins = s.pins
    occ = pins[0] | pins[1] | (1 << s.play)
    if s.step == 2:
        if not b.neighbours[s.play] & pins[s.current]:
            return []
        return _play_moves(s, b, occ)
    if s.double and not s.options.double_normal_turn:
        return []
    out: list[tuple[int, int]] = []
    left = s.left
    _running(b, pins[s.current], occ, left[0], out)
    if len(left) == 2 and left[1] != left[0]:
        _running(b, pins[s.current], occ, left[1], out)
    return out


def removal_allowed(s: State) -> bool:
    """May the player to move remove one more of the opponent's pins (the 3-pin limit)?"""
    me = s.current
    lim = s.options.removal_limit
    if lim == "3-each":
        ok = s.removed[me] < REMOVAL_LIMIT
    elif lim == "3-total":
        ok = s.removed[0] + s.removed[1] < REMOVAL_LIMIT
    else:
        ok = s.off_board(1 - me) < REMOVAL_LIMIT
    return ok and s.pins[1 - me] != 0


def alternatives(s: State, b: Board | None = None) -> tuple[list[int], list[int]]:
    """The double's alternative now: (opponent pins that may be removed, squares a pin may be put back on)."""
    if b is None:
        b = s.options.board()
    me = s.current
    removes = squares_of(s.pins[1 - me]) if removal_allowed(s) else []
    backs: list[int] = []
    if s.off_board(me) > 0:
        occ = s.pins[0] | s.pins[1] | (1 << s.play)
        backs = squares_of(b.back_line[me] & ~occ)
    return removes, backs


# ----------------------------------------------------------------------------------- transitions


def _next_turn(s: State) -> State:
    return s._replace(current=1 - s.current, phase="roll", step=0, left=(), double=False)


def wins(s: State, seat: int, b: Board | None = None) -> bool:
    """The win condition: the play-pin and one of ``seat``'s running pins next to each other on the
    opponent's back line."""
    if b is None:
        b = s.options.board()
    line = b.back_line[1 - seat]
    p = s.play
    if not line >> p & 1:
        return False
    col = b.col_of[p]
    side = 0
    if col > 0:
        side |= 1 << (p - 1)
    if col < b.width - 1:
        side |= 1 << (p + 1)
    return bool(side & s.pins[seat])


def _end_turn(s: State, b: Board, full: bool) -> State:
    if (full or not s.options.win_needs_all_moves) and wins(s, s.current, b):
        return s._replace(phase="over", step=0, left=(), double=False, winner=s.current)
    return _next_turn(s)


def settle(s: State, b: Board) -> State:
    """Skip every step that has no legal move (recording why), ending the turn after step 3."""
    while True:
        step = s.step
        if step == 2:
            if step_moves(s, b):
                return s
            rule = ("play-pin-not-next-to-own-pin" if not b.neighbours[s.play] & s.pins[s.current]
                    else "play-pin-no-room")
            s = s._replace(step=3, skips=(*s.skips, (2, rule, s.dice[2])))
            continue
        if step_moves(s, b):
            return s
        if step == 1 and s.double:
            r, p = alternatives(s, b)
            if r or p:
                return s
        skips = (*s.skips, *((step, "no-running-move", d) for d in sorted(set(s.left))))
        if step == 1:
            s = s._replace(step=2, double=False, skips=skips)
            continue
        return _end_turn(s._replace(skips=skips), b, False)


def _start_moves(s: State, b: Board, dice: tuple[int, int, int]) -> State:
    s = s._replace(phase="move", dice=dice, step=1, left=(dice[0], dice[1]), double=False)
    if dice[0] == dice[1]:
        r, p = alternatives(s, b)
        if r or p:
            s = s._replace(double=True)
    return settle(s, b)


def do_roll(s: State, dice: tuple[int, int, int]) -> State:
    """Fast path: the roll ``dice`` (assumed valid in phase roll)."""
    s = s._replace(turn=s.turn + 1, skips=(), dice=dice)
    if s.options.play_pin_die == "chosen" and len(set(dice)) > 1:
        return s._replace(phase="assign", step=0, left=())
    return _start_moves(s, s.options.board(), dice)


def do_assign(s: State, play: int) -> State:
    """Fast path: the play-pin die is a die showing ``play`` (assumed among the dice)."""
    rest = list(s.dice)
    rest.remove(play)
    return _start_moves(s, s.options.board(), (rest[0], rest[1], play))


def do_move(s: State, frm: int, to: int, b: Board | None = None) -> State:
    """Fast path: make the legal move ``(frm, to)`` of the current step (not checked)."""
    if b is None:
        b = s.options.board()
    if s.step == 2:
        return settle(s._replace(play=to, step=3), b)
    me = s.current
    pins = list(s.pins)
    pins[me] = pins[me] ^ (1 << frm) ^ (1 << to)
    if s.step == 1:
        left = list(s.left)
        left.remove(max(abs(b.col_of[to] - b.col_of[frm]), abs(b.row_of[to] - b.row_of[frm])))
        return settle(s._replace(pins=(pins[0], pins[1]), step=2, left=tuple(left), double=False), b)
    s = s._replace(pins=(pins[0], pins[1]), step=0, left=())
    return _end_turn(s, b, not s.skips)


def do_remove(s: State, at: int, b: Board | None = None) -> State:
    """Fast path: the double's removal of the opponent's pin on ``at`` (not checked); ends the turn."""
    me = s.current
    pins = list(s.pins)
    pins[1 - me] &= ~(1 << at)
    removed = list(s.removed)
    removed[me] += 1
    s = s._replace(pins=(pins[0], pins[1]), removed=(removed[0], removed[1]), step=0, left=(), double=False)
    return _end_turn(s, b or s.options.board(), False)


def do_put_back(s: State, at: int, b: Board | None = None) -> State:
    """Fast path: the double's putting back of one of the mover's pins on ``at`` (not checked)."""
    me = s.current
    pins = list(s.pins)
    pins[me] |= 1 << at
    back = list(s.put_back)
    back[me] += 1
    s = s._replace(pins=(pins[0], pins[1]), put_back=(back[0], back[1]), step=0, left=(), double=False)
    return _end_turn(s, b or s.options.board(), False)


# ----------------------------------------------------------------------------------- apply (checked)


def _square(s: State, b: Board, a: Action, name: str) -> int:
    q = b.index.get(name)
    if q is None:
        illegal(a, "off-board", f"{name!r} is not a square of this {b.width} x {b.height} board "
                f"(a1 to {b.names[-1]})")
    return q


def _phase(s: State, a: Action, phase: str) -> None:
    if s.phase == "over":
        illegal(a, "game-over", "the game is over")
    if s.phase != phase:
        from companion.games.pinuid_dobbal.describe import describe_next

        illegal(a, "wrong-phase", f"not possible now; next: {describe_next(s)}")


def _roll(s: State, a: Roll) -> State:
    _phase(s, a, "roll")
    faces = s.options.faces
    for d in a.dice:
        if not 1 <= d <= faces:
            illegal(a, "dice-faces", f"the dice show 1 to {faces}, got {d}")
    return do_roll(s, a.dice)


def _assign(s: State, a: Assign) -> State:
    _phase(s, a, "assign")
    if a.play not in s.dice:
        illegal(a, "play-pin-die", f"no die shows {a.play} (the dice show {'-'.join(map(str, s.dice))})")
    return do_assign(s, a.play)


def why_not(s: State, b: Board, frm: int, to: int) -> tuple[str, str]:
    """The rule a move ``frm -> to`` of the current step breaks, with a sentence."""
    me = s.current
    nm = b.names
    occ = s.pins[0] | s.pins[1] | (1 << s.play)
    if s.step == 2:
        if frm != s.play:
            return "play-pin-step", f"step 2 moves the play-pin (on {nm[s.play]})"
        if not b.neighbours[s.play] & s.pins[me]:
            return ("play-pin-next-to-own-pin",
                    "the play-pin may move only when it stands next to your own running pin")
        dice: tuple[int, ...] = (s.dice[2],)
    else:
        if s.double and not s.options.double_normal_turn:
            return ("double-alternative",
                    "with this double you remove or put back a pin (normal turns are off)")
        if not s.pins[me] >> frm & 1:
            if frm == s.play:
                return "running-pin-step", f"step {s.step} moves one of your running pins, not the play-pin"
            return "not-your-pin", f"there is no running pin of {s.names[me]} on {nm[frm]}"
        dice = s.left
    line = line_between(b, frm, to)
    if line is None:
        return "straight-line", f"{nm[frm]} to {nm[to]} is not a straight line"
    steps, path, diagonal = line
    if diagonal and not s.options.move_diagonals:
        return "straight-line", "pins move along rows and columns only (diagonals are off)"
    if steps not in dice:
        allowed = " or ".join(map(str, sorted(set(dice))))
        return "exact-steps", f"a pin moves exactly the number of its die ({allowed}), not {steps}"
    if occ >> to & 1:
        return "blocked", f"{nm[to]} is taken: a pin stops only on a free square"
    if occ & path:
        return "no-jumping", f"a pin on the way ({nm[squares_of(occ & path)[0]]}): no jumping over pins"
    if s.step == 2 and not s.options.play_pin_own_back_line and b.back_line[me] >> to & 1:
        return "play-pin-back-line", "the play-pin may not stop on your own back line (table setting)"
    return "illegal-move", "not a legal move now"  # pragma: no cover - every cause is named above


def _move(s: State, a: Move) -> State:
    _phase(s, a, "move")
    b = s.options.board()
    frm, to = _square(s, b, a, a.frm), _square(s, b, a, a.to)
    if (frm, to) in step_moves(s, b):
        return do_move(s, frm, to, b)
    rule, reason = why_not(s, b, frm, to)
    illegal(a, rule, reason)


def _double(s: State, a: Remove | PutBack) -> tuple[Board, int]:
    _phase(s, a, "move")
    if not s.double:
        if s.step == 1 and s.dice[0] == s.dice[1]:
            illegal(a, "double-limit", "nothing to remove or put back (the 3-pin limit is reached)")
        illegal(a, "double", "only a double on the two running dice, before any move, allows this")
    b = s.options.board()
    return b, _square(s, b, a, a.at)


def _remove(s: State, a: Remove) -> State:
    b, at = _double(s, a)
    if not removal_allowed(s):
        illegal(a, "three-pin-limit", f"no more pins may be removed ({s.options.removal_limit})")
    if not s.pins[1 - s.current] >> at & 1:
        illegal(a, "remove-opponent-pin", f"there is no running pin of {s.names[1 - s.current]} on {a.at}")
    return do_remove(s, at, b)


def _put_back(s: State, a: PutBack) -> State:
    b, at = _double(s, a)
    me = s.current
    if s.off_board(me) <= 0:
        illegal(a, "put-back-removed-pin", f"{s.names[me]} has no removed pin to put back")
    if not b.back_line[me] >> at & 1:
        illegal(a, "put-back-own-back-line", f"{a.at} is not on {s.names[me]}'s own back line")
    if (s.pins[0] | s.pins[1] | (1 << s.play)) >> at & 1:
        illegal(a, "put-back-free-square", f"{a.at} is taken")
    return do_put_back(s, at, b)


def _new_game(s: State, a: NewGame) -> State:
    illegal(a, "game-started", "the game has already started (new_game comes first)")


_HANDLERS: dict[type, Any] = {Roll: _roll, Assign: _assign, Move: _move, Remove: _remove, PutBack: _put_back,
                              NewGame: _new_game}


def apply(state: State, action: Action) -> State:
    """Return the state after ``action``; raise IllegalAction (state unchanged) if it breaks a rule."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalAction(action, "unknown-action", f"not a Pinuid Dobbal action: {action!r}")
    return handler(state, action)


__all__ = ["PINS", "alternatives", "apply", "do_assign", "do_move", "do_put_back", "do_remove", "do_roll",
           "initial_state", "removal_allowed", "settle", "start_squares", "step_moves", "why_not", "wins"]
