# SHARDSCOPE_CUDA: AUTO builds the measure backend (cuda/) when nvcc, NCCL and cuBLAS are all found,
# ON insists on them, OFF never looks. The backend lives in its own target so that core and the app
# build unchanged without CUDA; a machine with the toolkit but no GPU builds it too (the backend then
# says at run time that no device is present).
#
# The toolkit is looked for on PATH and CUDA_HOME / CUDA_PATH first, then in /usr/local/cuda, where
# NVIDIA's installers put it (nvcc in bin/, libnccl and libcublas in lib/ or lib64/).
set(SHARDSCOPE_HAVE_CUDA OFF)
if(NOT SHARDSCOPE_CUDA STREQUAL "OFF")
  set(_shardscope_cuda_roots $ENV{CUDA_HOME} $ENV{CUDA_PATH} /usr/local/cuda)

  # check_language runs a small CMake project that finds nvcc on PATH or through CUDACXX; point
  # CUDACXX at the toolkit's nvcc when it is not on PATH.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(SHARDSCOPE_NVCC nvcc HINTS ${_shardscope_cuda_roots} PATH_SUFFIXES bin)
    if(SHARDSCOPE_NVCC)
      set(ENV{CUDACXX} "${SHARDSCOPE_NVCC}")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)

  find_library(SHARDSCOPE_NCCL_LIBRARY nccl HINTS ${_shardscope_cuda_roots} PATH_SUFFIXES lib lib64)
  find_path(SHARDSCOPE_NCCL_INCLUDE nccl.h HINTS ${_shardscope_cuda_roots} PATH_SUFFIXES include)
  find_library(SHARDSCOPE_CUBLAS_LIBRARY cublas HINTS ${_shardscope_cuda_roots} PATH_SUFFIXES lib lib64)

  if(CMAKE_CUDA_COMPILER AND SHARDSCOPE_NCCL_LIBRARY AND SHARDSCOPE_NCCL_INCLUDE AND SHARDSCOPE_CUBLAS_LIBRARY)
    # Ampere (A100) and Hopper (H100/H200) as machine code, plus sm_90 PTX that newer GPUs JIT. Two targets
    # keep nvcc's time small; pass -DCMAKE_CUDA_ARCHITECTURES=native (or a list) to choose.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)  # found next to CMAKE_CUDA_COMPILER: CUDA::cudart, CUDA::cublas
    set(SHARDSCOPE_HAVE_CUDA ON)
  elseif(SHARDSCOPE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SHARDSCOPE_CUDA=ON but the CUDA toolkit was not complete: nvcc "
                        "'${CMAKE_CUDA_COMPILER}', NCCL '${SHARDSCOPE_NCCL_LIBRARY}' / "
                        "'${SHARDSCOPE_NCCL_INCLUDE}', cuBLAS '${SHARDSCOPE_CUBLAS_LIBRARY}'. Install them "
                        "(e.g. under /usr/local/cuda) or set CUDA_HOME.")
  endif()
endif()
message(STATUS "Shardscope CUDA/NCCL measure backend: ${SHARDSCOPE_HAVE_CUDA}")
