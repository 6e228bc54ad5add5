# The release this code is; audit exports record it (with the git commit when there is one) as their generator.
__version__ = "0.6.0"

# The Celery app is the project's (project/celery.py, loaded with the settings): importing a plain module of this
# package (cardroom.values) loads neither.
__all__ = ["__version__"]
