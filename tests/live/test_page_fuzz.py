"""The pages never answer a server error, whatever is sent (issue 23): the page fuzzer, as test_schema_fuzz.py is the
API's. Against the live service (gunicorn, DEBUG off, the service's database role), as each demo role logged in
through the login page:

1. the pages are found from the URL patterns (console.urls, signage's public pages) by crawling each role's pages
   from its home: every link that resolves to a pattern gives that pattern real path values (rows the role can
   see; the administrator sees every room, so the other rooms' ids are tried by every role too), and hostile ones
   are added (0, 2**63, a slug and a code of no row, a long one); a pattern no crawl reached is tried with the
   hostile values alone, and the report names it;
2. every page is fetched, and every GET form and query parameter found on it (forms' inputs, selects and
   textareas; the query parameters of its links) is sent LIVE_PAGE_FUZZ_EXAMPLES hypothesis-generated
   combinations (10 by default, what bin/test's live stage uses): a field left as the page fills it, omitted,
   repeated, or given a hostile value (NUL, lone surrogates encoded as UTF-8 bytes, invalid UTF-8, huge and
   non-finite numbers, dates at both ends and beyond, impossible dates, a choice the select does not offer, a
   100,000-character value), half of them as htmx asks. A kind of GET form (its action's pattern and fields) and
   a pattern's query parameters are fuzzed once per role: on another row's page they run the same code;
3. then every POST form (its CSRF token kept) the same way, multipart ones with a file of random bytes.

A run fails on any 5xx, naming every failing request (role, method, URL, fields). Left out: the login and logout
forms (failed logins lock 127.0.0.1 through the throttle; a logout ends the session) and /admin/ (Django's own
admin). POSTs write into the live database (a draft discarded, a condition withdrawn): they run after every GET,
the discarding and withdrawing forms last, and conftest.py runs this module after the other live tests but the
schema fuzzer.
"""

import base64
import datetime
import http.client
import os
import re
import secrets
import time
import uuid
from html.parser import HTMLParser
from urllib.parse import parse_qsl, quote, quote_from_bytes, urlsplit

import psycopg
from django_otp.oath import hotp
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from demo.management.commands.load_demo import DEMO_TOTP_SECRET

EXAMPLES = int(os.environ.get("LIVE_PAGE_FUZZ_EXAMPLES", "10"))
ROLES = ("floor", "compliance", "regulator-ca", "admin")
SKIPPED = {"console:login", "console:logout"}
LAST = ("console:compliance-discard", "console:compliance-condition-withdraw")  # they remove what others use
PER_PATTERN = 3  # concrete URLs kept per pattern and role: a 200-table floor is one table page, three times

HOSTILE_PATH = {"int": ["0", str(2**63), str(10**30)], "slug": ["no-such-room", "a" * 300],
                "string": ["NO-SUCH-CODE", "x" * 300, "%00", "..", "%ED%A0%80"],
                "uuid": [str(uuid.UUID(int=0)), str(uuid.uuid4())]}


# -- the pages' URL patterns -----------------------------------------------------------------------------------------


def patterns():
    """name -> (route, {converter name -> converter kind}) of every page the console and signage serve."""
    from django.urls import URLPattern

    from console import urls as console_urls
    from signage import urls as signage_urls

    found = {}
    for prefix, items in (("console:", console_urls.urlpatterns), ("", signage_urls.public_urlpatterns)):
        for item in items:
            if isinstance(item, URLPattern) and item.name:
                converters = {name: type(c).__name__.replace("Converter", "").lower()
                              for name, c in item.pattern.converters.items()}
                found[prefix + item.name] = (str(item.pattern), converters)
    return found


def resolve(path):
    """(pattern name, path values) of a page's path; None when it is not a page of the patterns."""
    from django.urls import Resolver404
    from django.urls import resolve as django_resolve

    try:
        match = django_resolve(path)
    except Resolver404:
        return None
    name = f"{match.namespace}:{match.url_name}" if match.namespace else match.url_name
    return name, {k: str(v) for k, v in match.kwargs.items()}


def fill(route, values):
    """The path of a route with its values (percent-encoded, a value's own %-escapes kept as sent)."""
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: quote(values[m.group(1)], safe="%"), route)


# -- a logged-in user, with the stdlib (cookies are Secure: kept by hand over http) ----------------------------------


class Session:
    def __init__(self, base):
        self.base = urlsplit(base)
        self.cookies = {}

    def request(self, method, target, body=None, headers=None):
        connection = http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=120)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), **(headers or {})}
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, response.getheader("Location"), content

    def log_in(self, username, password):
        self.request("GET", "/login/")
        status, location, _ = self.post("/login/", [("username", username), ("password", password)])
        assert status == 302 and "login" not in (location or ""), f"{username} could not log in ({status})"
        status, location, _ = self.request("GET", "/")
        if (location or "").startswith("/login/second-factor/"):  # the demo's authenticator app (README)
            now = int(time.time()) // 30
            for step in (now, now + 1):  # a code the device took already is refused: the next step's is accepted
                status, location, _ = self.post("/login/second-factor/", [("code", demo_code(step)), ("next", "/")])
                if status == 302:
                    break
            assert status == 302 and location == "/", f"{username} could not pass the second factor ({status})"

    def post(self, target, pairs, files=()):
        pairs = [("csrfmiddlewaretoken", self.cookies.get("csrftoken", "")), *pairs]
        if files:
            boundary = secrets.token_hex(16)
            body = b"".join(_part(boundary, name, value) for name, value in pairs)
            body += b"".join(_part(boundary, name, content, filename="fuzz.bin") for name, content in files)
            body += f"--{boundary}--\r\n".encode()
            kind = f"multipart/form-data; boundary={boundary}"
        else:
            body, kind = _encode(pairs).encode(), "application/x-www-form-urlencoded"
        return self.request("POST", target, body, {"Content-Type": kind, "X-CSRFToken": self.cookies.get(
            "csrftoken", "")})


def demo_code(step):
    """The demo's authenticator app's code at a 30-second step (load_demo's published secret)."""
    return f"{hotp(base64.b32decode(DEMO_TOTP_SECRET), step):06d}"


def _bytes(value):
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def _encode(pairs):
    """A query string of (name, value) pairs, values as raw bytes (so invalid UTF-8 goes through as sent)."""
    return "&".join(f"{quote(name)}={quote_from_bytes(_bytes(value), safe='')}" for name, value in pairs)


def _part(boundary, name, value, filename=None):
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    return (f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n").encode() + _bytes(value) + b"\r\n"


# -- what a page holds: links and forms -------------------------------------------------------------------------------


def is_html(content):
    return content.lstrip()[:1] == b"<"  # not a sign's PDF, a job's file


class Page(HTMLParser):
    def __init__(self, html):
        super().__init__()
        self.links, self.forms, self._form, self._select = [], [], None, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "form":
            self._form = {"method": (a.get("method") or "get").lower(), "action": a.get("action") or "",
                          "multipart": "multipart" in (a.get("enctype") or ""), "fields": {}, "files": []}
            self.forms.append(self._form)
        elif self._form is not None and a.get("name") and tag in ("input", "select", "textarea", "button"):
            kind = (a.get("type") or "").lower()
            if kind == "file":
                self._form["files"].append(a["name"])
            elif a["name"] != "csrfmiddlewaretoken":
                field = self._form["fields"].setdefault(a["name"], {"values": [], "options": [], "type": kind})
                if tag == "select":
                    self._select = field
                elif kind not in ("checkbox", "radio", "submit") or "checked" in a:
                    field["values"].append(a.get("value", ""))
                if kind in ("checkbox", "radio", "submit") or tag == "button":
                    field["options"].append(a.get("value", "on"))
        elif tag == "option" and self._select is not None:
            self._select["options"].append(a.get("value", ""))
            if "selected" in a:
                self._select["values"].append(a.get("value", ""))

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None


# -- the values --------------------------------------------------------------------------------------------------------

HOSTILE = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", " ", "\x00", "a\x00b", "\ud800", "x\udfff", b"\xff\xfe", b"\xed\xa0\x80", b"\xc0\xaf",
                     str(2**63), str(-(2**63) - 1), "9" * 400, "1e309", "-1e309", "NaN", "Infinity", "-0", "0x10",
                     "0.000000000000000000001", "-1", "1.5", "1,5",
                     "0001-01-01", "9999-12-31", "10000-01-01", "0000-00-00", "2026-02-30", "2026-13-01",
                     "2026-02-29", "-2026-01-01", "2026-00", "9999-12", "0001-01", "2026-1-1",
                     "2026-01-01T25:61", "2026-01-01T00:00:00+99:00", "9999-12-31T23:59:59.999999-12:00",
                     "../../etc/passwd", "<script>x</script>", "' OR 1=1 --", "%00", "\u202e\ufeff"]),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.text(st.characters(codec="utf-8", exclude_categories=()), min_size=1, max_size=8).map(lambda t: t * 20),
    st.just("x" * 100_000),
)


def form_values(data, fields):
    """(name, value) pairs for one example: each field kept, left out, repeated, given a bad choice or a hostile
    value; at least one field differs from the page's own (an unchanged form is the page's own request)."""
    pairs = []
    for name, field in fields.items():
        how = data.draw(st.sampled_from(["keep", "keep", "omit", "hostile", "hostile", "repeat", "choice"]))
        own = field["values"] or field["options"][:1] or [""]
        if how == "keep":
            pairs += [(name, v) for v in own]
        elif how == "repeat":
            pairs += [(name, own[0]), (name, data.draw(HOSTILE))]
        elif how == "choice" and field["options"]:
            pairs.append((name, data.draw(st.sampled_from(field["options"] + ["no-such-choice", "0", "-1"]))))
        elif how != "omit":
            pairs.append((name, data.draw(HOSTILE)))
    if fields and data.draw(st.booleans()):
        pairs.append((data.draw(st.sampled_from(sorted(fields))), data.draw(HOSTILE)))
    return pairs


def as_filled(field):
    """A field's value as the page fills it; an empty one as a person fills it in."""
    value = (field["values"] or field["options"] or [""])[0]
    soon = datetime.date.today() + datetime.timedelta(days=40)
    return value or {"date": soon.isoformat(), "month": soon.strftime("%Y-%m"),
                     "datetime-local": f"{soon.isoformat()}T09:00"}.get(field.get("type"),
                                                                        "Page fuzz: a reason, as a person gives one.")


def run_examples(send, fields):
    @settings(max_examples=EXAMPLES, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def example(data):
        send(form_values(data, fields), data.draw(st.booleans()))
    example()


# -- the run -----------------------------------------------------------------------------------------------------------


class Fuzz:
    def __init__(self, live_url, demo_users, seen=None):
        self.live_url, self.demo_users = live_url, demo_users
        self.patterns = patterns()
        self.seen = dict(seen or {})  # pattern name -> [path values]: real rows, as the crawls find them
        self.failures, self.requests = [], 0
        self.sessions = {}
        # What has been fuzzed, by kind: a pattern's query parameters, a GET form (its action's pattern and its
        # fields), per role. The same form on another row's page runs the same code: it is fetched, not fuzzed again.
        self.fuzzed = set()

    def session(self, role):
        if role not in self.sessions:
            self.sessions[role] = Session(self.live_url)
            self.sessions[role].log_in(role, self.demo_users[role])
        return self.sessions[role]

    def send(self, role, method, target, pairs=(), files=(), htmx=False):
        session = self.session(role)
        headers = {"HX-Request": "true"} if htmx else {}
        if method == "GET":
            query = _encode(pairs)
            status, location, content = session.request("GET", target + ("?" + query if query else ""),
                                                        headers=headers)
        else:
            status, location, content = session.post(target, list(pairs), files)
        self.requests += 1
        if status >= 500:
            shown = [(n, (v[:60] + f"... ({len(v)} chars)") if len(v) > 80 else v) for n, v in pairs]
            self.failures.append(f"{status} as {role}: {method} {target} {shown}{' (htmx)' if htmx else ''}"
                                 f"{' files ' + str([n for n, _ in files]) if files else ''}")
        return status, location, content

    def crawl(self, role):
        """Every page a role reaches from its home (a few per pattern), and the forms on them."""
        # From the home, and each role's home (the administrator's "/" is the admin's; others get a 403 there).
        pages, queue, done, queued = {}, ["/", "/admin-home/", "/floor/", "/compliance/", "/regulator/"], set(), {}
        while queue:
            path = queue.pop(0)
            if path in done:
                continue
            done.add(path)
            status, location, content = self.send(role, "GET", path)
            if status in (301, 302) and location:
                hrefs = [location]  # a role's home sends it on to its own
            elif status == 200 and is_html(content):
                page = pages[path] = Page(content.decode("utf-8", "replace"))
                hrefs = page.links + [f["action"] for f in page.forms if f["method"] == "get"]
            else:
                continue
            for href in hrefs:
                link = urlsplit(href)
                if link.netloc or link.path.startswith(("/api/", "/admin", "/static/")):
                    continue
                target = link.path or path
                found = resolve(target)
                if found is None or found[0] in SKIPPED:
                    continue
                name, values = found
                self.params(name).update(k for k, _ in parse_qsl(link.query, keep_blank_values=True))
                known = self.seen.setdefault(name, [])
                if values not in known and len(known) < PER_PATTERN * 2:
                    known.append(values)
                if target not in done and target not in queue and queued.get(name, 0) < PER_PATTERN:
                    queued[name] = queued.get(name, 0) + 1
                    queue.append(target)
        return pages

    def params(self, name):
        return self.query_params.setdefault(name, set())

    def targets(self):
        """Every pattern's concrete paths: the real rows seen, and hostile values in each place."""
        for name, (route, converters) in sorted(self.patterns.items()):
            if name in SKIPPED:
                continue
            real = self.seen.get(name, [])
            base = real[0] if real else {k: HOSTILE_PATH[kind][0] for k, kind in converters.items()}
            variants = list(real)
            for key, kind in converters.items():
                variants += [{**base, key: value} for value in HOSTILE_PATH.get(kind, HOSTILE_PATH["string"])]
            for values in variants:
                yield name, fill(route, values)

    def run(self):
        self.query_params, pages, fetched, kinds = {}, {role: {} for role in ROLES}, set(), set()
        for _ in range(2):  # the second round finds what the first one's POSTs made: a draft, and its pages
            for role in ROLES:
                pages[role].update(self.crawl(role))
            posts = []
            for role in ROLES:
                for name, target in self.targets():
                    if (role, target) not in fetched:
                        fetched.add((role, target))
                        posts += self.fuzz_page(role, name, target, pages[role].get(target))
            # The POSTs after the GETs, one form of a kind per role (a table page's print form once, not per
            # table), the forms that remove what others use last; each sent once as the page fills it, then fuzzed.
            ordered = []
            for role, action, form in posts:
                kind = (role, (resolve(action) or (action,))[0], tuple(sorted(form["fields"])))
                if kind not in kinds:
                    kinds.add(kind)
                    ordered.append((role, action, form))
            ordered.sort(key=lambda item: (resolve(item[1]) or ("",))[0] in LAST)
            for role, action, form in ordered:
                def post(pairs, htmx, role=role, action=action, form=form):
                    self.send(role, "POST", action, pairs, [(name, os.urandom(64)) for name in form["files"]])
                post([(n, as_filled(f)) for n, f in form["fields"].items()], False)
                run_examples(post, form["fields"])
        self.unreached = sorted(n for n in self.patterns if n not in self.seen and n not in SKIPPED)
        return pages

    def first(self, *kind):
        """True the first time a kind of request set is met (then it is fuzzed), False after."""
        if kind in self.fuzzed:
            return False
        self.fuzzed.add(kind)
        return True

    def fuzz_page(self, role, name, target, page):
        """GET the page, fuzz its query parameters and GET forms; its POST forms, for later."""
        status, _, content = self.send(role, "GET", target)
        if page is None and status == 200 and is_html(content):
            page = Page(content.decode("utf-8", "replace"))
        params = {p: {"values": [], "options": []} for p in self.query_params.get(name, ())}
        if params and self.first(role, name, "query", tuple(sorted(params))):
            run_examples(lambda pairs, htmx: self.send(role, "GET", target, pairs, htmx=htmx), params)
        posts = []
        for form in page.forms if page else ():
            action = urlsplit(form["action"]).path or target
            if form["method"] == "get":
                if self.first(role, (resolve(action) or (action,))[0], "form", tuple(sorted(form["fields"]))):
                    run_examples(lambda pairs, htmx, a=action: self.send(role, "GET", a, pairs, htmx=htmx),
                                 form["fields"])
            elif (resolve(action) or ("",))[0] not in SKIPPED:
                posts.append((role, action, form))
        return posts


def test_no_page_answers_a_server_error_whatever_it_is_sent(live_url, demo_users, service_database_url):
    # The public page a sign's QR code opens is linked from no page: its real value from the database.
    with psycopg.connect(service_database_url) as connection:
        tokens = [row[0] for row in connection.execute(
            "SELECT public_token FROM fees_tableposting WHERE public_token <> '' ORDER BY id LIMIT 2")]
    started = time.monotonic()
    fuzz = Fuzz(live_url, demo_users, seen={"signage-verify": [{"token": t} for t in tokens]})
    pages = fuzz.run()
    elapsed = time.monotonic() - started
    print(f"page fuzz: {fuzz.requests} requests in {elapsed:.0f} s, {sum(map(len, pages.values()))} pages crawled, "
          f"{EXAMPLES} examples per form; patterns no crawl reached (hostile path values only): {fuzz.unreached}")
    # Every role reached its pages (a login that failed, or a home with no links, would fuzz nothing).
    assert all(len(p) >= 3 for p in pages.values()), {role: sorted(p) for role, p in pages.items()}
    assert not fuzz.failures, f"{len(fuzz.failures)} server error(s):\n" + "\n".join(fuzz.failures)
