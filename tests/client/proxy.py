"""A TCP proxy in front of a server, in a thread, whose connections a test can cut: the way to
kill a client's socket from outside the client, as a network failure does."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable


class Proxy:
    """Forwards ``127.0.0.1:<port>`` to ``target_port``.  :meth:`cut` resets every open
    connection and refuses new ones until :meth:`restore`."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.refusing = False
        self.cuts = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            with contextlib.suppress(Exception):
                dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}

    def _cut(self) -> None:
        self.refusing = True
        self.cuts += 1
        for writer in list(self._writers):
            writer.transport.abort()  # a reset, no closing handshake

    def _in_loop(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the proxy's loop and return once it has run."""
        done = threading.Event()

        def run() -> None:
            fn()
            done.set()

        self.loop.call_soon_threadsafe(run)
        assert done.wait(10)

    def cut(self) -> None:
        self._in_loop(self._cut)

    def restore(self) -> None:
        self._in_loop(lambda: setattr(self, "refusing", False))

    def close(self) -> None:
        async def end() -> None:
            self._cut()
            self.server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:  # (the connections' pipes: none left pending at the stop)
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.loop.stop()

        self.loop.call_soon_threadsafe(lambda: self.loop.create_task(end()))
        self.thread.join(10)
