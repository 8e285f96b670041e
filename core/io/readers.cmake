# The JSON readers parse with simdjson On-Demand, whose kernels are chosen at compile time from the
# target flags: without them the portable (and several times slower) "fallback" kernel is used.
# The readers' translation units (the only ones that include simdjson.h) are built for x86-64 with
# AVX2; io/tracereader.cpp checks the CPU at run time and says so instead of crashing.
option(LINKSCOPE_SIMD_READERS "Build the JSON readers with AVX2 (x86-64 only)" ON)
if(LINKSCOPE_SIMD_READERS AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set_source_files_properties(
    ${CMAKE_CURRENT_SOURCE_DIR}/io/kinetoreader.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/io/hostreader.cpp
    PROPERTIES COMPILE_OPTIONS "-mavx2;-mbmi;-mbmi2;-mpclmul;-mlzcnt;-mpopcnt")
  target_compile_definitions(linkscope_core PRIVATE LINKSCOPE_READERS_NEED_AVX2=1)
endif()
