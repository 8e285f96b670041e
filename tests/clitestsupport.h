#pragma once
// The CLI's commands run in-process with their output captured, and the JSON and text files the job
// tests read and write (for tests that link linkscope_cli).

#include "commands/commands.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace linkscope::test {

struct CliRun {
    int code = -1;
    std::string out;
    std::string err;
    bool has(const std::string &text) const { return out.find(text) != std::string::npos || err.find(text) != std::string::npos; }
    std::string all() const { return out + err; }
};

// One command (cli::runJob, cli::runCheck, …) with its arguments.
inline CliRun runCli(int (*command)(const cli::Args &, std::ostream &, std::ostream &), const cli::Args &args)
{
    std::ostringstream out, err;
    CliRun r;
    r.code = command(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline nlohmann::json readJson(const std::string &path) { return nlohmann::json::parse(readFile(path)); }

inline void writeText(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

} // namespace linkscope::test
