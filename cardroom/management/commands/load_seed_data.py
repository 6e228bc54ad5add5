from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.db import transaction

from cardroom import registry
from cardroom.audit import log_action
from cardroom.management.base import BaseCommand
from cardroom.registry import SeedLoader
from cardroom.seed import SEED_ACTOR, Loader
from cardroom.tasks import refresh_planner_statistics


class Command(BaseCommand):
    help = (
        "Load the regulatory seed data kept in seed/ (schedules, games, paytables, approvals) and publish it. "
        "Idempotent: a second run changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--directory", default=str(settings.SEED_DATA_DIR), help="Where the YAML files are.")

    def handle(self, *args, directory, **options):
        loader = Loader(Path(directory))
        if not loader.directory.is_dir():
            raise CommandError(f"No seed directory at {loader.directory}")
        with transaction.atomic():  # a file's BadInput (naming the file and the item) loads nothing
            # Each app that owns seed data registered its loader (cardroom.registry.SeedLoader); they load in the
            # order the apps are installed, each after those it stands on.
            for seed in registry.entries(SeedLoader):
                seed.load(loader)
            if loader.created or loader.changed:
                log_action("seed.import", actor_label=SEED_ACTOR, data={
                    "directory": str(loader.directory), "created": loader.created, "changed": loader.changed,
                })
        refresh_planner_statistics()  # SQLite plans blind without them (PostgreSQL's autovacuum keeps its own)
        for warning in loader.warnings:
            self.stderr.write(self.style.WARNING(warning))
        if options["verbosity"]:
            self.stdout.write(self.style.SUCCESS(
                f"Seed data loaded: {loader.created} created, {loader.changed} changed."
            ))
