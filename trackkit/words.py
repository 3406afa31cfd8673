"""Words for reports: counts with the right plural.

Examples
--------
>>> plural(1, "ford"), plural(3, "ford"), plural(0, "error")
('1 ford', '3 fords', '0 errors')
>>> plural(2, "loss", "losses")
'2 losses'
"""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, singular: str, many: str | None = None) -> str:
    """``count`` and the noun, singular for exactly one (``many`` for irregular plurals)."""
    return f"{count} {singular if count == 1 else (many or singular + 's')}"
