#include "io/outputguard.h"

#include "io/atomicfile.h"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

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

bool same(const Identity &a, const Identity &b)
{
    if (a.exists != b.exists)
        return false;
    return a.exists ? a.device == b.device && a.inode == b.inode : a.normalised == b.normalised;
}

} // namespace

std::vector<std::string> checkOutputs(const std::vector<NamedFile> &outputs, const std::vector<NamedFile> &inputs)
{
    std::vector<std::pair<const NamedFile *, Identity>> seen;
    for (const NamedFile &in : inputs)
        if (!in.path.empty() && in.path != "-")
            seen.emplace_back(&in, identify(in.path));
    const std::size_t inputCount = seen.size();
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
        const Identity id = identify(out.path);
        for (std::size_t k = 0; k < seen.size(); ++k) {
            if (!same(id, seen[k].second))
                continue;
            const NamedFile &other = *seen[k].first;
            if (k < inputCount)
                throw WriteError(out.path, out.role + " is the " + other.role + " (" + other.path +
                                               "); refusing to replace it: choose another output path");
            throw WriteError(out.path, out.role + " and " + other.role + " are the same file; choose two paths");
        }
        seen.emplace_back(&out, id);
        if (!isStreamOutput(out.path))
            for (std::string &note : removeStaleTemporaries(out.path))
                notes.push_back(out.path + ": " + note);
    }
    return notes;
}

} // namespace linkscope::core
