"""Worker processes that do not outlive the process that started them."""

from __future__ import annotations

import os
import threading
import time


def exit_with_parent(parent: int, every: float = 0.5) -> None:
    """In a worker process: exit as soon as ``parent`` (the pid that started it, itself or through
    a forkserver) is gone, checked every ``every`` seconds on a daemon thread. A parent killed
    with SIGKILL cannot stop its workers itself, and a pool's workers blocked on its queue would
    live on as orphans."""
    direct = os.getppid() == parent

    def gone() -> bool:
        if direct:
            return os.getppid() != parent
        try:
            os.kill(parent, 0)  # (asks only whether it is there)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
        return False

    def watch() -> None:
        while not gone():
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="demine-parent-watch").start()
