"""Deal formats: reading a deal from text in any supported format, and exporting one."""

from __future__ import annotations

from .deal import Deal


def parse_deal_text(text: str) -> Deal:
    """A deal from text: 52 card codes in deal order."""
    return Deal.from_codes(text)
