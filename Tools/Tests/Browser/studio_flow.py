#!/usr/bin/python3
"""Uses Stowage Studio as a person would, in headless Chromium, and checks what it shows and saves.

Usage: studio_flow.py --stowage BIN --spendsmart BIN --store PATH --screenshots DIR

STORE is a SpendSmart store (.ci/studio makes one) with at least two budgets and a transaction whose
amount is over 50. The steps:

 1. `stowage studio STORE --port 0`, read-only: the first line of its output is the page's address
    with its token.
 2. With the mouse (WebDriver clicks): the overview, the Transaction table filtered with the filter
    builder (amount > 50, every row checked), a transaction's page, its budget's page with the related
    transactions, the schema diagram, the SQL page (a query typed and run) and the history.
 3. HTTP without the browser (urllib): no token is 401, a wrong Host is 421, a post without the CSRF
    token is 403, the Content-Security-Policy header is there; read-only refuses an edit and leaves the
    store file's bytes as they were.
 4. Live update, read-only: another process (spendsmart) adds a transaction while the Transaction table
    is open; the row appears without a reload.
 5. The studio again with --write: a Budget's limit changed with the mouse, checked with `stowage rows`
    and `stowage history` (author stowage-studio).
 6. The keyboard only (Tab, typing, arrow keys, Enter; no click): the skip link, the filter builder and
    a Budget renamed, checked with `stowage rows`.
 7. Live update, editing: the renamed budget's page, while spendsmart spends from it.

Throughout, the browser console must log no error, every request the page makes must go to the
studio's own address, and no response the browser receives may be an error. A screenshot of each page
goes to DIR. Prints one line per step; exits 0 when everything passes, 1 with the reason otherwise.
Run by .ci/studio with Debian's python3-selenium, chromium and chromium-driver.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TIMEOUT = 15
LIVE_TIMEOUT = 5
MAX_TABS = 80


class Failure(Exception):
    """A check that did not pass; its message says what was expected and what happened."""

    def __init__(self, message, lists_problems=False):
        super().__init__(message)
        self.lists_problems = lists_problems


def fail(message, lists_problems=False):
    raise Failure(message, lists_problems)


def say(message):
    print(message, flush=True)


# MARK: The studio's process


class Studio:
    """A running `stowage studio STORE --port 0`, and its address as its first line printed it."""

    def __init__(self, stowage, store, write, log_path):
        self.write = write
        arguments = [stowage, "studio", store, "--port", "0"] + (["--write"] if write else [])
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        deadline = time.monotonic() + 60
        line = ""
        while not line.endswith("\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.process.poll() is not None:
                break
            ready, _, _ = select.select([self.process.stdout], [], [], remaining)
            if ready:
                chunk = self.process.stdout.readline()
                if not chunk:
                    break
                line += chunk
        if not line.endswith("\n"):
            self.stop()
            fail(f"`{' '.join(arguments)}` printed no address within 60 s (it printed {line!r}; "
                 f"its error output: {self.errors()!r})")
        # The rest of its output, if any, is read so that the server never blocks on a full pipe.
        self.more_output = []
        threading.Thread(target=lambda: self.more_output.extend(self.process.stdout), daemon=True).start()
        self.url = line.strip()
        parts = urllib.parse.urlsplit(self.url)
        token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]
        if parts.scheme != "http" or parts.hostname != "127.0.0.1" or not parts.port or parts.path != "/" or not token:
            self.stop()
            fail(f"the first line of `stowage studio` is not http://127.0.0.1:PORT/?token=…: {self.url!r}")
        self.port = parts.port
        self.token = token
        self.base = f"http://127.0.0.1:{self.port}"

    def errors(self):
        self.log.flush()
        with open(self.log_path) as log:
            return log.read()[-2000:]

    def stop(self):
        """SIGTERM, then SIGKILL after 5 s. Returns how it ended, and whether SIGTERM stopped it."""
        if self.process.poll() is not None:
            return f"had already exited with status {self.process.returncode}", False
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
            how, stopped = f"stopped by SIGTERM (status {self.process.returncode})", True
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            how, stopped = "did not stop within 5 s of SIGTERM: killed with SIGKILL", False
        self.log.close()
        return how, stopped


# MARK: The command line


class Commands:
    def __init__(self, stowage, spendsmart, store):
        self.stowage, self.spendsmart, self.store = stowage, spendsmart, store

    @staticmethod
    def run(arguments):
        result = subprocess.run(arguments, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            fail(f"`{' '.join(arguments)}` exited with {result.returncode}: {result.stderr.strip() or result.stdout.strip()}")
        return result.stdout

    def rows(self, entity, where=None):
        arguments = [self.stowage, "rows", self.store, entity, "--format", "json"]
        if where:
            arguments += ["--where", where]
        document = json.loads(self.run(arguments))
        if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
            fail(f"`stowage rows {entity} --format json` did not print {{\"rows\": [...]}}: {str(document)[:300]}")
        return document["rows"]

    def row(self, entity, key):
        rows = [row for row in self.rows(entity) if row.get("_pk") == key]
        if len(rows) != 1:
            fail(f"`stowage rows {entity}` has no row with the key {key}")
        return rows[0]

    def history(self):
        return json.loads(self.run([self.stowage, "history", self.store, "--format", "json"]))

    def sql(self, query):
        return json.loads(self.run([self.stowage, "sql", self.store, query, "--format", "json"]))

    def spend(self, budget, amount, note):
        start = time.monotonic()
        self.run([self.spendsmart, "--store", self.store, "spend", budget, amount, note])
        return time.monotonic() - start


def store_bytes(store):
    """A digest of the store file and its -wal (not the -shm, which readers use)."""
    digest = hashlib.sha256()
    for path in (store, store + "-wal"):
        if os.path.exists(path):
            with open(path, "rb") as file:
                digest.update(file.read())
        digest.update(b"|")
    return digest.hexdigest()


# MARK: HTTP without the browser


def http_request(studio, method, path, headers=None, body=None, host=None):
    """One request, without following redirects: (status, headers as a dict of lower-case names, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", studio.port, timeout=TIMEOUT)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host or f"127.0.0.1:{studio.port}")
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        data = body.encode() if body is not None else None
        if data is not None:
            connection.putheader("Content-Length", str(len(data)))
        connection.endheaders(data)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return response.status, {name.lower(): value for name, value in response.getheaders()}, text
    finally:
        connection.close()


def expect_status(what, result, status):
    if result[0] != status:
        fail(f"{what}: expected HTTP {status}, got {result[0]}: {result[2][:300]!r}")


def http_checks(studio, commands, budget_key, budget_name):
    bearer = {"Authorization": f"Bearer {studio.token}"}
    expect_status("GET / without the token", http_request(studio, "GET", "/"), 401)
    expect_status("GET /events without the token", http_request(studio, "GET", "/events"), 401)
    expect_status("GET /?token=WRONG", http_request(studio, "GET", "/?token=" + "0" * len(studio.token)), 401)
    expect_status("GET / with a wrong Authorization: Bearer", http_request(studio, "GET", "/", {"Authorization": "Bearer nope"}), 401)

    status, headers, _ = result = http_request(studio, "GET", "/?token=" + studio.token)
    expect_status("GET /?token=TOKEN (it sets the cookie and drops the token from the address)", result, 303)
    if headers.get("location") != "/":
        fail(f"GET /?token=TOKEN redirects to {headers.get('location')!r}, expected '/'")
    cookie = headers.get("set-cookie", "")
    if studio.token not in cookie or "HttpOnly" not in cookie or "SameSite=Lax" not in cookie:
        fail(f"GET /?token=TOKEN: its Set-Cookie should carry the token, HttpOnly and SameSite=Lax: {cookie!r}")

    status, headers, page = result = http_request(studio, "GET", "/", bearer)
    expect_status("GET / with Authorization: Bearer TOKEN", result, 200)
    csp = headers.get("content-security-policy", "")
    for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"):
        if directive not in csp:
            fail(f"GET /: the Content-Security-Policy header lacks {directive!r}: {csp!r}")
    if headers.get("x-content-type-options") != "nosniff":
        fail(f"GET /: X-Content-Type-Options is {headers.get('x-content-type-options')!r}, expected 'nosniff'")

    expect_status("GET / with the token but Host: evil.example",
                  http_request(studio, "GET", "/", bearer, host=f"evil.example:{studio.port}"), 421)
    expect_status("GET / with the token but Host: 127.0.0.1.evil.example",
                  http_request(studio, "GET", "/", bearer, host=f"127.0.0.1.evil.example:{studio.port}"), 421)

    match = re.search(r'<meta name="stowage-csrf" content="([^"]+)">', page)
    if not match:
        fail("GET /: the page has no <meta name=\"stowage-csrf\">")
    csrf = match.group(1)
    form = {"Content-Type": "application/x-www-form-urlencoded", **bearer}
    edit = urllib.parse.urlencode({"value:name": "Hacked", "shown:name": budget_name})
    before = store_bytes(commands.store)
    expect_status(f"POST /entities/Budget/{budget_key} without the CSRF token",
                  http_request(studio, "POST", f"/entities/Budget/{budget_key}", form, edit), 403)
    expect_status(f"POST /entities/Budget/{budget_key} with the CSRF token but Origin: http://evil.example",
                  http_request(studio, "POST", f"/entities/Budget/{budget_key}", {**form, "Origin": "http://evil.example"},
                               edit + "&csrf=" + urllib.parse.quote(csrf)), 403)
    if not studio.write:
        result = http_request(studio, "POST", f"/entities/Budget/{budget_key}", form, edit + "&csrf=" + urllib.parse.quote(csrf))
        if result[0] < 400 or "read-only" not in result[2]:
            fail(f"POST an edit with the CSRF token to the read-only studio: expected an error saying it is read-only, "
                 f"got HTTP {result[0]}: {result[2][:300]!r}")
    if store_bytes(commands.store) != before:
        fail("the refused posts changed the store file's bytes")
    if commands.row("Budget", budget_key).get("name") != budget_name:
        fail(f"a refused post changed Budget {budget_key}'s name")
    say(f"  HTTP: no token 401, wrong Host 421, post without CSRF 403, foreign Origin 403"
        + ("" if studio.write else ", read-only edit refused") + ", CSP and nosniff present")


# MARK: The browser


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1024", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    # Every console message (`get_log("browser")`) and the DevTools network events (`get_log("performance")`).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


class Watch:
    """The browser's console and network, checked after each step."""

    def __init__(self, driver, report):
        self.driver = driver
        self.report = report
        self.port = None
        self.entries = []  # DevTools network events: (method, params)
        self.requests = 0

    def check(self, where):
        """Reports a console error, a request to another address, or an error response."""
        problems = []
        for entry in self.driver.get_log("browser"):
            if entry.get("level") == "SEVERE":
                problems.append(f"browser console error: {entry.get('message')}")
        allowed = f"http://127.0.0.1:{self.port}/"
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message.get("method", ""), message.get("params", {})
            if not method.startswith("Network."):
                continue
            self.entries.append((method, params))
            if method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                self.requests += 1
                if not (url.startswith(allowed) or url.startswith("data:") or url.startswith("about:")):
                    problems.append(f"a request to another address than {allowed}: {url}")
            elif method == "Network.responseReceived":
                response = params["response"]
                if response.get("status", 0) >= 400:
                    problems.append(f"HTTP {response['status']} for {response['url']}")
        for problem in problems:
            self.report(f"{where} ({self.driver.current_url}): {problem}")

    def mark(self):
        return len(self.entries)

    def wait_for_events_stream(self, since, where):
        """Waits until the page's EventSource on /events has its response (the server then listens)."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            self.check(where)
            for method, params in self.entries[since:]:
                if (method == "Network.responseReceived" and params["response"]["url"].split("?")[0].endswith("/events")
                        and params["response"].get("status") == 200):
                    return
            time.sleep(0.05)
        fail(f"{where}: the page did not connect to /events (Server-Sent Events) within {TIMEOUT} s")


def wait_until(driver, condition, what, timeout=TIMEOUT):
    try:
        return WebDriverWait(driver, timeout).until(condition)
    except TimeoutException:
        text = " ".join(driver.find_element(By.TAG_NAME, "body").text.split())
        fail(f"{what}: not so after {timeout} s at {driver.current_url}; the page shows: {text[:400]!r}")


def heading(driver):
    headings = driver.find_elements(By.TAG_NAME, "h1")
    return headings[0].text.strip() if headings else None


def expect_heading(driver, title, what):
    wait_until(driver, lambda d: heading(d) == title, f"{what}: the <h1> reads {title!r} (it reads {heading(driver)!r})")


def after_navigation(driver, old_page, title, what):
    """Waits until the page that was `old_page` is replaced by one whose <h1> is `title`; fails at once
    on the studio's error page (its <h1> is the HTTP status)."""
    wait_until(driver, expected_conditions.staleness_of(old_page), f"{what}: a new page loads")
    wait_until(driver, lambda d: heading(d) == title or re.match(r"\d{3}\b", heading(d) or ""),
               f"{what}: the <h1> reads {title!r} (it reads {heading(driver)!r})")
    if heading(driver) != title:
        text = " ".join(driver.find_element(By.TAG_NAME, "body").text.split())
        fail(f"{what}: expected the page {title!r}; the studio answered {driver.current_url} with the error page {text[:300]!r}")


def path_and_query(driver):
    parts = urllib.parse.urlsplit(driver.current_url)
    return parts.path, urllib.parse.parse_qs(parts.query)


def column_names(table):
    """The names of a table.rows' columns (their header without the type in <small>)."""
    return table.parent.execute_script(
        "return [...arguments[0].querySelectorAll('thead th')].map((th) => {"
        " const copy = th.cloneNode(true); copy.querySelectorAll('small').forEach((s) => s.remove());"
        " return copy.textContent.trim(); });", table)


def body_rows(table):
    return [row for row in table.find_elements(By.CSS_SELECTOR, "tbody tr") if not row.find_elements(By.CSS_SELECTOR, "td.empty")]


def cell(row, index):
    return row.find_elements(By.CSS_SELECTOR, "th, td")[index]


def screenshot(driver, directory, name):
    """The whole page (beyond the window when it is longer), as DIR/NAME.png."""
    path = os.path.join(directory, name + ".png")
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    content = metrics.get("cssContentSize") or metrics["contentSize"]
    viewport = metrics.get("cssLayoutViewport") or metrics["layoutViewport"]
    if content["height"] <= viewport["clientHeight"] + 1 and content["width"] <= viewport["clientWidth"] + 1:
        driver.save_screenshot(path)
    else:
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": max(content["width"], viewport["clientWidth"]),
                     "height": content["height"], "scale": 1}})
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
    return path


def describe(driver, element):
    return driver.execute_script(
        "const e = arguments[0]; if (!e) return 'nothing';"
        " let text = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '');"
        " if (typeof e.className === 'string' && e.className) text += '.' + e.className.trim().split(/\\s+/).join('.');"
        " const label = (e.innerText || e.value || '').trim().slice(0, 30); return label ? text + ' ' + JSON.stringify(label) : text;",
        element)


def press(driver, *keys):
    ActionChains(driver).send_keys(*keys).perform()


def tab_to(driver, target, what):
    """Presses Tab until `target` has the focus (at most MAX_TABS times); returns the number of presses."""
    path = []
    for presses in range(1, MAX_TABS + 1):
        press(driver, Keys.TAB)
        focused = driver.switch_to.active_element
        if focused == target:
            return presses
        path.append(describe(driver, focused))
    fail(f"keyboard: {what} did not get the focus after {MAX_TABS} presses of Tab at {driver.current_url}; "
         f"the focus went through: {', '.join(path[:40])}")


def select_all_and_type(driver, text):
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).send_keys(text).perform()


# MARK: The flows


class Flow:
    def __init__(self, args):
        self.args = args
        self.commands = Commands(args.stowage, args.spendsmart, args.store)
        self.shots = args.screenshots
        self.driver = None
        self.watch = None
        self.studio = None
        self.shot_count = 0
        self.timings = []
        # Failures after which the flow can go on: reported at once, and the run fails at its end.
        self.problems = []

    def report(self, problem):
        if problem not in self.problems:
            self.problems.append(problem)
            say(f"  FAILED: {problem}")

    def shot(self, name):
        self.shot_count += 1
        path = screenshot(self.driver, self.shots, f"{self.shot_count:02d}-{name}")
        say(f"  screenshot {path}")

    def start_studio(self, write):
        log = os.path.join(self.shots, f"studio-{'write' if write else 'read-only'}.log")
        self.studio = Studio(self.args.stowage, self.args.store, write, log)
        self.watch.port = self.studio.port
        say(f"  `stowage studio STORE --port 0{' --write' if write else ''}` serves {self.studio.base}/ (token {len(self.studio.token)} characters)")

    def stop_studio(self, leave_page=True):
        """Leaves the page (so that its Server-Sent Events do not fail when the server goes), checks the
        browser's logs, and stops the server: SIGTERM, then SIGKILL."""
        if self.studio is None:
            return
        studio = self.studio
        try:
            if leave_page and self.driver is not None:
                self.driver.get("about:blank")
                self.watch.check("leaving the studio")
        finally:
            self.studio = None
            how, stopped = studio.stop()
            say(f"  the studio {how}")
            if leave_page and not stopped:
                self.report(f"`stowage studio{' --write' if studio.write else ''}` {how} (no page was open any more)")

    def click_and_load(self, element, title, what):
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        after_navigation(self.driver, old, title, what)
        self.watch.check(what)

    def nav_link(self, text, css="header nav a"):
        links = [link for link in self.driver.find_elements(By.CSS_SELECTOR, css) if link.text.strip() == text]
        if len(links) != 1:
            fail(f"{self.driver.current_url}: expected one link {text!r} in {css}, found {len(links)}")
        return links[0]

    def run(self):
        budgets = self.commands.rows("Budget")
        transactions = self.commands.rows("Transaction")
        if len(budgets) < 2 or not any(row["amount"] > 50 for row in transactions):
            fail("the store needs at least two budgets and a transaction over 50 (.ci/studio makes one)")
        say(f"The store: {len(budgets)} budgets, {len(transactions)} transactions")
        self.driver = browser()
        self.watch = Watch(self.driver, self.report)
        try:
            say("Step 1: stowage studio, read-only")
            untouched = store_bytes(self.args.store)
            self.start_studio(write=False)
            say("Step 2: with the mouse")
            self.mouse_flow()
            say("Step 3: HTTP checks without the browser (read-only)")
            http_checks(self.studio, self.commands, budgets[0]["_pk"], budgets[0]["name"])
            if store_bytes(self.args.store) != untouched:
                fail("the read-only studio changed the store file's bytes (the store or its -wal)")
            say("  the read-only studio left the store file's bytes as they were")
            say("Step 4: live update while read-only (another process saves)")
            self.live_table()
            self.stop_studio()

            say("Step 5: stowage studio --write, an edit with the mouse")
            self.start_studio(write=True)
            self.mouse_edit()
            say("Step 6: HTTP checks without the browser (--write)")
            budget = self.commands.rows("Budget")[0]
            http_checks(self.studio, self.commands, budget["_pk"], budget["name"])
            say("Step 7: with the keyboard only")
            renamed = self.keyboard_flow()
            say("Step 8: live update while editing (another process saves)")
            self.live_row(renamed)
            self.stop_studio()
        except Exception:
            # What the browser showed when it failed, and what the server said.
            try:
                say(f"  the page when it failed: {self.driver.current_url}")
                self.shot("FAILED")
            except Exception:
                pass
            if self.studio is not None and self.studio.errors().strip():
                say(f"  the studio's error output: {self.studio.errors().strip()}")
            raise
        finally:
            try:
                self.stop_studio(leave_page=False)
            finally:
                self.driver.quit()
        say(f"Live updates: " + ", ".join(f"{label} {ms:.0f} ms" for label, ms in self.timings))
        say(f"Requests the browser made: {self.watch.requests}")
        if self.problems:
            fail(f"{len(self.problems)} problem{'s' if len(self.problems) > 1 else ''}:\n  " + "\n  ".join(self.problems),
                 lists_problems=True)

    # Step 2

    def mouse_flow(self):
        driver, commands = self.driver, self.commands
        driver.get(self.studio.url)
        expect_heading(driver, "Overview", "the studio's address")
        path, query = path_and_query(driver)
        if "token" in query or path != "/":
            fail(f"opening the studio's address should redirect to / without the token; the address is {driver.current_url}")
        if not driver.get_cookies():
            fail("the studio set no cookie")
        self.watch.check("the overview")
        table = driver.find_element(By.CSS_SELECTOR, "main table.rows")
        counts = {}
        for row in body_rows(table):
            counts[cell(row, 0).find_element(By.TAG_NAME, "a").text.strip()] = cell(row, 1).text.strip()
        expected = {"Budget": str(len(commands.rows("Budget"))), "Transaction": str(len(commands.rows("Transaction")))}
        if counts != expected:
            fail(f"the overview's entities and row counts are {counts}, expected {expected} (stowage rows)")
        badge = driver.find_element(By.CSS_SELECTOR, "header .mode").text
        if badge != "read-only":
            fail(f"the header's mode reads {badge!r}, expected 'read-only'")
        say(f"  overview: redirected to / without the token, entities {counts}")
        self.shot("overview")

        self.click_and_load(self.nav_link("Transaction", "nav.entities a"), "Transaction", "the Transaction link in nav.entities")
        if self.nav_link("Transaction", "nav.entities a").get_attribute("aria-current") != "page":
            fail("the Transaction link in nav.entities is not aria-current=page on the Transaction table")
        say("  Transaction table: opened from nav.entities")
        self.shot("transactions")

        Select(driver.find_element(By.CSS_SELECTOR, "select#property")).select_by_value("amount")
        Select(driver.find_element(By.CSS_SELECTOR, "select#operator")).select_by_value(">")
        driver.find_element(By.CSS_SELECTOR, "input#value").send_keys("50")
        form = driver.find_element(By.CSS_SELECTOR, "form.filter")
        apply = [button for button in form.find_elements(By.TAG_NAME, "button") if button.text.strip() == "Apply"]
        if len(apply) != 1:
            fail("the filter form has no single 'Apply' button")
        self.click_and_load(apply[0], "Transaction", "the filter builder's Apply")
        path, query = path_and_query(driver)
        if query.get("where") != ["amount > 50"] or set(query) - {"where"}:
            fail(f"after the filter builder, the address should have where=amount > 50 alone; it is {driver.current_url}")
        shown = driver.find_element(By.CSS_SELECTOR, "input#where").get_attribute("value")
        if shown != "amount > 50":
            fail(f"the filter's text field shows {shown!r}, expected 'amount > 50'")
        table = driver.find_element(By.CSS_SELECTOR, "main table.rows")
        names = column_names(table)
        if "amount" not in names:
            fail(f"the Transaction table has no amount column: {names}")
        rows = body_rows(table)
        amounts = [cell(row, names.index("amount")).text.strip() for row in rows]
        bad = [text for text in amounts if not re.fullmatch(r"-?[0-9.]+", text) or not float(text) > 50]
        if bad or not amounts:
            fail(f"where=amount > 50: the amount column shows {amounts}; not over 50: {bad}")
        expected = len(commands.rows("Transaction", "amount > 50"))
        if len(rows) != expected:
            fail(f"where=amount > 50 shows {len(rows)} rows; `stowage rows --where 'amount > 50'` has {expected}")
        say(f"  filter builder: where=amount > 50 in the address, {len(rows)} rows, every amount over 50 ({', '.join(amounts)})")
        self.shot("transactions-filtered")

        link = cell(rows[0], 0).find_element(By.TAG_NAME, "a")
        key = link.text.strip()
        self.click_and_load(link, f"Transaction {key}", "the first row's key link")
        budget_links = [a for a in driver.find_elements(By.CSS_SELECTOR, "main dl.values a") if re.fullmatch(r"Budget \d+", a.text.strip())]
        if len(budget_links) != 1:
            fail(f"Transaction {key}'s page has {len(budget_links)} links 'Budget K' in its values, expected 1")
        budget = budget_links[0].text.strip()
        expected_budget = commands.row("Transaction", int(key)).get("budget")
        if budget != f"Budget {expected_budget}":
            fail(f"Transaction {key}'s page links to {budget!r}; stowage rows says its budget is {expected_budget}")
        labels = [span.text.strip() for span in driver.find_elements(By.CSS_SELECTOR, "main dl.values .row-label")]
        budget_name = commands.row("Budget", int(expected_budget)).get("name")
        if labels != [budget_name]:
            fail(f"Transaction {key}'s budget link is labelled {labels}; `stowage rows` names Budget {expected_budget} {budget_name!r}")
        say(f"  row page: Transaction {key}, its budget link {budget!r} labelled {budget_name!r}")
        self.shot("transaction-row")

        self.click_and_load(budget_links[0], budget, "the budget relationship link")
        sections = [s for s in driver.find_elements(By.CSS_SELECTOR, "section.related")
                    if s.find_element(By.TAG_NAME, "h2").text.split()[:1] == ["transactions"]]
        if len(sections) != 1:
            fail(f"{budget}'s page has no section.related 'transactions'")
        keys = [cell(row, 0).text.strip() for row in body_rows(sections[0].find_element(By.CSS_SELECTOR, "table.rows"))]
        if key not in keys:
            fail(f"{budget}'s transactions list {keys} lacks Transaction {key}, which links to it")
        say(f"  {budget}: section.related 'transactions' lists {len(keys)} rows, Transaction {key} among them")
        self.shot("budget-row")

        self.click_and_load(self.nav_link("Schema"), "Schema", "the Schema link")
        svg = driver.find_elements(By.CSS_SELECTOR, "figure.diagram svg")
        if not svg:
            fail("the schema page has no inline SVG in figure.diagram")
        size = svg[0].size
        text = driver.execute_script("return arguments[0].textContent", svg[0])
        if size["width"] < 50 or size["height"] < 50 or "Budget" not in text or "Transaction" not in text:
            fail(f"the schema diagram is {size['width']}×{size['height']} and names {text[:200]!r}; expected Budget and Transaction")
        say(f"  schema: figure.diagram's SVG is {size['width']:.0f}×{size['height']:.0f} px and names both entities")
        self.shot("schema")

        self.click_and_load(self.nav_link("SQL"), "SQL", "the SQL link")
        sql = ('SELECT b.name, count(t._pk) AS transactions FROM Budget b LEFT JOIN "Transaction" t '
               'ON t.budget_pk = b._pk GROUP BY b._pk ORDER BY b.name')
        driver.find_element(By.CSS_SELECTOR, "textarea#q").send_keys(sql)
        run = [b for b in driver.find_elements(By.CSS_SELECTOR, "form.sql button") if b.text.strip() == "Run"]
        if len(run) != 1:
            fail("the SQL page has no single 'Run' button")
        self.click_and_load(run[0], "SQL", "the SQL page's Run")
        if driver.find_elements(By.CSS_SELECTOR, "main .error"):
            fail(f"the SQL page shows an error: {driver.find_element(By.CSS_SELECTOR, 'main .error').text!r}")
        if driver.find_element(By.CSS_SELECTOR, "textarea#q").get_attribute("value") != sql:
            fail("after Run, the SQL page's text area no longer holds the query")
        table = driver.find_element(By.CSS_SELECTOR, "main table.rows")
        shown = [[c.text.strip() for c in row.find_elements(By.CSS_SELECTOR, "th, td")] for row in body_rows(table)]
        expected = [[row["name"], str(row["transactions"])] for row in commands.sql(sql)]
        if column_names(table) != ["name", "transactions"] or shown != expected:
            fail(f"the SQL page shows {column_names(table)} {shown}; `stowage sql` gives {expected}")
        say(f"  SQL: the query's {len(shown)} rows match `stowage sql`")
        self.shot("sql")

        self.click_and_load(self.nav_link("History"), "History", "the History link")
        history = commands.history()
        items = driver.find_elements(By.CSS_SELECTOR, "ol.history > li")
        if not history or not items or not items[0].text.startswith(f"#{history[-1]['token']} "):
            fail(f"the history page's first entry should be the newest transaction #{history[-1]['token'] if history else '?'}; "
                 f"it is {items[0].text[:80] if items else 'missing'!r}")
        say(f"  history: {len(items)} transactions shown, newest #{history[-1]['token']} first")
        self.shot("history")

    # Live updates

    def live(self, label, budget, note_css, wait_css):
        """With the page open and listening: spendsmart spends from `budget`; the row must appear."""
        driver = self.driver
        driver.execute_script("window.__marker = 1")
        page = driver.find_element(By.TAG_NAME, "html")
        note = f"Live {label} {os.getpid()}-{time.monotonic_ns() % 100000}"
        process_seconds = self.commands.spend(budget, "61.25", note)
        saved = time.monotonic()

        def shown(d):
            # One script call: the page's script may swap the cells while they are read.
            return d.execute_script(
                "return [...document.querySelectorAll(arguments[0])].some((cell) => cell.textContent.includes(arguments[1]))",
                note_css, note)

        try:
            WebDriverWait(driver, LIVE_TIMEOUT, poll_frequency=0.02).until(shown)
        except TimeoutException:
            fail(f"live update ({label}): {LIVE_TIMEOUT} s after spendsmart saved, {driver.current_url} does not show "
                 f"the new transaction {note!r}; #notice reads {driver.find_element(By.ID, 'notice').text!r}")
        elapsed = (time.monotonic() - saved) * 1000
        try:
            page.tag_name
            marker = driver.execute_script("return window.__marker")
        except StaleElementReferenceException:
            marker = None
        if marker != 1:
            fail(f"live update ({label}): the page was reloaded or left (window.__marker is gone)")
        notice = driver.find_element(By.ID, "notice").text
        if notice != "Updated: the store changed.":
            fail(f"live update ({label}): #notice reads {notice!r}, expected 'Updated: the store changed.'")
        changed = driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].filter((row) => row.textContent.includes(arguments[1]))"
            ".map((row) => row.classList.contains('changed'))", wait_css, note)
        if changed != [True]:
            fail(f"live update ({label}): the new row should be marked class=changed once: {changed}")
        self.watch.check(f"live update ({label})")
        self.timings.append((label, elapsed))
        say(f"  live update ({label}): the row appeared {elapsed:.0f} ms after spendsmart's save "
            f"(spendsmart itself ran {process_seconds * 1000:.0f} ms), no reload, #notice {notice!r}")

    def live_table(self):
        driver = self.driver
        since = self.watch.mark()
        self.click_and_load(self.nav_link("Transaction", "nav.entities a"), "Transaction", "the Transaction link")
        old = driver.find_element(By.TAG_NAME, "html")
        # Newest first, so that the new row is on the first page however many rows there are.
        header = [a for a in driver.find_elements(By.CSS_SELECTOR, "main table.rows thead th a")
                  if a.text.split("\n")[0].strip(" ▲▼") == "_pk"]
        if len(header) != 1:
            fail("the Transaction table's key column _pk has no sort link")
        header[0].click()
        wait_until(driver, expected_conditions.staleness_of(old), "sorting by _pk")
        old = driver.find_element(By.TAG_NAME, "html")
        header = [a for a in driver.find_elements(By.CSS_SELECTOR, "main table.rows thead th a")
                  if a.text.split("\n")[0].strip(" ▲▼") == "_pk"]
        header[0].click()
        wait_until(driver, expected_conditions.staleness_of(old), "sorting by _pk, descending")
        expect_heading(driver, "Transaction", "sorting by _pk, descending")
        if path_and_query(driver)[1].get("sort") != ["_pk:desc"]:
            fail(f"clicking the _pk header twice should sort by _pk:desc: {driver.current_url}")
        self.watch.wait_for_events_stream(since, "the Transaction table")
        budget = self.commands.rows("Budget")[0]["name"]
        self.live("Transaction table, read-only", budget, "main #live table.rows tbody td", "main #live table.rows tbody tr")
        self.shot("live-transactions")

    def live_row(self, budget):
        key, name = budget
        driver = self.driver
        since = self.watch.mark()
        old = driver.find_element(By.TAG_NAME, "html")
        driver.refresh()
        after_navigation(driver, old, f"Budget {key}", "the budget's page")
        self.watch.wait_for_events_stream(since, f"Budget {key}")
        self.live(f"Budget {key} page, --write", name, "main #live section.related tbody td", "main #live section.related tbody tr")
        self.shot("live-budget")

    # Step 5

    def mouse_edit(self):
        driver, commands = self.driver, self.commands
        driver.get(self.studio.url)
        expect_heading(driver, "Overview", "the studio's address (--write)")
        badge = driver.find_element(By.CSS_SELECTOR, "header .mode").text
        if badge != "editing":
            fail(f"with --write, the header's mode reads {badge!r}, expected 'editing'")
        self.watch.check("the overview (--write)")
        self.click_and_load(self.nav_link("Budget", "nav.entities a"), "Budget", "the Budget link")
        budget = commands.rows("Budget")[0]
        key = budget["_pk"]
        links = [a for a in driver.find_elements(By.CSS_SELECTOR, "main table.rows tbody th a") if a.text.strip() == str(key)]
        if len(links) != 1:
            fail(f"the Budget table has no key link {key}")
        self.click_and_load(links[0], f"Budget {key}", f"Budget {key}'s key link")
        if not driver.find_elements(By.CSS_SELECTOR, "main form.edit"):
            fail(f"with --write, Budget {key}'s page has no form.edit")
        field = driver.find_element(By.CSS_SELECTOR, "form.edit input#field-limit")
        if float(field.get_attribute("value")) != budget["limit"]:
            fail(f"Budget {key}'s limit field shows {field.get_attribute('value')!r}; stowage rows says {budget['limit']}")
        limit = round(budget["limit"] + 123.25, 2)
        field.clear()
        field.send_keys(str(limit))
        self.shot("budget-edit-before-save")
        save = [b for b in driver.find_elements(By.CSS_SELECTOR, "form.edit button") if b.text.strip() == "Save"]
        if len(save) != 1:
            fail(f"Budget {key}'s form has no single 'Save' button")
        self.click_and_load(save[0], f"Budget {key}", "Save")
        if path_and_query(driver)[0] != f"/entities/Budget/{key}":
            fail(f"after Save, the page is {driver.current_url}, expected /entities/Budget/{key}")
        shown = driver.find_element(By.CSS_SELECTOR, "form.edit input#field-limit").get_attribute("value")
        if float(shown) != limit:
            fail(f"after Save, Budget {key}'s limit field shows {shown!r}, expected {limit:g}")
        say(f"  Budget {key}: limit {budget['limit']:g} → {limit:g} with Save; the page shows {shown}")
        self.shot("budget-edited")
        saved = commands.row("Budget", key)
        if saved.get("limit") != limit:
            fail(f"`stowage rows STORE Budget` shows Budget {key}'s limit {saved.get('limit')}, expected {limit:g}")
        self.check_last_edit("Budget", key, "limit")
        say(f"  stowage rows: Budget {key}'s limit is {saved['limit']:g}; stowage history: the last save is stowage-studio's")
        self.mouse_relink(key)

    def transactions_section(self, key):
        sections = [s for s in self.driver.find_elements(By.CSS_SELECTOR, "section.related")
                    if s.find_element(By.TAG_NAME, "h2").text.split()[:1] == ["transactions"]]
        if len(sections) != 1:
            fail(f"Budget {key}'s page has no section.related 'transactions'")
        return sections[0]

    def mouse_relink(self, key):
        """Removes a transaction from the budget's list with its Remove button, then adds it back by key
        with the Add form, checking each with `stowage rows`."""
        driver, commands = self.driver, self.commands
        rows = body_rows(self.transactions_section(key).find_element(By.CSS_SELECTOR, "table.rows"))
        if not rows:
            fail(f"Budget {key}'s transactions list is empty")
        transaction = int(cell(rows[0], 0).text.strip())
        buttons = rows[0].find_elements(By.CSS_SELECTOR, "td.action button")
        if [b.text.strip() for b in buttons] != ["Remove"]:
            fail(f"with --write, Transaction {transaction}'s row in Budget {key}'s list has no single 'Remove' button")
        self.click_and_load(buttons[0], f"Budget {key}", "Remove")
        if commands.row("Transaction", transaction).get("budget") is not None:
            fail(f"after Remove, `stowage rows` shows Transaction {transaction}'s budget {commands.row('Transaction', transaction).get('budget')}, expected null")
        shown = [cell(row, 0).text.strip() for row in body_rows(self.transactions_section(key).find_element(By.CSS_SELECTOR, "table.rows"))]
        if str(transaction) in shown:
            fail(f"after Remove, Budget {key}'s list still shows Transaction {transaction}")
        self.shot("budget-transaction-removed")
        field = self.transactions_section(key).find_element(By.CSS_SELECTOR, "form.link-rows input#link-transactions")
        field.send_keys(str(transaction))
        add = [b for b in self.transactions_section(key).find_elements(By.CSS_SELECTOR, "form.link-rows button") if b.text.strip() == "Add"]
        if len(add) != 1:
            fail(f"Budget {key}'s transactions list has no single 'Add' button")
        self.click_and_load(add[0], f"Budget {key}", "Add")
        if commands.row("Transaction", transaction).get("budget") != key:
            fail(f"after Add, `stowage rows` shows Transaction {transaction}'s budget {commands.row('Transaction', transaction).get('budget')}, expected {key}")
        last = commands.history()[-1]
        if last.get("author") != "stowage-studio":
            fail(f"after Add, the last history transaction's author is {last.get('author')!r}, expected 'stowage-studio'")
        say(f"  Budget {key}: Transaction {transaction} removed from its list with Remove, added back with Add; stowage rows agrees")

    def check_last_edit(self, entity, key, property):
        history = self.commands.history()
        last = history[-1] if history else None
        if not last or last.get("author") != "stowage-studio":
            fail(f"`stowage history --format json`: the last transaction's author is "
                 f"{last.get('author') if last else None!r}, expected 'stowage-studio'")
        if not any(change["kind"] == "update" and change["entity"] == entity and key in change["keys"]
                   and property in change["properties"] for change in last["changes"]):
            fail(f"`stowage history`: the last transaction #{last['token']} does not update {entity} {key}'s {property}: {last['changes']}")

    # Step 7

    def keyboard_flow(self):
        driver, commands = self.driver, self.commands
        driver.get(self.studio.base + "/")
        expect_heading(driver, "Overview", "keyboard: the overview")
        self.watch.check("keyboard: the overview")

        press(driver, Keys.TAB)
        skip = driver.switch_to.active_element
        if skip.tag_name != "a" or skip.text.strip() != "Skip to content":
            fail(f"keyboard: the first Tab should focus 'Skip to content'; it focused {describe(driver, skip)}")
        rect = skip.rect
        if rect["x"] < 0 or rect["y"] < 0 or rect["width"] < 10:
            fail(f"keyboard: the focused 'Skip to content' link is off screen: {rect}")
        say("  the first Tab focuses 'Skip to content', on screen")
        self.shot("keyboard-skip-link")

        budgets = commands.rows("Budget")
        target = budgets[-1]
        key, name = target["_pk"], target["name"]
        prefix = next(name[:n] for n in range(1, len(name) + 1)
                      if sum(1 for b in budgets if b["name"].startswith(name[:n])) == 1)

        link = self.nav_link("Budget", "nav.entities a")
        presses = tab_to(driver, link, "the Budget link in nav.entities")
        old = driver.find_element(By.TAG_NAME, "html")
        press(driver, Keys.ENTER)
        after_navigation(driver, old, "Budget", "keyboard: Enter on the Budget link")
        self.watch.check("keyboard: the Budget table")
        say(f"  Tab ×{presses + 1} to the Budget link, Enter: the Budget table")

        press(driver, Keys.TAB)
        if driver.switch_to.active_element.text.strip() != "Skip to content":
            fail(f"keyboard: the first Tab on the Budget table focused {describe(driver, driver.switch_to.active_element)}")
        press(driver, Keys.ENTER)
        focused = driver.switch_to.active_element
        if focused.get_attribute("id") != "main":
            fail(f"keyboard: Enter on 'Skip to content' should move the focus to main#main; it is on {describe(driver, focused)}")
        say("  'Skip to content' + Enter moves the focus to <main>")

        prop = driver.find_element(By.CSS_SELECTOR, "select#property")
        presses = tab_to(driver, prop, "select#property")
        press(driver, "name")
        if Select(prop).first_selected_option.get_attribute("value") != "name":
            fail(f"keyboard: typing 'name' on select#property chose {Select(prop).first_selected_option.text!r}")
        operator = driver.find_element(By.CSS_SELECTOR, "select#operator")
        tab_to(driver, operator, "select#operator")
        values = [o.get_attribute("value") for o in Select(operator).options]
        if "hasPrefix" not in values:
            fail(f"keyboard: select#operator has no hasPrefix: {values}")
        for _ in range(values.index("hasPrefix") - values.index(Select(operator).first_selected_option.get_attribute("value"))):
            press(driver, Keys.ARROW_DOWN)
        if Select(operator).first_selected_option.get_attribute("value") != "hasPrefix":
            fail(f"keyboard: the arrow keys chose {Select(operator).first_selected_option.text!r} in select#operator, expected hasPrefix")
        value = driver.find_element(By.CSS_SELECTOR, "input#value")
        tab_to(driver, value, "input#value")
        press(driver, prefix)
        old = driver.find_element(By.TAG_NAME, "html")
        press(driver, Keys.ENTER)
        after_navigation(driver, old, "Budget", "keyboard: Enter in the filter's value")
        self.watch.check("keyboard: the filtered Budget table")
        predicate = f'name.hasPrefix("{prefix}")'
        if path_and_query(driver)[1].get("where") != [predicate]:
            fail(f"keyboard: the filter should be where={predicate}; the address is {driver.current_url}")
        rows = body_rows(driver.find_element(By.CSS_SELECTOR, "main table.rows"))
        if [cell(row, 0).text.strip() for row in rows] != [str(key)]:
            fail(f"keyboard: where={predicate} should show Budget {key} alone; it shows keys {[cell(r, 0).text for r in rows]}")
        say(f"  filter builder by keyboard: typed 'name', arrows to hasPrefix, typed {prefix!r}, Enter: where={predicate}, one row")
        self.shot("keyboard-filtered")

        link = cell(rows[0], 0).find_element(By.TAG_NAME, "a")
        tab_to(driver, link, f"Budget {key}'s key link")
        old = driver.find_element(By.TAG_NAME, "html")
        press(driver, Keys.ENTER)
        after_navigation(driver, old, f"Budget {key}", f"keyboard: Enter on Budget {key}'s key link")
        self.watch.check(f"keyboard: Budget {key}")

        field = driver.find_element(By.CSS_SELECTOR, "form.edit input#field-name")
        tab_to(driver, field, "input#field-name")
        new_name = f"{name} (keyboard)"
        select_all_and_type(driver, new_name)
        self.shot("keyboard-editing")
        old = driver.find_element(By.TAG_NAME, "html")
        press(driver, Keys.ENTER)
        after_navigation(driver, old, f"Budget {key}", "keyboard: Enter in the name field (submits the form)")
        self.watch.check(f"keyboard: Budget {key} saved")
        shown = driver.find_element(By.CSS_SELECTOR, "form.edit input#field-name").get_attribute("value")
        if shown != new_name:
            fail(f"keyboard: after Enter, Budget {key}'s name field shows {shown!r}, expected {new_name!r}")
        saved = commands.row("Budget", key)
        if saved.get("name") != new_name:
            fail(f"keyboard: `stowage rows STORE Budget` shows Budget {key}'s name {saved.get('name')!r}, expected {new_name!r}")
        self.check_last_edit("Budget", key, "name")
        say(f"  Budget {key} renamed {name!r} → {new_name!r} by keyboard; stowage rows and stowage history agree")
        self.shot("keyboard-saved")
        return key, new_name


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stowage", required=True)
    parser.add_argument("--spendsmart", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--screenshots", required=True)
    args = parser.parse_args(argv[1:])
    args.store = os.path.abspath(args.store)
    os.makedirs(args.screenshots, exist_ok=True)
    start = time.monotonic()
    flow = Flow(args)
    try:
        flow.run()
    except Failure as failure:
        print(f"error: {failure}", file=sys.stderr)
        if not failure.lists_problems:
            for problem in flow.problems:
                print(f"error (earlier): {problem}", file=sys.stderr)
        return 1
    except Exception as error:  # A WebDriver error (an element that is not there…), with where it happened.
        traceback.print_exc()
        print(f"error: {type(error).__name__}: {' '.join(str(error).split())[:600]}", file=sys.stderr)
        return 1
    say(f"Stowage Studio passed in {time.monotonic() - start:.1f} s; screenshots in {args.screenshots}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
