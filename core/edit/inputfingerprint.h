#pragma once
// The fingerprint (size + SHA-256) of the file a trace was actually loaded from. A path can name
// another file by the time the sidecar is checked (replaced by a rename, rewritten in place): the
// fingerprint is taken from that path only when it still names the very file that was parsed
// (device, inode, size and modification time as at load, io/file/inputfile.h), through one descriptor
// held open while hashing, so a sidecar is never matched against a file other than the one shown.

#include "edit/sha256.h"
#include "model/common.h"

#include <string>

namespace linkscope::core {

// Throws LoadError naming `path` when it no longer names the loaded file, or the file changed
// (before or while hashing). With an unknown `loaded` (a trace parsed from memory) it fingerprints
// `path` as it is.
FileFingerprint fingerprintLoadedFile(const std::string &path, const FileIdentity &loaded, const ProgressFn &progress = {});

} // namespace linkscope::core
