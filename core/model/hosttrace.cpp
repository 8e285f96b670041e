#include "model/hosttrace.h"

namespace linkscope::core {

std::string HostTrace::text(Span s) const
{
    if (!source || s.empty())
        return {};
    if (const std::string *memory = source->inMemoryText())
        return s.offset <= memory->size() ? memory->substr(s.offset, s.length) : std::string();
    // One block cache per thread, keyed by the store's serial (a new store never reuses a cache).
    struct Cache {
        std::uint64_t serial = 0;
        ArgsReader reader{nullptr};
    };
    thread_local Cache cache;
    if (cache.serial != source->serial()) {
        cache.serial = source->serial();
        cache.reader = ArgsReader(source.get());
    }
    return std::string(cache.reader.read(s));
}

} // namespace linkscope::core
