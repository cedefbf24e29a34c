#pragma once

#include <QString>

#include <memory>

namespace jitscope {

/// Progress of a long CLI job (loading a big archive, tracing many sets, laying out a huge graph, running Python)
/// on one redrawn line of stderr: only when stderr is a terminal and --quiet was not given (or with --progress),
/// nothing otherwise, so pipes, files and CI logs never see it unasked. While a scope lives, a thread redraws its
/// text with the time taken (from 250 ms on, so quick jobs do not flicker); the line is cleared when the scope ends.
/// Where stderr is no terminal (--progress into a file) each new text is a line of its own, without escapes.
class ProgressScope
{
public:
    /// Turns progress on or off for the process (jitscope-cli: stderr is a terminal and no --quiet).
    static void enable(bool on);
    /// Whether progress is shown: stderr is a terminal, and --quiet was not given.
    static bool enabled();
    /// What enable() is given by default: isatty(stderr) and no --quiet; with @p forced (--progress) whatever
    /// stderr is, unless --quiet.
    static bool wanted(bool quiet, bool forced = false);

    explicit ProgressScope(const QString& text);
    ~ProgressScope();
    ProgressScope(const ProgressScope&) = delete;
    ProgressScope& operator=(const ProgressScope&) = delete;

    /// A step of a counted job: "tracing set 3/40".
    void step(const QString& text, int done, int total);
    /// What the job does now: "call 2/3 `forward` (models.py:41): check set 2 of 3, comparing values".
    void setText(const QString& text);

private:
    struct Ticker;
    std::unique_ptr<Ticker> m_ticker;
};

} // namespace jitscope
