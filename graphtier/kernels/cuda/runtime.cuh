// What an algorithm's .cu file includes: every format's decoders and the operators' kernels.
#pragma once
#include "formats.cuh"
#include "operators.cuh"
