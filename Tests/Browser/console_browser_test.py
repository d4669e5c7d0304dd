"""The console in a real browser: Debian's chromium, headless, driven through chromium-driver.

Starts `stratus serve` (authentication on, a fresh data directory, 127.0.0.1 only), an administrator,
an app user with a note in a private zone, then walks the console as a person would and checks each
change through the CloudKit API. Saves a screenshot of every page to the artifacts directory.

    python3 Tests/Browser/console_browser_test.py --stratus .build/debug/stratus --artifacts .build/console-browser
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from webdriver import Browser

CONTAINER = "iCloud.com.example.Browser"
ADMIN, ADMIN_PASSWORD = "root@example.com", "correct horse battery staple"
ADA, ADA_PASSWORD = "ada@example.com", "ada's own password"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stratus:
    def __init__(self, binary, data):
        self.binary, self.data = binary, data

    def cli(self, *arguments, stdin=None):
        done = subprocess.run([self.binary, *arguments, "--data-dir", self.data], input=stdin, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"stratus {' '.join(arguments)}: {done.stderr}")
        return done.stdout.strip()

    def serve(self, log):
        self.process = subprocess.Popen([self.binary, "serve", "--data-dir", self.data, "--port", "0", "--host", "127.0.0.1"],
                                        stdout=subprocess.PIPE, stderr=log, text=True)
        for line in self.process.stdout:
            match = re.search(r"running at http://127\.0\.0\.1:(\d+)", line)
            if match:
                self.base = f"http://127.0.0.1:{match.group(1)}"
                return
        raise RuntimeError("stratus serve stopped before it said where it runs")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


class CloudKit:
    """Ada's CloudKit Web Services calls, with her API token and web auth token."""

    def __init__(self, base, api_token, web_auth_token):
        self.base, self.api_token, self.web_auth_token = base, api_token, web_auth_token

    def call(self, operation, body, database="private", environment="development", api_token=None, user=True):
        query = {"ckAPIToken": api_token or self.api_token}
        if user:
            query["ckWebAuthToken"] = self.web_auth_token
        url = f"{self.base}/database/1/{CONTAINER}/{environment}/{database}/{operation}?{urllib.parse.urlencode(query)}"
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def note(self):
        status, answer = self.call("records/lookup", {"records": [{"recordName": "n1"}], "zoneID": {"zoneName": "NotesZone"}})
        assert status == 200, answer
        return answer["records"][0]


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print(f"  ok: {message}")


def run(browser, stratus, cloudkit, artifacts):
    shot = lambda name: browser.screenshot(os.path.join(artifacts, f"{name}.png"))

    browser.get(f"{stratus.base}/console")
    browser.find("#signin-email")
    shot("01-signin")
    browser.type("#signin-email", ADMIN)
    browser.type("#signin-password", ADMIN_PASSWORD + "\ue007")  # Enter: the form works from the keyboard
    check(browser.wait_text("#who-email", lambda text: text == ADMIN) == ADMIN, "an administrator signs in (keyboard only)")

    # Records in Ada's private zone.
    browser.find("#target-database")
    browser.select("#target-container", CONTAINER)
    browser.select("#target-database", "private")
    browser.select("#target-user", ADA)
    browser.find("#record-zone option[value='NotesZone']", visible=False)
    browser.select("#record-zone", "NotesZone")
    browser.type("#record-type", "Note")
    browser.click("#query")
    browser.click("a[data-record='n1']")
    old_tag = browser.wait_text("#record-tag", lambda text: len(text) > 0)
    check("first" in browser.text("#record-detail"), "the note in Ada's private zone is browsed, every field shown")
    shot("02-records")
    browser.color_scheme("dark")
    shot("02-records-dark")
    browser.color_scheme("light")

    # An edit, visible through the CloudKit API with a new change tag.
    browser.click("#edit-record")
    browser.type("input[data-field='title']", "edited in the browser")
    shot("03-edit")
    browser.click("#save-record")
    new_tag = browser.wait_text("#record-tag", lambda text: text != old_tag)
    note = cloudkit.note()
    check(note["fields"]["title"]["value"] == "edited in the browser" and note["recordChangeTag"] == new_tag != old_tag,
          "the edit is visible through the CloudKit API with a new change tag")

    # A stale edit: the record changes elsewhere while the console shows the old version.
    status, answer = cloudkit.call("records/modify", {"zoneID": {"zoneName": "NotesZone"}, "operations": [{"operationType": "update", "record": {
        "recordName": "n1", "recordType": "Note", "recordChangeTag": new_tag, "fields": {"title": {"value": "changed on a phone"}}}}]})
    check(status == 200 and "serverErrorCode" not in answer["records"][0], "another device changes the note")
    browser.click("#edit-record")
    browser.type("input[data-field='title']", "stale edit")
    browser.click("#save-record")
    conflict = browser.wait_text("#edit-error", lambda text: "CONFLICT" in text)
    browser.script("document.querySelector('#edit-error').scrollIntoView({block: 'center'})")
    check("CONFLICT" in conflict and cloudkit.note()["fields"]["title"]["value"] == "changed on a phone", "a stale edit shows the conflict and changes nothing")
    shot("04-conflict")

    # A change without the CSRF token, from the signed-in page itself.
    status = browser.async_script("""const done = arguments[arguments.length - 1];
        fetch('/console/api/tokens', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({container: arguments[0], environment: 'development', name: 'forged'})}).then(r => done(r.status));""", CONTAINER)
    check(status == 403, "a change without the CSRF token is refused (403)")

    # API tokens: create (shown once), use, revoke, refused.
    browser.click("nav a[href='#/tokens']")
    browser.find("#token-name")
    browser.select("#token-container", CONTAINER)
    browser.type("#token-name", "browser test")
    browser.click("#create-token")
    token = browser.wait_text("#new-token", lambda text: re.fullmatch(r"[0-9a-f]{64}", text) is not None)
    status, _ = cloudkit.call("zones/list", {}, database="public", api_token=token, user=False)
    check(status == 200, "a token created in the console works")
    shot("05-tokens")
    browser.click(f"button[data-revoke='{token[:8]}']")
    deadline = time.monotonic() + 10
    while (status := cloudkit.call("zones/list", {}, database="public", api_token=token, user=False)[0]) != 401 and time.monotonic() < deadline:
        time.sleep(0.2)
    check(status == 401, "the revoked token gets 401")

    # Schema: edit development, preview, deploy to production.
    browser.click("nav a[href='#/schema']")
    browser.find("#schema-development")
    browser.wait_text("#schema-preview", lambda text: len(text) > 0)
    schema = json.loads(browser.script("return document.querySelector('#schema-development').value"))
    schema.setdefault("recordTypes", {})["Bookmark"] = {"fields": {"url": {"type": "STRING", "queryable": True}}}
    browser.script("document.querySelector('#schema-development').value = arguments[0]", json.dumps(schema))
    browser.click("#save-schema")
    browser.wait_text("#schema-preview", lambda text: "Bookmark" in text)
    shot("06-schema-preview")
    browser.click("#deploy")
    browser.click("#confirm-deploy")
    browser.wait_text("#schema-message", lambda text: "Deployed" in text)
    production = json.loads(stratus.cli("schema", "export", CONTAINER, "--environment", "production"))
    check("Bookmark" in production.get("recordTypes", {}), "the schema change is deployed to production")
    shot("07-schema-deployed")

    # Reset the development environment: the container's identifier typed as confirmation.
    browser.type("#reset-confirm", CONTAINER)
    browser.click("#reset-development")
    browser.wait_text("#schema-message", lambda text: "Development reset" in text)
    status, answer = cloudkit.call("zones/list", {})
    check(status == 200 and "NotesZone" not in json.dumps(answer), "a reset empties development (Ada's zone is gone)")
    production = json.loads(stratus.cli("schema", "export", CONTAINER, "--environment", "production"))
    development = json.loads(stratus.cli("schema", "export", CONTAINER, "--environment", "development"))
    check("Bookmark" in production.get("recordTypes", {}) and development == production,
          "the reset leaves production alone and gives development production's schema")
    shot("07b-development-reset")

    # Users: disable Ada; her token is refused with the reason; enable her again.
    browser.click("nav a[href='#/users']")
    browser.click(f"button[data-disable='{ADA}']")
    browser.wait_text(f"tr[data-user='{ADA}']", lambda text: "disabled" in text)
    status, answer = cloudkit.call("zones/list", {})
    check(status == 403 and "disabled" in answer.get("reason", ""), "a disabled user's token is refused (403, naming the reason)")
    shot("07c-user-disabled")
    browser.click(f"button[data-disable='{ADA}']")
    browser.wait_text(f"tr[data-user='{ADA}']", lambda text: "active" in text)

    for page in ["zones", "users", "usage", "operations", "audit"]:
        browser.click(f"nav a[href='#/{page}']")
        browser.find(f"#{page}-title")
        time.sleep(0.3 if page != "operations" else 2.5)
        shot(f"08-{page}")
    audit = browser.text("#page")
    check(all(action in audit for action in ["tokens.revoke", "schema.deploy", "environment.reset", "users.disable", "users.enable"]),
          "the audit log shows the changes")

    # A non-administrator: Ada's own password opens nothing.
    browser.click("#signout")
    browser.find("#signin-email")
    browser.type("#signin-email", ADA)
    browser.type("#signin-password", ADA_PASSWORD)
    browser.click("#signin-submit")
    browser.wait_text("#signin-error", lambda text: len(text) > 0)
    check(browser.script("return document.querySelector('#nav').hidden") is True, "a non-administrator is refused")
    shot("09-non-admin-refused")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stratus", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    options = parser.parse_args()
    os.makedirs(options.artifacts, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="stratus-console-browser") as scratch:
        stratus = Stratus(os.path.abspath(options.stratus), os.path.join(scratch, "data"))
        stratus.cli("container", "create", CONTAINER)
        stratus.cli("admin", "create", ADMIN, "--password-stdin", stdin=ADMIN_PASSWORD)
        stratus.cli("user", "create", ADA, "--password-stdin", stdin=ADA_PASSWORD)
        api_token = stratus.cli("token", "create", CONTAINER, "--name", "browser-test").splitlines()[0].split()[0]
        web_auth_token = stratus.cli("user", "token", ADA, CONTAINER)
        with open(os.path.join(options.artifacts, "stratus.log"), "w") as log:
            stratus.serve(log)
            driver_port = free_port()
            driver = subprocess.Popen([options.chromedriver, f"--port={driver_port}", "--allowed-ips=127.0.0.1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            browser = None
            try:
                cloudkit = CloudKit(stratus.base, api_token, web_auth_token)
                status, answer = cloudkit.call("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "NotesZone"}}}]})
                assert status == 200, answer
                status, answer = cloudkit.call("records/modify", {"zoneID": {"zoneName": "NotesZone"}, "operations": [{"operationType": "create", "record": {
                    "recordName": "n1", "recordType": "Note", "fields": {"title": {"value": "first"}, "stars": {"value": 3}}}}]})
                assert status == 200 and "serverErrorCode" not in answer["records"][0], answer
                for _ in range(100):
                    try:
                        urllib.request.urlopen(f"http://127.0.0.1:{driver_port}/status", timeout=2)
                        break
                    except Exception:
                        time.sleep(0.1)
                browser = Browser(f"http://127.0.0.1:{driver_port}")
                try:
                    run(browser, stratus, cloudkit, options.artifacts)
                except Exception:
                    browser.screenshot(os.path.join(options.artifacts, "failure.png"))
                    print("the page when it failed:\n" + browser.text("body", timeout=2), file=sys.stderr)
                    raise
            finally:
                if browser:
                    browser.quit()
                driver.terminate()
                driver.wait(timeout=20)
                stratus.stop()
    print(f"console browser suite passed in {time.monotonic() - started:.1f} s; screenshots in {options.artifacts}")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:
        traceback.print_exc()
        print(f"console browser suite FAILED: {error}", file=sys.stderr)
        sys.exit(1)
