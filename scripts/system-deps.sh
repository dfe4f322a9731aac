#!/usr/bin/env bash
# System packages the tests use: headless Chromium for the book's screenshot checks.
# Installed only when missing and only where we are root (CI is root); elsewhere the
# screenshot test skips with a message naming this script.
set -u
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "warning: could not install chromium; the screenshot test will skip"
else
  echo "note: chromium not found and not root; install Debian's 'chromium' for the screenshot test"
fi
exit 0
