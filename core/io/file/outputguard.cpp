#include "io/file/outputguard.h"

#include "io/file/atomicfile.h"

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <unordered_map>
#include <utility>

namespace linkscope::core {

namespace {

struct Identity {
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
    std::string normalised; // for a path that does not exist
};

Identity identify(const std::string &path)
{
    Identity id;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
        id.exists = true;
        id.device = st.st_dev;
        id.inode = st.st_ino;
        return id;
    }
    std::error_code ec;
    const auto absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    id.normalised = ec ? path : absolute.lexically_normal().string();
    return id;
}

} // namespace

std::vector<std::string> checkOutputs(const std::vector<NamedFile> &outputs, const std::vector<NamedFile> &inputs,
                                      bool cleanTemporaries)
{
    // Each file by its identity (device and inode, or the normalised path of one that does not
    // exist yet): a lookup per output, so a job's thousands of outputs cost no more than a stat each.
    std::unordered_map<std::string, std::pair<const NamedFile *, bool>> seen; // key -> (file, is an input)
    auto keyOf = [](const Identity &id) {
        return id.exists ? "i:" + std::to_string(id.device) + ":" + std::to_string(id.inode) : "p:" + id.normalised;
    };
    for (const NamedFile &in : inputs)
        if (!in.path.empty() && in.path != "-")
            seen.emplace(keyOf(identify(in.path)), std::make_pair(&in, true));
    const NamedFile *stdoutUser = nullptr;
    std::vector<std::string> notes;
    for (const NamedFile &out : outputs) {
        if (out.path.empty())
            continue;
        if (out.path == "-") {
            if (stdoutUser)
                throw WriteError(out.path, out.role + " and " + stdoutUser->role + " cannot both go to standard output");
            stdoutUser = &out;
            continue;
        }
        const auto [it, added] = seen.emplace(keyOf(identify(out.path)), std::make_pair(&out, false));
        if (!added) {
            const NamedFile &other = *it->second.first;
            if (it->second.second)
                throw WriteError(out.path, out.role + " is the " + other.role + " (" + other.path
                                               + "); refusing to replace it: choose another output path");
            throw WriteError(out.path, out.role + " and " + other.role + " are the same file; choose two paths");
        }
        if (cleanTemporaries && !isStreamOutput(out.path))
            for (std::string &note : removeStaleTemporaries(out.path))
                notes.push_back(out.path + ": " + note);
    }
    return notes;
}

} // namespace linkscope::core
