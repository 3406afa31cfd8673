"""Words for reports: counts with the right plural.

Examples
--------
>>> plural(1, "ford"), plural(3, "ford"), plural(0, "error")
('1 ford', '3 fords', '0 errors')
>>> plural(2, "loss", "losses")
'2 losses'
>>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)]
['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']
"""

from __future__ import annotations

__all__ = ["ordinal", "plural"]


def plural(count: int, singular: str, many: str | None = None) -> str:
    """``count`` and the noun, singular for exactly one (``many`` for irregular plurals)."""
    return f"{count} {singular if count == 1 else (many or singular + 's')}"


def ordinal(n: int) -> str:
    """``n`` as an English ordinal number: 1st, 2nd, 3rd, 4th, 11th, 21st."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"
