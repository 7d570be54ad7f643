"""Playing in the terminal (`klondike play`): one game, driven by lines of input.

`PlaySession` holds the game and answers each line the player types with text to print: an action
(RULES.md 7 token, or its number in the menu of legal actions), `h` a hint, `u` undo, `q` quit,
`?` help. The command line only reads lines and prints; everything else is here, so tests can
drive a session directly or through stdin.

The board shows what a player sees (face-down cards as `??`), and the hint is honest by default:
it knows only what the player has seen (`hint.Observer`): the face-down tableau cards and the
stock cards not drawn yet are unknown and sampled. With `peek` the board shows every card and the
hint is the one with every card known (the seed's hint).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import hint as hint_module
from .cards import is_plain_number
from .deal import Deal
from .errors import KlondikeError
from .game import Game
from .line import numbered
from .notation import parse_token
from .positions import to_text
from .rules import TIME_LIMIT_SECONDS, Ruleset
from .score import UNDO_PENALTY

HELP = ("type an action (D, R, 9h:W>3 ...) or its number in the menu; h hint, u undo"
        " (costs 1,000 points under scoring), q quit, ? help")
PROMPT = "> "


@dataclass
class HintSettings:
    """How hints are searched in a session."""

    peek: bool = False  # every card known (else: honest, sampled)
    samples: int = hint_module.DEFAULT_SAMPLES
    rng_seed: int = 0
    time_limit: float | None = 5.0
    max_nodes: int | None = None
    memory_mb: int = hint_module.DEFAULT_MEMORY_MB


class PlaySession:
    """One game in the terminal. `handle(line)` plays one input line and returns the text to show;
    `over` is true once the game is won, stuck, or the player quit."""

    def __init__(self, deal: Deal, rules: Ruleset, settings: HintSettings | None = None, render=to_text,
                 progress=None):
        self.game = Game(deal, rules)
        self.settings = settings or HintSettings()
        self.render = render
        self.progress = progress
        self.observer = hint_module.Observer(self.game.position)
        self.quit = False

    # ----- state ---------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True when the game is won, no legal action is left, its time is up, or the player quit."""
        return self.quit or self.game.won or self.time_is_up or not self.game.legal_actions()

    @property
    def time_is_up(self) -> bool:
        """True once a scored game's clock has reached its 300 s (RULES.md 6: nothing after counts;
        the unscored rules have no time limit)."""
        seconds = self.game.seconds
        return bool(self.game.rules.scoring) and seconds is not None and seconds >= TIME_LIMIT_SECONDS

    def status(self) -> str:
        """Actions, cards up, pass, clock and score."""
        game = self.game
        parts = [f"actions {game.actions}", f"foundations {sum(game.position.foundations)}/52",
                 f"pass {game.position.pass_number}"]
        if game.seconds is not None:
            limit = f"/{TIME_LIMIT_SECONDS}" if game.rules.scoring else ""
            parts.append(f"clock {float(game.seconds):g}{limit} s")
        if game.rules.scoring:
            parts.append(f"score {game.score().total:,}")
        return "   ".join(parts)

    def menu(self) -> str:
        """The legal actions, numbered from 1."""
        actions = self.game.legal_actions()
        return "  ".join(f"{n}) {a.token}" for n, a in enumerate(actions, start=1)) or "(no legal action)"

    def board(self) -> str:
        """The picture (face-down cards shown as ??, unless peeking), the status line and the menu."""
        position = self.game.position if self.settings.peek else hint_module.visible_position(self.game.position)
        return f"{self.render(position)}{self.status()}\n{self.menu()}"

    def end(self) -> str:
        """The closing lines: how the game ended, its summary and its line."""
        game = self.game
        how = ("won!" if game.won else "time is up" if self.time_is_up else
               "no legal action left" if not game.legal_actions() else "stopped")
        text = f"game over: {how}   {self.status()}"
        if game.line:
            text += "\nline:\n" + "\n".join(numbered(game.line))
        return text

    # ----- input ---------------------------------------------------------------------------------
    def handle(self, line: str) -> str:
        """Act on one input line; returns what to print (a bad action is a message, not an error)."""
        text = line.strip()
        command = text.lower()
        if not text:
            return self.board()
        if command in ("q", "quit", "exit"):
            self.quit = True
            return "quit"
        if command in ("?", "help"):
            return HELP
        if command in ("h", "hint"):
            return self.hint()
        if command in ("u", "undo"):
            return self.undo()
        return self.act(text)

    def act(self, text: str) -> str:
        """Play a token or a menu number."""
        actions = self.game.legal_actions()
        try:
            if is_plain_number(text):
                number = int(text) if len(text) <= 4 else 0  # int() refuses 4,300 digits and more
                if not 1 <= number <= len(actions):
                    raise KlondikeError(f"no action number {text} (the menu has 1..{len(actions)})")
                action = actions[number - 1]
            else:
                action = parse_token(text)
                if action.auto:
                    return f"{text}: auto-play moves are made by the game, nothing to do"
            auto = self.game.apply(action)
        except KlondikeError as err:
            return f"not played: {err}"
        self.observer.look(self.game.position)
        played = action.token + "".join(f"  {a.token}" for a in auto)
        return f"played {played}\n{self.board()}"

    def undo(self) -> str:
        """Take back the last action."""
        try:
            self.game.undo()
        except KlondikeError as err:
            return f"not undone: {err}"
        cost = f" (-{UNDO_PENALTY:,} points)" if self.game.rules.scoring else ""
        return f"undone{cost}\n{self.board()}"

    def hint(self) -> str:
        """The hint for the current position: honest (sampled) unless peeking."""
        s = self.settings
        if s.peek:
            result = hint_module.hint_game(self.game, 1, hint_module.Budget(s.time_limit, s.max_nodes, s.memory_mb),
                                           self.progress)
            how = "every card known"
        else:
            result = hint_module.honest_hint(self.game, self.observer.seen, samples=s.samples, rng_seed=s.rng_seed,
                                             time_limit=s.time_limit, max_nodes=s.max_nodes, memory_mb=s.memory_mb,
                                             progress=self.progress)
            how = "from what you have seen" if result.mode == "sampled" else "you have seen every card"
        return f"hint ({how}): {result.headline()}"
