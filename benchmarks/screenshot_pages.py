"""Screenshots of the corpus card and of the service page (issue 54), for the README and docs/report.md.

Writes the publishable corpus card of ``CORPUS`` (``dpsynrag report CORPUS --html``), serves ``CORPUS`` with
its own models on a loopback port, and opens both pages in headless Chromium (Debian's ``chromium``, driven
by Playwright): the card's first screen, and the service page after a question typed into it. Output:
``--out``/corpus_card.png and service_page.png (default ``docs/images``)::

    python benchmarks/screenshot_pages.py runs/demo/cache/corpora/dp-synrag-eps10-* \\
        --question "I have a fever, a rash on my palms and fatigue. What is my disease?"
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus")
    p.add_argument("--question", default="I have a fever, a rash on my palms and fatigue. What is my disease?")
    p.add_argument("--out", default=str(HERE.parent / "docs" / "images"))
    args = p.parse_args(argv)
    import uvicorn
    from playwright.sync_api import sync_playwright

    from dpsynrag.corpus.card import write_corpus_card
    from dpsynrag.serve import CorpusService, create_app

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no chromium found: scripts/setup.sh installs Debian's (as root).")
    with tempfile.TemporaryDirectory() as tmp:
        card = write_corpus_card(args.corpus, Path(tmp) / "card.html")
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        server = uvicorn.Server(uvicorn.Config(create_app(CorpusService.load([args.corpus])), log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1100, "height": 1400})
                page.goto(card.as_uri())
                page.screenshot(path=str(out / "corpus_card.png"))
                page = browser.new_page(viewport={"width": 1100, "height": 1100})
                page.goto(url + "/")
                page.wait_for_selector("#guarantee-values")
                page.fill("#question", args.question)
                page.keyboard.press("Enter")
                page.wait_for_selector("#contexts li", timeout=600_000)
                page.screenshot(path=str(out / "service_page.png"))
                browser.close()
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    print(f"written: {out / 'corpus_card.png'}, {out / 'service_page.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
