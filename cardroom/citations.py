"""A citation as a person reads it (pure: no Django).

The seed's citations locate a passage in the transcribed source by line ("... heading (seed line 2116)") so that a
maintainer can find it again; the line numbers mean nothing to a reader of the document itself, so pages and signs
leave them out. The stored citation, the API and the exports keep them whole.
"""

from __future__ import annotations

import re

_LOCATOR = re.compile(r"\s*\((?:seed )?lines? \d[\d\s,\-–]*(?:and \d+)?\)|,? seed lines? \d[\d\-–]*")


def readable_citation(citation: str) -> str:
    """``"'Collection Rates' heading (seed line 2116)"`` -> ``"'Collection Rates' heading"``."""
    return _LOCATOR.sub("", citation or "").strip()
