# Platform description for CMAKE_SYSTEM_NAME WASI (WebAssembly System
# Interface), used by wasm32-wasi-mpi.cmake.  CMake releases before 3.31 do
# not ship one.
set(WASI 1)
set(CMAKE_EXECUTABLE_SUFFIX ".wasm")
set(CMAKE_STATIC_LIBRARY_PREFIX "lib")
set(CMAKE_STATIC_LIBRARY_SUFFIX ".a")
set(CMAKE_FIND_LIBRARY_PREFIXES "lib")
set(CMAKE_FIND_LIBRARY_SUFFIXES ".a")
# wasm32-wasi modules are linked statically; there is no dynamic loader.
set_property(GLOBAL PROPERTY TARGET_SUPPORTS_SHARED_LIBS FALSE)
