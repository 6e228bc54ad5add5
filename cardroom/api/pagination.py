# Kept apart from the views: DRF imports the pagination class while its own modules are still loading.
from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import F

# Row comparison, (a, b, c) > (x, y, z): one index condition where PostgreSQL has an index on those columns (and
# AND/OR of the columns on SQLite). Django's own, for composite keys; not documented, so pinned with Django 5.2.
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThan, TupleLessThan
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import Cursor, CursorPagination, PageNumberPagination

BIGINT = 2 ** 63


class StrictPageSize:
    """``page_size`` (50 by default, at most 500), read strictly: a page_size that is not a whole number from 1 to
    500 is refused (400) rather than quietly replaced by the default."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw in (None, ""):  # an empty parameter is one left out, as with every query parameter here
            return self.page_size
        if not (raw.isascii() and raw.isdigit() and 1 <= int(raw) <= self.max_page_size):
            raise ValidationError({self.page_size_query_param: (
                f"must be a whole number from 1 to {self.max_page_size}, not {raw[:40]!r}.")})
        return int(raw)

    def described(self, parameters):
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size, default=self.page_size)
        return parameters


class Pagination(StrictPageSize, PageNumberPagination):
    """Pages of ``page_size`` rows, numbered, with the list's ``count``. A page that is not a page of the list
    answers 404 (DRF's "Invalid page.")."""

    def get_schema_operation_parameters(self, view):
        parameters = self.described(super().get_schema_operation_parameters(view))
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters


class KeysetPagination(StrictPageSize, CursorPagination):
    """Pages of a table too big to count or to skip through (the ledger): each page starts after the last row of
    the one before, by the view's ``keyset``, columns of the model in ascending order, the last one unique (e.g.
    ``("gaming_day", "table_id", "id")``). The database seeks straight to that row in an index on those columns
    (or their leading ones) however deep the page: no ``COUNT(*)``, no ``OFFSET``. Answers ``next`` and
    ``previous`` links (with the request's filters) and the rows; a cursor that is not one of those links'
    answers 404, as a page past the end of a numbered list does.

    DRF's CursorPagination keys on one column and counts the rows that share it: with a day's entries sharing
    their gaming day that count would be a day long. Here the key is the whole tuple, so a position is one row."""

    cursor_query_description = "Where the page starts: the cursor of a next or previous link. Left out: the first page."

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.page_size = self.get_page_size(request)
        self.base_url = request.build_absolute_uri()
        self.ordering = tuple(view.keyset)
        self.cursor = self.decode_cursor(request)
        reverse = self.cursor is not None and self.cursor.reverse
        position = None if self.cursor is None else self.cursor.position
        queryset = queryset.order_by(*(f"-{name}" if reverse else name for name in self.ordering))
        if position is not None:
            beyond = TupleLessThan if reverse else TupleGreaterThan
            queryset = queryset.filter(beyond(Tuple(*(F(name) for name in self.ordering)),
                                              self.key_of(queryset.model, position)))
        rows = list(queryset[:self.page_size + 1])
        self.page, more = rows[:self.page_size], len(rows) > self.page_size
        if reverse:
            self.page.reverse()
        # A page that came back empty (a cursor past either end) links back to where it was asked from.
        self.position = position
        self.has_next, self.has_previous = (position is not None, more) if reverse else (more, position is not None)
        self.display_page_controls = self.has_next or self.has_previous
        return self.page

    def key_of(self, model, position):
        """The cursor's position, "2026-03-03,7,1234", as the key's values; 404 for anything else."""
        parts = position.split(",")
        if len(parts) != len(self.ordering):
            raise NotFound(self.invalid_cursor_message)
        values = []
        for name, part in zip(self.ordering, parts, strict=True):
            try:
                value = model._meta.get_field(name).to_python(part)
            except (FieldDoesNotExist, DjangoValidationError):
                raise NotFound(self.invalid_cursor_message) from None
            if isinstance(value, int) and not -BIGINT <= value < BIGINT:  # beyond any column: a database error
                raise NotFound(self.invalid_cursor_message)
            values.append(value)
        return tuple(values)

    def _get_position_from_instance(self, instance, ordering):
        return ",".join(str(getattr(instance, name)) for name in ordering)

    def link(self, row, reverse):
        position = self.position if row is None else self._get_position_from_instance(row, self.ordering)
        return self.encode_cursor(Cursor(offset=0, reverse=reverse, position=position))

    def get_next_link(self):
        return self.link(self.page[-1] if self.page else None, reverse=False) if self.has_next else None

    def get_previous_link(self):
        return self.link(self.page[0] if self.page else None, reverse=True) if self.has_previous else None

    def get_schema_operation_parameters(self, view):
        return self.described(super().get_schema_operation_parameters(view))

