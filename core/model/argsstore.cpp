#include "model/argsstore.h"

#include <atomic>

namespace linkscope::core {

namespace {
std::atomic<std::uint64_t> nextSerial{1};
} // namespace

ArgsStore::ArgsStore() : serial_(nextSerial.fetch_add(1, std::memory_order_relaxed)) { }

} // namespace linkscope::core
