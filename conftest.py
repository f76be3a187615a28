"""Collection for the whole run (the README's test command collects ``src/demine`` for doctests).

In the compiled build (mypyc) a compiled module's ``.py`` file cannot be imported as a file: Python
loads the extension module of the same name, which pytest refuses as another file. Its doctests
are run from its source instead (tests/players/test_builds.py).
"""

from __future__ import annotations

from demine._build import compiled_modules

collect_ignore = ["src/" + name.replace(".", "/") + ".py" for name in compiled_modules()]
