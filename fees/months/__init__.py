"""Months of the ledger: the rounds' and entries' month partitions (``partitions``), closing a month and reopening
it (``services``), and what the ledger asks of closed months (``selectors``)."""
