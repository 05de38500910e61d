# SHARDSCOPE_CUDA: AUTO builds the measure backend when both nvcc and NCCL are found,
# ON insists on them, OFF never looks. The backend itself lives in its own target so that
# core and the app build unchanged without CUDA.
set(SHARDSCOPE_HAVE_CUDA OFF)
if(NOT SHARDSCOPE_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  find_library(SHARDSCOPE_NCCL_LIBRARY nccl)
  find_path(SHARDSCOPE_NCCL_INCLUDE nccl.h)
  if(CMAKE_CUDA_COMPILER AND SHARDSCOPE_NCCL_LIBRARY AND SHARDSCOPE_NCCL_INCLUDE)
    set(SHARDSCOPE_HAVE_CUDA ON)
  elseif(SHARDSCOPE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SHARDSCOPE_CUDA=ON but CUDA (nvcc) or NCCL (libnccl, nccl.h) was not found")
  endif()
endif()
message(STATUS "Shardscope CUDA/NCCL measure backend: ${SHARDSCOPE_HAVE_CUDA}")
