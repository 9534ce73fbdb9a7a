"""The Metal device's MLX state shared by the MLX backend's modules.

The MLX device the Metal carriers use (chosen once per ``STRIDEWAVE_METAL_DEVICE``
setting: :func:`mlx_device`), the per-thread record of the device reads an operation
makes (:data:`OPERATION`; a host write into a carrier waits for the reads recorded on
it: :func:`note_read`, :func:`record_reads`), and the wrapper of a result already
launched and adopted (:class:`Result`).
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Final

from stridewave.array_api._backend import (
    Adopted,
)
from stridewave.carriers import Metal
from stridewave.carriers._mlx_runtime import (
    DEVICE_ENV,
    import_mlx,
    select_device,
)

__all__ = ["OPERATION", "DeviceChoice", "Result", "mlx_device", "note_read", "record_reads"]


class DeviceChoice:
    """The MLX device of the Metal carriers, chosen once per process setting."""

    key: str | None = None
    device: Any = None
    name: str = ""


def mlx_device() -> tuple[Any, str]:
    key = os.environ.get(DEVICE_ENV, "")
    if DeviceChoice.key != key or DeviceChoice.device is None:
        DeviceChoice.device, DeviceChoice.name = select_device(import_mlx())
        DeviceChoice.key = key
    return DeviceChoice.device, DeviceChoice.name


# -- device reads: what a host write into a carrier must wait for ---------------------


class _Operation(threading.local):
    """The Metal carriers read by the calling thread's operation being prepared.

    ``read()`` notes each Metal carrier it reads here (a weak reference: a failed
    operation keeps nothing alive); :meth:`MLXBackend.complete` records the array it
    scheduled on each of them (``Metal.note_device_read``), after which a host write
    into such a carrier waits for that array.
    """

    def __init__(self) -> None:
        self.reads: list[weakref.ref[Metal]] = []
        #: the carriers this thread recorded reads on (None on the main thread)
        self.records = (
            None
            if threading.current_thread() is threading.main_thread()
            else _ThreadRecords(threading.get_ident())
        )


class _ThreadRecords:
    """The Metal carriers a thread other than the main one recorded device reads on.

    A record holds its result's buffer until the carrier's next host access or the
    thread's next read of it; a thread that has ended makes no next read. This object
    lives in the thread's :class:`_Operation` and is dropped when the thread ends:
    it then waits for the thread's last record on each carrier and forgets it
    (``Metal.forget_reads_of``), so an ended thread keeps no result alive.
    """

    __slots__ = ("carriers", "thread")

    def __init__(self, thread: int) -> None:
        self.thread = thread
        self.carriers: weakref.WeakSet[Metal] = weakref.WeakSet()

    def __del__(self) -> None:
        for carrier in list(self.carriers):
            carrier.forget_reads_of(self.thread)


OPERATION: Final = _Operation()
get_ident: Final = threading.get_ident


def note_read(carrier: Metal) -> None:
    """Note that this thread's operation being prepared reads ``carrier``.

    The list is emptied at each launch; reads that launch nothing leave their notes
    until then, so a repeat of the last one is not noted again, and past 64 notes the
    dead ones are dropped.
    """
    reads = OPERATION.reads
    if reads and reads[-1]() is carrier:
        return
    if len(reads) >= 64:
        reads[:] = [ref for ref in reads if ref() is not None]
    reads.append(weakref.ref(carrier))


def record_reads(first: Metal | None, other: Metal | None, scheduled: Any) -> None:
    """Record ``scheduled`` as a device read of the carriers the operation read.

    ``first``/``other``: the operand carriers of a direct call; ``None``: those this
    thread's ``read()`` noted. Called once the operation is launched and before it
    returns: a host write ordered after the call then waits for ``scheduled``; one
    racing the call itself is unordered with it, as between any two threads.
    """
    operation = OPERATION
    records = operation.records
    thread = get_ident()
    if first is not None:
        first.note_device_read(thread, scheduled)
        if other is not None and other is not first:
            other.note_device_read(thread, scheduled)
        if records is not None:  # (a thread other than the main one: see _ThreadRecords)
            records.carriers.add(first)
            if other is not None:
                records.carriers.add(other)
        return
    reads = operation.reads
    if reads:
        for ref in reads:
            carrier = ref()
            if carrier is not None:
                carrier.note_device_read(thread, scheduled)
                if records is not None:
                    records.carriers.add(carrier)
        reads.clear()


class Result:
    """A namespace function's result, already launched and adopted (``ns.f(...)``)."""

    __slots__ = ("adopted",)

    def __init__(self, adopted: Adopted) -> None:
        self.adopted = adopted
