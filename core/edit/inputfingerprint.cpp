#include "edit/inputfingerprint.h"

#include "io/file/inputfile.h"

namespace linkscope::core {

namespace {

std::string describeChange(const FileIdentity &loaded, const FileIdentity &now)
{
    if (!now.sameFile(loaded))
        return "the path now names another file (it was replaced since it was loaded)";
    if (now.size != loaded.size)
        return "it is " + std::to_string(now.size) + " bytes now, " + std::to_string(loaded.size) + " when it was loaded";
    return "it was modified since it was loaded";
}

} // namespace

FileFingerprint fingerprintLoadedFile(const std::string &path, const FileIdentity &loaded, const ProgressFn &progress)
{
    io::InputFile file(path);
    if (loaded.known && !file.identity().sameContent(loaded))
        throw LoadError(path, kUnknownOffset,
                        describeChange(loaded, file.identity()) + "; its corrections are not matched against it: load it again");
    // The same open file, by its descriptor: a rename onto `path` meanwhile changes nothing here.
    FileFingerprint fp;
    try {
        fp = fingerprintFile("/proc/self/fd/" + std::to_string(file.fd()), progress);
    } catch (const LoadError &e) {
        throw LoadError(path, e.offset(), e.detail());
    }
    fp.path = path;
    const FileIdentity after = io::identityOf(file.fd());
    if (!after.sameContent(file.identity()))
        throw LoadError(path, kUnknownOffset, "the file changed while it was being fingerprinted; load it again");
    return fp;
}

} // namespace linkscope::core
