from .celery import app as celery_app

# The release this code is; audit exports record it (with the git commit when there is one) as their generator.
__version__ = "0.6.0"

__all__ = ["__version__", "celery_app"]
