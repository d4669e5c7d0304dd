"""Schemathesis hooks for Stratus (Scripts/test-schemathesis.sh loads them with SCHEMATHESIS_HOOKS).

- Path parameters name the container and environment the server serves most of the time, so the
  generated requests reach the handlers instead of stopping at "unknown container".
- cloudkit_error_body: every refusal of a CloudKit route (/database, /device) is a CloudKit error
  body: a JSON object with a non-empty string serverErrorCode and reason.
- refused_request_changes_nothing: a refused request (4xx) leaves every data table of the server's
  SQLite database as it was (STRATUS_SCHEMATHESIS_DB names the file).
"""
import hashlib
import json
import os
import random
import sqlite3

import schemathesis

CONTAINER = os.environ.get("STRATUS_SCHEMATHESIS_CONTAINER", "iCloud.com.example.Schemathesis")
DATABASE = os.environ.get("STRATUS_SCHEMATHESIS_DB", "")
# Tables a refused request must not touch. The push queue and outbox are left out: the fan-out of an
# earlier accepted write may still be draining them while a later request is refused.
DATA_TABLES = [
    "api_tokens", "asset_refs", "assets", "containers", "credential_generation", "databases", "field_index",
    "field_tokens", "push_tokens", "record_refs", "records", "schemas", "server_keys", "share_hierarchy_moves",
    "share_participants", "shares", "short_guids", "subscriptions", "users", "web_auth_sessions", "zone_usage", "zones",
]
_generator = random.Random(17)


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    # Nine times in ten the served container in development; otherwise what Schemathesis drew.
    if path_parameters and _generator.random() < 0.9:
        if "container" in path_parameters:
            path_parameters["container"] = CONTAINER
        if "environment" in path_parameters:
            path_parameters["environment"] = "development"
    return path_parameters


def fingerprint():
    """A digest of every row of every data table."""
    if not DATABASE:
        return None
    digest = hashlib.sha256()
    connection = sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True, timeout=30)
    try:
        for table in DATA_TABLES:
            try:
                rows = connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            except sqlite3.OperationalError:
                continue
            digest.update(table.encode())
            for row in sorted(repr(row) for row in rows):
                digest.update(row.encode())
    finally:
        connection.close()
    return digest.hexdigest()


_before = {}


@schemathesis.hook
def before_call(context, case, kwargs):
    _before[id(case)] = fingerprint()


def _is_cloudkit(case):
    path = case.operation.path
    return path.startswith("/database/") or path.startswith("/device/")


@schemathesis.check
def cloudkit_error_body(ctx, response, case):
    """Every refusal of a CloudKit route is a CloudKit error body."""
    if response.status_code < 400 or not _is_cloudkit(case):
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"{response.status_code} refusal is not JSON: {response.content[:200]!r}")
    if not isinstance(body, dict):
        raise AssertionError(f"{response.status_code} refusal is not a JSON object: {body!r}")
    for key in ("serverErrorCode", "reason"):
        if not isinstance(body.get(key), str) or not body[key]:
            raise AssertionError(f"{response.status_code} refusal has no {key}: {body!r}")
    return None


@schemathesis.check
def refused_request_changes_nothing(ctx, response, case):
    """A refused request leaves the stored data as it was."""
    before = _before.pop(id(case), None)
    if before is None or response.status_code < 400 or response.status_code >= 500:
        return None
    after = fingerprint()
    if after != before:
        raise AssertionError(f"a request refused with {response.status_code} changed the stored data")
    return None
