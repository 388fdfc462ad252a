#pragma once

// Waiting for one RemoteFiles result, and the files the file tests look at.
#include "remotefiles.h"
#include "testsupport.h"

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <optional>
#include <sys/stat.h>

namespace opsdeck::test {

/// Starts an operation (`start(files)` returns its id) and waits for its
/// result; nullopt when none came before `deadline`.
template <typename Start>
std::optional<remote::RemoteFileResult>
callFiles(remote::RemoteFiles &files, Start start,
          std::chrono::milliseconds deadline = std::chrono::seconds(60))
{
    std::optional<remote::RemoteFileResult> result;
    quint64 wanted = 0;
    const auto connection = QObject::connect(&files, &remote::RemoteFiles::fileFinished, &files,
                                             [&](quint64 id, const remote::RemoteFileResult &r) {
                                                 if (id == wanted)
                                                     result = r;
                                             });
    wanted = start(files);
    waitUntil([&] { return result.has_value(); }, deadline);
    QObject::disconnect(connection);
    return result;
}

/// Writes `data` to a path given as bytes (QFile would re-encode a
/// non-UTF-8 name).
inline bool writeBytes(const QByteArray &path, const QByteArray &data)
{
    FILE *file = std::fopen(path.constData(), "wb");
    if (!file)
        return false;
    const bool ok =
        std::fwrite(data.constData(), 1, size_t(data.size()), file) == size_t(data.size());
    return std::fclose(file) == 0 && ok;
}

/// lstat(2) of a path given as bytes; st_nlink 0 when it does not exist.
inline struct stat statOf(const QByteArray &path)
{
    struct stat st = {};
    if (::lstat(path.constData(), &st) != 0)
        st = {};
    return st;
}

/// Names in `dir` as raw bytes (readdir: QDir would re-encode non-UTF-8
/// names), "." and ".." left out, sorted.
inline QList<QByteArray> namesIn(const QByteArray &dir)
{
    QList<QByteArray> names;
    if (DIR *d = ::opendir(dir.constData())) {
        while (const dirent *entry = ::readdir(d)) {
            const QByteArray name(entry->d_name);
            if (name != "." && name != "..")
                names << name;
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace opsdeck::test
