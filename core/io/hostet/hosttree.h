#pragma once
// The call tree of a host ET, built once its nodes are read (io/hostet/hostreader.cpp): the nodes sorted by
// id (of nodes sharing an id the first in the file is kept), `indexById`, each node's parent resolved
// (a parent id that is not in the file leaves a root marked `parentMissing`), parent loops cut, the
// children of each node in id order (`childBegin` / `childList`) and the roots. What it had to repair
// is appended to `warnings`, naming `path`.

#include "model/hosttrace.h"

namespace linkscope::core::io {

void buildHostTree(HostTrace &trace);

} // namespace linkscope::core::io
