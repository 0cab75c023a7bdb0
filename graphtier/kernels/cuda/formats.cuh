// Every format's device side; FOR_EACH_FORMAT(X) expands X(Format) once per format.
#pragma once
#include "csr.cuh"
#include "log.cuh"
#include "ef.cuh"
#include "cgr.cuh"

// Every decoder of every format (the first of each is the default; runtime.DECODERS names them).
#define FOR_EACH_FORMAT(X) X(Csr) X(CsrWarp) X(Log) X(LogWarp) X(Ef) X(EfSerial) X(Cgr) X(CgrThread) X(CgrOneLane)
