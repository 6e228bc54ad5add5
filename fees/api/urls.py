from rest_framework.routers import DefaultRouter

from . import views


def register(router: DefaultRouter):
    router.register("schedules", views.ScheduleViewSet)
