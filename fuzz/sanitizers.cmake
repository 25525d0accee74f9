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
# -O1 with line tables is the usual fuzzing trade-off. CI's short runs
# (dev.sh test) want a short fresh build on 2 cores more than executions
# per second: -O0 -g0 compiles job_service.cc in 8.8 s of CPU against 19 s
# (measured under load; -O0 with line tables: 11 s).
set(HNOW_FUZZ_FLAGS "-O1 -gline-tables-only" CACHE STRING
    "Optimization and debug flags of the fuzz build (dev.sh test: -O0 -g0)")
set(CMAKE_C_FLAGS_RELWITHDEBINFO "${HNOW_FUZZ_FLAGS}")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "${HNOW_FUZZ_FLAGS}")
# The g++ build is the gate for warnings (-Werror there). clang warns about
# other things; shown here, but a clang-only warning must not stop the fuzz
# runs in CI.
add_compile_options(-Wno-error)
