#pragma once

// The file of input sets edited per model (sessions.json), read and written without a QObject or a widget, so that
// the reader can be fuzzed on its own (tests/fuzz/fuzz_sessionfile.cpp).

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace jitscope {

/// The version SessionStore writes; a file of a later version is set aside, never read.
constexpr int kSessionFileVersion = 1;

struct SessionFile
{
    enum class Status { Ok, Corrupt, Newer };
    Status status = Status::Ok;
    QString problem; ///< why it is not Ok, for the message
    int version = 0; ///< 0: the unversioned object of JitScope before version 1
    QJsonObject inputSets; ///< model path -> array of SET texts (only arrays of strings)
};

/// Reads @p bytes as written by writeSessionFile() (or the unversioned { path: [SET, ...] } before it). Anything
/// else is Corrupt (or Newer, for a later version), with the reason.
SessionFile readSessionFile(const QByteArray& bytes);

/// The file's contents for @p inputSets, at kSessionFileVersion.
QByteArray writeSessionFile(const QJsonObject& inputSets);

} // namespace jitscope
