"""Frozen records: what ``@dataclass(frozen=True)`` gives the plain values of the check path
(``Binary``, ``Finding``, ``Policy``, ...), without importing ``dataclasses``.

Why: ``import dataclasses`` pulls in inspect, ast, dis, tokenize and enum (~10 ms), and each class
costs ~0.5 ms more to build; on the 15 classes ``check-symbols`` uses that was a fifth of checking
libtorch_cpu.so (issue 20's target is 0.7x ``nm -D``). A record has what those classes use of a
dataclass: ``__init__`` (fields in annotation order, class-level defaults, ``__post_init__``),
``__repr__``, ``__eq__``, ``__hash__``, ``__match_args__``, immutability (``FrozenRecordError``,
an AttributeError), and ``replace``. Not: ``field()``, ordering, slots, ``ClassVar`` fields.
Type checkers see ``dataclass_transform`` (frozen) and check calls as for a dataclass.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    _T = TypeVar("_T")

FIELDS = "__record_fields__"


class FrozenRecordError(AttributeError):
    """Assignment to a field of a record (as dataclasses' FrozenInstanceError)."""


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}")


def _make_record(cls: type[_T]) -> type[_T]:
    inherited: tuple[str, ...] = ()
    for base in reversed(cls.__mro__[1:]):
        inherited += tuple(n for n in getattr(base, FIELDS, ()) if n not in inherited)
    own = [n for n, a in cls.__dict__.get("__annotations__", {}).items()  # noqa: RUF063 (no inspect: its import is the cost)
           if n not in inherited and not str(a).startswith(("ClassVar", "typing.ClassVar"))]
    names = (*inherited, *own)
    defaults = {n: getattr(cls, n) for n in names if hasattr(cls, n)}
    parameters, seen_default = [], False
    for name in names:
        if name in defaults:
            parameters.append(f"{name}=_default_{name}")
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        else:
            parameters.append(name)
    post_init = hasattr(cls, "__post_init__")

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        # The real __init__ is compiled on the first instance, then replaces this one: most of the
        # records a run defines are never built (compiling all of them costs check-symbols ~4M
        # instructions on libtorch_cpu.so).
        real = _compile_init(cls, names, parameters, defaults, post_init)
        type.__setattr__(cls, "__init__", real)
        real(self, *args, **kwargs)

    getter = _fields_of(names)

    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{n}={v!r}' for n, v in zip(names, getter(self)))})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return getter(self) == getter(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(getter(self))

    for name, method in (("__init__", init), ("__repr__", __repr__), ("__eq__", __eq__), ("__hash__", __hash__),
                         ("__setattr__", _frozen_setattr), ("__delattr__", _frozen_delattr)):
        if name in ("__repr__", "__eq__", "__hash__") and cls.__dict__.get(name) is not None:
            continue  # the class's own (as dataclasses keeps an explicit __repr__, __eq__, __hash__)
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        type.__setattr__(cls, name, method)
    type.__setattr__(cls, FIELDS, names)
    type.__setattr__(cls, "__match_args__", names)
    return cls


def _compile_init(cls: type, names: tuple[str, ...], parameters: list[str], defaults: dict[str, Any],
                  post_init: bool):
    """The record's ``__init__``: one small function per class, as dataclasses makes (fast instances)."""
    body = [f"    d[{n!r}] = {n}" for n in names]
    if post_init:
        body.append("    self.__post_init__()")
    source = (f"def __init__(self, {', '.join(parameters)}):\n    d = self.__dict__\n" + "\n".join(body) + "\n"
              if names else "def __init__(self):\n" + ("\n".join(body) or "    pass") + "\n")
    scope: dict[str, Any] = {f"_default_{n}": v for n, v in defaults.items()}
    exec(source, scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _fields_of(names: tuple[str, ...]):
    """A function: record -> the tuple of its field values, in order."""
    if not names:
        return lambda self: ()
    from operator import attrgetter

    get = attrgetter(*names)
    return (lambda self: (get(self),)) if len(names) == 1 else get


if TYPE_CHECKING:
    @dataclass_transform(frozen_default=True)
    def record(cls: type[_T]) -> type[_T]: ...
else:
    record = _make_record


def fields(obj_or_class: object) -> tuple[str, ...]:
    """The field names of a record (instance or class), in order."""
    cls = obj_or_class if isinstance(obj_or_class, type) else type(obj_or_class)
    return getattr(cls, FIELDS)


def replace(obj: _T, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` (as ``dataclasses.replace``; a dataclass is
    handed to dataclasses itself)."""
    names = getattr(type(obj), FIELDS, None)
    if names is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(obj).__qualname__} has no field {sorted(unknown)[0]!r}")
    return type(obj)(**{n: changes[n] if n in changes else getattr(obj, n) for n in names})
