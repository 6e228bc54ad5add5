"""Pricing with the published schedules: a quote (``quoting``), its receipt and the receipt's plain format
(``receipts``, ``receipt_format``), and what a draft would change over rounds already played (``repricing``, the
arithmetic; ``impact``, read for a room and a period)."""
