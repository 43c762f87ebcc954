# Template used by scripts/install-faiss.mjs to build faiss-node's own C++ sources against the system
# libfaiss (Debian: libfaiss-dev + libopenblas-dev). The install script copies this file into a scratch
# build folder and replaces the @...@ placeholders with absolute paths before running node-gyp.
{
  "targets": [
    {
      "target_name": "faiss-node",
      "sources": [@SOURCES@],
      "include_dirs": ["@NODE_ADDON_API_DIR@"],
      # faiss-node's CMake build defaults to N-API 6; keep the same ABI floor.
      "defines": ["NAPI_VERSION=6", "NAPI_CPP_EXCEPTIONS"],
      # node's common.gypi disables exceptions and RTTI; faiss throws FaissException and faiss-node
      # uses dynamic_cast (write_index segfaults without RTTI), so both must be on.
      "cflags!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti", "-O2", "-fopenmp", "-include", "@SHIM_HEADER@"],
      "libraries": ["-lfaiss", "-lopenblas", "-lgomp"]
    }
  ]
}
