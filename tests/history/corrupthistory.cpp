#include "corrupthistory.h"

#include "historywriter.h"

#include <QFile>
#include <gtest/gtest.h>

namespace opsdeck::test {

QByteArray writeCorruptHistory(const QString &path)
{
    {
        history::HistoryWriter writer(path);
        QString error;
        if (!writer.start(&error)) {
            ADD_FAILURE() << error.toStdString();
            return {};
        }
        for (int series = 0; series < 20; ++series)
            for (int i = 0; i < 50; ++i)
                writer.append(QStringLiteral("engine"), QStringLiteral("k%1").arg(series),
                              QStringLiteral("ms"), 1'700'000'000'000 + i * 1000, i);
        if (!writer.flush()) {
            ADD_FAILURE() << "the database could not be written";
            return {};
        }
    }
    constexpr qint64 page = 4096;
    QFile file(path);
    if (file.size() < 4 * page || !file.open(QIODevice::ReadWrite) || !file.seek(3 * page)) {
        ADD_FAILURE() << "no fourth page in " << path.toStdString();
        return {};
    }
    QByteArray garbage(page, '\0');
    for (qsizetype i = 0; i < garbage.size(); ++i)
        garbage[i] = static_cast<char>((i * 131 + 7) % 251);
    file.write(garbage);
    file.close();
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

} // namespace opsdeck::test
