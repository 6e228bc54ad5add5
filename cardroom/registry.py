"""The one registry through which the apps tell the core what is theirs (issue 44): the core names no app above it.

What a layer needs of a layer above it, it declares as a kind of its own (a ``Link`` to a page with the arguments
it takes, a ``Page`` it renders); the app that has it registers it (a ``Route`` to its URL, a ``Template``) from its
``AppConfig.ready`` with ``register``. The core reads back only what was registered (``entry``, ``entries``), so an
upward URL name, template or task never appears below as a string (tests/project/test_layers_by_name.py).

Every entry is a frozen dataclass whose ``key`` names what it is for; registering a key again (a test's reload)
replaces the entry.
"""

import dataclasses

from django.urls import reverse


@dataclasses.dataclass(frozen=True)
class Link:
    """A page a module links to, declared where it is named, with the arguments its address takes. Which page
    answers it is the serving app's ``Route``; ``path(**args)`` is its address."""

    name: str
    args: tuple[str, ...] = ()

    def path(self, **args):
        if set(args) != set(self.args):
            raise TypeError(f"The link {self.name} takes {', '.join(self.args) or 'no argument'}, not "
                            f"{', '.join(sorted(args)) or 'none'}.")
        return entry(Route, self).make(*(args[name] for name in self.args))


@dataclasses.dataclass(frozen=True)
class Route:
    """The page that answers a ``Link``: its URL's name, reversed with the link's arguments in their order."""

    link: Link
    url_name: str

    @property
    def key(self):
        return self.link

    def make(self, *args):
        return reverse(self.url_name, args=args)


@dataclasses.dataclass(frozen=True)
class Page:
    """A page a module renders without owning its look (the error page), with the context it gives."""

    name: str
    context: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Template:
    """The template that renders a ``Page``, registered by the app whose look it is."""

    page: Page
    name: str

    @property
    def key(self):
        return self.page


# {entry type: {key: entry}}: only the types listed here are registered.
_ENTRIES: dict[type, dict] = {Route: {}, Template: {}}


def register(*entries):
    """Called from the owning app's ``AppConfig.ready``."""
    for item in entries:
        if type(item) not in _ENTRIES:
            raise TypeError(f"{type(item).__name__} is not a kind of entry the registry keeps.")
        _ENTRIES[type(item)][item.key] = item


def entry(kind, key):
    """The entry of type ``kind`` registered for ``key``; a LookupError naming it when none was."""
    found = _ENTRIES[kind].get(key)
    if found is None:
        raise LookupError(f"No {kind.__name__} is registered for {key!r}: the app that has it registers it from its "
                          "AppConfig.ready (cardroom.registry).")
    return found


def find(kind, key):
    """``entry``, or None when no app registered one (a page the core can do without)."""
    return _ENTRIES[kind].get(key)


def entries(kind) -> list:
    """Every entry of type ``kind``, in the order they were first registered."""
    return list(_ENTRIES[kind].values())

