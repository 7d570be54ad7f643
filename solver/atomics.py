"""Atomic operations on an int64 array element (numba intrinsics).

The best-first search's threads store their nodes in one set of arrays; each takes the number of
its next node from one shared counter, so that two never take the same one (`bestfirst.new_node`).
A thread that ends its part of a round raises a shared flag that the others read as they go, so
that none waits long for the rest (`bestfirst.ROUND_OVER`).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _element_pointer(context, builder, sig, args):
    """The address of `array[index]`, the first two arguments of an intrinsic here."""
    array_type = sig.args[0]
    array_value = context.make_array(array_type)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, array_type, array_value, [args[1]], wraparound=False,
                                    boundscheck=False)


@intrinsic
def fetch_add(typingctx, array, index, amount):
    """Add `amount` to `array[index]` (an int64 array) as one indivisible step; return the value
    before. No bounds check. Monotonic ordering: the counter orders nothing else (the threads
    meet, and see each other's writes, only between kernel calls)."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64):
        return None
    signature = types.int64(array, index, amount)

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        return builder.atomic_rmw("add", _element_pointer(context, builder, sig, args), value, "monotonic")

    return signature, codegen


@intrinsic
def atomic_load(typingctx, array, index):
    """`array[index]` (an int64 array) read from memory each time, never from a register: another
    thread may write it. No bounds check; monotonic ordering, as `fetch_add`."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64):
        return None
    signature = types.int64(array, index)

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_element_pointer(context, builder, sig, args), "monotonic", 8)

    return signature, codegen
