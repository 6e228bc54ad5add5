"""The functions behind the actions ask the named permission themselves, not only the doors that call them: a caller
that forgets the door's check (a new page, a command) still cannot act for someone who may not."""

import pytest

from cardroom.access import Scope
from cardroom.exceptions import NotAllowed
from exports import tasks as export_tasks
from fees import editing, ledger
from signage import tasks as sign_tasks


def test_a_regulator_cannot_queue_a_batch_of_signs(people):
    with pytest.raises(NotAllowed, match="Only floor supervisors and compliance officers"):
        sign_tasks.start_batch(people.marysville, layout="letter", tables=None, user=people.regulator_ca)


def test_a_floor_supervisor_cannot_save_a_drafts_tiers(people, draft):
    option = draft.options.order_by("number").first()
    with pytest.raises(NotAllowed, match="responsible for this schedule"):
        editing.save_tiers(option, None, user=people.floor, reason="Not mine to change.")


def test_a_regulator_cannot_record_collections(people):
    with pytest.raises(NotAllowed, match="record collections"):
        ledger.record_entries([], scope=Scope(people.regulator_ca), user=people.regulator_ca)


def test_a_floor_supervisor_cannot_check_a_bundle(people):
    with pytest.raises(NotAllowed, match="regulators, compliance officers"):
        export_tasks.start_check(None, user=people.floor)
