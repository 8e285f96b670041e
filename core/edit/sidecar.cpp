#include "edit/sidecar.h"

#include "io/file/atomicfile.h"
#include "io/file/inputfile.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace linkscope::core {

using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 5> kKeyKindNames = {"gpu_op", "runtime", "cpu_op", "host_node", "trace"};
// Errors while reading the document name the JSON pointer of the value they concern.
struct Reader {
    const std::string &file;
    std::vector<std::string> *warnings = nullptr;

    [[noreturn]] void fail(const std::string &where, const std::string &what) const
    {
        throw LoadError(file, kUnknownOffset, (where.empty() ? std::string("/") : where) + ": " + what);
    }
    const json &member(const json &object, const std::string &where, const char *key) const
    {
        if (!object.is_object())
            fail(where, "expected an object");
        auto it = object.find(key);
        if (it == object.end())
            fail(where, std::string("missing \"") + key + "\"");
        return *it;
    }
    std::string string(const json &object, const std::string &where, const char *key) const
    {
        const json &v = member(object, where, key);
        if (!v.is_string())
            fail(where + "/" + key, "expected a string");
        return v.get<std::string>();
    }
    std::string optionalString(const json &object, const std::string &where, const char *key) const
    {
        return object.contains(key) ? string(object, where, key) : std::string();
    }
    // Free text a person typed (names, notes, labels): cut to kSidecarTextLimit bytes, with a warning.
    std::string freeText(const json &object, const std::string &where, const char *key, const std::string &what) const
    {
        if (!object.contains(key))
            return {};
        const json &v = object.at(key);
        if (!v.is_string())
            fail(where + "/" + key, "expected a string");
        const auto &text = v.get_ref<const std::string &>();
        if (text.size() <= kSidecarTextLimit)
            return text;
        if (warnings)
            warnings->push_back(file + ": " + where + "/" + key + ": " + what + " of " + std::to_string(text.size())
                                + " bytes cut to its first " + std::to_string(kSidecarTextLimit)
                                + " bytes (the cut text is what is kept and saved)");
        return cutText(text.substr(0, kSidecarTextLimit + 4));
    }

    std::int64_t integer(const json &object, const std::string &where, const char *key) const
    {
        const json &v = member(object, where, key);
        if (!v.is_number_integer())
            fail(where + "/" + key, "expected an integer");
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            fail(where + "/" + key, "integer " + v.dump() + " is out of range (at most 2^63 - 1)");
        return v.get<std::int64_t>();
    }
    std::uint32_t ordinal(const json &object, const std::string &where) const
    {
        if (!object.contains("ordinal"))
            return 0;
        const std::uint64_t v = unsignedInteger(object, where, "ordinal");
        if (v > std::numeric_limits<std::uint32_t>::max())
            fail(where + "/ordinal", "ordinal " + std::to_string(v) + " is out of range (at most 4294967295)");
        return static_cast<std::uint32_t>(v);
    }
    std::uint64_t unsignedInteger(const json &object, const std::string &where, const char *key) const
    {
        const json &v = member(object, where, key);
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
            fail(where + "/" + key, "expected a non-negative integer");
        return v.get<std::uint64_t>();
    }
    IdValue id(const json &object, const std::string &where, const char *key) const
    {
        const json &v = member(object, where, key);
        IdValue out;
        if (v.is_string()) {
            out.isString = true;
            out.text = v.get<std::string>();
        } else if (v.is_number_integer()) {
            out.number = v.get<std::int64_t>();
        } else {
            fail(where + "/" + key, "expected an integer or a string");
        }
        return out;
    }
};

json idToJson(const IdValue &id) { return id.isString ? json(id.text) : json(id.number); }

json keyToJson(const SubjectKey &key)
{
    json out = json::object();
    out["kind"] = kKeyKindNames[static_cast<std::size_t>(key.kind)];
    switch (key.kind) {
    case KeyKind::GpuOp:
    case KeyKind::Runtime:
        out["pid"] = idToJson(key.pid);
        out["correlation"] = key.correlation;
        out["ordinal"] = key.ordinal;
        break;
    case KeyKind::CpuOp:
        out["pid"] = idToJson(key.pid);
        if (key.rfId != 0) {
            out["rf_id"] = key.rfId;
        } else if (key.evIdx != kNoId) {
            out["ev_idx"] = key.evIdx;
        } else {
            out["tid"] = idToJson(key.tid);
            out["ts_ns"] = key.ts;
            out["ordinal"] = key.ordinal;
        }
        break;
    case KeyKind::HostNode:
        out["id"] = key.hostId;
        break;
    case KeyKind::Trace:
        return out;
    }
    out["name"] = key.name;
    return out;
}

SubjectKey keyFromJson(const Reader &r, const json &in, const std::string &where)
{
    SubjectKey key;
    const std::string kind = r.string(in, where, "kind");
    auto found = std::find(kKeyKindNames.begin(), kKeyKindNames.end(), kind);
    if (found == kKeyKindNames.end())
        r.fail(where + "/kind", "unknown subject kind '" + kind + "'");
    key.kind = static_cast<KeyKind>(found - kKeyKindNames.begin());
    if (key.kind == KeyKind::Trace)
        return key;
    key.name = r.string(in, where, "name");
    switch (key.kind) {
    case KeyKind::GpuOp:
    case KeyKind::Runtime:
        key.pid = r.id(in, where, "pid");
        key.correlation = r.integer(in, where, "correlation");
        key.ordinal = r.ordinal(in, where);
        break;
    case KeyKind::CpuOp:
        key.pid = r.id(in, where, "pid");
        if (in.contains("rf_id")) {
            key.rfId = r.unsignedInteger(in, where, "rf_id");
            if (key.rfId == 0)
                r.fail(where + "/rf_id", "0 is not a Record function id");
        } else if (in.contains("ev_idx")) {
            key.evIdx = r.integer(in, where, "ev_idx");
            if (key.evIdx < 0)
                r.fail(where + "/ev_idx", "Ev Idx must be non-negative");
        } else {
            key.tid = r.id(in, where, "tid");
            key.ts = r.integer(in, where, "ts_ns");
            key.ordinal = r.ordinal(in, where);
        }
        break;
    case KeyKind::HostNode:
        key.hostId = r.integer(in, where, "id");
        break;
    case KeyKind::Trace:
        break;
    }
    return key;
}

json editToJson(const Edit &edit)
{
    json out = json::object();
    out["kind"] = editKindName(edit.kind);
    out["subject"] = keyToJson(edit.subject);
    switch (edit.kind) {
    case EditKind::Reparent:
        out["target"] = keyToJson(edit.target);
        break;
    case EditKind::AddEdge:
    case EditKind::RemoveEdge:
        out["target"] = keyToJson(edit.target);
        out["edge"] = edgeKindName(edit.edge);
        break;
    case EditKind::MarkReviewed:
        out["finding"] = findingKindName(edit.finding);
        break;
    default:
        break;
    }
    if (!edit.note.empty())
        out["note"] = edit.note;
    return out;
}

Edit editFromJson(const Reader &r, const json &in, const std::string &where)
{
    Edit edit;
    const std::string kind = r.string(in, where, "kind");
    const auto parsed = editKindFromName(kind);
    if (!parsed)
        r.fail(where + "/kind", "unknown edit kind '" + kind + "'");
    edit.kind = *parsed;
    edit.subject = keyFromJson(r, r.member(in, where, "subject"), where + "/subject");
    edit.note = r.freeText(in, where, "note", "note");
    switch (edit.kind) {
    case EditKind::Reparent:
        edit.target = keyFromJson(r, r.member(in, where, "target"), where + "/target");
        break;
    case EditKind::AddEdge:
    case EditKind::RemoveEdge: {
        edit.target = keyFromJson(r, r.member(in, where, "target"), where + "/target");
        const std::string edge = r.string(in, where, "edge");
        const auto kind = edgeKindFromName(edge);
        if (!kind)
            r.fail(where + "/edge", "unknown edge kind '" + edge + "'");
        edit.edge = *kind;
        break;
    }
    case EditKind::MarkReviewed: {
        const std::string finding = r.string(in, where, "finding");
        const auto kindOfFinding = findingKindFromName(finding);
        if (!kindOfFinding)
            r.fail(where + "/finding", "unknown finding kind '" + finding + "'");
        edit.finding = *kindOfFinding;
        break;
    }
    default:
        break;
    }
    return edit;
}

json fingerprintToJson(const FileFingerprint &f) { return json{{"path", f.path}, {"size", f.size}, {"sha256", f.sha256}}; }

FileFingerprint fingerprintFromJson(const Reader &r, const json &in, const std::string &where)
{
    FileFingerprint f;
    f.path = r.string(in, where, "path");
    f.size = r.unsignedInteger(in, where, "size");
    f.sha256 = r.string(in, where, "sha256");
    const bool hex = f.sha256.size() == 64 && std::all_of(f.sha256.begin(), f.sha256.end(), [](char c) {
                         return std::isxdigit(static_cast<unsigned char>(c));
                     });
    if (!hex)
        r.fail(where + "/sha256", "expected 64 hexadecimal digits");
    std::transform(f.sha256.begin(), f.sha256.end(), f.sha256.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
    return f;
}

} // namespace

std::string defaultSidecarPath(const std::string &devicePath) { return devicePath + ".linkscope.json"; }

json sidecarToJson(const Sidecar &sidecar)
{
    json out = json::object();
    out["format"] = kSidecarFormat;
    out["version"] = kSidecarVersion;
    out["generator"] = sidecar.generator;
    json inputs = json::object();
    inputs["device"] = fingerprintToJson(sidecar.device);
    if (sidecar.host)
        inputs["host"] = fingerprintToJson(*sidecar.host);
    out["inputs"] = std::move(inputs);
    out["link_options"] = json{{"policy", policyName(sidecar.policy)}, {"inter_thread_deps", sidecar.interThreadDeps}};
    json entries = json::array();
    for (const LogEntry &entry : sidecar.log.entries) {
        json edits = json::array();
        for (const Edit &edit : entry.edits)
            edits.push_back(editToJson(edit));
        entries.push_back(json{{"label", entry.label}, {"edits", std::move(edits)}});
    }
    out["entries"] = std::move(entries);
    if (!sidecar.bookmarks.empty()) {
        json marks = json::array();
        for (const Bookmark &b : sidecar.bookmarks)
            marks.push_back(json{{"ts_ns", b.ts}, {"name", b.name}});
        out["bookmarks"] = std::move(marks);
    }
    return out;
}

Sidecar sidecarFromJson(const json &in, const std::string &name)
{
    Sidecar out;
    const Reader r{name, &out.warnings};
    if (!in.is_object())
        r.fail("", "expected a JSON object");
    if (!in.contains("format") || !in["format"].is_string() || in["format"].get<std::string>() != kSidecarFormat)
        r.fail("/format", std::string("not a Linkscope corrections file (expected \"format\": \"") + kSidecarFormat + "\")");
    const std::int64_t version = r.integer(in, "", "version");
    if (version > kSidecarVersion)
        r.fail("/version", "written by a newer Linkscope (format version " + std::to_string(version)
                               + "); this one reads version " + std::to_string(kSidecarVersion));
    if (version < 1)
        r.fail("/version", "invalid format version " + std::to_string(version));

    out.generator = r.optionalString(in, "", "generator");
    const json &inputs = r.member(in, "", "inputs");
    out.device = fingerprintFromJson(r, r.member(inputs, "/inputs", "device"), "/inputs/device");
    if (inputs.contains("host"))
        out.host = fingerprintFromJson(r, inputs["host"], "/inputs/host");
    const json &options = r.member(in, "", "link_options");
    const std::string policy = r.string(options, "/link_options", "policy");
    const auto parsedPolicy = policyFromName(policy);
    if (!parsedPolicy)
        r.fail("/link_options/policy", "unknown policy '" + policy + "'");
    out.policy = *parsedPolicy;
    if (options.contains("inter_thread_deps")) {
        if (!options["inter_thread_deps"].is_boolean())
            r.fail("/link_options/inter_thread_deps", "expected true or false");
        out.interThreadDeps = options["inter_thread_deps"].get<bool>();
    }
    const json &entries = r.member(in, "", "entries");
    if (!entries.is_array())
        r.fail("/entries", "expected an array");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string where = "/entries/" + std::to_string(i);
        LogEntry entry;
        entry.label = r.freeText(entries[i], where, "label", "step label");
        const json &edits = r.member(entries[i], where, "edits");
        if (!edits.is_array())
            r.fail(where + "/edits", "expected an array");
        for (std::size_t j = 0; j < edits.size(); ++j)
            entry.edits.push_back(editFromJson(r, edits[j], where + "/edits/" + std::to_string(j)));
        out.log.entries.push_back(std::move(entry));
    }
    // Optional (added in version 1 without a bump: older readers ignore it).
    if (in.contains("bookmarks")) {
        const json &marks = in["bookmarks"];
        if (!marks.is_array())
            r.fail("/bookmarks", "expected an array");
        for (std::size_t i = 0; i < marks.size(); ++i) {
            const std::string where = "/bookmarks/" + std::to_string(i);
            Bookmark b;
            b.ts = r.integer(marks[i], where, "ts_ns");
            b.name = r.freeText(marks[i], where, "name", "bookmark name (at ts_ns " + std::to_string(b.ts) + ")");
            out.bookmarks.push_back(std::move(b));
        }
        sortBookmarks(out.bookmarks);
    }
    return out;
}

namespace {

// nlohmann's messages start "[json.exception.<kind>.<id>] "; the rest is what the user needs.
std::string jsonErrorText(const json::exception &e)
{
    std::string detail = e.what();
    if (!detail.empty() && detail[0] == '[')
        if (const auto close = detail.find("] "); close != std::string::npos)
            detail = detail.substr(close + 2);
    return detail;
}

// Where the token a nlohmann error quotes ("number overflow parsing '1e400'") is in the text: the
// first occurrence that is a whole token, kUnknownOffset when the message quotes none.
std::uint64_t offsetOfQuotedToken(const std::string &text, const std::string &message)
{
    const auto open = message.find('\'');
    const auto close = open == std::string::npos ? std::string::npos : message.find('\'', open + 1);
    if (close == std::string::npos || close == open + 1)
        return kUnknownOffset;
    const std::string token = message.substr(open + 1, close - open - 1);
    auto isTokenByte = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+'; };
    for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + 1)) {
        const bool startOk = at == 0 || !isTokenByte(text[at - 1]);
        const bool endOk = at + token.size() >= text.size() || !isTokenByte(text[at + token.size()]);
        if (startOk && endOk)
            return at;
    }
    return kUnknownOffset;
}

} // namespace

Sidecar parseSidecar(const std::string &text, const std::string &name)
{
    json document;
    try {
        document = json::parse(text);
    } catch (const json::parse_error &e) {
        // nlohmann counts bytes from 1 and points just past the offending character.
        const std::uint64_t offset = e.byte > 0 ? e.byte - 1 : 0;
        std::string detail = e.what();
        if (const auto colon = detail.find("syntax error"); colon != std::string::npos)
            detail = detail.substr(colon);
        throw LoadError(name, offset, "malformed JSON: " + detail);
    } catch (const json::exception &e) {
        // e.g. out_of_range 406 for a number beyond double range ("size": 1e400).
        const std::string detail = jsonErrorText(e);
        throw LoadError(name, offsetOfQuotedToken(text, detail), "malformed JSON: " + detail);
    }
    try {
        return sidecarFromJson(document, name);
    } catch (const json::exception &e) {
        // Every access is checked first; anything nlohmann still refuses is reported, not thrown on.
        throw LoadError(name, kUnknownOffset, "unusable value: " + jsonErrorText(e));
    }
}

Sidecar loadSidecar(const std::string &path, FileIdentity *identity)
{
    return parseSidecar(io::readWholeInputFile(path, identity), path);
}

std::string sidecarText(const Sidecar &sidecar)
{
    // Paths are bytes on Linux and need not be UTF-8: bytes that are not become U+FFFD instead of
    // making the whole save fail (the paths in a sidecar are informative; the SHA-256 identifies).
    return sidecarToJson(sidecar).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void saveSidecar(const Sidecar &sidecar, const std::string &path) { writeFileAtomically(path, sidecarText(sidecar)); }

FileIdentity saveSidecarIfUnchanged(const Sidecar &sidecar, const std::string &path, const FileIdentity &expected)
{
    const std::string text = sidecarText(sidecar);
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string folder = parent.empty() ? std::string(".") : parent.string();
    const int dirFd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0)
        throw WriteError(path, "cannot open its folder " + folder + ": " + std::strerror(errno));
    struct Unlock {
        int fd;
        ~Unlock() { ::close(fd); } // closing drops the lock
    } unlock{dirFd};
    while (::flock(dirFd, LOCK_EX) != 0)
        if (errno != EINTR)
            throw WriteError(path, "cannot lock its folder " + folder + ": " + std::strerror(errno));
    const FileIdentity now = io::identityOfPath(path);
    if (now.known && !now.sameContent(expected)) {
        throw SidecarConflict(path, expected.known
                                        ? "was changed by another Linkscope session or program since this one read it; "
                                          "not overwritten, so its corrections are kept. This session's corrections "
                                          "are not saved: reopen the traces to continue from the file on disk"
                                        : "was created by another Linkscope session or program while this one had the "
                                          "traces open; not overwritten. This session's corrections are not saved: "
                                          "reopen the traces to continue from the file on disk");
    }
    writeFileAtomically(path, text);
    return io::identityOfPath(path);
}

InputCheck checkInputs(const Sidecar &sidecar, const FileFingerprint &device, const std::optional<FileFingerprint> &host)
{
    InputCheck check;
    auto compare = [&](const char *role, const FileFingerprint &recorded, const FileFingerprint &actual) {
        if (recorded.size != actual.size) {
            check.problems.push_back(std::string(role) + " trace " + actual.path + " is " + std::to_string(actual.size)
                                     + " bytes; the corrections were made on " + recorded.path + " of "
                                     + std::to_string(recorded.size) + " bytes");
        } else if (recorded.sha256 != actual.sha256) {
            check.problems.push_back(std::string(role) + " trace " + actual.path + " has SHA-256 " + actual.sha256
                                     + "; the corrections were made on " + recorded.path + " with SHA-256 " + recorded.sha256);
        }
    };
    compare("device", sidecar.device, device);
    if (sidecar.host && host)
        compare("host", *sidecar.host, *host);
    else if (sidecar.host)
        check.problems.push_back("the corrections were made with host trace " + sidecar.host->path + ", which is not loaded");
    else if (host)
        check.problems.push_back("the corrections were made without a host trace; " + host->path + " is loaded");
    check.matches = check.problems.empty();
    return check;
}

} // namespace linkscope::core
