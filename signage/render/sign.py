"""What a sign says: the ``Sign`` that ``signage.content`` fills in and the layouts draw, its parts (fee tables,
bonus limits, payouts, the house-banked block), ``SignOverflow`` and how amounts are written. Plain Python."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from cardroom.money import format_money


class SignOverflow(ValueError):
    """The sign's content does not fit its layout even at the smallest readable size."""


# -- what a sign says -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeeRow:
    bounds: str  # the amount or player count the row applies to, as the schedule prints it
    fee: Decimal
    printed_fee: str = ""


@dataclass(frozen=True)
class FeeTable:
    title: str  # e.g. "Player-dealer fee by total table action"
    payer: str  # e.g. "Paid by the player-dealer"
    measured_on: str  # column heading for the bounds, e.g. "Total table action"
    rows: tuple[FeeRow, ...]
    note: str = ""  # e.g. "No flop, no drop: ..."


@dataclass(frozen=True)
class BonusLimit:
    bet: str
    minimum: Decimal | None
    maximum: Decimal | None
    paytable: str = ""  # house-banked posting: the paytable the bet pays by, e.g. "WSGC 1"


@dataclass(frozen=True)
class HouseBanked:
    """What the sign of a house-banked game without a collection schedule says instead of the schedule's fees."""

    main_bet: str  # the main wager's name, e.g. "Ante": the posting's minimum and maximum are its limits
    approval: str  # e.g. "WSGC letter of 2014-02-18 (...) re: One For The Money"; "" where none is recorded
    rules: str  # the rules version's title
    rules_version: str  # its version, e.g. "3 Card Bonus (WSGC enclosure 2014)"
    decks: int | None
    aggregate_payout_limit: Decimal | None = None


@dataclass(frozen=True)
class Payouts:
    bet: str
    paytable: str
    lines: tuple[tuple[str, str], ...]  # (hand, payout), every payout of the table in one unit
    unit: str = ""  # the payout column's heading, naming that unit, e.g. "Pays (odds)"


@dataclass(frozen=True)
class Sign:
    establishment: str
    table: str
    game: str
    registration: str  # "" where the game has none on record: the sign then says nothing of it
    currency: str
    min_wager: Decimal | None
    max_wager: Decimal | None
    seats: int
    schedule_code: str  # "" on a house-banked posting's sign (see house_banked)
    schedule_version: int
    schedule_in_force: str  # "in force from 2026-03-01", or "" where the version states no date
    option_number: int
    option_label: str
    posted_from: str  # the posting's effective moment, local time, as text
    verify_url: str
    fee_tables: tuple[FeeTable, ...] = ()
    bonus_limits: tuple[BonusLimit, ...] = ()
    payouts: tuple[Payouts, ...] = ()
    notices: tuple[str, ...] = ()
    notes: str = ""
    no_fees_note: str = ""  # said instead of fee tables when the option prints no fee
    none_charged: tuple[str, ...] = ()  # fees the option sets at $0, said in words: "No player fee is charged."
    stamp: str = ""  # print record: when, which print of this posting
    banner: str = ""  # a small header, e.g. "REPRINT"
    watermark: str = ""  # drawn large and light across the page, e.g. "PREVIEW - NOT FOR POSTING"
    house_banked: HouseBanked | None = None  # a house-banked posting: no schedule, its rules and approval instead
    extra: dict = field(default_factory=dict, compare=False)

    def label(self) -> str:
        """What the sign is, for messages: the schedule option, or the house-banked game's rules and decks."""
        if self.house_banked is not None:
            return f"{self.house_banked.rules}, {self.house_banked.decks} decks"
        return f"{self.schedule_code} option {self.option_number}"

    def source_line(self) -> str:
        """The footer's first sentence: where the fees (or, house-banked, the rules) come from."""
        h = self.house_banked
        if h is not None:
            decks = f", {h.decks} decks" if h.decks else ""
            return f"House-banked game, no collection fee schedule: rules version {h.rules_version}{decks}."
        in_force = f" ({self.schedule_in_force})" if self.schedule_in_force else ""
        return (f"Collection schedule {self.schedule_code}, version {self.schedule_version}{in_force}, "
                f"option {self.option_number}.")

    def limit_labels(self) -> tuple[str, str]:
        if self.house_banked is not None:
            name = self.house_banked.main_bet.upper()
            return f"MINIMUM {name}", f"MAXIMUM {name}"
        return "MINIMUM WAGER", "MAXIMUM WAGER"


def money(amount: Decimal | None, currency: str) -> str:
    """An amount as the pages write it ("$1,234.50"); a limit the posting leaves out is "" (a sign prints only
    what a player can rely on: what the source leaves unknown is said on the compliance pages)."""
    return format_money(amount, currency, missing="")


def limits_text(sign: Sign) -> tuple[str, str]:
    return money(sign.min_wager, sign.currency), money(sign.max_wager, sign.currency)


def limits_shown(sign: Sign, labels: tuple[str, str]) -> list[tuple[str, str]]:
    """(label, amount) of the table limits the posting states, the minimum first; one left out is not shown."""
    return [(label, amount) for label, amount in zip(labels, limits_text(sign)) if amount]
