"""The seed loader is strict about its input and never rewrites published data."""

import re
import shutil
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import CommandError, call_command

from cardroom import seedfile as sf
from cardroom.exceptions import BadInput
from fees.models import ScheduleDocument

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("item, message", [
    ({"code": "X", "extra": 1}, "unknown key(s) extra"),
    ({}, "missing key(s) code"),
])
def test_check_keys_names_the_problem(item, message):
    with pytest.raises(BadInput, match=re.escape(message)):
        sf.check_keys(item, "file.yaml item[0]", required=("code",))


@pytest.mark.parametrize("value", [0.5, 1.0, True, "one", "NaN"])
def test_money_refuses_floats_and_non_numbers(value):
    with pytest.raises(BadInput, match="fee"):
        sf.money(value, "file.yaml", "fee")


def test_money_keeps_exact_decimals():
    assert str(sf.money("0.50", "f", "fee")) == "0.50"
    assert str(sf.money(1000, "f", "fee")) == "1000"


@pytest.fixture
def seed_copy(tmp_path):
    target = tmp_path / "seed"
    shutil.copytree(settings.SEED_DATA_DIR, target)
    return target


def test_a_typo_in_a_file_stops_the_load_and_names_the_file(seed_copy):
    path = seed_copy / "schedules" / "GEGA-000702.yaml"
    data = yaml.safe_load(path.read_text())
    data["versions"][0]["options"][0]["tiers"][0]["fees"] = "3"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(CommandError, match=r"GEGA-000702.yaml versions\[0\] options\[0\] tiers\[0\]: unknown key"):
        call_command("load_seed_data", directory=str(seed_copy), verbosity=0)


def test_a_changed_file_never_rewrites_a_published_version(seed_copy, capsys):
    path = seed_copy / "schedules" / "GEGA-000702.yaml"
    data = yaml.safe_load(path.read_text())
    data["versions"][0]["options"][0]["tiers"][0]["fee"] = "4"
    path.write_text(yaml.safe_dump(data))
    call_command("load_seed_data", directory=str(seed_copy), verbosity=0)
    assert "is published and differs from the file; not applied" in capsys.readouterr().err
    tier = ScheduleDocument.objects.get(code="GEGA-000702").versions.get(number=1).options.get(number=1).tiers.get()
    assert str(tier.fee) == "3.00"


def test_seed_files_are_in_the_repository():
    assert Path(settings.SEED_DATA_DIR).resolve().is_relative_to(Path(settings.BASE_DIR).resolve())
    assert "shared" not in Path(settings.SEED_DATA_DIR).parts
