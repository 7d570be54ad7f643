"""A hint to the processor to start fetching an array element into its cache (numba intrinsic).

The tables are far larger than the caches, so each probe of one waits for memory. Asked for
every child of a node before any of them is looked up, the fetches overlap with each other and
with the work on the children before (`bestfirst.best_first_chunk`).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Start fetching `array[index]` (no bounds check: a hint, it never faults) into the cache."""
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        array_value = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, array_value, [args[1]],
                                           wraparound=False, boundscheck=False)
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32])
        function = cgutils.get_or_insert_function(builder.module, function_type, "llvm.prefetch.p0")
        # read (0), keep in all cache levels (3), data cache (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), int32(0), int32(3), int32(1)])
        return context.get_dummy_value()

    return signature, codegen
