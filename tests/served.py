"""``opus serve`` as the tests run it: one process on one port, over the
store its environment names, stopped and started again on the same port,
its output kept in its folder's ``server.log``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up


class Served:
    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.env = env
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.folder / "server.log", "ab") as log:
            self.process = subprocess.Popen(
                [OPUS, "serve", "--port", str(self.port)],
                cwd=self.folder,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_until_up(self.base, self.process)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None
