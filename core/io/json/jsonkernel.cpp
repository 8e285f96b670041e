#include "io/json/jsonkernel.h"

#include <simdjson.h>

namespace linkscope::core {

namespace {

JsonKernel describe(const simdjson::implementation *impl)
{
    return {std::string(impl->name()), std::string(impl->description())};
}

} // namespace

JsonKernel activeJsonKernel()
{
    const simdjson::implementation *impl = simdjson::get_active_implementation();
    return describe(impl);
}

std::vector<JsonKernel> runnableJsonKernels()
{
    std::vector<JsonKernel> out;
    for (const simdjson::implementation *impl : simdjson::get_available_implementations()) {
        if (impl->supported_by_runtime_system())
            out.push_back(describe(impl));
    }
    return out;
}

bool selectJsonKernel(std::string_view name)
{
    const simdjson::implementation *impl = simdjson::get_available_implementations()[name];
    if (!impl || !impl->supported_by_runtime_system())
        return false;
    simdjson::get_active_implementation() = impl;
    return true;
}

} // namespace linkscope::core
