"""Serializer fields that read through ``cardroom.values``, so a DRF serializer accepts exactly what the rest of
the service accepts (DRF's own DateField takes year 1, its DecimalField "1e3", its DateTimeField naive times)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardroom import values


class _Reading:
    """Turns ``values.Invalid`` into the serializer's validation error."""

    def to_internal_value(self, data):
        try:
            return self.read(data)
        except values.Invalid as error:
            raise serializers.ValidationError(str(error)) from None


@extend_schema_field({"type": "string", "format": "date", "example": "2026-03-03"})
class DayField(_Reading, serializers.DateField):
    """A date written YYYY-MM-DD, between 1900 and 2199."""

    def read(self, data):
        return values.day(data)


@extend_schema_field({"type": "string", "format": "date-time", "example": values.MOMENT_EXAMPLE})
class MomentField(_Reading, serializers.DateTimeField):
    """A date and time with its UTC offset, between 1900 and 2199."""

    def read(self, data):
        return values.moment(data)


@extend_schema_field({"type": "string", "pattern": r"^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$", "example": "12.50",
                      "description": "An amount of money as a decimal string (at most two decimal places)."})
class MoneyField(_Reading, serializers.Field):
    def read(self, data):
        return values.money(data)

    def to_representation(self, value):
        return f"{value:.2f}"


@extend_schema_field(OpenApiTypes.STR)
class TextField(_Reading, serializers.CharField):
    """Text with no NUL or lone surrogate, stripped, at most ``max_length`` characters."""

    def __init__(self, *, max_length, single_line=True, **kwargs):
        self.single_line = single_line
        super().__init__(max_length=max_length, **kwargs)

    def read(self, data):
        return values.text(data, max_length=self.max_length, required=self.required or not self.allow_blank,
                           single_line=self.single_line)


class WholeField(_Reading, serializers.IntegerField):
    """A JSON whole number (not a string, float or boolean) within the given bounds."""

    def read(self, data):
        return values.whole(data, minimum=self.min_value, maximum=self.max_value or values.MAX_WHOLE)


class FlagField(_Reading, serializers.BooleanField):
    """A JSON true or false (DRF's BooleanField also takes "yes", 1 and "on")."""

    def read(self, data):
        return values.flag(data)
