"""This installation as a witness of other transparency logs (C2SP tlog-witness; docs/audit.md, "Witnesses").

A witness cosigns a log's checkpoint only when it is consistent with the last one it cosigned of that log, so a
log that shows two different histories to two parties is caught by anyone holding both. ``logs`` reads which logs
it trusts (settings.WITNESS_LOGS, plain Python), ``keys`` its own key, ``services`` the add-checkpoint exchange,
``selectors`` what it last cosigned, ``views`` the HTTP doors (/witness/...).
"""
