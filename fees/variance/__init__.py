"""Where the money goes missing: the reconciliations summed up (``services.refresh``), the report and its
drill-down (``selectors``), the short hands both read (``hands``) and the plain statistics (``stats``)."""
