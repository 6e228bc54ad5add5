import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardroom.settings")
application = get_wsgi_application()

# This process serves web requests (gunicorn; runserver loads this module too): its queries are time-limited.
from cardroom import timeouts  # noqa: E402

timeouts.serve_web()
