"""The larger ``dpsynrag`` commands, registered on the app in :mod:`dpsynrag.cli`: ``build`` and ``budget``
(options generated from the method registry, :mod:`dpsynrag.commands.build`) and ``query``
(:mod:`dpsynrag.commands.query`); shared console and error helpers in :mod:`dpsynrag.commands.common`."""
