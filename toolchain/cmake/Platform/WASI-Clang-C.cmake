# Loaded by CMake after its generic C settings for CMAKE_SYSTEM_NAME WASI with
# clang: object files are .o (CMake's default for non-UNIX systems is .obj).
set(CMAKE_C_OUTPUT_EXTENSION .o)
