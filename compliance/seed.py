"""Load rule parameters (and the sources they cite) from seed/rules/*.yaml (format: docs/compliance.md).

Discovered by ``load_seed_data`` like every app's ``seed`` module; runs after cardroom's, so sources and
jurisdictions named in sources.yaml already exist. Idempotent: rows are matched on (jurisdiction, key,
effective_from) and written only when something changed, with the change in the history.
"""

from cardroom import seedfile as sf
from cardroom.exceptions import BadInput
from cardroom.models import Jurisdiction, Source
from cardroom.upsert import upsert

from .models import RuleParameter


def load(loader):
    for path in sf.files(loader.directory / "rules"):
        load_rules_file(loader, path)


def load_rules_file(loader, path):
    data = sf.check_keys(sf.read(path), str(path), optional=("sources", "parameters"))
    for i, item in enumerate(data.get("sources", [])):
        where = f"{path} sources[{i}]"
        sf.check_keys(item, where, required=("key", "title"), optional=("issuer", "issued_on", "seed_file", "notes"))
        loader.tally(upsert(Source, {"key": item["key"]}, {
            "title": item["title"], "issuer": item.get("issuer") or "",
            "issued_on": sf.day(item.get("issued_on"), where, "issued_on"),
            "seed_file": item.get("seed_file") or "", "notes": item.get("notes") or "",
        }))
    for i, item in enumerate(data.get("parameters", [])):
        where = f"{path} parameters[{i}]"
        sf.check_keys(item, where, required=("jurisdiction", "key", "value", "unit", "effective_from", "status",
                                             "source", "citation"), optional=("note",))
        sf.choice(item["status"], RuleParameter.Status.values, where, "status")
        effective_from = sf.day(item["effective_from"], where, "effective_from")
        if effective_from is None:
            raise BadInput(f"{where}: effective_from is required (a limit is in force from a date)")
        value = sf.money(item["value"], where, "value")
        loader.tally(upsert(RuleParameter, {
            "jurisdiction": loader.get(Jurisdiction, where, code=item["jurisdiction"]), "key": item["key"],
            "effective_from": effective_from,
        }, {
            "value": value, "unit": item["unit"], "status": item["status"], "note": item.get("note") or "",
            "source": loader.source(item, where), "citation": item["citation"],
        }))
