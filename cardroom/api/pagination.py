# Kept apart from the views: DRF imports the pagination class while its own modules are still loading.
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """Pages of ``page_size`` rows (50 by default, at most 500). ``page`` and ``page_size`` are read strictly:
    a page_size that is not a whole number from 1 to 500 is refused (400) rather than quietly replaced by the
    default, and a page that is not a page of the list answers 404 (DRF's "Invalid page.")."""

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

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
            elif parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size, default=self.page_size)
        return parameters
