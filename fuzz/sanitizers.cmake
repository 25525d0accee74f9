# HNOW_FUZZ: every library the fuzz targets link is compiled with the
# fuzzer's coverage hooks and ASan + UBSan, so a bug deep in hnow's code is
# reported where it happens. Any UBSan report aborts (no recovery): CI fails
# on it like on a crash.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "HNOW_FUZZ needs clang: cmake -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
endif()
set(HNOW_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_compile_options(-fsanitize=fuzzer-no-link ${HNOW_SANITIZERS})
add_link_options(${HNOW_SANITIZERS})
# -O1 with line tables is the usual fuzzing trade-off; -O0 compiles in about
# half the time (measured: 10 s against 19 s of CPU for job_service.cc),
# which is what CI's short runs want (dev.sh).
set(HNOW_FUZZ_OPTIMIZE "-O1" CACHE STRING "Optimization of the fuzz build: -O1 (runs) or -O0 (CI)")
set(CMAKE_C_FLAGS_RELWITHDEBINFO "${HNOW_FUZZ_OPTIMIZE} -gline-tables-only")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "${HNOW_FUZZ_OPTIMIZE} -gline-tables-only")
# The g++ build is the gate for warnings (-Werror there). clang warns about
# other things; shown here, but a clang-only warning must not stop the fuzz
# runs in CI.
add_compile_options(-Wno-error)
