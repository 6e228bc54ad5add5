"""The one registry through which the apps tell the core what is theirs (issue 44): the core names no app above it.

Each app registers its own from its ``AppConfig.ready`` with ``register``: its named permissions (``Permission``),
its kinds of job with their tasks (``JobKind``), its inbox kinds (``InboxKind``), the pages it serves for the links
the layers below declare (``Route`` for a ``Link``), the look of a page the core renders (``Template`` for a
``Page``), what writes a bundle a lower layer needs (``Exporter``), what it does when the core tells of an event
(``Listener``) and its seed data (``SeedLoader``). The core reads back only what was registered (``entry``,
``entries``), so an upward permission, URL name, template or task never appears below as a string
(tests/project/test_layers_by_name.py).

Every entry is a frozen dataclass whose ``key`` names what it is for; registering a key again (a test's reload)
replaces the entry in its place.
"""

import dataclasses
from collections.abc import Callable

import rules
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


@dataclasses.dataclass(frozen=True)
class Permission:
    """A named permission ('app.verb_noun', ``cardroom.permissions``): the predicate that grants it (one of
    ``cardroom.permissions``' or the app's own) and the sentence a refused person reads (or a function of the object
    asked about giving it)."""

    name: str
    predicate: Callable
    refusal: str | Callable

    @property
    def key(self):
        return self.name


@dataclasses.dataclass(frozen=True)
class JobKind:
    """A kind of background job (``cardroom.models.Job``): the value its rows keep, its label, the Celery task that
    runs it (``cardroom.jobs.recover`` sends it again), who reads it besides administrators (``asker``: whoever asked
    for it; ``places(scope)``: the ``cardroom.permissions.Places`` where it is seen; no ``places``: nobody else) and
    the content type of the file it makes, when one is downloaded."""

    value: str
    label: str
    task: Callable
    asker: bool = False
    places: Callable | None = None
    download_type: str | None = None

    @property
    def key(self):
        return self.value


@dataclasses.dataclass(frozen=True)
class InboxKind:
    """What the inbox lists and the emails announce (``cardroom.inbox``, ``cardroom.notify``): a reviewable kind
    (``cardroom.review``) or an alert.

    ``waiting(user, scope, establishment)``: a queryset of what awaits ``user`` (the inbox unions them into one
    query); ``items(pks, user, scope, establishment)``: those rows as ``cardroom.inbox.Awaiting``; ``what(obj)``,
    ``path(obj)``: the thing in words and the page where it is answered; ``approvers(obj)``: who is told it awaits
    them; ``role(obj)``: what they are asked as; ``asked(obj)``: (who asked, their reason); ``answered(obj)``: (who
    answered, their reason); ``outcomes``: what approved and refused mean, in words; ``alert``: a matter that stands
    until it is put right (a witness that refused, a month left open), not a request a second person answers;
    ``one_each(rows)``: the ``waiting`` rows grouped one per item ``items`` would make, each group's first row as
    ``first``, where a kind makes one item of many rows (the navigation counts the items without making them).
    """

    name: str
    label: str
    waiting: Callable
    items: Callable
    what: Callable
    path: Callable
    approvers: Callable
    role: Callable
    asked: Callable
    answered: Callable
    outcomes: tuple = ("approved", "refused")
    alert: bool = False
    one_each: Callable | None = None

    @property
    def key(self):
        return self.name


@dataclasses.dataclass(frozen=True)
class Exporter:
    """What writes a bundle a lower layer needs, for the name it declares (``fees.months.services.MONTH_BUNDLE``)."""

    name: str
    export: Callable

    @property
    def key(self):
        return self.name


@dataclasses.dataclass(frozen=True)
class Listener:
    """What an app does when the core tells of an event it declares (``tell``: ``cardroom.conditions.RECORDED``)."""

    event: str
    call: Callable

    @property
    def key(self):
        return self.event, f"{self.call.__module__}.{self.call.__qualname__}"


@dataclasses.dataclass(frozen=True)
class SeedLoader:
    """An app's part of ``manage.py load_seed_data``: ``load(loader)`` (``cardroom.seed.Loader``). The apps load in
    the order they are installed, which is the order their ``ready`` runs."""

    app: str
    load: Callable

    @property
    def key(self):
        return self.app


# {entry type: {key: entry}}: only the types listed here are registered.
_ENTRIES: dict[type, dict] = {kind: {} for kind in (Permission, JobKind, InboxKind, Route, Template, Exporter,
                                                    Listener, SeedLoader)}


def register(*items):
    """Called from the owning app's ``AppConfig.ready``."""
    for item in items:
        if type(item) not in _ENTRIES:
            raise TypeError(f"{type(item).__name__} is not a kind of entry the registry keeps.")
        _ENTRIES[type(item)][item.key] = item
        if isinstance(item, Permission):  # user.has_perm and {% has_perm %} answer it too
            rules.set_perm(item.name, item.predicate)


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


def tell(event, **facts):
    """Call every ``Listener`` of ``event`` with ``facts``."""
    for listener in entries(Listener):
        if listener.event == event:
            listener.call(**facts)
