"""Shared pydantic bases: unknown keys are an error, every field is documented; the results
of both series (:class:`SeriesModel`) write one flat JSON object."""

from typing import Any, ClassVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)


def empty_list() -> list[Any]:
    """A new empty list: the default factory of a list field.

    Not ``list`` itself: pydantic reads a default factory's signature when it builds a
    model, and a builtin's is parsed from its text (``tokenize``), a third of a
    millisecond each; a plain validate builds dozens of such fields (issue 22).
    """
    return []


def empty_dict() -> dict[Any, Any]:
    """A new empty dict: the default factory of a dict field (see :func:`empty_list`)."""
    return {}


class StrictModel(BaseModel):
    """Base of every trackkit data model: unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, defer_build=True)


class SeriesModel(StrictModel):
    """A result of both series whose JSON is one flat object: its own keys and those of
    its per-series part (a sub-model in a field named after the series, None for the other
    series), in the order the documents have always had.

    A subclass names its part fields in ``_PARTS``; the fields written only when they
    were given (absent, not null, otherwise) in ``_GIVEN``; and the order of the JSON keys
    in ``_ORDER``, by the part that is present (``""``: a model without parts).
    :meth:`model_validate` reads the flat object back into the part whose required keys
    it holds.

    Examples
    --------
    >>> from typing import ClassVar
    >>> class Gt(StrictModel):
    ...     laps: int | None
    >>> class Result(SeriesModel):
    ...     _PARTS: ClassVar[tuple[str, ...]] = ("gt",)
    ...     _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {"gt": ("name", "laps")}
    ...     name: str
    ...     gt: Gt | None = None
    >>> Result(name="oval", gt=Gt(laps=3)).model_dump()
    {'name': 'oval', 'laps': 3}
    >>> Result.model_validate({"name": "oval", "laps": None}).gt
    Gt(laps=None)
    """

    _PARTS: ClassVar[tuple[str, ...]] = ()
    _GIVEN: ClassVar[frozenset[str]] = frozenset()
    _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {}

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        present = ""
        for name in self._PARTS:
            part = data.pop(name, None)
            if part is not None:
                present = name
                data.update(part)
        for name in self._GIVEN - self.model_fields_set:
            data.pop(name, None)
        order = self._ORDER.get(present, ())
        return {k: data[k] for k in order if k in data} | data

    @model_validator(mode="before")
    @classmethod
    def _nest(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not cls._PARTS:
            return data
        data = dict(data)
        if any(isinstance(data.get(name), (dict, BaseModel)) for name in cls._PARTS):
            return data  # given as parts already
        for name in cls._PARTS:
            fields = _part_model(cls, name).model_fields
            if all(k in data for k, f in fields.items() if f.is_required()):
                data[name] = {k: data.pop(k) for k in fields if k in data}
                break  # the part of one series
        return data

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready document (what ``--format json`` prints of it)."""
        return self.model_dump()


def _part_model(model: type[BaseModel], name: str) -> type[BaseModel]:
    """The sub-model of part field ``name`` (annotated ``Part | None``)."""
    annotation = model.model_fields[name].annotation
    for arg in (*get_args(annotation), annotation):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    raise TypeError(f"{model.__name__}.{name} is no part (a model or None)")
