"""`python -m dpsynrag`: the command line (the same app as the `dpsynrag` script)."""

from dpsynrag.cli import app

if __name__ == "__main__":
    app(prog_name="dpsynrag")
