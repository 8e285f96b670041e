// linkscope dump X.et — print a Chakra protobuf trace as JSON (chakra_jsonizer's objects), or its summary.
#include "commands/commands.h"

#include "export/chakra/etformat.h"
#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"

#include <ostream>
#include <sstream>

namespace linkscope::cli {

namespace {

void printDumpUsage(std::ostream &out)
{
    out << "usage: linkscope dump X.et [--summary] [--array] [--output FILE]\n"
           "  Prints the GlobalMetadata then every Node as JSON, like chakra_jsonizer\n"
           "  (concatenated objects). Plain or gzip input (detected by content).\n"
           "  --summary      node types, comm types, edges and validation as one JSON object\n"
           "  --array        one JSON array [metadata, node, ...] instead of concatenated objects\n"
           "  --output FILE  write there (atomically) instead of standard output\n";
}

} // namespace

int runDump(const Args &args, std::ostream &out, std::ostream &err)
{
    std::string input, output;
    bool summary = false, asArray = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--help" || a == "-h") {
            printDumpUsage(out);
            return 0;
        } else if (a == "--summary") {
            summary = true;
        } else if (a == "--array") {
            asArray = true;
        } else if (a == "--output" || a == "-o") {
            if (++i >= args.size()) {
                err << "dump: " << a << " needs a file name\n";
                return 2;
            }
            output = args[i];
        } else if (!a.empty() && a[0] == '-') {
            err << "dump: unknown option " << a << "\n";
            printDumpUsage(err);
            return 2;
        } else if (input.empty()) {
            input = a;
        } else {
            err << "dump: one input file only (got " << input << " and " << a << ")\n";
            return 2;
        }
    }
    if (input.empty()) {
        printDumpUsage(err);
        return 2;
    }
    try {
        // Streamed from the file: a Node at a time, never the whole graph as messages.
        std::ostringstream text;
        if (summary)
            text << core::summarizeEtFile(input).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        else
            core::dumpEtFile(input, text, asArray);
        if (output.empty()) {
            out << text.str();
        } else {
            for (const std::string &note : core::checkOutputs({{"--output", output}}, {{"input", input}}))
                err << "dump: warning: " << note << '\n';
            core::writeFileAtomically(output, text.str());
        }
        return 0;
    } catch (const core::LoadError &e) {
        err << "dump: " << e.what() << '\n';
    } catch (const core::WriteError &e) {
        err << "dump: " << e.what() << '\n';
    }
    return 1;
}

} // namespace linkscope::cli
