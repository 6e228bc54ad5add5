"""``python -m demo.files``: write the demo day's files (after ``manage.py load_demo``)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
django.setup()

from demo.files import write  # noqa: E402  (after Django is set up)

for path in write():
    print(path)
