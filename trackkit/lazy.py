"""Names a package exports but imports only on first use (PEP 562), so that start-up is fast.

Both ``trackkit`` and ``trackkit.models`` list their names in one mapping, name to the module
that defines it, and hand it to :func:`lazy_exports`; ``trackkit --help`` then imports none of
the models, the rules or networkx.

>>> __getattr__ = lazy_exports("example", {"sqrt": "math"})
>>> __getattr__("sqrt")(9.0)
3.0
>>> __getattr__("nothing")
Traceback (most recent call last):
AttributeError: module 'example' has no attribute 'nothing'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name in ``exports`` from its module.

    Parameters
    ----------
    package : str
        The dotted name of the package, for the message of a missing name.
    exports : Mapping[str, str]
        Each exported name and the dotted name of the module that defines it.

    Returns
    -------
    Callable[[str], Any]
        To be bound to the package's ``__getattr__``; it raises :class:`AttributeError`,
        as Python's own lookup does, for a name not in ``exports``.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
