# Kept apart from the views: DRF imports the pagination class while its own modules are still loading.
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
