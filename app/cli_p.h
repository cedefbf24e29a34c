#pragma once

// What the subcommands of jitscope-cli share (app/cli_*.cpp): the arguments, the error they throw, loading the file,
// choosing the function, the input sets and run options, writing the output.

#include "report/modelinfo.h"
#include "report/inputset.h"
#include "report/runvalues.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QTextStream>
#include <QVector>

namespace jitscope::cli {

/// Ends the command with exit status 2 and its text as the one error line.
struct CliError
{
    QString text;
};

/// The arguments a command has not taken yet.
class Args
{
public:
    explicit Args(QStringList args)
        : m_args(std::move(args))
    { }

    /// Takes "--name VALUE" or "--name=VALUE"; repeated options accumulate.
    QStringList takeValues(const QStringList& names)
    {
        QStringList values;
        for (int i = 0; i < m_args.size();) {
            const QString a = m_args[i];
            bool matched = false;
            for (const QString& n : names) {
                if (a == n) {
                    if (i + 1 >= m_args.size())
                        throw CliError { QStringLiteral("option %1 needs a value").arg(n) };
                    values << m_args[i + 1];
                    m_args.remove(i, 2);
                    matched = true;
                    break;
                }
                if (a.startsWith(n + QLatin1Char('='))) {
                    values << a.mid(n.size() + 1);
                    m_args.remove(i);
                    matched = true;
                    break;
                }
            }
            if (!matched)
                ++i;
        }
        return values;
    }
    QString takeValue(const QStringList& names, const QString& def = {})
    {
        const QStringList v = takeValues(names);
        if (v.size() > 1)
            throw CliError { QStringLiteral("option %1 given more than once").arg(names.first()) };
        return v.isEmpty() ? def : v.first();
    }
    bool takeFlag(const QString& name) { return m_args.removeAll(name) > 0; }
    QStringList rest()
    {
        for (const QString& a : m_args)
            if (a.startsWith(QLatin1Char('-')) && a != QLatin1String("-"))
                throw CliError { QStringLiteral("unknown option %1").arg(a) };
        return m_args;
    }

private:
    QStringList m_args;
};

QString fileArgument(Args& args, const QString& command);
void checkFormat(const QString& format, const QStringList& allowed);
ModelInfo load(const QString& path, const LoadOptions& options);
/// load() for the commands that run the model (trace, check, run): an exported program (.pt2) is refused.
ModelInfo loadRunnable(const QString& path, const LoadOptions& options, const QString& command);
/// The function --fn names (or the default one). @p specs: the command's --inputs, for trace, check and run, whose
/// tuple or list arguments may make a def compile that does not as written.
const FunctionInfo& selectFunction(const ModelInfo& model, const QString& name, const QStringList* specs = nullptr);
/// To @p outPath (a regular file replaced whole or not at all), or to @p out when it is empty or "-".
void writeOutput(const QByteArray& data, const QString& outPath, QTextStream& out);
/// --max-memory: a positive, finite size of at most 1 TiB, with an optional K, M or G suffix.
qint64 parseBytes(const QString& text);
/// --timeout: a positive, finite number of seconds, at most a week.
int parseTimeoutMs(const QString& text);
/// The input sets of --inputs; a malformed SET is reported with a caret.
QVector<InputSet> parseInputSets(const QStringList& specs);
/// The input sets of --inputs, or the file's own.
QVector<InputSet> inputSets(const QStringList& specs, const ModelInfo& model);
/// --seed, --max-memory, --timeout and --no-strict.
ExecOptions execOptions(Args& args);

int commandGraph(Args& args, const LoadOptions& options, QTextStream& out); // cli_graph.cpp
int commandList(Args& args, const LoadOptions& options, QTextStream& out, QTextStream& err); // cli_list.cpp
int commandTrace(Args& args, const LoadOptions& options, QTextStream& out); // cli_trace.cpp
int commandCheck(Args& args, const LoadOptions& options, QTextStream& out); // cli_check.cpp
int commandRun(Args& args, const LoadOptions& options, QTextStream& out); // cli_run.cpp
/// `--python`: the file runs under the system's PyTorch (cli_python.cpp, app/pythoncli.cpp).
int pythonCommand(const QString& command, Args& args, const QString& python, QTextStream& out, QTextStream& err);

} // namespace jitscope::cli
