// Forced-include shim (g++ -include) for building faiss-node against Debian's libfaiss-dev 1.7.3.
// faiss-node 0.5 targets faiss >= 1.7.4, where `idx_t` moved from `faiss::Index::idx_t` to `faiss::idx_t`;
// 1.7.3 only has the nested alias, so re-export it at namespace scope.
#pragma once
#include <faiss/Index.h>

namespace faiss {
using idx_t = Index::idx_t;
}
