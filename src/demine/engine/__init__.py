"""The rules of the game: cells and presets (``grid``), what a player sees (``position``), the
hidden layout and its moves (``game``), and the file formats (``formats``).

The engine imports nothing from the other layers: analysis, players, bench, render, web and the
command line all build on it.
"""
