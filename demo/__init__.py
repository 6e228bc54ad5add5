"""The demo: a floor, accounts with published passwords and a month of recorded play (``manage.py load_demo``).

An app of its own above the feature apps it fills (fees, compliance, signage), so that nothing a real installation
runs depends on it. Development only: ``load_demo`` refuses to run unless ``DEBUG=True``.
"""
