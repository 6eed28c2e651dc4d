#!/usr/bin/python3
"""Opens pages of the rendered documentation in headless Chromium and checks what a reader sees.

Usage: docs_check.py BASE_URL PATH TITLE SENTENCE [PATH TITLE SENTENCE ...]

For each page: loads BASE_URL + PATH, waits until DocC's JavaScript has rendered the page (the page's
text holds TITLE and SENTENCE), and fails if it does not within 30 seconds or if the browser's console
logged an error (a failed script, a resource that did not load, an exception). Exits 0 when every page
passes, 1 otherwise. Run by .ci/docs with Debian's python3-selenium, chromium and chromium-driver.
"""

import sys
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TIMEOUT = 30


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1024", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    # Keeps every console message, so that `get_log("browser")` returns them.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def page_text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def check_page(driver, url, title, sentence):
    """Returns a list of problems with the page at `url` (empty when it passes)."""
    start = time.monotonic()
    driver.get(url)
    try:
        WebDriverWait(driver, TIMEOUT).until(
            lambda d: title in page_text(d) and " ".join(sentence.split()) in " ".join(page_text(d).split()))
    except TimeoutException:
        text = " ".join(page_text(driver).split())
        return [f"{url}: after {TIMEOUT} s the page does not show "
                + (f"its title {title!r}" if title not in text else f"the sentence {sentence!r}")
                + f"; it shows: {text[:400]!r}"]
    problems = []
    headings = [h.text for h in driver.find_elements(By.TAG_NAME, "h1")]
    if title not in headings:
        problems.append(f"{url}: no <h1> reads {title!r} (the page's <h1> elements: {headings})")
    # Messages logged while the page finished rendering arrive a little later than the text.
    time.sleep(0.5)
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append(f"{url}: browser console error: {entry.get('message')}")
    print(f"  {url}: shows {title!r} and the sentence, console clean "
          f"({time.monotonic() - start:.1f} s)" if not problems else f"  {url}: FAILED")
    return problems


def main(argv):
    if len(argv) < 5 or (len(argv) - 2) % 3 != 0:
        print(__doc__, file=sys.stderr)
        return 2
    base = argv[1].rstrip("/")
    pages = [tuple(argv[i:i + 3]) for i in range(2, len(argv), 3)]
    driver = browser()
    problems = []
    try:
        for path, title, sentence in pages:
            problems += check_page(driver, base + path, title, sentence)
    finally:
        driver.quit()
    for problem in problems:
        print("error: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
