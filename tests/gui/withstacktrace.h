#pragma once
// A Kineto trace as profile(with_stack=True) writes it, for the GUI tests of lanes: per step, 40 nested
// python_function frames, then aten::mm ⊃ cudaLaunchKernel under the innermost frame; the kernel on
// GPU 0 stream 7. The thread's lane is 42 rows tall (taller than a small window).

#include <QFile>
#include <QString>

namespace linkscope::test {

inline constexpr int kStackDepth = 40;

// Writes it to `path`; returns `path`, or empty when it cannot be written. `extraThreads` more threads
// of the process (tid 101, 102, ...) hold the same Python stacks, without GPU work.
inline QString writeWithStackTrace(const QString &path, int extraThreads = 0)
{
    QString events;
    auto add = [&](const QString &json) {
        if (!events.isEmpty())
            events += QStringLiteral(",\n");
        events += json;
    };
    add(QStringLiteral(R"({"name":"process_name","ph":"M","pid":100,"tid":0,"args":{"name":"python3"}})"));
    double t = 1000.0;
    for (int step = 0; step < 4; ++step) {
        const double stepStart = t;
        for (int d = 0; d < kStackDepth; ++d)
            add(QStringLiteral(
                    R"({"ph":"X","cat":"python_function","name":"frame_%1.py(%2): fn","pid":100,"tid":100,"ts":%3,"dur":%4})")
                    .arg(d)
                    .arg(10 + d)
                    .arg(stepStart + d * 0.5, 0, 'f', 3)
                    .arg(200.0 - d, 0, 'f', 3));
        for (int thread = 1; thread <= extraThreads; ++thread)
            for (int d = 0; d < kStackDepth; ++d)
                add(QStringLiteral(
                        R"({"ph":"X","cat":"python_function","name":"frame_%1.py(%2): fn","pid":100,"tid":%5,"ts":%3,"dur":%4})")
                        .arg(d)
                        .arg(10 + d)
                        .arg(stepStart + d * 0.5, 0, 'f', 3)
                        .arg(200.0 - d, 0, 'f', 3)
                        .arg(100 + thread));
        const double mm = stepStart + kStackDepth * 0.5 + 5;
        const int correlation = 1000 + step;
        add(QStringLiteral(
                R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":%1,"dur":60,"args":{"External id":%2}})")
                .arg(mm, 0, 'f', 3)
                .arg(step + 1));
        add(QStringLiteral(
                R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":%1,"dur":8,"args":{"External id":%2,"correlation":%3}})")
                .arg(mm + 10, 0, 'f', 3)
                .arg(step + 1)
                .arg(correlation));
        add(QStringLiteral(
                R"({"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":%1,"dur":120,"args":{"External id":%2,"device":0,"stream":7,"correlation":%3}})")
                .arg(mm + 25, 0, 'f', 3)
                .arg(step + 1)
                .arg(correlation));
        t += 400.0;
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QStringLiteral("{\"traceEvents\":[\n%1\n]}\n").arg(events).toUtf8());
    return path;
}

} // namespace linkscope::test
