#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target into Fuzz/Corpus/<Target>/seed-*.

The seeds come from the wire fixtures (Tests/StratusWireTests/Fixtures) and from hand-written
cases for what the fixtures do not cover. Re-running rewrites the seed-* files only; inputs the
fuzzer found (named by their SHA-1) stay.

    python3 Fuzz/Scripts/seed-corpora.py
"""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "Tests/StratusWireTests/Fixtures").glob("*.json"))
CORPUS = ROOT / "Fuzz/Corpus"
CONTAINER = "iCloud.com.example.Fuzz"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / f"seed-{name}").write_bytes(data)


def fixtures(target):
    for path in FIXTURES:
        write(target, path.stem, path.read_bytes())


def json_seeds():
    fixtures("FuzzJSON")
    cases = {
        "escapes": '{"a":"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/","b":"\\u0000"}',
        "numbers": "[0,-0,1e308,-1e-308,1.5e3,123456789012345678901234567890,9007199254740993,0.1,-9223372036854775808]",
        "nested": "[" * 60 + "]" * 60,
        "empty": '{"":[],"x":{}}',
        "literals": "[true,false,null]",
        "whitespace": ' \r\n\t{ "k" :\t[ 1 , 2 ] }\n',
        "duplicate-keys": '{"a":1,"a":2}',
        "unicode-keys": '{"\u00fc":"stra\u00dfe","\u65e5":"\u672c"}',
    }
    for name, text in cases.items():
        write("FuzzJSON", name, text)


def record_seeds():
    fixtures("FuzzRecordOperations")
    untagged = {"recordName": "r1", "recordType": "Item", "fields": {
        "due": {"value": 1700000000000}, "price": {"value": 2.5}, "count": {"value": "42"},
        "tags": {"value": ["a", "b"]}, "scores": {"value": [1, 2]}, "owner": {"value": {"recordName": "u1", "action": "NONE"}},
        "place": {"value": {"latitude": 1.5, "longitude": 2.5}}, "data": {"value": "AAEC"}}}
    write("FuzzRecordOperations", "untagged-record", json.dumps(untagged))
    write("FuzzRecordOperations", "operation", json.dumps({"operationType": "forceUpdate", "record": untagged}))
    write("FuzzRecordOperations", "field-value", json.dumps({"value": [1, 2], "type": "INT64_LIST"}))


def query(filters, sort=None, limit=None):
    body = {"query": {"recordType": "Item", "filterBy": filters}}
    if sort:
        body["query"]["sortBy"] = sort
    if limit:
        body["resultsLimit"] = limit
    return json.dumps(body)


def value(kind, v):
    return {"value": v, "type": kind}


def query_seeds():
    write("FuzzQueryFilter", "fixture-RecordsQueryRequest", (ROOT / "Tests/StratusWireTests/Fixtures/RecordsQueryRequest.json").read_bytes())
    comparisons = ["EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS"]
    scalars = [("title", value("STRING", "Milk run")), ("count", value("INT64", 3)), ("price", value("DOUBLE", 2.5)),
               ("due", value("TIMESTAMP", 2000)), ("owner", value("REFERENCE", {"recordName": "u1"}))]
    for comparator in comparisons:
        for field, fv in scalars:
            write("FuzzQueryFilter", f"{field}-{comparator}", query([{"fieldName": field, "comparator": comparator, "fieldValue": fv}]))
    lists = {
        "IN": ("count", value("INT64_LIST", [1, 3, 5])), "NOT_IN": ("title", value("STRING_LIST", ["Milk run", ""])),
        "BEGINS_WITH": ("title", value("STRING", "Mil")), "NOT_BEGINS_WITH": ("title", value("STRING", "O")),
        "CONTAINS_ALL_TOKENS": ("title", value("STRING", "milk run")), "CONTAINS_ANY_TOKENS": ("title", value("STRING", "oat dog")),
        "LIST_CONTAINS": ("tags", value("STRING", "work")), "NOT_LIST_CONTAINS": ("scores", value("INT64", 2)),
        "LIST_CONTAINS_ANY": ("tags", value("STRING_LIST", ["home", "x"])),
        "NOT_LIST_CONTAINS_ANY": ("tags", value("STRING_LIST", ["work"])),
        "LIST_CONTAINS_ALL": ("tags", value("STRING_LIST", ["work", "urgent"])),
        "NOT_LIST_CONTAINS_ALL": ("scores", value("INT64_LIST", [2, 3])),
        "LIST_MEMBER_BEGINS_WITH": ("tags", value("STRING", "ur")),
        "NOT_LIST_MEMBER_BEGINS_WITH": ("tags", value("STRING", "w")),
    }
    for comparator, (field, fv) in lists.items():
        write("FuzzQueryFilter", f"{field}-{comparator}", query([{"fieldName": field, "comparator": comparator, "fieldValue": fv}]))
    near = {"fieldName": "place", "comparator": "NEAR", "fieldValue": value("LOCATION", {"latitude": 48.85, "longitude": 2.35}), "distance": 30000}
    write("FuzzQueryFilter", "place-NEAR", query([near], sort=[{"fieldName": "place", "relativeLocation": near["fieldValue"]}]))
    system = [{"systemFieldName": "createdTimestamp", "comparator": "GREATER_THAN", "fieldValue": value("TIMESTAMP", 0)},
              {"systemFieldName": "recordName", "comparator": "IN", "fieldValue": value("STRING_LIST", ["i1", "i5", "nope"])}]
    write("FuzzQueryFilter", "system-fields", query(system, sort=[{"fieldName": "count", "ascending": False}], limit=2))
    write("FuzzQueryFilter", "paged", query([], sort=[{"fieldName": "title"}], limit=3))
    write("FuzzQueryFilter", "combined", query([
        {"fieldName": "count", "comparator": "GREATER_THAN", "fieldValue": value("INT64", 0)},
        {"fieldName": "tags", "comparator": "LIST_CONTAINS", "fieldValue": value("STRING", "work")}], limit=1))


def s2s_seeds():
    cases = {
        "valid": "2026-12-01T12:00:00Z\nMEUCIQDx\n/database/1/iCloud.com.example/development/public/records/query\nkey-1\n{\"a\":1}",
        "fraction": "2026-12-01T12:00:00.123Z\nsig\n/database/1/c/development/public/zones/list?x=1#f\nk\n",
        "offset": "2026-12-01T12:00:00+01:00\n\n//database//1\n\n",
        "headers": "X-Apple-CloudKit-Request-KeyID:abc\nx-apple-cloudkit-request-iso8601date:2026-01-01T00:00:00Z\nX-APPLE-CLOUDKIT-REQUEST-SIGNATUREV1:AAAA\n/p\n",
        "leap": "2024-02-29T23:59:59Z\nAAAA\n/\nk\nbody",
        "bad-dates": "2026-13-01T00:00:00Z\n\n\n\n",
    }
    for name, text in cases.items():
        write("FuzzServerToServer", name, text)


def token_seeds():
    cases = {"empty-ish": b"\x00", "bytes": bytes(range(64)), "base64url": b"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA",
             "high": bytes([255] * 80), "text": b"web-auth-token+with/slashes=="}
    for name, data in cases.items():
        write("FuzzTokens", name, data)


def router_seeds():
    base = f"/database/1/{CONTAINER}/development/private"
    by_operation = {
        "records/modify": "RecordsModifyRequest", "records/lookup": "RecordsLookupRequest", "records/query": "RecordsQueryRequest",
        "records/changes": "RecordsChangesRequest", "records/resolve": "RecordsResolveRequest", "zones/lookup": "ZonesLookupRequest",
        "zones/modify": "ZonesModifyRequest", "zones/changes": "ZonesChangesRequest", "changes/database": "DatabaseChangesRequest",
        "changes/zone": "ZoneChangesRequest", "subscriptions/lookup": "SubscriptionsLookupRequest",
        "subscriptions/modify": "SubscriptionsModifyRequest", "assets/upload": "AssetsUploadRequest",
        "assets/rereference": "AssetsRereferenceRequest", "tokens/create": "TokensCreateRequest",
        "tokens/register": "TokensRegisterRequest", "users/discover": "UsersDiscoverRequest",
        "users/lookup/email": "UsersLookupEmailRequest", "users/lookup/id": "UsersLookupIDRequest",
    }
    for index, (operation, fixture) in enumerate(by_operation.items()):
        body = (ROOT / f"Tests/StratusWireTests/Fixtures/{fixture}.json").read_text()
        path = base.replace("/database/", "/device/").replace("/private", "") if operation.startswith("tokens/") else base
        # The first byte picks the service: even = open mode, odd = authentication required.
        write("FuzzRouter", operation.replace("/", "-"), f"{index % 2}POST {path}/{operation}\nContent-Type: application/json\n\n{body}")
    gets = ["/health", "/metrics", "/signin", "/signup", "/verify?token=abc", "/courier/abc?since=1",
            f"{base}/zones/list", f"{base}/users/caller", f"{base}/users/current", f"{base}/subscriptions/list",
            "/assets/download/ticket/file.bin", f"/database/1/{CONTAINER}/production/public/records/query?ckAPIToken=x",
            "/openapi.json"]
    for index, path in enumerate(gets):
        write("FuzzRouter", f"get-{index}", f"{index % 2}GET {path}\nHost: 127.0.0.1\n\n")
    write("FuzzRouter", "signin-post", "1POST /signin\nContent-Type: application/x-www-form-urlencoded\n\nemail=a%40b.c&password=pw&oauth_token=x")
    write("FuzzRouter", "signup-post", "0POST /signup\nContent-Type: application/x-www-form-urlencoded\n\nemail=a%40b.c&givenName=A")
    write("FuzzRouter", "signout", "1POST /signout\nCookie: session=abc\n\n")
    write("FuzzRouter", "upload", "0POST /assets/upload/ticket\nContent-Type: application/octet-stream\n\n\x00\x01\x02")
    write("FuzzRouter", "s2s", f"1POST /database/1/{CONTAINER}/development/public/records/query\n"
          "X-Apple-CloudKit-Request-KeyID: k\nX-Apple-CloudKit-Request-ISO8601Date: 2026-12-01T00:00:00Z\n"
          "X-Apple-CloudKit-Request-SignatureV1: AAAA\n\n{\"query\":{\"recordType\":\"Item\"}}")
    write("FuzzRouter", "web-auth", f"1GET {base}/users/caller?ckAPIToken=t&ckWebAuthToken=a%2Bb\n\n")


def path_seeds():
    cases = ["Notes/todo.txt", "a", "a/b/c/d.e", "./a", "a/../b", "/abs", "a//b", ".stratus/x", ".STRATUS", "a/\u0000b",
             "caf\u00e9/na\u0131ve.md", "x" * 300, "dir/" + "y" * 255, "trailing/", "\u202etxt.exe", "con/aux"]
    for index, text in enumerate(cases):
        write("FuzzDocumentPath", f"path-{index}", text)


for seeds in (json_seeds, record_seeds, query_seeds, s2s_seeds, token_seeds, router_seeds, path_seeds):
    seeds()
