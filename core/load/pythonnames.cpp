// The names a .py file uses without defining them, as Python's resolver resolves them: the table of torch's
// functions recorded by resources/gen_torch_functions.py, math's constants, Python's builtin exceptions.

#include "load/pythonnames_p.h"

#include <QFile>
#include <QList>
#include <QSet>

#include <cmath>
#include <limits>

namespace jitscope {

const TorchNameTable& torchNames()
{
    static const TorchNameTable table = [] {
        TorchNameTable t;
        QFile file(QStringLiteral(":/jitscope/torch_functions.txt"));
        if (!file.open(QIODevice::ReadOnly))
            return t;
        const QList<QByteArray> lines = file.readAll().split('\n');
        for (int i = 0; i < lines.size(); ++i) {
            const QByteArray& line = lines[i];
            if (line.startsWith("builtin ")) {
                const QList<QByteArray> parts = line.split(' ');
                if (parts.size() == 3)
                    t.builtins.insert(QString::fromLatin1(parts[1]), parts[2].toStdString());
            } else if ((line.startsWith("function ") || line.startsWith("overload ")) && i + 2 < lines.size()) {
                const QList<QByteArray> parts = line.split(' ');
                TorchNameTable::Function f;
                f.qualifiedName = parts.value(2).toStdString();
                f.schema = lines[i + 1].mid(7).toStdString();
                std::string graph;
                int j = i + 3;
                for (; j < lines.size() && lines[j] != "end"; ++j)
                    graph += lines[j].toStdString() + "\n";
                f.graph = graph;
                if (line.startsWith("overload "))
                    t.overloads[QString::fromLatin1(parts.value(1))].push_back(f);
                else
                    t.functions.insert(QString::fromLatin1(parts.value(1)), f);
                i = j;
            } else if (line.startsWith("dispatch ")) {
                const QList<QByteArray> parts = line.split(' ');
                if (parts.size() != 7)
                    continue;
                const QString path = QString::fromLatin1(parts[1]);
                const QString module = path.section(QLatin1Char('.'), 0, -2);
                TorchNameTable::Dispatch d;
                d.argName = parts[2].toStdString();
                d.index = parts[3].toULong();
                d.defaultValue = parts[4] == "1";
                d.ifTrue = module + QLatin1Char('.') + QString::fromLatin1(parts[5]);
                d.ifFalse = module + QLatin1Char('.') + QString::fromLatin1(parts[6]);
                t.dispatches.insert(path, d);
            }
        }
        return t;
    }();
    return table;
}

std::optional<double> mathConstant(const QString& name)
{
    if (name == QLatin1String("pi"))
        return M_PI;
    if (name == QLatin1String("e"))
        return M_E;
    if (name == QLatin1String("tau"))
        return 2 * M_PI;
    if (name == QLatin1String("inf"))
        return std::numeric_limits<double>::infinity();
    if (name == QLatin1String("nan"))
        return std::numeric_limits<double>::quiet_NaN();
    return std::nullopt;
}

bool isBuiltinException(const QString& name)
{
    static const QSet<QString> names = {
        QStringLiteral("Exception"),
        QStringLiteral("ValueError"),
        QStringLiteral("RuntimeError"),
        QStringLiteral("TypeError"),
        QStringLiteral("IndexError"),
        QStringLiteral("KeyError"),
        QStringLiteral("AssertionError"),
        QStringLiteral("NotImplementedError"),
        QStringLiteral("ZeroDivisionError"),
        QStringLiteral("AttributeError"),
        QStringLiteral("ArithmeticError"),
        QStringLiteral("OverflowError"),
        QStringLiteral("LookupError"),
        QStringLiteral("StopIteration"),
        QStringLiteral("FloatingPointError"),
        QStringLiteral("ImportError"),
        QStringLiteral("OSError"),
        QStringLiteral("UserWarning"),
    };
    return names.contains(name);
}

} // namespace jitscope
