"""Every ``dpsynrag`` command, one module each; :mod:`dpsynrag.cli` only registers them on the app.

``build`` and ``budget`` (:mod:`~dpsynrag.commands.build`: options generated from the method registry,
presets and the work estimate in :mod:`~dpsynrag.commands.plan`), ``query``, ``report``, ``demo``, ``eval``,
``audit``, ``ledger`` (``show``, ``set-budget``), ``serve`` and ``export``; the shared console and error
helpers are in :mod:`~dpsynrag.commands.common`. A command parses its arguments and calls the library.
"""
