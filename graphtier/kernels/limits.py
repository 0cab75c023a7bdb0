"""Constants both backends' operators share; the CUDA sources get them from here (``registry.cuh``)."""

HUB_EDGES = 2048  # a push hands vertices with more out-edges than this to the hub kernel...
PIECE_EDGES = 1024  # ...which cuts their sub-lists into pieces of this many edges that warps share
PULL_READS = 32  # in-edges a pull is expected to read per vertex (a warp's first round): its demand
EVERY_EDGE = 1 << 62  # a demand cap: a push reads every out-edge of its frontier
SPANS_EDGES = 1 << 14  # consecutive layers with fewer out-edges than this each go to one block together (advance_spans)
MAX_LANES = 64  # the most values a vertex gathers at once (Gather with lanes): a bit each in a 64-bit word
