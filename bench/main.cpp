// linkscope-bench: one subcommand per pipeline stage. Each prints its figures and ends with exactly
// one line "RESULT name=value unit". Benchmarks, never tests: nothing here fails for being slow.

#include "benchsupport.h"

#include <cstring>
#include <exception>
#include <iostream>

namespace {

void usage(std::ostream &out)
{
    out << "usage: linkscope-bench STAGE [args]\n"
           "  load HOST_ET KINETO        read each file (one core), MB/s of uncompressed input, events, peak RSS\n"
           "  link [HOST_ET KINETO]      link time apart from load time; without files: three generated sizes\n"
           "       [--sizes 32M,128M,512M] [--seed N]\n"
           "  export HOST_ET KINETO [--out DIR]  time and output size of each writer (ET+, .et, Perfetto)\n"
           "  walk KINETO [--runs N]     the single-core limit: a plain simdjson On-Demand walk of the file,\n"
           "                             against the Kineto reader on one core and on all cores\n"
           "  hash FILE [--runs N]       fingerprint speed (size + SHA-256, as a sidecar records its inputs), MB/s\n"
           "  range [KINETO] [--events N] [--runs N]  time-range statistics (range dock) for 0.1-100 % of\n"
           "                             the trace; without a file: a generated trace of N events (default 2M)\n"
#ifdef LINKSCOPE_BENCH_RENDER
           "  render [KINETO] [--events N] [--frames N]  1920x1080 timeline repaint time (median per zoom level);\n"
           "                             without a file: a generated trace of N events (default 10 million)\n"
           "  render --edits N HOST_ET KINETO  time from one correction (re-parent) to the repainted timeline,\n"
           "                             N edits through the main window (median per edit)\n"
           "  render --job [DIR] [--ranks N] [--steps N] [--frames N]  the job overview at 1920x1080: time to open the\n"
           "                             job and repaint median; without DIR a generated job of N ranks (64)\n"
           "  whatif [JOB_DIR] [--runs N] [--size WxH] [--screenshot F] [--opportunities F]  a what-if typed in the\n"
           "                             main window on a job (default megatron's 8 ranks): key press to the\n"
           "                             repainted breakdown and path diff, median of N (20)\n"
#endif
        ;
}

} // namespace

int main(int argc, char **argv)
{
    using namespace linkscope::bench;
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        usage(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    const std::string stage = argv[1];
    Args args(argv + 2, argv + argc);
    try {
        if (stage == "load")
            return runLoad(args, std::cout, std::cerr);
        if (stage == "link")
            return runLink(args, std::cout, std::cerr);
        if (stage == "export")
            return runExport(args, std::cout, std::cerr);
        if (stage == "walk")
            return runWalk(args, std::cout, std::cerr);
        if (stage == "hash")
            return runHash(args, std::cout, std::cerr);
        if (stage == "range")
            return runRange(args, std::cout, std::cerr);
#ifdef LINKSCOPE_BENCH_RENDER
        if (stage == "render")
            return runRender(args, std::cout, std::cerr);
        if (stage == "whatif")
            return runWhatIf(args, std::cout, std::cerr);
#endif
    } catch (const std::exception &e) {
        std::cerr << "linkscope-bench " << stage << ": " << e.what() << '\n';
        return 1;
    }
    std::cerr << "linkscope-bench: unknown stage " << stage << '\n';
    usage(std::cerr);
    return 2;
}
