#!/usr/bin/env python
"""Render a comparison's ``report.html`` to a PNG with headless Chromium.

A development tool for looking at the page :func:`krein.experiment.page.write_report`
writes, the way a browser shows it::

    python scripts/screenshot_report.py DIR [--out PNG] [--width 1280] [--height 3000]

``DIR`` is a comparison directory holding ``report.html`` (or the path of an
HTML file).  The screenshot is written to ``--out`` (default
``DIR/report_screenshot.png``) and its path printed.  The browser is the first
of ``chromium``, ``chromium-browser``, ``google-chrome``,
``google-chrome-stable`` found on ``PATH`` (or ``$CHROMIUM``); without one the
script stops with a message and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser():
    """Path of a Chromium-family browser, or None."""
    env = os.environ.get("CHROMIUM")
    if env:
        return shutil.which(env) or (env if os.path.isfile(env) else None)
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(page, out, width=1280, height=3000, timeout=120):
    """Render ``page`` (an HTML file) to the PNG ``out`` with headless Chromium; return ``out``."""
    browser = find_browser()
    if browser is None:
        raise RuntimeError("no Chromium found (looked for " + ", ".join(BROWSERS)
                           + " on PATH and $CHROMIUM); install one, e.g. "
                           "`apt-get install chromium`")
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="krein-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={profile}", f"--screenshot={out}",
               f"--window-size={width},{height}", pathlib.Path(page).resolve().as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not os.path.isfile(out):
        raise RuntimeError(f"{browser} failed (exit status {proc.returncode}):\n"
                           + proc.stderr[-2000:])
    return out


def main(argv=None):
    """Command line: ``DIR [--out PNG] [--width W] [--height H]``; prints the screenshot path."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="comparison directory with report.html, or an HTML file")
    parser.add_argument("--out", help="screenshot PNG (default DIR/report_screenshot.png)")
    parser.add_argument("--width", type=int, default=1280, help="window width in pixels")
    parser.add_argument("--height", type=int, default=3000, help="window height in pixels")
    args = parser.parse_args(argv)
    page = args.directory
    if os.path.isdir(page):
        page = os.path.join(page, "report.html")
    if not os.path.isfile(page):
        print(f"screenshot_report: {page}: no such file (run krein report DIR first)",
              file=sys.stderr)
        return 2
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(page)),
                                   "report_screenshot.png")
    try:
        print(screenshot(page, out, args.width, args.height))
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"screenshot_report: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
