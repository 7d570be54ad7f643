"""Exceptions the library raises for bad input; the CLI turns them into one-line messages."""


class KlondikeError(ValueError):
    """Base class of every user-facing error (bad card, bad deal, bad token, ...)."""


class CardError(KlondikeError):
    """A card code that cannot be parsed."""


class DealError(KlondikeError):
    """A deal that is not 52 distinct cards, or a seed out of range."""


class RulesError(KlondikeError):
    """An unknown ruleset or an invalid ruleset parameter."""


class IllegalAction(KlondikeError):
    """An action that the rules do not allow in the current position."""


class PositionError(KlondikeError):
    """A position text or JSON that does not describe a possible position."""
