"""Fee engine throughput: California rounds quoted by fees.engine, against a bare-bisect baseline.

    .venv/bin/python benchmarks/engine_quotes.py [--rounds 20000] [--repeats 7]

No Django and no database: GEGA-002888 options 43, 46, 39 and 1 are typed here from the source document
(the Face Up Pai Gow Poker packet, 'Collection Rates Schedules'). Each timed run quotes --rounds 6-spot
rounds with varied amounts (some bonus and backline bets, some players with two spots), built before the
clock starts. Option 43's player-dealer column stops at $300 of total table action, so its six base wagers
stay small ($1-$45); option 46 (open-ended) gets base wagers across all its tiers ($1-$1,200). The baseline
does only what no engine can avoid: one ``bisect`` over the same tiers' upper bounds (Decimals) per lookup
the engine makes (one per base wager where the player fee is per base wager, plus one for the total table
action), for the same amounts. Engine and baseline runs are interleaved so that load from other processes
falls on both alike.

Targets (the issue): >= 100,000 quotes/s for a 6-spot round of option 43, and within 5x of the baseline.
Also printed, not targeted: the quotes with their FeeLines read (``quote.lines``, built on first read, as the
API's explanation does), the same end to end with the Wagers built from strings inside the timed loop, and
the other options. At the smoke size (BENCH_SMOKE=1) 200 rounds, one run each.
"""

import argparse
import random
import statistics
import sys
import time
from bisect import bisect_left
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fees.engine import Option, Schedule, Tier, Wager, quote_california  # noqa: E402
from support import figure, sized  # noqa: E402  (benchmarks/ is on sys.path as a script)

SPOTS = 6
THROUGHPUT_TARGET = 100_000
RATIO_TARGET = 5.0


def tiers(kind, measure, rows, start=1):
    """rows: (lower, upper or None, fee) as printed, in printed order."""
    payer = "player" if kind == "player" else "player_dealer"
    out = []
    for i, (lower, upper, fee) in enumerate(rows, start):
        bounds = f"${lower:,}+" if upper is None else f"${lower:,}-${upper:,}"
        out.append(Tier(i, kind, payer, measure, Decimal(lower), None if upper is None else Decimal(upper),
                        Decimal(fee), "before_deal", bounds, f"${fee}"))
    return tuple(out)


def flat(kind, fee, order):
    payer = "player" if kind == "player" else "player_dealer"
    return (Tier(order, kind, payer, "flat", None, None, Decimal(fee), "before_deal", "", f"${fee}"),)


PLAYER_100 = [(1, 100, 1), (101, 200, 2), (201, 300, 3), (301, 400, 4), (401, None, 5)]
PLAYER_200 = [(1, 200, 1), (201, 400, 2), (401, 600, 3), (601, 800, 4), (801, None, 5)]
SCHEDULE = Schedule(
    code="GEGA-002888", title="California Games Collection Rates", version=1, effective_from=None,
    currency="USD", citation="Face Up Pai Gow Poker rules, 'Collection Rates Schedules'",
    options=(
        Option(1, "total_table_action", "", "options 1-38 table, option 1", None,
               tiers("player_dealer", "total_table_action",
                     [(1, 10, 1), (11, 50, 2), (51, 100, 3), (101, 200, 4), (201, None, 5)])
               + flat("player", 0, 6)),
        Option(39, "base_wager_flat_player_dealer", "", "options 39-42 table, option 39", None,
               tiers("player", "base_wager", PLAYER_100) + flat("player_dealer", 1, 6)),
        Option(43, "base_wager_and_table_action", "", "options 43-49 table, option 43", None,
               tiers("player", "base_wager", PLAYER_100)
               + tiers("player_dealer", "total_table_action", [(1, 100, 1), (101, 300, 3)], start=6)),
        Option(46, "base_wager_and_table_action", "", "options 43-49 table, option 46", None,
               tiers("player", "base_wager", PLAYER_200)
               + tiers("player_dealer", "total_table_action", [(1, 100, 1), (101, None, 2)], start=6)),
    ),
)

# Base wager ranges per option: option 43's player-dealer column stops at $300 of total table action, so its
# six spots must stay within it; the others are open-ended and get amounts across every tier.
AMOUNTS = {43: (1, 45, 300), 46: (1, 1200, None), 39: (1, 600, None), 1: (1, 150, None)}


def make_rounds(option, count, seed=2888):
    rng = random.Random(seed + option)
    low, high, cap = AMOUNTS[option]
    rounds = []
    while len(rounds) < count:
        spots = []
        for spot in range(SPOTS):
            player = f"p{spot + 1}" if rng.random() > 0.2 else f"p{spot}"  # now and then a second spot
            player = player if player != "p0" else "p1"
            cents = rng.choice(("", "", "", ".50", ".25"))
            base = f"{rng.randint(low, high)}{cents}"
            bonus = str(rng.randint(1, max(1, high // 10))) if rng.random() < 0.3 else "0"
            spots.append((player, base, bonus, rng.random() < 0.1))
        tta = sum(Decimal(b) + Decimal(x) for _, b, x, _ in spots)
        if cap is None or tta <= cap:
            rounds.append(spots)
    return rounds


def engine_run(option, rounds, read_lines=False):
    wagers = [tuple(Wager(p, b, x, back) for p, b, x, back in spots) for spots in rounds]

    if read_lines:
        def run():
            for round_ in wagers:
                quote_california(SCHEDULE, option, round_).lines
    else:
        def run():
            for round_ in wagers:
                quote_california(SCHEDULE, option, round_)
    return run


def end_to_end_run(option, rounds):
    def run():
        for spots in rounds:
            quote_california(SCHEDULE, option, [Wager(p, b, x, back) for p, b, x, back in spots]).lines
    return run


def baseline_run(option, rounds):
    """Only the bisects the engine has to do, over the same upper bounds, for the same amounts."""
    opt = SCHEDULE.option(option)
    player_uppers = tuple(t.upper for t in opt.tiers if t.fee_kind == "player" and t.upper is not None)
    pd_uppers = tuple(t.upper for t in opt.tiers if t.fee_kind == "player_dealer" and t.upper is not None)
    per_wager = any(t.fee_kind == "player" and t.measure == "base_wager" for t in opt.tiers)
    by_tta = any(t.fee_kind == "player_dealer" and t.measure == "total_table_action" for t in opt.tiers)
    prepared = []
    for spots in rounds:
        bases = tuple(Decimal(b).quantize(Decimal("0.01")) for _, b, _, _ in spots) if per_wager else ()
        tta = sum(Decimal(b) + Decimal(x) for _, b, x, _ in spots).quantize(Decimal("0.01"))
        prepared.append((bases, tta))
    lookups = (SPOTS if per_wager else 0) + (1 if by_tta else 0)

    if by_tta:
        def run():
            for bases, tta in prepared:
                for base in bases:
                    bisect_left(player_uppers, base)
                bisect_left(pd_uppers, tta)
    else:
        def run():
            for bases, _ in prepared:
                for base in bases:
                    bisect_left(player_uppers, base)
    return run, lookups


def rate(run, count):
    started = time.perf_counter()
    run()
    return count / (time.perf_counter() - started)


def measure(runs, count, repeats):
    """Rounds per second of each run, ``repeats`` times, the runs interleaved so that load from other
    processes falls on all of them alike. Returns each run's list of rates."""
    for run in runs:
        run()  # warm up (and compile the option's tier groups)
    rates = [[] for _ in runs]
    for _ in range(repeats):
        for i, run in enumerate(runs):
            rates[i].append(rate(run, count))
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=sized(20_000, 200))
    parser.add_argument("--repeats", type=int, default=sized(7, 1))
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}; {args.rounds:,} six-spot rounds per run, {args.repeats} runs each, "
          "interleaved. Rounds (quotes) per second, best / median.\n")
    header = (f"{'option':>6}  {'engine':>17}  {'engine + lines':>17}  {'bisect baseline':>19}  {'lookups':>7}  "
              f"{'ratio':>6}  {'end-to-end':>10}")
    print(header)
    print("-" * len(header))
    results = {}
    for option in (43, 46, 39, 1):
        rounds = make_rounds(option, args.rounds)
        baseline, lookups = baseline_run(option, rounds)
        runs = [engine_run(option, rounds), engine_run(option, rounds, read_lines=True), baseline,
                end_to_end_run(option, rounds)]
        engine, with_lines, base, end_to_end = measure(runs, len(rounds), args.repeats)
        # The ratio of each interleaved pair (baseline rate / engine rate), then the median of those.
        ratio = statistics.median(b / e for b, e in zip(base, engine))
        ratio_lines = statistics.median(b / e for b, e in zip(base, with_lines))
        results[option] = (max(engine), statistics.median(engine), ratio, statistics.median(with_lines), ratio_lines)

        def pair(rates):
            return f"{max(rates):>8,.0f} / {statistics.median(rates):>7,.0f}"
        print(f"{option:>6}  {pair(engine)}  {pair(with_lines)}  {pair(base):>19}  {lookups:>7}  {ratio:>5.2f}x  "
              f"{statistics.median(end_to_end):>10,.0f}")
    best, median, ratio, lines_median, ratio_lines = results[43]
    print()
    print("engine: quote_california on prebuilt Wagers (fees and totals; FeeLines are built when .lines is read).")
    print("engine + lines: the same, reading quote.lines (what the API's explanation does).")
    print("ratio: median over the interleaved runs of baseline rate / engine rate.")
    print("end-to-end: median; Wagers built from strings inside the loop, quote and lines (no Django).")
    figure("option 43, engine quotes/s (median)", median, "quotes/s", (">=", THROUGHPUT_TARGET))
    figure("option 43, engine quotes/s (best)", best, "quotes/s")
    figure("option 43, engine against the bisect baseline", ratio, "x", ("<=", RATIO_TARGET))
    figure("option 43, engine + lines quotes/s (median)", lines_median, "quotes/s")
    figure("option 43, engine + lines against the baseline", ratio_lines, "x")


if __name__ == "__main__":
    sys.exit(main())
