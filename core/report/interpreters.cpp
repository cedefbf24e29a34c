// Which Python runs a user's .py file, and the interpreters found on the machine.

#include "report/interpreters.h"
#include "report/modelinfo.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

namespace jitscope {

namespace {

constexpr int kAskMs = 10000; // one child run that imports torch: seconds when its files are cold

bool isExecutable(const QString& path)
{
    const QFileInfo info(path);
    return !path.isEmpty() && info.isFile() && info.isExecutable();
}

/// The python of an environment's folder (a venv's bin/python, a conda env's bin/python).
QString environmentPython(const QString& prefix)
{
    for (const char* name : { "bin/python", "bin/python3" }) {
        const QString path = QDir(prefix).filePath(QLatin1String(name));
        if (isExecutable(path))
            return path;
    }
    return {};
}

struct TorchAnswer
{
    QString version;
    QString error;
};

TorchAnswer askTorch(const QString& python)
{
    static QMutex mutex;
    static QHash<QString, TorchAnswer> answers;
    {
        QMutexLocker lock(&mutex);
        if (auto it = answers.constFind(python); it != answers.constEnd())
            return *it;
    }
    TorchAnswer answer;
    QProcess p;
    p.start(python, { QStringLiteral("-c"), QStringLiteral("import torch; print(torch.__version__)") });
    if (!p.waitForStarted(kAskMs)) {
        answer.error = QStringLiteral("cannot start it: %1").arg(p.errorString());
    } else if (!p.waitForFinished(kAskMs)) {
        p.kill();
        p.waitForFinished(1000);
        answer.error = QStringLiteral("`import torch` took more than %1 s").arg(kAskMs / 1000);
    } else if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QStringList lines = QString::fromUtf8(p.readAllStandardError()).trimmed().split(QLatin1Char('\n'));
        answer.error = lines.constLast().trimmed();
        if (answer.error.isEmpty())
            answer.error = QStringLiteral("`import torch` failed");
    } else {
        answer.version = QString::fromUtf8(p.readAllStandardOutput()).trimmed().section(QLatin1Char('\n'), -1);
    }
    QMutexLocker lock(&mutex);
    answers.insert(python, answer);
    return answer;
}

PythonInterpreter resolveOnce()
{
    const QString user = qEnvironmentVariable("JITSCOPE_PYTHON");
    if (!user.isEmpty())
        return { user, QStringLiteral("JITSCOPE_PYTHON") };
    if (const QString venv = environmentPython(qEnvironmentVariable("VIRTUAL_ENV"));
        !venv.isEmpty() && !qEnvironmentVariableIsEmpty("VIRTUAL_ENV"))
        return { venv, QStringLiteral("VIRTUAL_ENV") };
    if (const QString conda = environmentPython(qEnvironmentVariable("CONDA_PREFIX"));
        !conda.isEmpty() && !qEnvironmentVariableIsEmpty("CONDA_PREFIX"))
        return { conda, QStringLiteral("CONDA_PREFIX") };
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (!onPath.isEmpty() && askTorch(onPath).error.isEmpty())
        return { onPath, QStringLiteral("PATH") };
    if (const QString engine = enginePython(); !engine.isEmpty())
        return { engine, QStringLiteral("engine") };
    // Installed, there is no engine's Python: python3 on PATH all the same, whose want of torch the run says.
    return { onPath.isEmpty() ? QStringLiteral("/usr/bin/python3") : onPath, QStringLiteral("PATH") };
}

} // namespace

PythonInterpreter resolvePython()
{
    static const PythonInterpreter resolved = resolveOnce();
    return resolved;
}

PythonInterpreter choosePython(const QString& given)
{
    if (!given.isEmpty())
        return { given, QStringLiteral("option") };
    return resolvePython();
}

QString torchVersionOf(const QString& python, QString* error)
{
    const TorchAnswer answer = askTorch(python);
    if (error)
        *error = answer.error;
    return answer.version;
}

QVector<PythonInterpreter> findInterpreters()
{
    QVector<PythonInterpreter> found;
    QHash<QString, int> seen;
    auto add = [&](const QString& path, const QString& chosenBy) {
        if (!isExecutable(path))
            return;
        // A venv's python is a symbolic link to its base: the folder tells them apart, not the target.
        const QString key = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath() + QLatin1Char('/')
            + QFileInfo(path).fileName();
        if (seen.contains(key))
            return;
        seen.insert(key, int(found.size()));
        found.push_back({ path, chosenBy });
    };
    auto addEnvironments = [&](const QString& folder, const QString& chosenBy) {
        const QDir dir(folder);
        for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            add(environmentPython(dir.filePath(name)), chosenBy);
    };
    if (const QString user = qEnvironmentVariable("JITSCOPE_PYTHON"); !user.isEmpty())
        add(user, QStringLiteral("JITSCOPE_PYTHON"));
    if (!qEnvironmentVariableIsEmpty("VIRTUAL_ENV"))
        add(environmentPython(qEnvironmentVariable("VIRTUAL_ENV")), QStringLiteral("VIRTUAL_ENV"));
    const QString condaPrefix = qEnvironmentVariable("CONDA_PREFIX");
    if (!condaPrefix.isEmpty())
        add(environmentPython(condaPrefix), QStringLiteral("CONDA_PREFIX"));
    add(QStandardPaths::findExecutable(QStringLiteral("python3")), QStringLiteral("PATH"));
    const QString home = QDir::homePath();
    addEnvironments(home + QStringLiteral("/.virtualenvs"), QStringLiteral("virtualenvs"));
    QStringList condaRoots;
    if (!condaPrefix.isEmpty()) {
        // An env's prefix is ROOT/envs/NAME; the base env's is ROOT itself.
        const QDir prefix(condaPrefix);
        condaRoots << (QFileInfo(prefix.absolutePath()).dir().dirName() == QLatin1String("envs")
                ? QFileInfo(QFileInfo(prefix.absolutePath()).absolutePath()).absolutePath()
                : prefix.absolutePath());
    }
    for (const char* root : { "/miniconda3", "/anaconda3", "/miniforge3", "/mambaforge" })
        condaRoots << home + QLatin1String(root);
    for (const QString& root : std::as_const(condaRoots)) {
        add(environmentPython(root), QStringLiteral("conda"));
        addEnvironments(root + QStringLiteral("/envs"), QStringLiteral("conda"));
    }
    const QString pyenv = qEnvironmentVariable("PYENV_ROOT", home + QStringLiteral("/.pyenv"));
    addEnvironments(pyenv + QStringLiteral("/versions"), QStringLiteral("pyenv"));
    add(enginePython(), QStringLiteral("engine"));
    for (PythonInterpreter& p : found) {
        const TorchAnswer answer = askTorch(p.path);
        p.torch = answer.version;
        p.torchError = answer.error;
    }
    return found;
}

QString missingModule(const QString& errorMessage)
{
    static const QRegularExpression noModule(QStringLiteral("ModuleNotFoundError: No module named '([^']+)'"));
    return noModule.match(errorMessage).captured(1);
}

QString chosenByText(const QString& chosenBy)
{
    // PATH: the default takes python3 on PATH when it imports torch, or (installed, with no engine's Python) as the
    // last resort; the list names it whatever it imports, and says its torch beside.
    static const QHash<QString, QString> texts = {
        { QStringLiteral("option"), QStringLiteral("given with --python") },
        { QStringLiteral("JITSCOPE_PYTHON"), QStringLiteral("chosen by $JITSCOPE_PYTHON") },
        { QStringLiteral("VIRTUAL_ENV"), QStringLiteral("chosen as the active virtual environment") },
        { QStringLiteral("CONDA_PREFIX"), QStringLiteral("chosen as the active conda environment") },
        { QStringLiteral("PATH"), QStringLiteral("chosen as python3 on PATH") },
        { QStringLiteral("engine"), QStringLiteral("chosen as the engine's torch's Python") },
        { QStringLiteral("folder"), QStringLiteral("chosen for its folder") },
        { QStringLiteral("virtualenvs"), QStringLiteral("found in ~/.virtualenvs") },
        { QStringLiteral("conda"), QStringLiteral("found among conda's environments") },
        { QStringLiteral("pyenv"), QStringLiteral("found among pyenv's versions") },
    };
    return texts.value(chosenBy, chosenBy);
}

QString interpreterText(const PythonInterpreter& python)
{
    QStringList notes;
    if (!python.torch.isEmpty())
        notes << QStringLiteral("torch %1").arg(python.torch);
    if (!python.chosenBy.isEmpty())
        notes << chosenByText(python.chosenBy);
    return notes.isEmpty() ? python.path : QStringLiteral("%1 (%2)").arg(python.path, notes.join(QStringLiteral(", ")));
}

} // namespace jitscope
