"""A live window on an X11 display: find it, capture it, click and type in it.

Windows are found by what they say of themselves (``_NET_WM_NAME``, ``WM_NAME`` in Latin-1 or
UTF-8, ``WM_CLASS``), with python-xlib; the screen is captured with mss (XShm, a board in about a
millisecond) or, where something may be drawn over the window (the hint overlay), from the
window's own pixmap through the Composite extension; input goes through XTest, and every pointer
event is checked against the target window's box first: nothing is ever clicked outside it.

Needs the ``screen`` extra (python-xlib, mss, numpy); :func:`connect` says so when it is missing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from demine.errors import DemineError

#: Modifier keys by the names :meth:`Connection.key` takes.
_MODIFIERS = {"ctrl": "Control_L", "shift": "Shift_L", "alt": "Alt_L"}
#: Mouse buttons by name, as X numbers them.
BUTTONS = {"left": 1, "middle": 2, "right": 3}


class ScreenError(DemineError):
    """A display that cannot be reached, a window that is not there, an action refused."""


class WindowGone(ScreenError):
    """The target window closed (or was unmapped) while demine was using it."""


class OutsideWindow(ScreenError):
    """A click that would have landed outside the target window: refused, never sent."""


@dataclass(frozen=True, slots=True)
class WindowInfo:
    """A top-level window as the display describes it."""

    id: int
    """The X window id."""
    name: str
    """``_NET_WM_NAME`` when set (UTF-8), else ``WM_NAME`` (Latin-1 or UTF-8), else ''."""
    wm_class: tuple[str, str]
    """``WM_CLASS``: (instance, class); ('', '') when unset."""
    box: tuple[int, int, int, int]
    """Where it is on the screen: left, top, right, bottom (right and bottom excluded)."""

    @property
    def width(self) -> int:
        """Its width in pixels."""
        return self.box[2] - self.box[0]

    @property
    def height(self) -> int:
        """Its height in pixels."""
        return self.box[3] - self.box[1]

    def describe(self) -> str:
        """One line: id, name, class and geometry."""
        left, top = self.box[:2]
        return (
            f"0x{self.id:x} {self.name!r} class {self.wm_class[1]!r} {self.width}x{self.height}+{left}+{top}"
        )


def _text(value: Any) -> str:
    """A property's text: UTF-8 when it decodes, else Latin-1 (xdemineur's 'Xdémineur')."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raw = bytes(value)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def display_name(name: str | None) -> str:
    """The display to use: ``name``, else ``$DISPLAY``; :class:`ScreenError` when neither is set."""
    chosen = name or os.environ.get("DISPLAY")
    if not chosen:
        raise ScreenError("no X display: pass --display :N or set DISPLAY")
    return chosen


class Connection:
    """One display, for finding windows, capturing and sending input.

    Open it with :func:`connect`; close it (or use ``with``) when done.
    """

    def __init__(self, name: str) -> None:
        from Xlib import display as xdisplay

        self.name = name
        try:
            self.x = xdisplay.Display(name)
        except Exception as e:  # python-xlib raises its own errors, OSError, OverflowError...
            raise ScreenError(f"cannot open the X display {name}: {e}") from None
        self.root = self.x.screen().root
        self._atoms: dict[str, int] = {}
        self._mss: Any | None = None
        self._xtest_checked = False
        self._redirected: set[int] = set()

    # ------------------------------------------------------------------ life
    def close(self) -> None:
        """Close the connection (and the capture's)."""
        if self._mss is not None:
            with suppress(Exception):
                self._mss.close()
            self._mss = None
        with suppress(Exception):
            self.x.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def atom(self, name: str) -> int:
        """The atom for ``name`` (interned once)."""
        if name not in self._atoms:
            self._atoms[name] = self.x.intern_atom(name)
        return self._atoms[name]

    # ------------------------------------------------------------------ windows
    def _walk(self, window: Any, depth: int) -> Iterator[Any]:
        from Xlib import error as xerror

        try:
            children = window.query_tree().children
        except xerror.XError:
            return
        for child in children:
            yield child
            if depth > 0:
                yield from self._walk(child, depth - 1)

    def describe(self, window: Any) -> WindowInfo | None:
        """A window's :class:`WindowInfo`, or None when it is gone or not shown."""
        from Xlib import X
        from Xlib import error as xerror

        try:
            if window.get_attributes().map_state != X.IsViewable:
                return None
            geo = window.get_geometry()
            origin = self.root.translate_coords(window, 0, 0)
            net = window.get_full_property(self.atom("_NET_WM_NAME"), 0)
            name = _text(net.value) if net is not None else ""
            if not name:
                plain = window.get_full_property(self.atom("WM_NAME"), 0)
                name = _text(plain.value) if plain is not None else ""
            cls = window.get_full_property(self.atom("WM_CLASS"), 0)
        except (xerror.XError, AttributeError):
            return None
        wm_class = ("", "")
        if cls is not None:
            parts = [_text(p) for p in bytes(cls.value).split(b"\0")]
            wm_class = (parts[0] if parts else "", parts[1] if len(parts) > 1 else "")
        left, top = origin.x, origin.y
        return WindowInfo(window.id, name, wm_class, (left, top, left + geo.width, top + geo.height))

    def windows(self) -> list[WindowInfo]:
        """Every window shown on the display that has a name or a class (clients of a window
        manager included: frames are looked into three levels deep)."""
        out = []
        for w in self._walk(self.root, 2):
            info = self.describe(w)
            if info is not None and (info.name or any(info.wm_class)):
                out.append(info)
        return out

    def find(
        self,
        *,
        name: str | None = None,
        wm_class: str | None = None,
        min_size: tuple[int, int] = (60, 60),
        exclude: Callable[[WindowInfo], bool] | None = None,
    ) -> list[WindowInfo]:
        """The windows shown whose name equals ``name`` and/or whose class (either part of
        ``WM_CLASS``, case-insensitively) equals ``wm_class``, at least ``min_size`` big (Tatham's
        Mines keeps a hidden 10x10 window of the same class), largest first."""
        found = []
        for info in self.windows():
            if name is not None and info.name != name:
                continue
            if wm_class is not None and wm_class.lower() not in (p.lower() for p in info.wm_class):
                continue
            if info.width < min_size[0] or info.height < min_size[1]:
                continue
            if exclude is not None and exclude(info):
                continue
            found.append(info)
        return sorted(found, key=lambda i: -(i.width * i.height))

    def window(self, window_id: int) -> WindowInfo:
        """The window ``window_id`` as it is now; :class:`WindowGone` when it is not shown."""
        info = self.describe(self.x.create_resource_object("window", window_id))
        if info is None:
            raise WindowGone(f"window 0x{window_id:x} is gone")
        return info

    def box(self, window_id: int) -> tuple[int, int, int, int]:
        """The window's box on the screen now (two round trips: cheaper than :meth:`window`);
        :class:`WindowGone` when it is not there."""
        from Xlib import error as xerror

        w = self.x.create_resource_object("window", window_id)
        try:
            geo = w.get_geometry()
            origin = self.root.translate_coords(w, 0, 0)
        except xerror.XError:
            raise WindowGone(f"window 0x{window_id:x} is gone") from None
        return origin.x, origin.y, origin.x + geo.width, origin.y + geo.height

    def move_resize(self, window_id: int, left: int, top: int, width: int, height: int) -> None:
        """Place and size a window (with no window manager the request is carried out as made;
        with one, it may be adjusted)."""
        w = self.x.create_resource_object("window", window_id)
        w.configure(x=left, y=top, width=width, height=height)
        self.x.sync()

    # ------------------------------------------------------------------ capture
    def screen_size(self) -> tuple[int, int]:
        """The screen's width and height in pixels."""
        s = self.x.screen()
        return s.width_in_pixels, s.height_in_pixels

    def grab(self, box: tuple[int, int, int, int]) -> Any:
        """The screen inside ``box`` (left, top, right, bottom; clipped to the screen) as an
        HxWx3 uint8 RGB array: what is shown there, windows drawn over it included."""
        import numpy as np

        sw, sh = self.screen_size()
        left, top = max(0, box[0]), max(0, box[1])
        right, bottom = min(sw, box[2]), min(sh, box[3])
        if right <= left or bottom <= top:
            raise ScreenError(f"the box {box} is off the {sw}x{sh} screen")
        if self._mss is None:
            import mss

            make = getattr(mss, "MSS", None) or mss.mss
            self._mss = make(display=self.name)
        shot = self._mss.grab({"left": left, "top": top, "width": right - left, "height": bottom - top})
        bgra = np.frombuffer(shot.bgra, dtype=np.uint8).reshape(shot.height, shot.width, 4)
        return np.ascontiguousarray(bgra[:, :, 2::-1])

    def redirect(self, window_id: int) -> None:
        """Keep the window's own contents in a pixmap of its own (Composite's automatic
        redirection: the server still shows it as before), for :meth:`grab_unobscured`.

        Call it before anything is drawn over the window: at the redirection the server fills
        the new pixmap with what the screen shows there, an overlay above included, and the
        program repaints only what it changes after. Once per window (later calls do nothing)."""
        if window_id in self._redirected:
            return
        from Xlib import error as xerror

        if not self.x.has_extension("Composite"):
            raise ScreenError(f"the display {self.name} has no Composite extension")
        w = self.x.create_resource_object("window", window_id)
        try:
            w.composite_redirect_window(0)  # automatic: the server still paints it
            self.x.sync()
        except xerror.XError as e:
            raise WindowGone(f"window 0x{window_id:x} cannot be redirected: {e}") from None
        self._redirected.add(window_id)

    def grab_unobscured(self, window_id: int) -> Any:
        """The window's own contents as an HxWx3 uint8 RGB array, whatever is drawn over it (the
        overlay of ``demine screen watch``): read from the window's pixmap through the Composite
        extension. The window must have been :meth:`redirect`-ed before anything was drawn over
        it (a first call redirects it now)."""
        import numpy as np
        from Xlib import X
        from Xlib import error as xerror

        self.redirect(window_id)
        w = self.x.create_resource_object("window", window_id)
        try:
            geo = w.get_geometry()
            pixmap = w.composite_name_window_pixmap()
            try:
                image = pixmap.get_image(0, 0, geo.width, geo.height, X.ZPixmap, 0xFFFFFFFF)
            finally:
                pixmap.free()
        except xerror.XError as e:
            raise WindowGone(f"window 0x{window_id:x} cannot be read: {e}") from None
        data = np.frombuffer(image.data, dtype=np.uint8)
        stride = len(image.data) // geo.height
        rows = data[: stride * geo.height].reshape(geo.height, stride)[:, : geo.width * 4]
        bgra = rows.reshape(geo.height, geo.width, 4)
        return np.ascontiguousarray(bgra[:, :, 2::-1])

    # ------------------------------------------------------------------ input
    def _xtest(self) -> None:
        if not self._xtest_checked:
            if not self.x.has_extension("XTEST"):
                raise ScreenError(f"the display {self.name} has no XTEST extension: demine cannot click")
            self._xtest_checked = True

    def pointer(self) -> tuple[int, int]:
        """Where the pointer is, in screen pixels."""
        q = self.root.query_pointer()
        return q.root_x, q.root_y

    def move(self, window_id: int, x: int, y: int) -> None:
        """Move the pointer to screen pixel (x, y), which must be inside the window."""
        from Xlib import X
        from Xlib.ext import xtest

        self._xtest()
        self._inside(window_id, x, y)
        xtest.fake_input(self.x, X.MotionNotify, x=x, y=y)
        self.x.sync()

    def click(self, window_id: int, x: int, y: int, button: str = "left") -> None:
        """Click ``button`` at screen pixel (x, y). The window's box is looked up now, and a
        point outside it raises :class:`OutsideWindow` (nothing is sent)."""
        from Xlib import X
        from Xlib.ext import xtest

        self._xtest()
        self._inside(window_id, x, y)
        number = BUTTONS[button]
        xtest.fake_input(self.x, X.MotionNotify, x=x, y=y)
        self.x.sync()
        time.sleep(0.005)  # toolkits pick the widget under the pointer from the motion first
        xtest.fake_input(self.x, X.ButtonPress, number)
        self.x.sync()
        time.sleep(0.005)
        xtest.fake_input(self.x, X.ButtonRelease, number)
        self.x.sync()

    def key(self, window_id: int, combo: str) -> None:
        """Type a key into the window: ``n``, ``F2``, ``ctrl+n`` (X keysym names joined by +).
        The window is given the input focus first."""
        from Xlib import XK, X
        from Xlib.ext import xtest

        self._xtest()
        info = self.window(window_id)
        names = [_MODIFIERS.get(p, p) for p in combo.split("+")]
        codes = []
        for n in names:
            sym = XK.string_to_keysym(n)
            code = self.x.keysym_to_keycode(sym) if sym else 0
            if not code:
                raise ScreenError(f"no key {n!r} on the display {self.name}")
            codes.append(code)
        w = self.x.create_resource_object("window", info.id)
        w.set_input_focus(X.RevertToPointerRoot, X.CurrentTime)
        self.x.sync()
        for code in codes:
            xtest.fake_input(self.x, X.KeyPress, code)
        for code in reversed(codes):
            xtest.fake_input(self.x, X.KeyRelease, code)
        self.x.sync()

    def _inside(self, window_id: int, x: int, y: int) -> None:
        left, top, right, bottom = self.box(window_id)
        if not (left <= x < right and top <= y < bottom):
            raise OutsideWindow(
                f"refused: ({x}, {y}) is outside window 0x{window_id:x} ({left}, {top}, {right}, {bottom})"
            )


@contextmanager
def xvfb(size: str = "1920x1080x24") -> Iterator[str]:
    """A fresh virtual X display (Xvfb, on a display number it picks itself through
    ``-displayfd``), its name (``:N``); ended on leaving the block. For tests, benchmarks and
    pictures: nothing is drawn on a real screen. :class:`ScreenError` when Xvfb is missing."""
    binary = shutil.which("Xvfb")
    if binary is None:
        raise ScreenError("Xvfb is not installed: apt-get install xvfb")
    read, write = os.pipe()
    proc = subprocess.Popen(
        # -noreset: by default the server resets when its last client leaves, and a program
        # connecting during that reset has its connection closed (seen between two tests)
        [binary, "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp", "-noreset"],
        pass_fds=(write,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write)
    try:
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            raise ScreenError(f"Xvfb did not start (it exited with {proc.wait()})")
        yield f":{number}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def connect(name: str | None = None) -> Connection:
    """A :class:`Connection` to ``name`` (default ``$DISPLAY``); a clear error when the
    ``screen`` extra is missing or the display cannot be opened."""
    missing = [lib for mod, lib in _LIBRARIES if importlib.util.find_spec(mod) is None]
    if missing:
        raise ScreenError(f"the screen needs {', '.join(missing)}: pip install 'demine[screen]'")
    return Connection(display_name(name))


#: What a live window needs: the module to find, and the library to install.
_LIBRARIES = (("Xlib", "python-xlib"), ("mss", "mss"), ("numpy", "numpy"))
