"""The heap's freed pages handed back to the system (cardverse.server.heap): on glibc the
service calls ``malloc_trim`` every ``heap_trim_interval`` seconds; off when asked."""

from __future__ import annotations

import asyncio
import platform
from pathlib import Path

import pytest

from cardverse.server import heap
from cardverse.server.tables import Settings, TableService

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)


@glibc
def test_the_trimmer_gives_freed_pages_back_on_glibc() -> None:
    release = heap.trimmer()
    assert release is not None
    blocks = [bytearray(4096) for _ in range(2000)]  # about 8 MB above the 512-byte limit
    del blocks[::2]  # holes of whole pages below the heap's top
    release()  # nothing to assert on the pages themselves: it must run and return
    release()


def test_the_trimmer_is_off_when_the_environment_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDVERSE_HEAP_TRIM", "0")
    assert heap.trimmer() is None


@glibc
def test_the_service_trims_the_heap_on_its_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    monkeypatch.setattr("cardverse.server.table.service.trimmer", lambda: lambda: calls.append(1))

    async def body() -> None:
        service = TableService(Settings(data_dir=tmp_path, heap_trim_interval=0.01))
        service.start()
        try:
            for _ in range(500):
                if len(calls) >= 3:
                    break
                await asyncio.sleep(0.01)
            assert len(calls) >= 3
        finally:
            service.close()
        off = TableService(Settings(data_dir=tmp_path / "off", heap_trim_interval=None))
        off.start()
        try:
            assert off._trimmer is None
        finally:
            off.close()

    asyncio.run(body())
