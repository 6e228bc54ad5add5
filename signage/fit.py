"""Whether a posting's sign fits its layouts, and what to shorten when it does not; the footer a print stamps.

Below both ``postings`` (a posting whose sign cannot print is refused when it is made) and ``printing`` (a batch
names what it skipped and why): neither imports the other for it.
"""

import dataclasses

from . import content, render

# The longest footer a print is likely to carry (a late reprint by a long user name): a posting is checked with it.
CHECK_STAMP = (999, "x" * 40)


def stamp(number, at, label):
    text = f"Printed {content.local(at)} by {label}."
    if number > 1:
        text += f" Reprint: print {number} of this posting."
    return text


def _notes_that_fit(sign, layout):
    """How many of the sign's notes' characters fit ``layout`` (None: it does not fit even without notes)."""
    def fits(notes):
        try:
            render.fit(dataclasses.replace(sign, notes=notes), layout)
            return True
        except render.SignOverflow:
            return False

    if not fits(""):
        return None
    low, high = 0, len(sign.notes) - 1  # the whole of them does not fit
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fits(sign.notes[:mid]) else (low, mid - 1)
    return low


def overflow(sign, layouts=render.LAYOUTS):
    """What is too long for which of ``layouts``, and by how much, said so that it can be fixed ("" if it fits)."""
    notes, rest = [], []
    for layout in layouts:
        try:
            render.fit(sign, layout)
            continue
        except render.SignOverflow:
            pass
        most = _notes_that_fit(sign, layout) if sign.notes else None
        if most is None:
            rest.append(layout)
        else:
            notes.append(f"at most {most} fit the {layout} sign ({len(sign.notes) - most} too many)")
    said = []
    if notes:
        said.append(f"notes: {len(sign.notes)} characters are too long for the sign: {'; '.join(notes)}.")
    if rest:
        said.append(f"The sign for {sign.game} ({sign.label()}) does not fit the {' or '.join(rest)} layout even at "
                    f"{render.SCALES[-1]:.0%} size{', even without its notes' if sign.notes else ''}: fewer or "
                    "shorter bonus bet limits would make room.")
    return " ".join(said)


def posting_overflow(posting):
    """Why ``posting``'s sign, as it would print when it takes effect, does not fit its layouts ("" if it does)."""
    at = posting.effective_from
    return overflow(content.sign_for(posting, at=at, stamp=stamp(CHECK_STAMP[0], at, CHECK_STAMP[1]),
                                     banner="REPRINT"))


__all__ = ["CHECK_STAMP", "overflow", "posting_overflow", "stamp"]
