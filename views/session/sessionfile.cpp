#include "sessionfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <optional>

namespace jitscope {

namespace {

const char kFormat[] = "jitscope-sessions";

/// Every value an array of strings; the first key that is not, else none.
std::optional<QString> badEntry(const QJsonObject& sets)
{
    for (auto it = sets.begin(); it != sets.end(); ++it) {
        if (!it.value().isArray())
            return it.key();
        for (const QJsonValue& v : it.value().toArray())
            if (!v.isString())
                return it.key();
    }
    return std::nullopt;
}

SessionFile corrupt(const QString& problem)
{
    SessionFile f;
    f.status = SessionFile::Status::Corrupt;
    f.problem = problem;
    return f;
}

} // namespace

SessionFile readSessionFile(const QByteArray& bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return corrupt(QStringLiteral("not JSON (%1 at byte %2)").arg(error.errorString()).arg(error.offset));
    if (!doc.isObject())
        return corrupt(QStringLiteral("not a JSON object"));
    const QJsonObject root = doc.object();
    SessionFile f;
    if (!root.contains(QLatin1String("version"))) {
        // Before version 1: the object itself maps model paths to input sets.
        if (const auto key = badEntry(root))
            return corrupt(QStringLiteral("the input sets of '%1' are not a list of strings").arg(*key));
        f.inputSets = root;
        return f;
    }
    const QJsonValue version = root.value(QLatin1String("version"));
    if (root.value(QLatin1String("format")).toString() != QLatin1String(kFormat) || !version.isDouble()
        || version.toDouble() != double(version.toInt()) || version.toInt() < 1)
        return corrupt(QStringLiteral("not a JitScope session file (format and version)"));
    f.version = version.toInt();
    if (f.version > kSessionFileVersion) {
        f.status = SessionFile::Status::Newer;
        f.problem = QStringLiteral("written by a newer JitScope (version %1; this one reads up to %2)")
                        .arg(f.version)
                        .arg(kSessionFileVersion);
        return f;
    }
    const QJsonValue sets = root.value(QLatin1String("inputSets"));
    if (!sets.isObject())
        return corrupt(QStringLiteral("no inputSets object"));
    if (const auto key = badEntry(sets.toObject()))
        return corrupt(QStringLiteral("the input sets of '%1' are not a list of strings").arg(*key));
    f.inputSets = sets.toObject();
    return f;
}

QByteArray writeSessionFile(const QJsonObject& inputSets)
{
    const QJsonObject root { { QStringLiteral("format"), QLatin1String(kFormat) },
        { QStringLiteral("version"), kSessionFileVersion }, { QStringLiteral("inputSets"), inputSets } };
    return QJsonDocument(root).toJson();
}

} // namespace jitscope
