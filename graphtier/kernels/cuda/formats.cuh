// Every format's device side; FOR_EACH_FORMAT(X) expands X(Format) once per format.
#pragma once
#include "csr.cuh"
#include "log.cuh"

#define FOR_EACH_FORMAT(X) X(Csr) X(Log)
