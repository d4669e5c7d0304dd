"""A small W3C WebDriver client: plain HTTP and JSON to chromium-driver on 127.0.0.1."""
import base64
import json
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class WebDriverError(Exception):
    pass


class Browser:
    def __init__(self, driver_url, chromium="/usr/bin/chromium"):
        self.driver_url = driver_url.rstrip("/")
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,1000", "--no-first-run", "--disable-extensions"],
            },
        }}}
        answer = self._call("POST", "/session", capabilities)
        self.session = answer["sessionId"] if "sessionId" in answer else answer["value"]["sessionId"]

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.driver_url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise WebDriverError(f"{method} {path}: {error.code} {error.read()[:500]!r}") from None

    def _session(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)["value"]

    def get(self, url):
        self._session("POST", "/url", {"url": url})

    def find(self, css, timeout=10, visible=True):
        """The first element matching css (and displayed, when visible), waiting for it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                found = self._session("POST", "/elements", {"using": "css selector", "value": css})
                for element in found:
                    reference = element.get(ELEMENT) or element.get("ELEMENT")
                    if not visible or self._session("GET", f"/element/{reference}/displayed"):
                        return reference
            except WebDriverError:
                pass
            if time.monotonic() > deadline:
                raise WebDriverError(f"no element matches {css!r} after {timeout} s")
            time.sleep(0.1)

    def click(self, css, timeout=10):
        self._session("POST", f"/element/{self.find(css, timeout)}/click", {})

    def type(self, css, text, clear=True):
        element = self.find(css)
        if clear:
            self._session("POST", f"/element/{element}/clear", {})
        self._session("POST", f"/element/{element}/value", {"text": text})

    def text(self, css, timeout=10):
        return self._session("GET", f"/element/{self.find(css, timeout)}/text")

    def wait_text(self, css, predicate, timeout=10):
        """Waits until the text of css satisfies predicate, and returns it."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.text(css, timeout=1)
                if predicate(last):
                    return last
            except WebDriverError:
                pass
            time.sleep(0.1)
        raise WebDriverError(f"{css!r} never matched; last text: {last!r}")

    def script(self, source, *arguments):
        return self._session("POST", "/execute/sync", {"script": source, "args": list(arguments)})

    def async_script(self, source, *arguments):
        return self._session("POST", "/execute/async", {"script": source, "args": list(arguments)})

    def select(self, css, value):
        """Sets a <select> or <input> and fires change, as a person choosing would."""
        self.find(css)
        self.script("const e = document.querySelector(arguments[0]); e.value = arguments[1];"
                    "e.dispatchEvent(new Event('change', {bubbles: true}));", css, value)

    def color_scheme(self, scheme):
        """Emulates prefers-color-scheme (light or dark) through chromium's DevTools protocol."""
        self._session("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia",
                                                     "params": {"features": [{"name": "prefers-color-scheme", "value": scheme}]}})

    def screenshot(self, path):
        with open(path, "wb") as file:
            file.write(base64.b64decode(self._session("GET", "/screenshot")))

    def quit(self):
        try:
            self._call("DELETE", f"/session/{self.session}")
        except Exception:
            pass
