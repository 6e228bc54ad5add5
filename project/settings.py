"""Settings for cardroom.

With no environment at all this runs on SQLite with Celery tasks executed in-process, so a newcomer gets
a working service from one command. ``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis)
switch to the production set-up. Settings are parsed strictly: a malformed value stops start-up.
"""

import datetime
import os
import re
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    if value not in ("True", "False"):
        raise ImproperlyConfigured(f"{name} must be 'True' or 'False', not {value!r}")
    return value == "True"


def env_int(name, default, minimum=0):
    value = os.environ.get(name)
    if value is None:
        return default
    if not (value.isascii() and value.isdigit()) or int(value) < minimum:
        raise ImproperlyConfigured(f"{name} must be a whole number of at least {minimum}, not {value!r}")
    return int(value)


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is False")
    SECRET_KEY = "development-only-secret-key-do-not-use-in-production"
if not DEBUG and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-")):
    # What Django's deploy check calls a weak key (security.W009): refused here, not merely warned about.
    raise ImproperlyConfigured(
        "SECRET_KEY must be a generated key of at least 50 characters, at least 5 of them different, when DEBUG "
        "is False: python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h]

# Production is HTTPS only. SECURE_SSL_REDIRECT=False is for a plain-HTTP server that nothing outside this host
# reaches (bin/test's live stage, the benchmarks); HSTS can be shortened or (0) switched off while moving over.
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
# Behind a proxy that terminates TLS: the header it sets to "https" on secure requests, e.g. X-Forwarded-Proto.
# Trusted only when set (the proxy must overwrite the header clients send).
if proxy_ssl_header := os.environ.get("SECURE_PROXY_SSL_HEADER"):
    if not re.fullmatch(r"[A-Za-z0-9-]+", proxy_ssl_header):
        raise ImproperlyConfigured(f"SECURE_PROXY_SSL_HEADER must be a header name, not {proxy_ssl_header!r}")
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + proxy_ssl_header.upper().replace("-", "_"), "https")
# Origins allowed to send forms here besides the service's own address, e.g. https://cardroom.example.org when a
# proxy in front makes requests look like plain HTTP.
# A refused CSRF token under /api/ answers in the API's JSON error format (a page elsewhere).
CSRF_FAILURE_VIEW = "cardroom.api.errors.csrf_failure"
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]
if bad_origins := [o for o in CSRF_TRUSTED_ORIGINS if not re.fullmatch(r"https?://[^/]+", o)]:
    raise ImproperlyConfigured(f"CSRF_TRUSTED_ORIGINS are scheme://host[:port], not {', '.join(bad_origins)}")

INSTALLED_APPS = [
    "cardroom.apps.AdminConfig",  # django.contrib.admin, for administrators only
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "simple_history",
    "axes",
    # A second factor (cardroom.second_factor): authenticator apps (TOTP), recovery codes, WebAuthn keys.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "django_otp_webauthn",
    "django_htmx",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from here, not a CDN
    "rules",  # {% load rules %} in templates
    # Dependencies run one way: cardroom <- fees <- compliance <- signage <- exports <- console (.importlinter).
    "cardroom",
    "fees",
    "compliance",
    "signage",
    "exports",
    "demo",  # load_demo: the demo floor and its month of play, above the apps it fills
    "console",  # the role pages; last, so the apps' own templates come first
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # With DEBUG on, a page's 404 says what was not found, as with DEBUG off (not Django's list of URL patterns).
    "cardroom.middleware.NotFoundPagesMiddleware",
    # Content-Security-Policy on every page (see CONTENT_SECURITY_POLICY below).
    "cardroom.middleware.ContentSecurityPolicyMiddleware",
    # Before anything reads the request: NUL in the address, bodies over the view's limit (cardroom.middleware).
    "cardroom.middleware.RequestGuardMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): whether this session passed its second factor (django-otp).
    "django_otp.middleware.OTPMiddleware",
    # Someone who owes a second factor reaches only the pages that take it (cardroom.middleware).
    "cardroom.middleware.SecondFactorMiddleware",
    # Cache-Control: no-store, private on every answer to someone signed in.
    "cardroom.middleware.PrivateAnswersMiddleware",
    # A query stopped by STATEMENT_TIMEOUT_MS: a 503 page (or API error) saying so, not a server error.
    "cardroom.middleware.TimeoutMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: answers a locked-out login (see AXES_* below) whichever view it reached.
    "axes.middleware.AxesMiddleware",
]

if not DEBUG:
    # Production serves static files (admin, API docs) itself; in development runserver does.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "project.urls"
WSGI_APPLICATION = "project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "console.context.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves requests side by side (runserver's threads). A transaction takes SQLite's write
    # lock when it begins and waits up to 20 s for it (Django's advice): one that read first and then wrote could
    # not wait for another writer, and failed at once with "database is locked" (issue 41).
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# How long one database statement of a web request may run, in milliseconds, on PostgreSQL (statement_timeout;
# 0: no limit): a request that would run longer is stopped and answered 503, before gunicorn's 30 s kills its
# worker. Only processes that serve web requests set it (project.wsgi; cardroom.timeouts): Celery workers and
# management commands (exports, reconciling a month, migrations) run as long as they need.
STATEMENT_TIMEOUT_MS = env_int("STATEMENT_TIMEOUT_MS", 20_000)
# The most gaming days one list of the ledger may span (GET ledger/entries/, ledger/rounds/): a list names its
# days, and reads only those days' partitions (cardroom.api.filters.DayBounded).
LEDGER_LIST_MAX_DAYS = env_int("LEDGER_LIST_MAX_DAYS", 31, minimum=1)
# The ledger's covering indexes (INCLUDE) serve PostgreSQL's index-only scans; SQLite builds them on their key
# columns alone, which is all it can use.
# otp_webauthn.E030 asks for a fixed list of WebAuthn origins: ours is the page's own (cardroom.second_factor).
SILENCED_SYSTEM_CHECKS = ["models.W040", "otp_webauthn.E030"]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "America/Los_Angeles")
USE_I18N = True
USE_TZ = True

# Request bodies: Django's default limit, raised per view where a larger body is the job (bulk ledger posts,
# bundle uploads, the import page's files; see cardroom.middleware). Decided from Content-Length before the body is
# read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
LEDGER_BULK_MAX_BYTES = int(os.environ.get("LEDGER_BULK_MAX_BYTES", 16 * 1024 * 1024))
EXPORT_VERIFY_MAX_BYTES = env_int("EXPORT_VERIFY_MAX_BYTES", 1024 * 1024 * 1024, minimum=1)
# A room's file of rounds and collections at the import page (docs/imports.md): a busy month as CSV is ~110 MB.
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 256 * 1024 * 1024, minimum=1)
# Columns a file of records may have (a room's system writes a dozen or two): the mapping page offers each.
IMPORT_MAX_COLUMNS = env_int("IMPORT_MAX_COLUMNS", 200, minimum=2)
# An uploaded file larger than this is streamed to a temporary file as it arrives (Django's
# TemporaryFileUploadHandler), never held whole in memory: a bundle, a month's records.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# What an uploaded bundle may claim before it is unpacked (cardroom.bundle.Limits, docs/exports.md): a real one
# holds ~30 files; a busy room's year (benchmarks/README.md: ~1.8 GB zipped) unzips to an estimated 30-70 GB, and
# its files unzip at under ~50:1 where a zip bomb reaches ~1,000:1.
EXPORT_VERIFY_MAX_MEMBERS = env_int("EXPORT_VERIFY_MAX_MEMBERS", 1000, minimum=1)
EXPORT_VERIFY_MAX_TOTAL_BYTES = env_int("EXPORT_VERIFY_MAX_TOTAL_BYTES", 64 * 1024 ** 3, minimum=1)
EXPORT_VERIFY_MAX_RATIO = env_int("EXPORT_VERIFY_MAX_RATIO", 200, minimum=1)

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# Files made by jobs (sign batches, export bundles). With several hosts, point this at shared storage.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "var" / "media")
MEDIA_URL = "media/"
# Closed months of the ledger (manage.py close_month): a folder a month, its signed bundles and partition files.
LEDGER_ARCHIVE_DIR = Path(os.environ.get("LEDGER_ARCHIVE_DIR") or BASE_DIR / "var" / "archive")
# The nightly close (fees.tasks.close_due_months, docs/scaling.md "Closing a month") closes a month this many days
# after its last day, once its last table-days are reconciled: time for late entries and corrections to come in.
LEDGER_CLOSE_AFTER_DAYS = env_int("LEDGER_CLOSE_AFTER_DAYS", 10, minimum=1)
# How long a closed month's archive folder is kept (manage.py remove_old_archives removes older ones, each logged);
# unset: kept for good. Days counted from the closing.
LEDGER_ARCHIVE_RETENTION_DAYS = env_int("LEDGER_ARCHIVE_RETENTION_DAYS", None, minimum=1)
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# Change reasons ("why") are as long as they need to be.
SIMPLE_HISTORY_HISTORY_CHANGE_REASON_USE_TEXT_FIELD = True
# History is read, never "reverted": a revert page would change data around the services and the audit log.
SIMPLE_HISTORY_REVERT_DISABLED = True

# Where the regulatory seed data lives (kept in the repository, never read from ../shared).
SEED_DATA_DIR = BASE_DIR / "seed"
# Where the public reaches this service: the QR code on every printed sign opens a page under it.
PUBLIC_BASE_URL = os.environ.get("PUBLIC_BASE_URL", "http://127.0.0.1:8000")
# Email (cardroom.notify: review steps, compliance.tasks.send_daily_digest): sent by SMTP with EMAIL_PORT,
# EMAIL_HOST_USER, EMAIL_HOST_PASSWORD and EMAIL_USE_TLS when EMAIL_HOST is set; without it, kept as files in
# EMAIL_FILE_PATH (var/mail/, one file per email, to read with any text viewer), never printed among a command's
# output (bin/serve's first run sends a dozen while it loads the demo).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.filebased.EmailBackend")
EMAIL_FILE_PATH = Path(os.environ.get("EMAIL_FILE_PATH") or BASE_DIR / "var" / "mail")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cardroom@localhost")
# How far back a new schedule version may take effect (fees.models.publication.earliest_problem): a retroactive change
# reprices every round recorded since its date, so one reaching back further is refused as a mistake (room policy).
RETROACTIVE_MAX_DAYS = env_int("RETROACTIVE_MAX_DAYS", 366, minimum=1)
# The Ed25519 key that signs audit export bundles (cardroom/keys.py): SIGNING_KEY is its PEM, or base64 of the
# raw 32 bytes; without it, the key is read from SIGNING_KEY_FILE, created there (0600) when missing. With
# several hosts every one must sign with the same key: set SIGNING_KEY, or point SIGNING_KEY_FILE at shared storage.
SIGNING_KEY = os.environ.get("SIGNING_KEY", "")
SIGNING_KEY_FILE = Path(os.environ.get("SIGNING_KEY_FILE") or BASE_DIR / "var" / "signing-key.pem")
# The root of trust (docs/audit.md, "Keys"): the fingerprint (SHA256:<64 hex>) of the first key this installation
# signed with, from which every later key's endorsement is checked. Configuration, never the database: a row written
# there cannot make itself the root. Unset, the configured signing key is its own root; after a key rotation set it
# to the first key's fingerprint (record_signing_key says so), or bundles signed before the rotation stop verifying.
SIGNING_ROOT = os.environ.get("SIGNING_ROOT", "").strip()
if SIGNING_ROOT and not re.fullmatch(r"SHA256:[0-9a-f]{64}", SIGNING_ROOT):
    raise ImproperlyConfigured(f"SIGNING_ROOT must be a key's fingerprint, SHA256: and 64 lower-case hex digits (as "
                               f"GET /api/v1/audit/keys names it), not {SIGNING_ROOT!r}")
# Witnesses (docs/audit.md, "Submitting to witnesses"): each signed checkpoint is submitted to them (C2SP
# tlog-witness) and their cosignatures travel with the exports. WITNESSES: one witness a line (or separated by ';'),
# its verifier key (name+hex id+base64 of 0x04 and its Ed25519 key, as its operator publishes it) and its submission
# prefix URL. A witness down longer than WITNESS_DOWN_WARNING_AFTER hours is a warning in the inbox; each request
# waits WITNESS_TIMEOUT seconds.


def _witnesses(text):
    from cardroom.tlog.witnessed import read_config

    try:
        return [{"name": w.name, "verifier_key": w.verifier_key, "url": w.url} for w in read_config(text)]
    except ValueError as error:
        raise ImproperlyConfigured(f"WITNESSES: {error}") from None


WITNESSES = _witnesses(os.environ.get("WITNESSES", ""))
WITNESS_DOWN_WARNING_AFTER = env_int("WITNESS_DOWN_WARNING_AFTER", 6, minimum=1)
WITNESS_TIMEOUT = env_int("WITNESS_TIMEOUT", 10, minimum=1)

# The name the audit log's checkpoints give it (their origin line: "<AUDIT_LOG_ORIGIN>/<chain>"), as regulators keep it
# beside the root of trust and witnesses know it (docs/audit.md, "The log's name"). A witness keeps one record per
# origin, so every installation a witness serves needs a name of its own, e.g. "marysville.example.com/audit"; the
# default suits an installation without witnesses. Set it before the first checkpoint is signed: once one is, another
# name is refused (cardroom.E003 at start-up and in bin/migrate; the service signs nothing under it).
from cardroom.tlog.origins import base_problem as _origin_problem  # noqa: E402  (plain Python)

AUDIT_LOG_ORIGIN = os.environ.get("AUDIT_LOG_ORIGIN", "cardroom/audit").strip()
if _origin_problem(AUDIT_LOG_ORIGIN):
    raise ImproperlyConfigured(f"AUDIT_LOG_ORIGIN is a log's name: {_origin_problem(AUDIT_LOG_ORIGIN)}")

# This installation as a witness of other logs (cardroom/witness/, docs/audit.md "Witnesses"; C2SP tlog-witness).
# WITNESS_NAME is the witness's key name, a schema-less URL such as "witness.example.org/regulator"; empty, this
# installation is no witness and /witness/ answers 404. Its own Ed25519 key is WITNESS_KEY (PEM, or base64 of the
# raw 32 bytes), else WITNESS_KEY_FILE, created there (0600) when missing, as SIGNING_KEY; it must not be the signing
# key. WITNESS_LOGS: the logs it cosigns, entries separated by ";" or newlines, each a log's exact base origin (its
# AUDIT_LOG_ORIGIN) and its verifier key(s) separated by spaces: "room.example/audit cardroom+1a2b3c4d+AT...=; ..."
# (cardroom.witness.logs; only <base>/installation and <base>/establishment:<id> are accepted, never a prefix).
WITNESS_NAME = os.environ.get("WITNESS_NAME", "").strip()
if WITNESS_NAME and (any(c.isspace() or c == "+" for c in WITNESS_NAME) or not WITNESS_NAME.isprintable()):
    raise ImproperlyConfigured(f"WITNESS_NAME is a key name, a schema-less URL with no spaces and no '+' (e.g. "
                               f"witness.example.org/regulator), not {WITNESS_NAME!r}")
WITNESS_KEY = os.environ.get("WITNESS_KEY", "")
WITNESS_KEY_FILE = Path(os.environ.get("WITNESS_KEY_FILE") or BASE_DIR / "var" / "witness-key.pem")
try:
    from cardroom.witness.logs import parse as _parse_witness_logs

    WITNESS_LOGS = _parse_witness_logs(os.environ.get("WITNESS_LOGS", ""))
except ValueError as _error:
    raise ImproperlyConfigured(f"WITNESS_LOGS: {_error} (entries '<base origin> <verifier key> ...' separated by "
                               "';'; docs/audit.md, 'Witnesses')") from None

# A second factor (cardroom.second_factor): administrators and regulators must have one; compliance officers too
# where MFA_REQUIRED_FOR_COMPLIANCE (by default whenever DEBUG is False); anyone else may. A session that owes one
# reaches nothing but the pages that take it; HTTP Basic is refused to those who have or must have one (tokens
# instead); a role granted that makes an account need one revokes its tokens and sessions (cardroom.credentials).
MFA_REQUIRED_FOR_COMPLIANCE = env_bool("MFA_REQUIRED_FOR_COMPLIANCE", not DEBUG)
OTP_TOTP_ISSUER = "cardroom"
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # the admin shows no device's secret
# WebAuthn keys (django-otp-webauthn, its scripts served from here): for the host the page was opened at, as a
# second factor only (never instead of the password).
OTP_WEBAUTHN_RP_NAME = "cardroom"
OTP_WEBAUTHN_RP_ID_CALLABLE = "cardroom.second_factor.relying_party"
OTP_WEBAUTHN_HELPER_CLASS = "cardroom.second_factor.WebAuthnHelper"
OTP_WEBAUTHN_ALLOW_PASSWORDLESS_LOGIN = False

# Passwords set through the admin or any password form: Django's four checks, at least 12 characters.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Failed logins are counted per account and per address by django-axes, in the authentication backend, so
# every door that checks a password is covered: the admin's login, the session logins and HTTP Basic on the
# API. At LOGIN_FAILURE_LIMIT failures the account is locked (from everywhere) for LOGIN_COOLOFF_MINUTES; an
# address is locked, whatever account it tries, only at LOGIN_ADDRESS_FAILURE_LIMIT failures, so guesses at one
# account do not lock the others out of a shared address (cardroom.authentication.LoginThrottleHandler). A locked
# login answers 429 with Retry-After (cardroom.authentication) and its password is not checked.
# Named permissions (cardroom.permissions) answer user.has_perm(name, obj) through django-rules.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "rules.permissions.ObjectPermissionBackend",
                           "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 50, minimum=1)
# Each parameter is counted on its own and locks at its own limit: "username" at AXES_FAILURE_LIMIT (the account
# from every address, so from any one address too), "ip_address" at LOGIN_ADDRESS_FAILURE_LIMIT.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# A session login clears that account's failures from that address, and no one else's (cardroom.authentication).
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "cardroom.authentication.LoginThrottleHandler"
# Attempts refused during a lock are not counted: the lock ends a cool-off after the last checked failure.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "cardroom.authentication.lockout_response"

# What a page may load and run (django-csp; cardroom.middleware): only this service's own scripts, styles, images
# and fonts, nothing inline, no plugins, in no one else's frame, forms sent only here. The favicon is a data: URL.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}
# Added on the API docs pages alone: Swagger UI's and Redoc's inline start-up script and styles, Redoc's worker.
CONTENT_SECURITY_POLICY_API_DOCS = {
    "script-src": ["'self'", "'unsafe-inline'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "worker-src": ["'self'", "blob:"],
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First: its challenge (WWW-Authenticate: Basic realm="cardroom") makes a request without valid
        # credentials answer 401 rather than 403.
        "cardroom.authentication.BasicAuthentication",
        # A session that owes its second factor is refused (cardroom.authentication).
        "cardroom.authentication.SessionAuthentication",
        # For machines (floor terminals, integrations): "Authorization: Token <key>"; refused for an account that must
        # have a second factor and has none set up (cardroom.credentials).
        "cardroom.authentication.TokenAuthentication",
    ],
    # Each view names the permission its actions need (cardroom.api.permissions).
    "DEFAULT_PERMISSION_CLASSES": ["cardroom.api.permissions.NamedPermission"],
    # JSON only, read strictly (cardroom.api.parsers); the one upload (exports/verify) declares multipart itself.
    "DEFAULT_PARSER_CLASSES": ["cardroom.api.parsers.StrictJSONParser"],
    "DEFAULT_FILTER_BACKENDS": [
        "cardroom.api.filters.FilterBackend",  # django-filter's, reading true/false strictly
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "cardroom.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    # drf-spectacular's, documenting every operation's error answers (cardroom.api.schema).
    "DEFAULT_SCHEMA_CLASS": "cardroom.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "cardroom.api.errors.exception_handler",
    # Money travels as decimal strings, never floats.
    "COERCE_DECIMAL_TO_STRING": True,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "cardroom API",
    "DESCRIPTION": (
        "A card room's regulatory truth as versioned data: collection-rate schedules, games, approvals and "
        "paytables. Amounts are decimal strings in the currency named beside them."
    ),
    "VERSION": "1",
    # Swagger UI and Redoc from drf-spectacular-sidecar: the docs work on a card room's offline network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",  # and templates/drf_spectacular/redoc.html drops its Google fonts and CDN logo
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema's own warnings are not deployment settings: check --deploy stays about those.
    "ENABLE_DJANGO_DEPLOY_CHECK": False,
    # A route repeated with a trailing slash is one operation (and one operation id), not two.
    "PREPROCESSING_HOOKS": ["cardroom.api.schema.without_aliases"],
    "ENUM_NAME_OVERRIDES": {
        "ApprovalStatusEnum": "cardroom.models.Approval.Status",
        "ApprovalScopeEnum": "cardroom.models.Approval.Scope",
        "ConditionStatusEnum": "cardroom.models.ApprovalCondition.Status",
        "VersionStatusEnum": "fees.models.ScheduleVersion.Status",
    },
}

# Celery: with no broker configured, tasks run in-process (eagerly) so the embedded default needs nothing.
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
# The in-memory broker is never used when tasks run eagerly; naming it keeps kombu from guessing a host.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "" if CELERY_TASK_ALWAYS_EAGER else CELERY_BROKER_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
# A task is acknowledged when it ends, not when a worker takes it, and a worker takes one at a time: a worker
# killed mid-task leaves its task (and nothing it had merely reserved) to be delivered again (issue 23).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis hands an unacknowledged task to another worker after this long: a reconciliation of a lost worker runs
# again within it. A job still running then is delivered twice; its heartbeat makes the second delivery stand
# back (cardroom.jobs.run).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 600, minimum=60)}
# Jobs (cardroom.jobs): a running job's heartbeat every CELERY_JOB_HEARTBEAT seconds; one silent for
# CELERY_JOB_STALE seconds lost its worker and is queued again, up to CELERY_JOB_ATTEMPTS starts; a job queued
# for CELERY_JOB_RESEND seconds that no worker took is sent again (cardroom.tasks.recover_jobs, every minute).
CELERY_JOB_HEARTBEAT = env_int("CELERY_JOB_HEARTBEAT", 15, minimum=1)
CELERY_JOB_STALE = env_int("CELERY_JOB_STALE", 120, minimum=2)
CELERY_JOB_ATTEMPTS = env_int("CELERY_JOB_ATTEMPTS", 3, minimum=1)
CELERY_JOB_RESEND = env_int("CELERY_JOB_RESEND", 900, minimum=60)
# Run `celery -A project beat` beside the worker for these.
CELERY_BEAT_SCHEDULE = {
    # Every minute: jobs whose worker was lost are queued again (or failed, saying why); lost sends are resent.
    "jobs-recover": {
        "task": "cardroom.tasks.recover_jobs",
        "schedule": 60.0,
    },
    # Nightly, after the gaming day closes: reconcile every table with activity on the previous gaming day.
    "ledger-reconcile-previous-gaming-day": {
        "task": "fees.tasks.reconcile_previous_gaming_day",
        "schedule": crontab(hour=7, minute=0),
    },
    # Daily: the rounds' month partitions a year ahead (fees.months.partitions), long before a round can need one.
    "ledger-round-partitions": {
        "task": "fees.tasks.ensure_round_partitions",
        "schedule": crontab(hour=6, minute=45),
    },
    # Nightly, after the reconciliation: close each month LEDGER_CLOSE_AFTER_DAYS days after it ended, its last days
    # reconciled first (fees.months.nightly; PostgreSQL only, and as the tables' owner: see docs/scaling.md).
    "ledger-close-due-months": {
        "task": "fees.tasks.close_due_months",
        "schedule": crontab(hour=7, minute=15),
    },
    # Nightly: validate every table's current posting, every approval and every published schedule version.
    "compliance-validate-everything": {
        "task": "compliance.tasks.validate_everything",
        "schedule": crontab(hour=7, minute=30),
    },
    # Hourly: a signed checkpoint of every audit chain that grew (cardroom.transparency), refused and alarmed
    # when a chain no longer agrees with the checkpoints already signed.
    "audit-sign-checkpoints": {
        "task": "cardroom.tasks.sign_checkpoints",
        "schedule": crontab(minute=5),
    },
    # Hourly: every audit chain walked whole (cardroom.tasks.verify_audit_chains); the audit log page re-hashes only
    # the entries written since the last verified one, so an older entry changed is found here.
    "audit-verify-chains": {
        "task": "cardroom.tasks.verify_audit_chains",
        "schedule": crontab(minute=35),
    },
    # Nightly: SQLite's planner statistics (cardroom.tasks.refresh_planner_statistics; PostgreSQL's autovacuum
    # keeps its own), after the nightly reconciliation and validation have written.
    "sqlite-planner-statistics": {
        "task": "cardroom.tasks.refresh_planner_statistics",
        "schedule": crontab(hour=7, minute=50),
    },
    # Daily: each room's compliance officers are emailed the day's new error findings and approvals expiring
    # within 30 days (compliance.tasks.send_daily_digest), after the nightly validation.
    "compliance-daily-digest": {
        "task": "compliance.tasks.send_daily_digest",
        "schedule": crontab(hour=8, minute=0),
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
