# CMake toolchain file: build MPI programs as wasm32-wasi modules for the
# MPI-aware WebAssembly embedder.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<repo>/toolchain/cmake/wasm32-wasi-mpi.cmake ...
#
# The compilers are the wasm-mpicc/wasm-mpicxx wrappers (toolchain/bin), which
# add the wasm target, the WASI sysroot, the guest mpi.h and the link flags.
# find_package(MPI) then finds an MPI that works "implicitly" with these
# compilers (as on Cray systems): MPI::MPI_C and MPI::MPI_CXX exist and carry
# no extra flags.  The wrappers honour WASI_SDK_PATH, WASM_CC and WASM_CXX from
# the environment; set them before the first configure.

cmake_minimum_required(VERSION 3.13)

set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_VERSION 1)
set(CMAKE_SYSTEM_PROCESSOR wasm32)

get_filename_component(_wasm_mpi_toolchain_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# Platform/WASI.cmake (CMake < 3.31 has none of its own).
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")

set(CMAKE_C_COMPILER "${_wasm_mpi_toolchain_dir}/bin/wasm-mpicc")
set(CMAKE_CXX_COMPILER "${_wasm_mpi_toolchain_dir}/bin/wasm-mpicxx")

# FindMPI: the compiler wrappers *are* the MPI compilers.  With
# MPI_<LANG>_COMPILER equal to CMAKE_<LANG>_COMPILER, FindMPI only checks that
# an MPI program compiles and links, and does not look for host MPI libraries.
set(MPI_C_COMPILER "${CMAKE_C_COMPILER}" CACHE FILEPATH "MPI compiler for C")
set(MPI_CXX_COMPILER "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "MPI compiler for CXX")
# The C++ bindings were removed in MPI-3.0 and the guest mpi.h has none.
set(MPI_CXX_SKIP_MPICXX TRUE CACHE BOOL "No MPI C++ bindings")
# The modules cannot be started with the host's mpiexec; they are run by the
# embedder.
set(MPIEXEC_EXECUTABLE "MPIEXEC_EXECUTABLE-NOTFOUND" CACHE FILEPATH "Executable for running MPI programs")

set(CMAKE_EXECUTABLE_SUFFIX ".wasm")

# Never pick up the build machine's headers or libraries.  Programs (code
# generators, the wrappers) come from the host.
if(DEFINED ENV{WASI_SDK_PATH})
  set(CMAKE_FIND_ROOT_PATH "$ENV{WASI_SDK_PATH}/share/wasi-sysroot")
else()
  # Debian's wasi-libc: headers in /usr/include/wasm32-wasi, libraries in
  # /usr/lib/wasm32-wasi.  Searches are confined to these roots; the two
  # directories themselves are searched through CMAKE_{LIBRARY,INCLUDE}_PATH
  # (paths already inside a root are not re-rooted).
  set(CMAKE_FIND_ROOT_PATH "/usr/lib/wasm32-wasi" "/usr/include/wasm32-wasi")
  list(APPEND CMAKE_LIBRARY_PATH "/usr/lib/wasm32-wasi")
  list(APPEND CMAKE_INCLUDE_PATH "/usr/include/wasm32-wasi")
endif()
list(APPEND CMAKE_FIND_ROOT_PATH "${_wasm_mpi_toolchain_dir}/../mpi-header")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
