"""Project URLs. The API is one router under /api/v1/; each app registers its own viewsets on it."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

import cardroom.api.urls
import compliance.urls
import exports.urls
import fees.api.urls
import signage.urls
from cardroom.api.errors import json_not_found

router = DefaultRouter()
for app_api in (cardroom.api.urls, fees.api.urls, compliance.urls, signage.urls, exports.urls):
    app_api.register(router)

api_v1 = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    *cardroom.api.urls.urlpatterns,
    *fees.api.urls.urlpatterns,
    *compliance.urls.urlpatterns,
    *signage.urls.urlpatterns,
    *exports.urls.urlpatterns,
    path("", include(router.urls)),
    re_path(r"^[\s\S]*$", json_not_found),  # any character, a newline too: an address the API lacks
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api-auth/", include("rest_framework.urls")),
    path("api/v1/", include(api_v1)),
    *signage.urls.public_urlpatterns,
    path("witness/", include("cardroom.witness.urls")),  # this installation as a witness (C2SP tlog-witness)
    path("account/webauthn/", include("console.webauthn_urls")),  # WebAuthn keys (django-otp-webauthn)
    path("", include("console.urls")),
]

handler400 = "cardroom.api.errors.handler400"
handler403 = "cardroom.api.errors.handler403"
handler404 = "cardroom.api.errors.handler404"
handler500 = "cardroom.api.errors.handler500"
