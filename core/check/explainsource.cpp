// The explainer's rules for traces recorded from Python (torch.jit.trace's own, read back from the bridge): no script
// graph to read loops and branches from, so the causes come from the nodes' Python stacks, the source lines they
// name and the warnings the tracer raised there: a frame whose line ran another number of times (a loop) or in one
// trace only (a branch), a conversion that baked a number, the path where a node's code left what both traces ran,
// the model's own state. explainChanges() (check.cpp) applies them to the changes whose nodes came from no script.

#include "check/explain_p.h"

#include <QFile>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <algorithm>
#include <optional>

namespace jitscope {

namespace {

QString frameKey(const SourceLocation& f)
{
    return f.file + QLatin1Char(':') + QString::number(f.line);
}

QVector<SourceLocation> framesOf(const IrNode& n)
{
    if (!n.stack.isEmpty())
        return n.stack;
    if (n.location.isValid())
        return { n.location };
    return {};
}

quint64 mixHash(quint64 h, quint64 v)
{
    return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

/// How a trace's Python stacks ran each (file, line): how many times it ran (the nodes recorded under it whose op
/// and inner stack are those of the first one: one per iteration of a loop around it), and the constant values
/// recorded at it (constants and an inlined submodule's parameter reads aside from the first).
struct FrameStats
{
    struct Line
    {
        quint64 first = 0; ///< the op and inner stack of the first node recorded under the line
        int runs = 0;
        QSet<QString> constants; ///< values of the constants recorded at the line itself
    };
    QHash<QString, Line> lines;

    explicit FrameStats(const IrGraph& g)
    {
        for (const IrNode& n : g.nodes) {
            const QVector<SourceLocation> frames = framesOf(n);
            if (n.kind == QLatin1String("prim::Constant")) {
                if (!frames.isEmpty() && !n.attributes.isEmpty())
                    lines[frameKey(frames.first())].constants.insert(
                        n.attributes.first().data.isEmpty() ? n.attributes.first().value : n.attributes.first().data);
                continue;
            }
            if (n.kind == QLatin1String("prim::GetAttr"))
                continue;
            quint64 inner = qHash(n.kind);
            QSet<QString> seen; // a recursive call passes a line twice: count the node once
            for (const SourceLocation& f : frames) {
                const QString key = frameKey(f);
                if (!seen.contains(key)) {
                    seen.insert(key);
                    Line& line = lines[key];
                    if (line.runs == 0)
                        line.first = inner;
                    if (line.first == inner)
                        ++line.runs;
                }
                inner = mixHash(inner, qHash(key));
            }
        }
    }
    /// The lines a warning was raised at, and its stack's lines (a recorded call's): they ran, nodes or none
    /// (an `if` whose condition warned, the call of a helper that returned early without recording a node).
    QSet<QString> warned;

    void addWarnings(const QVector<TraceWarning>& warnings)
    {
        for (const TraceWarning& w : warnings) {
            if (w.location.line > 0)
                warned.insert(frameKey(w.location));
            for (const SourceLocation& f : w.stack)
                if (f.line > 0)
                    warned.insert(frameKey(f));
        }
    }

    int runs(const SourceLocation& f) const { return lines.value(frameKey(f)).runs; }
    bool ran(const SourceLocation& f) const
    {
        const QString key = frameKey(f);
        const auto it = lines.constFind(key);
        return (it != lines.constEnd() && (it->runs > 0 || !it->constants.isEmpty())) || warned.contains(key);
    }
    QSet<QString> constants(const SourceLocation& f) const { return lines.value(frameKey(f)).constants; }
};

bool warnedAt(const TraceResult& t, const SourceLocation& at, const QString& prefix)
{
    for (const TraceWarning& w : t.warnings)
        if (w.location.line == at.line && w.location.file == at.file && w.message.startsWith(prefix))
            return true;
    return false;
}

int indentOf(const QString& text)
{
    int n = 0;
    while (n < text.size() && (text[n] == QLatin1Char(' ') || text[n] == QLatin1Char('\t')))
        ++n;
    return n;
}

/// The nearest line above @p line (1-based) in @p lines, less indented than it, that starts with one of
/// @p keywords, within the same def; 0 if none.
int enclosing(const QStringList& lines, int line, const QStringList& keywords)
{
    if (line < 1 || line > lines.size())
        return 0;
    int indent = indentOf(lines[line - 1]);
    for (int k = line - 1; k >= 1 && indent > 0; --k) {
        const QString& text = lines[k - 1];
        const QString stripped = text.trimmed();
        if (stripped.isEmpty() || stripped.startsWith(QLatin1Char('#')))
            continue;
        const int ind = indentOf(text);
        if (ind >= indent)
            continue;
        indent = ind;
        for (const QString& kw : keywords)
            if (stripped.startsWith(kw))
                return k;
        if (stripped.startsWith(QLatin1String("def ")) || stripped.startsWith(QLatin1String("class ")))
            return 0;
    }
    return 0;
}

/// The `if` an `else:` at line @p elseLine belongs to: the nearest line above at the same indentation.
int matchingIf(const QStringList& lines, int elseLine)
{
    const int indent = indentOf(lines.value(elseLine - 1));
    for (int k = elseLine - 1; k >= 1; --k) {
        const QString stripped = lines[k - 1].trimmed();
        if (stripped.isEmpty() || indentOf(lines[k - 1]) != indent)
            continue;
        if (stripped.startsWith(QLatin1String("if ")))
            return k;
    }
    return 0;
}

QString quoted(const QStringList& lines, int line)
{
    if (line < 1 || line > lines.size())
        return {};
    return QStringLiteral(" (`%1`)").arg(lines[line - 1].trimmed());
}

/// "line 22" in the user's file, "torchvision/ops/boxes.py:72" elsewhere.
QString placeName(const SourceLocation& at, const QString& userFile)
{
    if (at.file == userFile)
        return QStringLiteral("line %1").arg(at.line);
    const QStringList parts = at.file.split(QLatin1Char('/'));
    const int from = std::max(0, int(parts.size()) - 3);
    QStringList tail = parts.mid(from);
    // From the package down: torchvision/models/detection/transform.py.
    for (int i = int(parts.size()) - 2; i >= 0; --i)
        if (parts[i] == QLatin1String("dist-packages") || parts[i] == QLatin1String("site-packages")) {
            tail = parts.mid(i + 1);
            break;
        }
    return QStringLiteral("%1:%2").arg(tail.join(QLatin1Char('/'))).arg(at.line);
}

/// The source lines of the files a trace's stacks name: the user's file as given, the others read once from disk.
class Sources
{
public:
    Sources(const QString& userFile, const QString& userSource)
    {
        m_lines.insert(userFile, userSource.split(QLatin1Char('\n')));
    }
    const QStringList& lines(const QString& file)
    {
        auto it = m_lines.find(file);
        if (it == m_lines.end()) {
            QFile f(file);
            QStringList lines;
            if (f.size() < 8 << 20 && f.open(QIODevice::ReadOnly))
                lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
            it = m_lines.insert(file, lines);
        }
        return *it;
    }

private:
    QHash<QString, QStringList> m_lines;
};

/// What one of the frames a changed node was recorded in says about the difference, if anything: the innermost
/// frame that does is the cause (a line of torchvision's that warned, or the user's loop around the call). @p t1 and
/// @p t2 name the diff's base and other trace.
std::optional<Cause> explainFrame(const SourceLocation& f, const TraceResult& base, const TraceResult& other,
    const QString& t1, const QString& t2, const FrameStats& baseStats, const FrameStats& otherStats, Sources& sources,
    const QString& userFile)
{
    const int nBase = baseStats.runs(f);
    const int nOther = otherStats.runs(f);
    const QStringList& lines = sources.lines(f.file);
    static const QString toBool = QStringLiteral("Converting a tensor to a Python boolean");
    auto at = [&](int line) { return SourceLocation { f.file, line, 0 }; };

    // A branch frozen by a tensor-to-bool conversion: the line ran in one trace only, or is the condition itself.
    const bool warnedHere = warnedAt(base, f, toBool) || warnedAt(other, f, toBool);
    int branch = 0;
    if (warnedHere && nBase != nOther)
        branch = f.line;
    else if (nBase == 0 || nOther == 0) {
        const int header
            = enclosing(lines, f.line, { QStringLiteral("if "), QStringLiteral("elif "), QStringLiteral("else") });
        int condition = header;
        if (header && lines.value(header - 1).trimmed().startsWith(QLatin1String("else")))
            condition = matchingIf(lines, header);
        if (condition && (warnedAt(base, at(condition), toBool) || warnedAt(other, at(condition), toBool)))
            branch = condition;
    }
    if (branch)
        return Cause { DivergenceKind::BranchFrozen,
            QStringLiteral("branch at %1%2 frozen by a tensor-to-bool conversion: %3 and %4 took different paths")
                .arg(placeName(at(branch), userFile), quoted(lines, branch), t1, t2),
            at(branch) };

    if (nBase != nOther && nBase > 0 && nOther > 0) {
        const int loop = enclosing(lines, f.line, { QStringLiteral("for "), QStringLiteral("while ") });
        if (loop)
            return Cause { DivergenceKind::LoopUnrolled,
                QStringLiteral("loop at %1%2 unrolled %3 times in %4 but %5 times in %6: the tracer records every "
                               "iteration, so the trip count was baked from the inputs")
                    .arg(placeName(at(loop), userFile), quoted(lines, loop))
                    .arg(nBase)
                    .arg(t1)
                    .arg(nOther)
                    .arg(t2),
                at(loop) };
    }
    // A number baked here: only where both traces ran the line and baked different values (a value baked alike
    // in both, or a line one trace never ran, is not what makes them differ).
    const QSet<QString> baseConstants = baseStats.constants(f), otherConstants = otherStats.constants(f);
    if (baseConstants.isEmpty() || otherConstants.isEmpty() || baseConstants == otherConstants)
        return std::nullopt;
    static const QString len = QStringLiteral("Using len to get tensor shape");
    if (warnedAt(base, f, len) || warnedAt(other, f, len))
        return Cause { DivergenceKind::NumberBaked,
            QStringLiteral("`len()` of a tensor at %1%2 baked as a constant")
                .arg(placeName(f, userFile), quoted(lines, f.line)),
            f };
    static const QString toNumber = QStringLiteral("Converting a tensor to a Python");
    if (!warnedHere && (warnedAt(base, f, toNumber) || warnedAt(other, f, toNumber)))
        return Cause { DivergenceKind::NumberBaked,
            QStringLiteral("a tensor converted to a Python number at %1%2 baked as a constant")
                .arg(placeName(f, userFile), quoted(lines, f.line)),
            f };
    return std::nullopt;
}

/// Whether a line says nothing of the code's nesting: blank, a comment, or the `):` (`) -> T:`) that closes a
/// signature written over several lines.
bool outsideNesting(const QString& stripped)
{
    return stripped.isEmpty() || stripped.startsWith(QLatin1Char('#')) || stripped.startsWith(QLatin1Char(')'));
}

/// The `def` line of the function holding @p line: the nearest line above, less indented, starting with `def `.
int enclosingDef(const QStringList& lines, int line)
{
    if (line < 1 || line > lines.size())
        return 0;
    int indent = indentOf(lines[line - 1]);
    for (int k = line - 1; k >= 1 && indent > 0; --k) {
        const QString stripped = lines[k - 1].trimmed();
        if (outsideNesting(stripped))
            continue;
        const int ind = indentOf(lines[k - 1]);
        if (ind >= indent)
            continue;
        indent = ind;
        if (stripped.startsWith(QLatin1String("def ")) || stripped.startsWith(QLatin1String("async def ")))
            return k;
    }
    return 0;
}

/// The last line of the function whose `def` is at @p def.
int functionEnd(const QStringList& lines, int def)
{
    const int indent = indentOf(lines.value(def - 1));
    int last = def;
    for (int k = def + 1; k <= lines.size(); ++k) {
        const QString stripped = lines[k - 1].trimmed();
        if (outsideNesting(stripped))
            continue;
        if (indentOf(lines[k - 1]) <= indent)
            break;
        last = k;
    }
    return last;
}

/// The lines of @p file between @p from and @p to that ran in exactly one of two traces.
QVector<int> linesRunInOne(const FrameStats& a, const FrameStats& b, const QString& file, int from, int to)
{
    QVector<int> out;
    for (int line = from; line <= to; ++line) {
        const SourceLocation at { file, line, 0 };
        if (a.ran(at) != b.ran(at))
            out << line;
    }
    return out;
}

/// The lines of @p file between @p from and @p to where either trace raised a warning, in order.
QVector<int> warnedLines(const TraceResult& a, const TraceResult& b, const QString& file, int from, int to)
{
    QVector<int> out;
    for (const TraceResult* t : { &a, &b })
        for (const TraceWarning& w : t->warnings)
            if (w.location.file == file && w.location.line >= from && w.location.line <= to
                && !out.contains(w.location.line))
                out << w.location.line;
    std::sort(out.begin(), out.end());
    return out;
}

/// Whether the block under the `if` at @p header holds a `return` (an early return: what follows the `if` runs in
/// one trace only).
bool returnsEarly(const QStringList& lines, int header)
{
    const int indent = indentOf(lines.value(header - 1));
    for (int k = header + 1; k <= lines.size(); ++k) {
        const QString stripped = lines[k - 1].trimmed();
        if (stripped.isEmpty() || stripped.startsWith(QLatin1Char('#')))
            continue;
        if (indentOf(lines[k - 1]) <= indent)
            break;
        if (stripped == QLatin1String("return") || stripped.startsWith(QLatin1String("return ")))
            return true;
    }
    return false;
}

QString lineList(const QVector<int>& lines)
{
    QStringList out;
    for (int line : lines)
        out << QString::number(line);
    return (lines.size() == 1 ? QStringLiteral("line ") : QStringLiteral("lines ")) + out.join(QStringLiteral(", "));
}

/// Where the code path of a node recorded in one trace only (@p mine ran its frames, @p theirs is the other trace)
/// leaves what both traces ran: the innermost frame the other trace never ran whose caller it ran (a warning raised
/// in a frame counts as running it). In that frame's function, the first line only one trace ran is under the branch
/// that went another way (an early `return` in a branch shows up so too); no branch there: the function's path
/// differs, from its first such line. @p t1 and @p t2 name the diff's base and other trace. What it says of
/// TracerWarnings is what the traces raised: never "no TracerWarning" where the function or a frame between it and
/// the node warned.
std::optional<Cause> pathCause(const QVector<SourceLocation>& frames, const FrameStats& mine, const FrameStats& theirs,
    const TraceResult& base, const TraceResult& other, Sources& sources, const QString& userFile, const QString& t1,
    const QString& t2)
{
    if (frames.isEmpty() || theirs.ran(frames.first()))
        return std::nullopt;
    int i = 0;
    while (i + 1 < frames.size() && !theirs.ran(frames[i + 1]))
        ++i;
    const SourceLocation& f = frames[i];
    const QStringList& lines = sources.lines(f.file);
    const int def = enclosingDef(lines, f.line);
    if (def == 0)
        return std::nullopt;
    const int end = functionEnd(lines, def);
    const QVector<int> differing = linesRunInOne(mine, theirs, f.file, def + 1, end);
    const int first = differing.isEmpty() ? f.line : differing.first();
    auto at = [&](int line) { return SourceLocation { f.file, line, 0 }; };
    int header = enclosing(lines, first, { QStringLiteral("if "), QStringLiteral("elif "), QStringLiteral("else") });
    if (header && lines.value(header - 1).trimmed().startsWith(QLatin1String("else")))
        header = matchingIf(lines, header);
    if (header > def) {
        static const QString toBool = QStringLiteral("Converting a tensor to a Python boolean");
        const QString early = returnsEarly(lines, header) ? QStringLiteral(", an early `return`") : QString();
        if (warnedAt(base, at(header), toBool) || warnedAt(other, at(header), toBool))
            return Cause { DivergenceKind::BranchFrozen,
                QStringLiteral("branch at %1%2%3 frozen by a tensor-to-bool conversion: %4 and %5 took different "
                               "paths")
                    .arg(placeName(at(header), userFile), quoted(lines, header), early, t1, t2),
                at(header) };
        // The warnings of the function and of the frames between it and the node: evidence the sentence names.
        QStringList evidence;
        for (int k = 0; k <= i; ++k) {
            const QStringList& own = sources.lines(frames[k].file);
            const int d = enclosingDef(own, frames[k].line);
            if (d == 0)
                continue;
            const QVector<int> warned = warnedLines(base, other, frames[k].file, d, functionEnd(own, d));
            if (!warned.isEmpty())
                evidence << QStringLiteral("%1 of %2")
                                .arg(lineList(warned),
                                    frames[k].file == userFile
                                        ? QStringLiteral("the file")
                                        : placeName(frames[k], userFile).section(QLatin1Char(':'), 0, 0));
        }
        const QString because = evidence.isEmpty()
            ? QStringLiteral("its condition is a Python value the tracer does not record (no TracerWarning)")
            : QStringLiteral("its condition is a Python value the tracer does not record (TracerWarnings at %1)")
                  .arg(evidence.join(QStringLiteral("; ")));
        return Cause { DivergenceKind::BranchFrozen,
            QStringLiteral("branch at %1%2%3 took different paths in %4 and %5: %6, frozen in each trace")
                .arg(placeName(at(header), userFile), quoted(lines, header), early, t1, t2, because),
            at(header) };
    }
    const QString name = lines.value(def - 1).trimmed().section(QLatin1Char('('), 0, 0).section(QLatin1Char(' '), -1);
    return Cause { DivergenceKind::Unexplained,
        QStringLiteral("`%1` (%2) runs other lines in %3 than in %4 from %5%6")
            .arg(name, placeName(at(def), userFile), t1, t2, placeName(at(first), userFile), quoted(lines, first)),
        at(def) };
}

/// What the bridge saw: the line after which the Python of trace 1's run and of trace k's went different ways, with
/// its condition's values in both runs, and what the tracer said there (the warnings the traces raised at the line
/// or in its function; "no TracerWarning" only where there were none).
Cause observedCause(const ObservedParting& p, const TraceResult& base, const TraceResult& other, Sources& sources,
    const QString& userFile, const QString& t1, const QString& t2)
{
    const QStringList& lines = sources.lines(p.location.file);
    const QString place = placeName(p.location, userFile)
        + (p.text.isEmpty() ? quoted(lines, p.location.line) : QStringLiteral(" (`%1`)").arg(p.text));
    const bool valued = !p.condition.isEmpty() && !p.firstValues.isEmpty() && p.firstValues != p.otherValues;
    if (p.statement == QLatin1String("loop") && p.firstIterations >= 0 && p.otherIterations >= 0)
        return Cause { DivergenceKind::LoopUnrolled,
            QStringLiteral("loop at %1 unrolled %2 times in %3 but %4 times in %5 (observed): the tracer records every "
                           "iteration, so the trip count was baked from the inputs%6")
                .arg(place)
                .arg(p.firstIterations)
                .arg(t1)
                .arg(p.otherIterations)
                .arg(t2)
                .arg(valued ? QStringLiteral(" (`%1` is `%2` in %3, `%4` in %5)")
                                  .arg(p.condition, p.firstValues, t1, p.otherValues, t2)
                            : QString()),
            p.location };
    static const QHash<QString, QString> what { { QStringLiteral("if"), QStringLiteral("branch") },
        { QStringLiteral("early-return"), QStringLiteral("early return") },
        { QStringLiteral("continue"), QStringLiteral("`continue`") },
        { QStringLiteral("break"), QStringLiteral("`break`") }, { QStringLiteral("loop"), QStringLiteral("loop") },
        { QStringLiteral("conditional-expression"), QStringLiteral("conditional expression") },
        { QStringLiteral("assert"), QStringLiteral("assert") },
        { QStringLiteral("exception"), QStringLiteral("exception handler") } };
    const QString statement = what.value(p.statement, QStringLiteral("the line"));
    const QString values = valued
        ? QStringLiteral(": `%1` is `%2` in %3, `%4` in %5").arg(p.condition, p.firstValues, t1, p.otherValues, t2)
        : QString();
    static const QString toBool = QStringLiteral("Converting a tensor to a Python boolean");
    QString text;
    if (warnedAt(base, p.location, toBool) || warnedAt(other, p.location, toBool)) {
        text = QStringLiteral("%1 at %2 frozen by a tensor-to-bool conversion: %3 and %4 took different paths "
                              "(observed)%5")
                   .arg(statement, place, t1, t2, values);
    } else {
        const int def = enclosingDef(lines, p.location.line);
        const QVector<int> warned
            = def ? warnedLines(base, other, p.location.file, def, functionEnd(lines, def)) : QVector<int>();
        text = QStringLiteral("%1 at %2 took different paths in %3 and %4 (observed)%5; %6")
                   .arg(statement, place, t1, t2, values,
                       warned.isEmpty()
                           ? QStringLiteral("its condition is a Python value the tracer does not record (no "
                                            "TracerWarning)")
                           : QStringLiteral("the tracer warned at %1 of `%2`").arg(lineList(warned), p.function));
    }
    return Cause { p.statement == QLatin1String("loop") ? DivergenceKind::LoopUnrolled : DivergenceKind::BranchFrozen,
        text, p.location };
}

/// A node recorded in both traces with different constants: the tensor-to-number or len() conversion that made
/// the number, searched from the node's line up its function (innermost frame first); else the node's own line.
Cause bakedCause(const QVector<SourceLocation>& frames, const TraceResult& base, const TraceResult& other,
    Sources& sources, const QString& userFile)
{
    for (const SourceLocation& f : frames) {
        const QStringList& lines = sources.lines(f.file);
        const int def = enclosingDef(lines, f.line);
        int best = 0;
        QString what;
        for (const TraceResult* t : { &base, &other })
            for (const TraceWarning& w : t->warnings) {
                if (w.location.file != f.file || w.location.line < def || w.location.line > f.line
                    || w.location.line <= best)
                    continue;
                const WarningKind kind = w.kind;
                if (kind == WarningKind::TensorToNumber || kind == WarningKind::TensorToIndex
                    || kind == WarningKind::LenOfTensor) {
                    best = w.location.line;
                    what = kind == WarningKind::LenOfTensor ? QStringLiteral("`len()` of a tensor")
                                                            : QStringLiteral("a tensor converted to a Python number");
                }
            }
        if (best > 0) {
            const SourceLocation at { f.file, best, 0 };
            return Cause { DivergenceKind::NumberBaked,
                QStringLiteral("%1 at %2%3 baked as a constant, used at %4")
                    .arg(what, placeName(at, userFile), quoted(lines, best), placeName(f, userFile)),
                at };
        }
    }
    const SourceLocation& f = frames.first();
    return Cause { DivergenceKind::NumberBaked,
        QStringLiteral("a Python value at %1%2 baked as a constant")
            .arg(placeName(f, userFile), quoted(sources.lines(f.file), f.line)),
        f };
}

} // namespace

void explainRecordedChanges(
    TraceDiff& diff, const TraceResult& base, const TraceResult& other, const ExplainContext& context)
{
    const QString traceB = traceLabel(diff.base), traceK = traceLabel(diff.other);
    const QString& file = context.file;
    Sources sources(file, context.source);
    const IrGraph& baseGraph = base.graph;
    const IrGraph& otherGraph = other.graph;
    FrameStats baseStats(baseGraph);
    FrameStats otherStats(otherGraph);
    baseStats.addWarnings(base.warnings);
    otherStats.addWarnings(other.warnings);
    auto moduleName = [&context](const QString& module) {
        return module.isEmpty() ? QStringLiteral("the top module")
                                : QStringLiteral("module `%1`%2")
                                      .arg(module,
                                          context.moduleTypes.contains(module)
                                              ? QStringLiteral(" (%1)").arg(context.moduleTypes.value(module))
                                              : QString());
    };
    const ChangesByNode byNode = changesByNode(diff);
    const QHash<int, int>& changeOfBase = byNode.base;
    const QHash<int, int>& changeOfOther = byNode.other;
    // 1. What the code says, node by node: the innermost frame with a cause (a warned branch or conversion, a
    // loop run another number of times), else where the node's path leaves what both traces ran, else the
    // conversion that baked a different constant. Each frame is explained once.
    QHash<QString, std::optional<Cause>> frameCauses;
    QVector<std::optional<Cause>> causes(diff.changes.size());
    QVector<bool> placed(diff.changes.size(), false);
    // The cause one side's node shows: its innermost frame with one, else where its path leaves the other's.
    auto explainNode = [&](const IrNode& n, bool inOther) -> std::optional<Cause> {
        const QVector<SourceLocation> frames = framesOf(n);
        for (const SourceLocation& f : frames) {
            const QString key = frameKey(f);
            auto it = frameCauses.find(key);
            if (it == frameCauses.end())
                it = frameCauses.insert(
                    key, explainFrame(f, base, other, traceB, traceK, baseStats, otherStats, sources, file));
            if (*it)
                return *it;
        }
        return inOther ? pathCause(frames, otherStats, baseStats, base, other, sources, file, traceB, traceK)
                       : pathCause(frames, baseStats, otherStats, base, other, sources, file, traceB, traceK);
    };
    for (int i = 0; i < diff.changes.size(); ++i) {
        NodeChange& c = diff.changes[i];
        const bool inserted = c.op == NodeChange::Op::Insert;
        const IrNode& n = inserted ? otherGraph.node(c.otherNode) : baseGraph.node(c.baseNode);
        const QVector<SourceLocation> frames = framesOf(n);
        c.location = frames.isEmpty() ? n.location : frames.first();
        c.scope = n.modulePath;
        placed[i] = !frames.isEmpty();
        std::optional<Cause>& cause = causes[i];
        // A change pairs a deleted node with an inserted one (of another kind, or with other constants): the
        // trace that has more to say about it, the other first.
        if (c.otherNode >= 0)
            cause = explainNode(otherGraph.node(c.otherNode), true);
        if (!cause && c.baseNode >= 0)
            cause = explainNode(baseGraph.node(c.baseNode), false);
        if (!cause && c.op == NodeChange::Op::Change && !frames.isEmpty()
            && baseGraph.node(c.baseNode).kind == otherGraph.node(c.otherNode).kind) {
            // The same op with other constants: a number baked in. A constant itself counts where both traces
            // ran its line and baked other values there (a pooled constant the diff pairs with another does
            // not).
            const QStringList a = constantArguments(baseGraph, c.baseNode);
            const QStringList b = constantArguments(otherGraph, c.otherNode);
            const bool constant = n.kind == QLatin1String("prim::Constant");
            const QSet<QString> ca = baseStats.constants(frames.first()), cb = otherStats.constants(frames.first());
            if (a != b && a.size() == b.size() && (!constant || (!ca.isEmpty() && !cb.isEmpty() && ca != cb)))
                cause = bakedCause(frames, base, other, sources, file);
        }
    }
    // 2. A node with no cause of its own that takes a value of a changed node with one differs because of it.
    for (int i = 0; i < diff.changes.size(); ++i) {
        if (causes[i])
            continue;
        const NodeChange& c = diff.changes[i];
        auto inherit = [&](const IrGraph& g, int node, const QHash<int, int>& changeOf) {
            if (node < 0)
                return;
            for (int in : g.node(node).inputs) {
                const int producer = g.value(in).producer;
                const int from = changeOf.value(producer, -1);
                if (!causes[i] && from >= 0 && from != i && causes[from]
                    && g.node(producer).kind != QLatin1String("prim::Constant"))
                    causes[i] = causes[from];
            }
        };
        inherit(otherGraph, c.otherNode, changeOfOther);
        inherit(baseGraph, c.baseNode, changeOfBase);
    }
    // 3. Nothing in the code says why: the model itself changed between the calls, or unexplained.
    for (int i = 0; i < diff.changes.size(); ++i) {
        NodeChange& c = diff.changes[i];
        std::optional<Cause>& cause = causes[i];
        const QString where = moduleName(c.scope);
        if (context.repeat) {
            // The same inputs: whatever path the code took, the model's state made it take it.
            cause = Cause { DivergenceKind::ModuleState,
                cause ? QStringLiteral("module state: the same inputs traced again record another graph: %1")
                            .arg(cause->text)
                      : QStringLiteral("module state: the same inputs traced again record another graph in %1; "
                                       "the model changed between the calls (a cache or counter its first call "
                                       "made), not its inputs")
                            .arg(where),
                cause ? cause->at : SourceLocation {} };
        } else if (!cause && context.stateChanged) {
            cause = Cause { DivergenceKind::ModuleState,
                QStringLiteral("%1 recorded different operations in %2 and %3: module state, the "
                               "example inputs traced again differ too")
                    .arg(where, traceB, traceK),
                {} };
        } else if (!cause && placed[i]) {
            cause = Cause { DivergenceKind::Unexplained,
                QStringLiteral("%1 recorded different operations in %2 and %3").arg(where, traceB, traceK), {} };
        }
        if (cause) {
            c.kind = cause->kind;
            c.cause = cause->text;
            c.causeAt = cause->at;
        }
    }
    // A changed node with no place of its own (the tuples an inlined call passes its values in) belongs with
    // the next changed node that has one: the op those values reach.
    for (int i = 0; i < diff.changes.size(); ++i) {
        if (placed[i])
            continue;
        int from = -1;
        for (int j = i + 1; j < diff.changes.size() && from < 0; ++j)
            if (placed[j])
                from = j;
        for (int j = i - 1; j >= 0 && from < 0; --j)
            if (placed[j])
                from = j;
        NodeChange& c = diff.changes[i];
        if (from < 0) {
            c.cause = QStringLiteral("recorded different operations in %1 and %2").arg(traceB, traceK);
            continue;
        }
        const NodeChange& p = diff.changes[from];
        c.kind = p.kind;
        c.cause = p.cause;
        c.causeAt = p.causeAt;
        if (c.scope.isEmpty())
            c.scope = p.scope;
        if (!c.location.isValid())
            c.location = p.location;
    }
}

void applyObservedParting(
    TraceDiff& diff, const TraceResult& base, const TraceResult& other, const ExplainContext& context)
{
    if (!other.parting.present || diff.base != 0 || context.repeat)
        return;
    const ObservedParting& p = other.parting;
    Sources sources(context.file, context.source);
    const QStringList& own = sources.lines(p.location.file);
    const int def = enclosingDef(own, p.location.line);
    const int end = def ? functionEnd(own, def) : p.location.line;
    const Cause observed
        = observedCause(p, base, other, sources, context.file, traceLabel(diff.base), traceLabel(diff.other));
    auto pathKind = [](DivergenceKind k) {
        return k == DivergenceKind::BranchFrozen || k == DivergenceKind::LoopUnrolled
            || k == DivergenceKind::Unexplained;
    };
    auto nodeUnder = [&](const IrNode& n) {
        for (const SourceLocation& f : framesOf(n))
            if (f.file == p.location.file && (def ? f.line >= def && f.line <= end : f.line == p.location.line))
                return true;
        return false;
    };
    // Either side's node: a change pairs a node of one path with another's.
    auto under = [&](const NodeChange& c) {
        return (c.baseNode >= 0 && nodeUnder(base.graph.node(c.baseNode)))
            || (c.otherNode >= 0 && nodeUnder(other.graph.node(c.otherNode)));
    };
    // The changes recorded under the function the runs parted in take the observed cause, and with them every
    // change that shared their inferred one (the tuples of an inlined call, values they passed on).
    QSet<QString> replaced;
    QVector<bool> take(diff.changes.size(), false);
    for (int i = 0; i < diff.changes.size(); ++i) {
        const NodeChange& c = diff.changes[i];
        if ((c.cause.isEmpty() || pathKind(c.kind)) && under(c)) {
            take[i] = true;
            replaced.insert(frameKey(c.causeAt) + c.cause);
        }
    }
    for (int i = 0; i < diff.changes.size(); ++i) {
        NodeChange& c = diff.changes[i];
        if (!take[i] && !(pathKind(c.kind) && replaced.contains(frameKey(c.causeAt) + c.cause)))
            continue;
        c.kind = observed.kind;
        c.cause = observed.text;
        c.causeAt = observed.at;
    }
}

} // namespace jitscope
