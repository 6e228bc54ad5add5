"""django-otp-webauthn's calls under its own namespace (its scripts look them up as otp_webauthn:...), through the
views of console.views.second_factor, each declaring the permission it asks."""

from django.urls import path

from .views import second_factor

app_name = "otp_webauthn"

urlpatterns = [
    path("registration/begin/", second_factor.RegistrationBegin.as_view(), name="credential-registration-begin"),
    path("registration/complete/", second_factor.RegistrationComplete.as_view(),
         name="credential-registration-complete"),
    path("authentication/begin/", second_factor.AuthenticationBegin.as_view(),
         name="credential-authentication-begin"),
    path("authentication/complete/", second_factor.AuthenticationComplete.as_view(),
         name="credential-authentication-complete"),
    path("jsi18n/", second_factor.WebAuthnMessages.as_view(packages=["django_otp_webauthn"]), name="js-i18n-catalog"),
]
