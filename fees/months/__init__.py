"""Months of the ledger: the rounds' and entries' month partitions (``partitions``), closing a month and reopening
it (``services``), what the ledger asks of closed months (``selectors``), closing the months due each night
(``nightly``) and saying in the inbox why one stays open (``held``), and removing old archives (``retention``)."""
