# The release this code is; audit exports record it (with the git commit when there is one) as their generator.
__version__ = "0.6.0"

# The Celery app is loaded when Django starts (CardroomConfig.ready) and by `celery -A cardroom`, which finds
# cardroom.celery itself: importing a plain module of this package (cardroom.values) loads neither.
__all__ = ["__version__"]
