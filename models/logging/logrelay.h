#pragma once

#include <QObject>
#include <QString>
#include <memory>

namespace spdlog::sinks {
class sink;
}

namespace opsdeck::logging {

/// Forwards every spdlog message to Qt as a signal, so the window's log
/// dock shows what the models log. The sink may be called from any thread;
/// lineLogged() is emitted from that thread, so connect with a context
/// object in the GUI thread (the connection is then queued).
class LogRelay : public QObject
{
    Q_OBJECT
public:
    explicit LogRelay(QObject *parent = nullptr);
    ~LogRelay() override;

    /// The spdlog sink to add to a logger. It holds a weak link to the
    /// relay: messages logged after the relay is gone are dropped.
    std::shared_ptr<spdlog::sinks::sink> sink();

Q_SIGNALS:
    /// `level` is spdlog's level name ("info", "warning", "error"...);
    /// `line` the formatted message with its time.
    void lineLogged(const QString &level, const QString &line);

private:
    std::shared_ptr<spdlog::sinks::sink> m_sink;
};

/// Sets the default logger: stderr, plus `extraSink` when given.
void installDefaultLogger(const std::shared_ptr<spdlog::sinks::sink> &extraSink = nullptr);

} // namespace opsdeck::logging
