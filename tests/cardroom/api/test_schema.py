"""The OpenAPI schema tells the truth (issue 10): it generates with no warning, every operation has one id of its
own and documents the errors it can answer in the one error format the API really sends, lists that page say
so (and lists that do not, do not), and downloads declare their real content types."""

import jsonschema
import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from cardroom.api.schema import ERROR_SCHEMA
from cardroom.models import Game, Job, Table

pytestmark = pytest.mark.django_db
WRITES = ("post", "put", "patch", "delete")
# Operations that can meet a state or a concurrent request that refuses them (cardroom.api.schema.may_conflict).
CONFLICTS = {
    ("patch", "/api/v1/schedules/{code}/versions/{number}/"),
    ("delete", "/api/v1/schedules/{code}/versions/{number}/"),
    ("post", "/api/v1/schedules/{code}/versions/{number}/publication-request/"),
    ("post", "/api/v1/schedules/{code}/versions/{number}/approve/"),
    ("post", "/api/v1/schedules/{code}/versions/{number}/refuse/"),
    ("post", "/api/v1/schedules/{code}/versions/{number}/withdraw/"),
    ("post", "/api/v1/schedules/{code}/versions/{number}/drafts/"),
    ("post", "/api/v1/schedules/{code}/interpretations/"),
    ("post", "/api/v1/schedules/{code}/interpretations/{id}/approve/"),
    ("post", "/api/v1/schedules/{code}/interpretations/{id}/refuse/"),
    ("post", "/api/v1/schedules/{code}/interpretations/{id}/withdraw/"),
    ("post", "/api/v1/ledger/entries/"),
    ("post", "/api/v1/ledger/entries/bulk/"),
    ("post", "/api/v1/ledger/rounds/"),
    ("post", "/api/v1/compliance/findings/{id}/acknowledge/"),
    ("post", "/api/v1/postings/{id}/signage.pdf/"),
    ("post", "/api/v1/postings/{id}/override/"),
    ("post", "/api/v1/postings/{id}/override/approve/"),
    ("post", "/api/v1/postings/{id}/override/refuse/"),
    ("post", "/api/v1/tables/{id}/signage.pdf"),
    ("post", "/api/v1/approval-conditions/fulfilments/"),
    ("post", "/api/v1/approval-conditions/fulfilments/{id}/withdraw/"),
    # Signing a checkpoint refuses a chain rewritten since the last one.
    ("get", "/api/v1/audit/checkpoint"),
    ("get", "/api/v1/audit/proof"),
    ("get", "/api/v1/audit/consistency"),
}
# Operations that find what they answer by a query parameter: a chain, an entry, a size, a room.
FOUND_BY_QUERY = {"/api/v1/audit/checkpoint", "/api/v1/audit/proof", "/api/v1/audit/consistency",
                  "/api/v1/ledger/months"}


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield method, path, operation


def resolve(schema, ref):
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def paginated(schema, operation):
    ref = operation["responses"].get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
    return "$ref" in ref and "results" in resolve(schema, ref["$ref"]).get("properties", {})


def test_the_schema_generates_and_validates_without_a_warning(tmp_path):
    # --fail-on-warn: a warning (an unresolved authenticator, a colliding operation id or component name, a
    # field whose type cannot be told) fails the command.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").stat().st_size > 10_000


def test_operation_ids_are_unique_and_no_route_is_documented_twice(schema):
    ids = [operation["operationId"] for _, _, operation in operations(schema)]
    assert len(ids) == len(set(ids)) > 50
    assert not [i for i in ids if i[-2:-1] == "_" and i[-1].isdigit()]  # no "_2" from a resolved collision
    paths = set(schema["paths"])
    assert not [p for p in paths if p.endswith("/") and p[:-1] in paths]
    assert {"/api/v1/fees/quote", "/api/v1/compliance/check", "/api/v1/compliance/lint", "/api/v1/exports",
            "/api/v1/signage/batches", "/api/v1/ledger/reconciliations/{id}/receipt",
            "/api/v1/schedules/{code}/versions/{number}/impact"} <= paths


def test_an_alias_left_out_of_the_schema_still_answers(api, people):
    api.force_login(people.compliance)
    for path in ("/api/v1/compliance/lint", "/api/v1/compliance/lint/"):
        assert api.get(path).status_code == 200


def test_every_operation_documents_the_errors_it_can_answer(schema):
    for method, path, operation in operations(schema):
        responses = operation["responses"]
        authenticated = any(requirement for requirement in operation.get("security", [{}]))
        expected = {"400", "414"}
        if authenticated:  # and 503: a query the database stopped (cardroom.timeouts)
            expected |= {"401", "429", "503"}
        if authenticated and method in WRITES:
            expected.add("403")
        if "{" in path or path in FOUND_BY_QUERY or paginated(schema, operation):  # nothing there; a page past the end
            expected.add("404")
        if "requestBody" in operation:
            expected |= {"413", "415"}
        if (method, path) in CONFLICTS:
            expected.add("409")
        errors = {code for code in responses if code >= "400"}
        assert errors == expected, (method, path, sorted(errors), sorted(expected))
        # Answered by gunicorn, before the API: its own short HTML page.
        assert list(responses["414"]["content"]) == ["text/html"]
        for code in errors - {"414"}:
            content = responses[code]["content"]
            assert list(content) == ["application/json"], (method, path, code)
            assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
            assert responses[code]["description"]
        if authenticated:
            assert responses["401"]["headers"]["WWW-Authenticate"]["required"] is True
            assert responses["429"]["headers"]["Retry-After"]["required"] is True
    # The one public operation: no login, so none of the login's errors.
    public = schema["paths"]["/api/v1/exports/public-key"]["get"]["responses"]
    assert sorted(public) == ["200", "400", "414"]


def test_the_error_component_is_what_the_api_sends(schema, api, people, settings):
    assert schema["components"]["schemas"]["Error"] == ERROR_SCHEMA
    answers = {
        401: api.get("/api/v1/tables/"),
        413: api.generic("POST", "/api/v1/fees/quote", b"{}", content_type="application/json",
                         CONTENT_LENGTH=str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)),
    }
    api.force_login(people.compliance)
    answers.update({
        400: api.post("/api/v1/ledger/rounds/", {"table": "seven"}, format="json"),  # with field details
        403: api.post("/api/v1/compliance/runs/run/", {"everything": True}, format="json"),
        404: api.get("/api/v1/tables/999999999/"),
        415: api.post("/api/v1/fees/quote", "schedule=GEGA-002888", content_type="text/plain"),
    })
    api.force_login(people.admin)
    versions = api.get("/api/v1/schedules/GEGA-002888/versions/").json()
    version = next(v["number"] for v in versions if v["status"] == "published")
    answers[409] = api.patch(f"/api/v1/schedules/GEGA-002888/versions/{version}/", {"reason": "x"}, format="json")
    assert answers[400].json()["error"]["details"]
    for status, answer in answers.items():
        assert answer.status_code == status, (status, answer.content)
        assert answer["Content-Type"] == "application/json"
        jsonschema.validate(answer.json(), ERROR_SCHEMA)


def test_downloads_declare_their_real_content_types(schema):
    download = schema["paths"]["/api/v1/jobs/{uuid}/download/"]["get"]["responses"]["200"]["content"]
    assert set(download) == {"application/pdf", "application/zip"}
    for path in ("/api/v1/postings/{id}/signage.pdf/", "/api/v1/tables/{id}/signage.pdf"):
        for method in ("get", "post"):
            operation = schema["paths"][path][method]
            assert list(operation["responses"]["200"]["content"]) == ["application/pdf"], (method, path)
            assert "requestBody" not in operation  # printing takes no body
    assert "application/octet-stream" not in str(schema["paths"])


def test_a_job_download_is_sent_as_the_type_the_schema_names(api, people, django_capture_on_commit_callbacks):
    api.force_login(people.compliance)
    with django_capture_on_commit_callbacks(execute=True):
        job = api.post("/api/v1/exports", {"establishment": "casino-marysville", "as_of": "2026-03-02"},
                       format="json").json()
    answer = api.get(api.get(f"/api/v1/jobs/{job['uuid']}/").json()["download"])
    assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"


def test_paginated_means_paginated(schema, api, people):
    """A list documented as a page is a page; one documented as a plain array is one."""
    api.force_login(people.admin)
    paths = schema["paths"]
    page = paths["/api/v1/schedules/{code}/options/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert set(resolve(schema, page["schema"]["$ref"])["properties"]) == {"count", "next", "previous", "results"}
    assert set(api.get("/api/v1/schedules/GEGA-002888/options/").json()) == {"count", "next", "previous", "results"}
    plain = paths["/api/v1/schedules/{code}/versions/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert plain["schema"]["type"] == "array"
    assert isinstance(api.get("/api/v1/schedules/GEGA-002888/versions/").json(), list)
    # Every viewset's own list is paginated.
    for path, item in paths.items():
        get = item.get("get")
        if get and get["operationId"].endswith("_list") and path != "/api/v1/schedules/{code}/versions/":
            assert paginated(schema, get), path


def test_nullable_fields_are_nullable(schema):
    components = schema["components"]["schemas"]
    nullable = {
        "Job": ["establishment", "jurisdiction", "download", "started_at", "finished_at"],
        "Run": ["establishment", "schedule_version"],
        "ScheduleSummary": ["establishment"],
        "VersionSummary": ["effective_from", "based_on", "created_by", "published_by", "published_at"],
        "Approval": ["establishment", "decided_on", "effective_from", "expires_on"],
        "CollectionEntry": ["seat", "corrects", "corrected_by", "recorded_by"],
        "Fulfilment": ["met_on", "corrects", "corrected_by"],
        "Finding": ["establishment", "table", "schedule", "acknowledged_at", "acknowledged_by"],
        "Posting": ["superseded_by"],
    }
    for component, fields in nullable.items():
        for field in fields:
            assert components[component]["properties"][field].get("nullable") is True, (component, field)
    # ... and what is never null is not said to be.
    assert not components["Approval"]["properties"]["game"].get("nullable")
    assert not components["CollectionEntry"]["properties"]["establishment"].get("nullable")
    assert not components["Game"]["properties"]["rules"].get("nullable")


def test_every_query_parameter_allows_an_empty_value_as_the_views_do(schema, api, people):
    """An empty query parameter is read as one left out (an HTML form sends its empty fields), and said so."""
    for method, path, operation in operations(schema):
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "query":
                assert parameter.get("allowEmptyValue") is True, (method, path, parameter["name"])
    api.force_login(people.compliance)
    for address in ("/api/v1/tables/?active=&page=&page_size=&ordering=", "/api/v1/schedules/GEGA-002888/?as_of=",
                    "/api/v1/ledger/entries/?gaming_day=2026-03-03&gaming_day_to=&effective=&table=&page_size=",
                    "/api/v1/compliance/lint?schedule="):
        assert api.get(address).status_code == 200, address


# What the schema fuzzer (tests/live/test_schema_fuzz.py) found, each answer now as the schema says.

def test_an_address_the_api_lacks_answers_json_404_whatever_the_method_or_characters(people):
    api = APIClient(enforce_csrf_checks=True)  # a browser session: CSRF turned an unknown address into HTML
    api.force_login(people.floor)
    for method, address in (("post", "/api/v1/postings/0.5/signage.pdf/"), ("delete", "/api/v1/schedules/x/y/"),
                            ("get", "/api/v1/ledger/rounds/V\n/"), ("post", "/api/v1/tables/1%0A/signage.pdf")):
        answer = getattr(api, method)(address)
        assert answer.status_code == 404 and answer["Content-Type"] == "application/json", (method, address)
        jsonschema.validate(answer.json(), ERROR_SCHEMA)


def test_a_session_write_without_its_csrf_token_answers_403_in_the_error_format(people):
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(people.compliance)
    answer = api.post("/api/v1/fees/quote", {}, format="json")
    assert answer.status_code == 403 and answer.json()["error"]["message"].startswith("CSRF Failed")


def test_page_size_and_true_false_filters_are_read_strictly(api, people):
    api.force_login(people.compliance)
    for address in ("/api/v1/tables/?page_size=null", "/api/v1/tables/?page_size=0",
                    "/api/v1/tables/?page_size=501", "/api/v1/tables/?page_size=-3", "/api/v1/tables/?active=null",
                    "/api/v1/compliance/findings/?acknowledged_at__isnull=maybe",
                    "/api/v1/ledger/entries/?effective=2&gaming_day=2026-03-03",
                    "/api/v1/ledger/entries/?page_size=0&gaming_day=2026-03-03"):
        answer = api.get(address)
        assert answer.status_code == 400, (address, answer.status_code)
        jsonschema.validate(answer.json(), ERROR_SCHEMA)
    assert len(api.get("/api/v1/schedules/?page_size=2").json()["results"]) == 2
    assert api.get("/api/v1/tables/?active=true").status_code == 200
    assert api.get("/api/v1/tables/?active=False").status_code == 200


def test_an_export_request_with_an_empty_field_is_refused(api, people):
    api.force_login(people.admin)
    answer = api.post("/api/v1/exports", {"jurisdiction": "CA", "establishment": "", "from": "2026-03-01",
                                          "to": "2026-03-31", "as_of": ""}, format="json")
    assert answer.status_code == 400 and "Empty field(s): as_of, establishment" in answer.json()["error"]["message"]


def test_an_id_in_the_address_is_digits_and_a_job_a_uuid_as_written(api, people, schema):
    """``/tables/7%0C/`` reached table 7 (int() strips the form feed); a job's UUID without its hyphens reached it."""
    api.force_login(people.admin)
    table = Table.objects.create(establishment=people.marysville, label="F-7", seats=6,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    job = Job.objects.create(kind="signage_batch", requested_label="test")
    assert api.get(f"/api/v1/tables/{table.pk}/").status_code == 200
    for address in (f"/api/v1/tables/{table.pk}\x0c/", f"/api/v1/tables/%20{table.pk}/",
                    f"/api/v1/tables/{table.pk}.0/", f"/api/v1/jobs/{job.uuid.hex}/", f"/api/v1/jobs/{{{job.uuid}}}/"):
        answer = api.get(address)
        assert answer.status_code == 404 and answer["Content-Type"] == "application/json", address
    assert api.get(f"/api/v1/jobs/{job.uuid}/").status_code == 200
    parameters = schema["paths"]["/api/v1/tables/{id}/"]["get"]["parameters"]
    assert parameters[0]["schema"]["pattern"] == "^[0-9]{1,18}$"
