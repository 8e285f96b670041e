// linkscope-bench hash FILE: how fast a sidecar fingerprints an input trace (size + SHA-256 of the file
// as stored), the cost a correction session pays once per input when it opens or saves corrections.

#include "benchsupport.h"

#include "edit/sha256.h"

#include <algorithm>
#include <iostream>
#include <vector>

namespace linkscope::bench {

int runHash(Args args, std::ostream &out, std::ostream &err)
{
    const int runs = std::stoi(takeOption(args, "--runs", "3"));
    if (args.size() != 1 || runs < 1) {
        err << "usage: linkscope-bench hash FILE [--runs N]\n";
        return 2;
    }
    pinToOneCore();
    std::vector<double> rates;
    for (int run = 0; run < runs; ++run) {
        const Stopwatch watch;
        const core::FileFingerprint f = core::fingerprintFile(args[0]);
        const double seconds = watch.seconds();
        rates.push_back(megabytes(f.size) / seconds);
        out << "run " << run + 1 << ": " << megabytes(f.size) << " MB in " << seconds << " s = " << rates.back()
            << " MB/s, sha256 " << f.sha256 << '\n';
    }
    std::sort(rates.begin(), rates.end());
    printResult(out, "hash_median", rates[rates.size() / 2], "MB/s");
    return 0;
}

} // namespace linkscope::bench
